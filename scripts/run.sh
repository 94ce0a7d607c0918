#!/usr/bin/env bash
# `make run`: runs the release binary against a local broker with the given config.
# Starts a mosquitto on 127.0.0.1:1883 when nothing listens there (stopped again on exit).
set -euo pipefail
cd "$(dirname "$0")/.."
config=${1:-config/local.yaml}
shift || true
bin=$(swift build -c release --static-swift-stdlib --show-bin-path)/breeze-agent
broker=""
if ! (exec 3<>/dev/tcp/127.0.0.1/1883) 2>/dev/null; then
    echo "run: starting mosquitto on 127.0.0.1:1883 (stopped when the agent exits)" >&2
    mosquitto -c test/mosquitto/local.conf &
    broker=$!
    trap 'kill $broker 2>/dev/null || true' EXIT
    for _ in $(seq 1 50); do (exec 3<>/dev/tcp/127.0.0.1/1883) 2>/dev/null && break; sleep 0.1; done
fi
# As the systemd unit does (packaging/breeze-agent.service): GnuTLS, loaded through Debian's
# libcurl4 but never used, does not initialise itself (~0.8 MB).
export GNUTLS_NO_IMPLICIT_INIT=${GNUTLS_NO_IMPLICIT_INIT:-1}
echo "run: watch it with: mosquitto_sub -v -h 127.0.0.1 -t 'breeze/#' -t 'breeze-demo/#'" >&2
"$bin" --config "$config" "$@"
