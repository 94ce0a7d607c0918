#!/usr/bin/env bash
# `make test-deb`: the package's CI checks. Needs root (it installs, upgrades and purges the
# package on this machine with dpkg; no systemd has to run as PID 1).
#
#   build      two packages: this version, and version+upgradetest1 whose conffile changed
#   inspect    dpkg-deb -I/-c, and what must (not) be inside
#   lintian    no error or warning that is not overridden with a reason
#   install    service user, conffile root:breeze-agent 0640, state dir, unit enabled
#   systemd    systemd-analyze verify, and the security --offline exposure score (<= 2.0)
#   smoke      the unit's ExecStart run in the foreground as the service user against a test
#              broker (and a loopback HTTP server standing in for the APIs)
#   upgrade    an edited config survives an upgrade that changes the conffile; an unedited one
#              is replaced
#   purge      state, config, statoverride and systemd links gone
#   render     the breeze-agent-render package (scripts/deb-render.sh): contents, Depends,
#              lintian, the agent linking no Cairo/libjpeg/X11, the installed helper rendering
#
# BREEZE_SMOKE picks the smoke command: run (default: the unit's ExecStart verbatim, stopped
# with SIGTERM), once-http (`once` against the loopback APIs), once-demo (`--demo once`), or
# check-config. Every check is reported; the script fails at the end if any check failed.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "test-deb: run as root (dpkg -i / --purge on this machine)" >&2; exit 1; }

scripts/deps.sh dpkg-dev binutils lintian systemd adduser python3 >&2

smoke=${BREEZE_SMOKE:-run}
max_exposure=${BREEZE_MAX_EXPOSURE:-2.0}
unit=/lib/systemd/system/breeze-agent.service
conffile=/etc/breeze-agent/config.yaml
state=/var/lib/breeze-agent
user=breeze-agent

work=$(mktemp -d /tmp/breeze-deb.XXXXXX)
chmod 0755 "$work"   # the service user reads the smoke test's files from here
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

failures=0
passes=0
step() { printf '\n== %s\n' "$*"; }
ok() { passes=$((passes + 1)); echo "ok   - $*"; }
bad() { failures=$((failures + 1)); echo "FAIL - $*"; }
# check DESCRIPTION COMMAND...: runs the command, records the result, never stops the script.
check() { local what=$1; shift; if "$@" >/dev/null 2>&1; then ok "$what"; else bad "$what"; fi; }
stat_is() { [ "$(stat -c '%U:%G %a' "$1" 2>/dev/null)" = "$2" ]; }
installed_version() { dpkg-query -W -f='${Status} ${Version}' breeze-agent 2>/dev/null || true; }
purge_if_installed() {
    if dpkg-query -W -f='${Status}' breeze-agent 2>/dev/null | grep -qv '^unknown ok not-installed'; then
        dpkg --purge breeze-agent >/dev/null
    fi
}
broker_get() {   # broker_get PORT TOPIC: the retained payload, empty when none
    mosquitto_sub -h 127.0.0.1 -p "$1" -t "$2" -C 1 -W 2 --retained-only 2>/dev/null || true
}

# ---------------------------------------------------------------------------------------------
step "build"
deb1=$(scripts/deb.sh)
version=$(dpkg-deb -f "$deb1" Version)
version2=${version}+upgradetest1
# The second package ships a different conffile, so dpkg has to decide between it and an
# administrator's edits (the case that loses configs when packaging is wrong).
cp config/breeze-agent.example.yaml "$work/config-v2.yaml"
printf '\n# Added in %s (upgrade test): a changed conffile.\n' "$version2" >> "$work/config-v2.yaml"
deb2=$(BREEZE_VERSION=$version2 BREEZE_DEB_CONFIG=$work/config-v2.yaml scripts/deb.sh)
size_bytes=$(stat -c %s "$deb1")
installed_kib=$(dpkg-deb -f "$deb1" Installed-Size)
echo "package: $deb1, $size_bytes bytes ($(du -h "$deb1" | cut -f1)), Installed-Size $installed_kib KiB"
echo "upgrade package: $deb2"

# ---------------------------------------------------------------------------------------------
step "inspect (dpkg-deb -I / -c)"
dpkg-deb -I "$deb1"
dpkg-deb -c "$deb1" | tee "$work/contents"
has_entry() { grep -qE "^$1 +root/root +[0-9]+ .* \\./$2\$" "$work/contents"; }
check "binary /usr/bin/breeze-agent 0755 root" has_entry '-rwxr-xr-x' 'usr/bin/breeze-agent'
check "conffile shipped 0640, not world-readable" has_entry '-rw-r-----' 'etc/breeze-agent/config.yaml'
check "systemd unit in /lib/systemd/system" has_entry '-rw-r--r--' 'lib/systemd/system/breeze-agent.service'
check "copyright in /usr/share/doc" has_entry '-rw-r--r--' 'usr/share/doc/breeze-agent/copyright'
check "changelog.gz in /usr/share/doc" has_entry '-rw-r--r--' 'usr/share/doc/breeze-agent/changelog.gz'
check "installing.md in /usr/share/doc" has_entry '-rw-r--r--' 'usr/share/doc/breeze-agent/installing.md'
check "man page" has_entry '-rw-r--r--' 'usr/share/man/man1/breeze-agent.1.gz'
check "conffiles lists the config" grep -qx "$conffile" <(dpkg-deb -I "$deb1" conffiles)
depends=$(dpkg-deb -f "$deb1" Depends)
# One name a line; an alternative (libcurl4 | libcurl4t64, Debian 12 | 13) counts for both names.
dep_names=$(sed 's/ *([^)]*)//g; s/ *[,|] */\n/g' <<<"$depends")
for dep in libc6 libcurl4 libmosquitto1 libyaml-0-2 libstdc++6 libgcc-s1 ca-certificates tzdata; do
    check "Depends has $dep" grep -qxF "$dep" <<<"$dep_names"
done
check "Depends has nothing from the Swift toolchain" bash -c "! grep -qi swift <<<'$depends'"
# The HTTP server's library is loaded on demand (dlopen), so it is recommended, not depended on.
check "Recommends has libmicrohttpd12" grep -qxF libmicrohttpd12 <(dpkg-deb -f "$deb1" Recommends | tr ",|" "\n\n" | sed "s/^ *//; s/ *$//")
check "Recommends has its Debian 13 name libmicrohttpd12t64" \
    grep -qxF libmicrohttpd12t64 <(dpkg-deb -f "$deb1" Recommends | tr ",|" "\n\n" | sed "s/^ *//; s/ *$//")
check "Depends offers libcurl4t64 (Debian 13) beside libcurl4" grep -qE 'libcurl4 \([^)]*\) \| libcurl4t64 \(' <<<"$depends"
check "Depends has no libmicrohttpd" bash -c "! grep -qi microhttpd <<<'$depends'"
dpkg-deb -x "$deb1" "$work/x"
check "binary is stripped" bash -c "file '$work/x/usr/bin/breeze-agent' | grep -q ', stripped'"
check "binary links no Swift shared library" \
    bash -c "! readelf -dW '$work/x/usr/bin/breeze-agent' | grep NEEDED | grep -qi swift"
check "binary links no libmicrohttpd (dlopen on demand)" \
    bash -c "! readelf -dW '$work/x/usr/bin/breeze-agent' | grep NEEDED | grep -qi microhttpd"
check "binary has full RELRO (BIND_NOW)" bash -c "readelf -dW '$work/x/usr/bin/breeze-agent' | grep -q BIND_NOW"

# ---------------------------------------------------------------------------------------------
step "lintian"
# Root is how CI runs; lintian only warns about it. The listing shows the overridden findings
# (O:, with their reasons); the verdict comes from a run without --show-overrides, which would
# otherwise count them as failures.
lintian --pedantic --display-info --show-overrides "$deb1" 2>&1 | grep -v 'running with root privileges' \
    | tee "$work/lintian" || true
check "lintian --pedantic: no error or warning that is not overridden" \
    lintian --pedantic --display-info --fail-on error,warning "$deb1"

# ---------------------------------------------------------------------------------------------
step "install"
purge_if_installed
# A state directory someone else owns (a local user who made it before the install, with a link
# to /etc/shadow inside), or a link in its place: not adopted. The install stops with one
# message and nothing is handed over; after it is moved away, `dpkg --configure -a` finishes.
shadow_before=$(stat -c '%U:%G %a' /etc/shadow)
for case in foreign link; do
    rm -rf "$state"
    if [ "$case" = foreign ]; then
        install -d -o nobody -g nogroup -m 0755 "$state"
        ln -s /etc/shadow "$state/calls.json"
        setpriv --reuid=nobody --regid=nogroup --clear-groups -- mkdir "$state/responses"
    else
        ln -s /etc "$state"
    fi
    if dpkg -i "$deb1" </dev/null >"$work/adopt-$case.log" 2>&1; then
        bad "a $case state directory: the install went on"
    else
        ok "a $case state directory stops the install: $(grep -m1 'is not a folder only root' "$work/adopt-$case.log" | cut -c1-160)"
    fi
    check "a $case state directory: /etc/shadow untouched ($(stat -c '%U:%G %a' /etc/shadow))" test "$(stat -c '%U:%G %a' /etc/shadow)" = "$shadow_before"
    check "a $case state directory: /etc still root's" test "$(stat -c %U /etc)" = root
    rm -rf "$state"
    check "a $case state directory moved away: dpkg --configure -a finishes" dpkg --configure -a
    purge_if_installed
done
# What `breeze-agent print` run by hand as root leaves (its default state_dir): a first install
# adopts it for the service user.
rm -rf "$state"
install -d -m 0750 "$state"
install -d -m 0750 "$state/responses"
printf '{}' >"$state/calls.json"
chmod 0600 "$state/calls.json"
dpkg -i "$deb1" </dev/null
check "installed $version" grep -q "install ok installed $version\$" <<<"$(installed_version)"
check "system user $user exists" getent passwd "$user"
check "system group $user exists" getent group "$user"
check "user has no login shell" bash -c "getent passwd $user | grep -q ':/usr/sbin/nologin$'"
check "user is a system account (uid < 1000)" bash -c "[ \$(id -u $user) -lt 1000 ]"
check "config is root:$user 0640" stat_is "$conffile" "root:$user 640"
check "dpkg-statoverride records the config" bash -c "dpkg-statoverride --list $conffile | grep -qx 'root $user 640 $conffile'"
check "state dir is $user:$user 0750" stat_is "$state" "$user:$user 750"
check "a root-made state dir is adopted: its files too" stat_is "$state/calls.json" "$user:$user 600"
check "a root-made state dir is adopted: its folders too" stat_is "$state/responses" "$user:$user 750"
check "unit installed" test -f "$unit"
check "unit enabled (multi-user.target.wants link)" test -L /etc/systemd/system/multi-user.target.wants/breeze-agent.service
check "service user can read the config" setpriv --reuid="$user" --regid="$user" --init-groups -- test -r "$conffile"
check "other users cannot read the config" setpriv --reuid=nobody --regid=nogroup --clear-groups -- bash -c "! test -r $conffile"
check "breeze-agent --version names $version" bash -c "/usr/bin/breeze-agent --version | grep -qF '$version'"

# ---------------------------------------------------------------------------------------------
step "systemd-analyze verify"
if systemd-analyze verify "$unit" >"$work/verify" 2>&1 && ! grep -q . "$work/verify"; then
    ok "systemd-analyze verify: clean"
else
    cat "$work/verify"; bad "systemd-analyze verify reported problems"
fi

step "systemd-analyze security --offline=true"
systemd-analyze security --offline=true "$unit" >"$work/security" 2>&1 || true
grep -E '^✗' "$work/security" || true
exposure=$(sed -n 's/.*Overall exposure level for breeze-agent.service: \([0-9.]*\).*/\1/p' "$work/security")
echo "exposure: ${exposure:-?} (limit $max_exposure)"
check "exposure ${exposure:-?} <= $max_exposure" awk -v e="${exposure:-99}" -v m="$max_exposure" 'BEGIN { exit !(e <= m) }'

# ---------------------------------------------------------------------------------------------
step "smoke: the unit's ExecStart as $user in the foreground ($smoke)"
mqtt_port=$(scripts/free-port.sh)
sed "s/@PORT@/$mqtt_port/" test/mosquitto/test.conf > "$work/mosquitto.conf"
mosquitto -c "$work/mosquitto.conf" >"$work/mosquitto.log" 2>&1 &
pids+=($!)
http_port=$(scripts/free-port.sh)
# The APIs, on loopback: an Open-Meteo air-quality answer for the next 4 local days (birch
# 30 grains/m³ every hour: value 3, Moderate) and a one-day climate answer. python's
# http.server ignores the query string, so each endpoint is one file.
python3 - "$work/www" <<'EOF'
import json, os, sys, datetime, zoneinfo
root = sys.argv[1]
zone = zoneinfo.ZoneInfo("Europe/Berlin")
today = datetime.datetime.now(zone).date()
hours = [f"{today + datetime.timedelta(days=d)}T{h:02d}:00" for d in range(4) for h in range(24)]
plants = {p: [0.0] * len(hours) for p in ["alder", "grass", "mugwort", "olive", "ragweed"]}
plants["birch"] = [30.0] * len(hours)
aq = {"latitude": 52.5, "longitude": 13.4, "timezone": "Europe/Berlin", "utc_offset_seconds": 3600,
      "hourly_units": {"time": "iso8601", **{f"{p}_pollen": "grains/m³" for p in plants}},
      "hourly": {"time": hours, **{f"{p}_pollen": v for p, v in plants.items()}}}
daily = {"latitude": 52.5, "longitude": 13.4, "timezone": "Europe/Berlin", "utc_offset_seconds": 3600,
         "daily_units": {"time": "iso8601", "temperature_2m_max": "°C"},
         "daily": {"time": [str(today)], "temperature_2m_max": [7.5]}}
for path, body in [("air_quality/air-quality", aq), ("forecast/forecast", daily), ("archive/archive", daily)]:
    os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
    with open(os.path.join(root, path), "w") as f:
        json.dump(body, f)
EOF
python3 -m http.server --bind 127.0.0.1 --directory "$work/www" "$http_port" >"$work/http.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do
    (exec 3<>"/dev/tcp/127.0.0.1/$mqtt_port") 2>/dev/null && (exec 3<>"/dev/tcp/127.0.0.1/$http_port") 2>/dev/null && break
    sleep 0.1
done

# The administrator's edit: the installed config now points at the test broker and APIs.
# (It is also the edited conffile the upgrade step below must keep.)
base=http://127.0.0.1:$http_port
sed -i -e "s|^  host: localhost |  host: 127.0.0.1 |" -e "s|^  # port: 1883 |  port: $mqtt_port |" \
    -e "s|^  pollen: https://pollen.googleapis.com/v1|  pollen: $base/pollen|" \
    -e "s|^  air_quality: https://air-quality-api.open-meteo.com/v1|  air_quality: $base/air_quality|" \
    -e "s|^  climate_archive: https://archive-api.open-meteo.com/v1|  climate_archive: $base/archive|" \
    -e "s|^  climate_forecast: https://api.open-meteo.com/v1|  climate_forecast: $base/forecast|" \
    "$conffile"
check "test config points at the test broker" grep -q "^  port: $mqtt_port " "$conffile"

# ExecStart exactly as the unit has it, with the unit's user, umask and no inherited environment.
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
read -r -a command <<<"$exec_start"
case "$smoke" in
    run) ;;
    once-http) command[1]=once ;;
    once-demo) command=("${command[0]}" --demo once "${command[@]:2}") ;;
    check-config) command[1]=check-config ;;
    *) echo "test-deb: BREEZE_SMOKE must be run, once-http, once-demo or check-config" >&2; exit 1 ;;
esac
as_service=(setpriv --reuid="$user" --regid="$user" --init-groups --no-new-privs --inh-caps=-all
    --bounding-set=-all -- env -i -C / PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8
    sh -c 'umask 0077 && exec "$@"' sh)
echo "running as $user: ${command[*]}"
mosquitto_sub -h 127.0.0.1 -p "$mqtt_port" -v -t 'breeze/#' -t 'breeze-demo/#' >"$work/seen" 2>/dev/null &
pids+=($!)
sleep 0.3
started=$(date +%s)
set +e
if [ "$smoke" = run ]; then
    # A daemon: give it 8 s to connect and publish, then stop it the way systemd does.
    timeout --preserve-status -s TERM -k 5 8 "${as_service[@]}" "${command[@]}" >"$work/agent.out" 2>"$work/agent.err"
else
    timeout -k 5 60 "${as_service[@]}" "${command[@]}" >"$work/agent.out" 2>"$work/agent.err"
fi
rc=$?
set -e
elapsed=$(( $(date +%s) - started ))
sleep 0.5
echo "--- agent stdout"; head -40 "$work/agent.out"
echo "--- agent stderr"; head -40 "$work/agent.err"
echo "--- broker saw $(wc -l <"$work/seen") messages; first lines:"; head -20 "$work/seen"
check "exit status 0 (got $rc after ${elapsed}s)" test "$rc" -eq 0
case "$smoke" in
    run)
        check "SIGTERM: stopped within 2 s (ran ${elapsed}s for an 8 s window)" test "$elapsed" -le 10
        check "published breeze/status online while running" grep -qx 'breeze/status online' "$work/seen"
        check "left breeze/status offline (retained) after SIGTERM" test "$(broker_get "$mqtt_port" breeze/status)" = offline
        check "published birch Moderate from the loopback API" \
            test "$(broker_get "$mqtt_port" breeze/home/pollen/birch/level)" = Moderate
        check "wrote its state under $state" bash -c "[ -n \"\$(ls -A $state)\" ]"
        ;;
    once-http)
        check "published birch Moderate from the loopback API" \
            test "$(broker_get "$mqtt_port" breeze/home/pollen/birch/level)" = Moderate
        check "wrote its state under $state" bash -c "[ -n \"\$(ls -A $state)\" ]"
        ;;
    once-demo)
        check "published retained breeze-demo/ topics" grep -q '^breeze-demo/' "$work/seen"
        ;;
    check-config)
        check "check-config shows the test broker" grep -q "$mqtt_port" "$work/agent.out"
        ;;
esac
check "no file left outside $state by the service user" \
    bash -c "[ -z \"\$(find / -xdev -user $user ! -path '$state' ! -path '$state/*' ! -path '/proc/*' -print -quit 2>/dev/null)\" ]"

# ---------------------------------------------------------------------------------------------
step "upgrade $version -> $version2 with an edited config (dpkg --force-confold)"
printf '# edited by the administrator\n' >> "$conffile"
before=$(sha256sum <"$conffile")
setpriv --reuid="$user" --regid="$user" --init-groups -- touch "$state/upgrade-marker"
dpkg --force-confold -i "$deb2" </dev/null
check "installed $version2" grep -q "install ok installed $version2\$" <<<"$(installed_version)"
check "edited config kept byte for byte" test "$(sha256sum <"$conffile")" = "$before"
check "new conffile set aside as config.yaml.dpkg-dist" grep -q "upgrade test" "$conffile.dpkg-dist"
check "config still root:$user 0640" stat_is "$conffile" "root:$user 640"
check "state kept" test -f "$state/upgrade-marker"
check "unit still enabled" test -L /etc/systemd/system/multi-user.target.wants/breeze-agent.service

# ---------------------------------------------------------------------------------------------
step "purge"
dpkg --purge breeze-agent </dev/null
check "package gone" bash -c "! dpkg-query -W -f='\${Status}' breeze-agent 2>/dev/null | grep -q 'ok installed'"
check "$state removed" test ! -e "$state"
check "/etc/breeze-agent removed (config and .dpkg-dist)" test ! -e /etc/breeze-agent
check "statoverride removed" bash -c "! dpkg-statoverride --list $conffile"
check "unit removed" test ! -e "$unit"
check "enable link removed" test ! -L /etc/systemd/system/multi-user.target.wants/breeze-agent.service
check "deb-systemd-helper state removed" test ! -e /var/lib/systemd/deb-systemd-helper-enabled/breeze-agent.service.dsh-also
echo "kept on purge (Debian practice): account $(getent passwd "$user" || echo '(none)')"

# ---------------------------------------------------------------------------------------------
step "upgrade $version -> $version2 with an unedited config"
dpkg -i "$deb1" </dev/null
check "fresh install after purge: config root:$user 0640" stat_is "$conffile" "root:$user 640"
dpkg -i "$deb2" </dev/null
check "installed $version2" grep -q "install ok installed $version2\$" <<<"$(installed_version)"
check "unedited config replaced by the new one" grep -q "upgrade test" "$conffile"
check "no .dpkg-dist left" test ! -e "$conffile.dpkg-dist"
check "config still root:$user 0640" stat_is "$conffile" "root:$user 640"
dpkg --purge breeze-agent </dev/null
check "purged again" test ! -e /etc/breeze-agent -a ! -e "$state"

# ---------------------------------------------------------------------------------------------
step "render package (breeze-agent-render)"
helper=/usr/libexec/breeze-agent/breeze-agent-render
deb_render=$(scripts/deb-render.sh)
dpkg-deb -c "$deb_render" | tee "$work/render-contents"
check "helper $helper 0755 root" \
    grep -qE '^-rwxr-xr-x +root/root +[0-9]+ .* \./usr/libexec/breeze-agent/breeze-agent-render$' "$work/render-contents"
render_depends=$(dpkg-deb -f "$deb_render" Depends)
render_dep_names=$(sed 's/ *([^)]*)//g; s/ *[,|] */\n/g' <<<"$render_depends")
for dep in libc6 libcairo2 libjpeg62-turbo fonts-dejavu-core; do
    check "render Depends has $dep" grep -qxF "$dep" <<<"$render_dep_names"
done
check "render Depends has nothing from the Swift toolchain" bash -c "! grep -qi swift <<<'$render_depends'"
check "breeze-agent Recommends breeze-agent-render" grep -qw breeze-agent-render <<<"$(dpkg-deb -f "$deb1" Recommends)"
check "breeze-agent links no Cairo, libjpeg or X11" \
    bash -c "! readelf -dW '$work/x/usr/bin/breeze-agent' | grep NEEDED | grep -qiE 'cairo|jpeg|x11|xcb'"
lintian --pedantic --display-info --show-overrides "$deb_render" 2>&1 | grep -v 'running with root privileges' \
    | tee "$work/lintian-render" || true
check "render lintian --pedantic: no error or warning that is not overridden" \
    lintian --pedantic --display-info --fail-on error,warning "$deb_render"
dpkg -i "$deb_render" </dev/null
check "installed helper links no Swift shared library" bash -c "! readelf -dW $helper | grep NEEDED | grep -qi swift"
request='{"kind":"summary","width":296,"height":128,"palette":"bwr","format":"png","content":{"locationName":"Test"}}'
check "installed helper renders a PNG as an unprivileged user" bash -c \
    "runuser -u nobody -- env -i HOME=/nonexistent $helper <<<'$request' | head -c 8 | od -An -tx1 | grep -q '89 50 4e 47 0d 0a 1a 0a'"
check "installed helper refuses a bad size with exit 65" bash -c \
    "runuser -u nobody -- $helper <<<'{\"kind\":\"summary\",\"width\":9999}' >/dev/null 2>&1; [ \$? -eq 65 ]"
dpkg --purge breeze-agent-render </dev/null
check "render package purged" test ! -e "$helper"

# ---------------------------------------------------------------------------------------------
step "summary"
echo "package:  $(basename "$deb1"): $size_bytes bytes ($(du -h "$deb1" | cut -f1)), installed $installed_kib KiB"
echo "depends:  $depends"
echo "render:   $(basename "$deb_render"): $(stat -c %s "$deb_render") bytes, Depends $render_depends"
echo "lintian:  $(grep -cE '^[EW]:' "$work/lintian" || true) errors/warnings, $(grep -cE '^I:' "$work/lintian" || true) info, $(grep -cE '^O:' "$work/lintian" || true) overridden"
echo "exposure: ${exposure:-?} (systemd-analyze security --offline=true)"
echo "smoke:    $smoke"
echo "checks:   $passes passed, $failures failed"
[ "$failures" -eq 0 ]
