# Sourced by scripts/test-release.sh, scripts/test-image.sh and scripts/test-addon-image.sh: every check is reported as
# `ok   - …` or `FAIL - …` and counted; none stops the script, which fails at the end if any
# check failed ([ "$failures" -eq 0 ]).
failures=0
passes=0
ok() { passes=$((passes + 1)); echo "ok   - $*"; }
bad() { failures=$((failures + 1)); echo "FAIL - $*"; }
# check DESCRIPTION COMMAND...: runs the command quietly and records the result.
check() { local what=$1; shift; if "$@" >/dev/null 2>&1; then ok "$what"; else bad "$what"; fi; }
