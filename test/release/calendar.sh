#!/usr/bin/env bash
# Calendar cases against the static release binary (named time zones come from the system
# zoneinfo, which a --static-swift-stdlib build must read itself: STYLE.md). The clock is set
# with faketime; --demo answers every request with sample data for the dates asked, so the
# dates the agent asks for and publishes are what is checked.
set -uo pipefail
bin=${1:?usage: calendar.sh path/to/breeze-agent}
work=$(mktemp -d /tmp/breeze-calendar.XXXXXX)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0

check() { # name, expected substring, haystack
    if grep -qF -- "$2" <<<"$3"; then passed=$((passed + 1)); echo "ok: $1"
    else failed=$((failed + 1)); echo "FAIL: $1: expected to find: $2"; fi
}

run_at() { # utc-time, timezone, [years]
    cat >"$work/config.yaml" <<YAML
mqtt: {host: localhost}
locations:
  - {id: here, latitude: 10, longitude: 10, timezone: "$2"}
climate: {years: [${3:-1980, 1990, 2000}]}
state_dir: $work/state
YAML
    TZ=UTC faketime "$1" "$bin" --demo print --config "$work/config.yaml" 2>"$work/stderr"
}

# Europe/Berlin is UTC+1 in winter: 23:30 UTC on the leap day is already 1 March there.
out=$(run_at "2028-02-29 23:30:00" Europe/Berlin)
check "Berlin local date after UTC midnight" '"date":"2028-03-01"' "$out"
check "Berlin archive date for 1980" '"year":1980,"date":"1980-03-01"' "$out"
check "Berlin current year point" 'breeze-demo/here/climate/2028	' "$out"

# Los Angeles is UTC-8: 07:00 UTC on 1 March is still the leap day there.
out=$(run_at "2028-03-01 07:00:00" America/Los_Angeles)
check "Los Angeles local leap day" '"date":"2028-02-29"' "$out"
check "leap year keeps 29 February" '"year":1980,"date":"1980-02-29"' "$out"
check "non-leap year falls back to 28 February" '"year":1990,"date":"1990-02-28"' "$out"
check "leap day pollen day 0" '"date":"2028-02-29","region"' "$out"

# Kiritimati is UTC+14: noon UTC is already tomorrow.
out=$(run_at "2026-11-30 12:00:00" Pacific/Kiritimati)
check "Kiritimati is a day ahead" '"date":"2026-12-01"' "$out"
check "Kiritimati current year source" '"year":2026,"date":"2026-12-01"' "$out"

# Pago Pago is UTC-11: 05:00 UTC on 1 January is still New Year's Eve, so the current year is
# the old one and climate/current follows it.
out=$(run_at "2027-01-01 05:00:00" Pacific/Pago_Pago "1980, 2000")
check "Pago Pago still in the old year" '"date":"2026-12-31"' "$out"
check "current year is 2026 there" 'breeze-demo/here/climate/2026	' "$out"
check "climate/current present" 'breeze-demo/here/climate/current	' "$out"

# DST edge: Europe/Berlin switches to summer time at 01:00 UTC on 26 March 2028; 22:30 UTC on
# 26 March is 00:30 local on 27 March (UTC+2), which a fixed +1 offset would get wrong.
out=$(run_at "2028-03-26 22:30:00" Europe/Berlin)
check "Berlin after the DST switch" '"date":"2028-03-27"' "$out"

# An unknown zone is a configuration error (exit 78) naming the key, not a silent GMT.
run_at "2026-11-30 12:00:00" Mars/Olympus_Mons >/dev/null
code=$?
if [ "$code" -eq 78 ] && grep -q "timezone" "$work/stderr"; then passed=$((passed + 1)); echo "ok: unknown zone refused"
else failed=$((failed + 1)); echo "FAIL: unknown zone: exit $code: $(cat "$work/stderr")"; fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
