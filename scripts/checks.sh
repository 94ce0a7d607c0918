# Sourced by scripts/test-release.sh, scripts/verify-release.sh, scripts/test-image.sh and scripts/test-addon-image.sh: every check is reported as
# `ok   - …` or `FAIL - …` and counted; none stops the script, which fails at the end if any
# check failed ([ "$failures" -eq 0 ]).
failures=0
passes=0
ok() { passes=$((passes + 1)); echo "ok   - $*"; }
bad() { failures=$((failures + 1)); echo "FAIL - $*"; }
# check DESCRIPTION COMMAND...: runs the command quietly and records the result.
check() { local what=$1; shift; if "$@" >/dev/null 2>&1; then ok "$what"; else bad "$what"; fi; }

# The release checks' timed sections (test-release.sh, verify-release.sh print `timings` at the end)
# and a wait for a loopback port to accept connections (10 s).
timings=()
section_start=$(date +%s)
section() {   # section NAME: starts a timed section (the previous one's time is recorded)
    local now
    now=$(date +%s)
    [ -z "${section_name:-}" ] || timings+=("$(printf '%-34s %4d s' "$section_name" $((now - section_start)))")
    section_name=$1 section_start=$now
    printf '\n== %s\n' "$1"
}
wait_port() { local _; for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; return 1; }
