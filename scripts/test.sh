#!/usr/bin/env bash
# The test command: installs what is missing, starts a private mosquitto on a free loopback
# port from test/mosquitto/test.conf, runs `swift test`, and stops the broker whatever happens.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
port=$(scripts/free-port.sh)
work=$(mktemp -d /tmp/breeze-test.XXXXXX)
sed "s/@PORT@/$port/" test/mosquitto/test.conf > "$work/mosquitto.conf"
mosquitto -c "$work/mosquitto.conf" >"$work/mosquitto.log" 2>&1 &
broker=$!
cleanup() { kill "$broker" 2>/dev/null || true; wait "$broker" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
for _ in $(seq 1 50); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
export BREEZE_TEST_MQTT_PORT="$port"
echo "test: mosquitto on 127.0.0.1:$port" >&2
# Formatting is checked first: it takes seconds and says exactly what to fix (.swift-format).
swift format lint --strict -r Sources Tests fuzz bench
swift build --build-tests -Xswiftc -warnings-as-errors "$@"
swift test --skip-build "$@"

# The static release binary behaves differently from the debug build in places (named time
# zones, STYLE.md): the calendar cases run against it too.
swift build -c release --static-swift-stdlib -Xswiftc -warnings-as-errors
bin=$(swift build -c release --static-swift-stdlib --show-bin-path)/breeze-agent
if ldd "$bin" | grep -q 'libswift'; then echo "release binary links Swift runtime libraries:" >&2; ldd "$bin" >&2; exit 1; fi
test/release/calendar.sh "$bin"
