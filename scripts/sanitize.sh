#!/usr/bin/env bash
# `make sanitize`: the whole test suite under AddressSanitizer (leak detection at exit
# included) and under ThreadSanitizer, each in its own scratch path so neither fights the
# normal .build. A private mosquitto on a free loopback port serves the broker tests, as in
# scripts/test.sh.
#
#   scripts/sanitize.sh            both sanitizers
#   scripts/sanitize.sh address    only ASan (+LSan)
#   scripts/sanitize.sh thread     only TSan
# Extra arguments after the sanitizer name go to `swift test` (e.g. --filter CoreTests, or
# --filter AgentUnitTests for the runtime without the broker and binary tests).
#
# Suppressions for findings inside toolchain or C-library internals live in test/sanitizers/
# with a comment per entry saying why it is not ours.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
scripts/deps.sh

which=(address thread)
if [ $# -gt 0 ] && { [ "$1" = address ] || [ "$1" = thread ]; }; then which=("$1"); shift; fi

. scripts/test-broker.sh
start_test_broker sanitize

# halt_on_error / exitcode make any report fail the run; the suppression files are ours.
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=0:detect_stack_use_after_return=0:strict_string_checks=0"
export LSAN_OPTIONS="suppressions=$root/test/sanitizers/lsan.supp:print_suppressions=1"
export TSAN_OPTIONS="halt_on_error=0:exitcode=66:second_deadlock_stack=1:suppressions=$root/test/sanitizers/tsan.supp:print_suppressions=1"

status=0
for sanitizer in "${which[@]}"; do
    scratch="$root/.build/sanitize-$sanitizer"
    log="$root/.build/sanitize-$sanitizer.log"
    mkdir -p "$scratch"
    echo "sanitize: building and running the tests with -sanitize=$sanitizer (log: $log)" >&2
    if swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch" -Xswiftc -warnings-as-errors \
        && swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" "$@" 2>&1 | tee "$log"; then
        if grep -qE '^(==[0-9]+==ERROR: |WARNING: ThreadSanitizer:|SUMMARY: (Address|Thread|Leak)Sanitizer)' "$log"; then
            echo "sanitize: $sanitizer: the sanitizer reported problems (see $log)" >&2
            status=1
        else
            echo "sanitize: $sanitizer: clean" >&2
        fi
    else
        echo "sanitize: $sanitizer: tests failed (see $log)" >&2
        status=1
    fi
done
exit "$status"
