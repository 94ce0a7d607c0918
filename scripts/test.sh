#!/usr/bin/env bash
# The test command: installs what is missing, starts a private mosquitto on a free loopback
# port from test/mosquitto/test.conf, runs the unit and the integration suites as two `swift test`
# invocations, and stops the broker whatever happens. Its last line says how the run ended.
set -euo pipefail
cd "$(dirname "$0")/.."
# Chromium: the status page's browser tests (StatusPageBrowserTests) load it headless.
scripts/deps.sh chromium
. scripts/test-broker.sh
start_test_broker test
# Every source file carries the Apache-2.0 SPDX header (scripts/license-headers.sh --fix adds it).
scripts/license-headers.sh --check
# The docs' relative links and #anchors resolve (a second; the config keys they name are
# checked by DocsConfigKeysTests in the unit suite).
scripts/docs-check.sh
# Formatting is checked first: it takes seconds and says exactly what to fix (.swift-format).
swift format lint --strict -r Sources Tests fuzz bench
# Every DocC ``link`` in a doc comment names a symbol that exists (a second, that a rename
# cannot leave behind).
scripts/doc-links.sh
# The daemon's machine does no I/O: its target depends on no edge (Package.swift), and none of
# its files imports the C library, Dispatch or Foundation (FoundationEssentials' decoders only).
if grep -rnE '^\s*((public|package|internal)\s+)?import\s+(Glibc|Musl|Darwin|Dispatch|Foundation|Synchronization)\b' \
    Sources/BreezeDaemon; then
    echo "test: Sources/BreezeDaemon imports the C library, Dispatch, Foundation or Synchronization (above)" >&2
    exit 1
fi
swift build --build-tests -Xswiftc -warnings-as-errors "$@"
# Two invocations, each bounded (a hang fails the run instead of holding CI until its own limit):
# the unit targets (no broker, no agent binary; RenderTests' CPU-bound drawing holds the
# cooperative threads for seconds), then the integration targets (brokers, agents, loopback
# servers), which wait on events (Tests/BreezeTestSupport/TestEvents.swift), not on a clock.
# No retry: a failure fails the run.
unit='^(CoreTests|YAMLTests|HTTPTests|AgentUnitTests|RenderTests)\.'
integration='^(MQTTTests|AgentIntegrationTests)\.'
# Every test target is in exactly one of the two (a new target must be added to one).
for target in $(sed -n 's/.*name: "\([A-Za-z]*Tests\)".*/\1/p' Package.swift); do
    if ! [[ $target.x =~ $unit ]] && ! [[ $target.x =~ $integration ]]; then
        echo "test: $target is in neither the unit nor the integration list (scripts/test.sh)" >&2
        exit 1
    fi
done
echo "test: unit suites" >&2
timeout --kill-after=30 1200 swift test --skip-build --filter "$unit" "$@"
echo "test: integration suites" >&2
timeout --kill-after=30 1200 swift test --skip-build --filter "$integration" "$@"

# The static release binary behaves differently from the debug build in places (named time
# zones, STYLE.md): the calendar cases run against it too.
. scripts/release-build.sh
bin=$(release_build)/breeze-agent
if ldd "$bin" | grep -q 'libswift'; then echo "release binary links Swift runtime libraries:" >&2; ldd "$bin" >&2; exit 1; fi
# libmicrohttpd is loaded with dlopen only when http: is configured (SPEC §9.2 lean path).
if ldd "$bin" | grep -q 'microhttpd'; then echo "release binary links libmicrohttpd:" >&2; ldd "$bin" >&2; exit 1; fi
# Nothing test-only ships: the BREEZE_TEST_* hooks are compiled only into test builds
# (scripts/test-hooks-build.sh, docs/operations.md "Test-only settings").
if strings "$bin" | grep -q 'BREEZE_TEST_'; then echo "release binary reads a BREEZE_TEST_* variable" >&2; exit 1; fi
test/release/calendar.sh "$bin"
# Without /proc the binary still reads its own command line and never becomes the daemon by
# mistake (test/release/no-proc.sh: a chroot holding only the binary and its libraries).
test/release/no-proc.sh "$bin"
echo "test: passed (unit and integration suites, no retries)"
