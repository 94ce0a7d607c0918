#!/usr/bin/env bash
# `make soak`: thousands of fetch → decode → compute → publish cycles of the real agent code
# against loopback API servers (the fixtures, dated by a simulated clock) and a private
# mosquitto, printing the process's RSS (VmRSS) after a warm-up and at the end.
#
#   scripts/soak.sh            2000 cycles (after 200 warm-up cycles)
#   SOAK_CYCLES=5000 scripts/soak.sh
#   SOAK_MAX_GROWTH_KIB=8192 scripts/soak.sh     allowed RSS growth (default 4096 KiB)
#
# The soak is Tests/AgentIntegrationTests/SoakTests.swift, enabled by BREEZE_SOAK_CYCLES; it is built in
# release mode (-c release, -enable-testing for the @testable imports) so the
# numbers resemble the shipped binary.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cycles=${SOAK_CYCLES:-2000}

. scripts/test-broker.sh
start_test_broker soak
export BREEZE_SOAK_CYCLES="$cycles"
if [ -n "${SOAK_MAX_GROWTH_KIB:-}" ]; then export BREEZE_SOAK_MAX_GROWTH_KIB="$SOAK_MAX_GROWTH_KIB"; fi
echo "soak: $cycles cycles" >&2

scratch=.build/soak
# Release code with the test hooks and accessors the test targets use (scripts/test-hooks-build.sh).
swift build --build-tests -c release -Xswiftc -enable-testing -Xswiftc -DBREEZE_TEST_HOOKS --scratch-path "$scratch" \
    -Xswiftc -warnings-as-errors
swift test --skip-build -c release -Xswiftc -enable-testing -Xswiftc -DBREEZE_TEST_HOOKS --scratch-path "$scratch" --filter 'SoakTests/soakMemoryStaysFlat' 2>&1 | tee .build/soak.log
grep -q 'soak: RSS start' .build/soak.log || { echo "soak: the soak did not run (see .build/soak.log)" >&2; exit 1; }
