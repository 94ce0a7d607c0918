#!/usr/bin/env bash
# `make test-ha`: the Home Assistant conformance suite (test/ha, pytest) against a real Home
# Assistant 2026.2.3, a private mosquitto, a loopback stand-in of the APIs and the release agent.
# scripts/ha-setup.sh builds Python 3.13 and the Home Assistant venv once into a cache outside
# the clone (BREEZE_HA_CACHE); later runs reuse it.
#   PYTEST_ARGS="-k google"   pass arguments to pytest     BREEZE_HA_KEEP=1 keep the work folder
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
venv=$(scripts/ha-setup.sh)
# Chromium: test_8_dashboards screenshots the dashboard from Home Assistant's frontend.
scripts/deps.sh chromium >&2
echo "test-ha: Home Assistant venv ready ($(($(date +%s) - start)) s)" >&2
swift build -c release --static-swift-stdlib -Xswiftc -warnings-as-errors >&2
bin=$(swift build -c release --static-swift-stdlib --show-bin-path)/breeze-agent
echo "test-ha: agent built ($(($(date +%s) - start)) s)" >&2
# shellcheck disable=SC2086 # PYTEST_ARGS is a list of words
BREEZE_HA_VENV=$venv BREEZE_AGENT_BIN=$bin "$venv/bin/python" -m pytest test/ha -p no:cacheprovider \
    -v -rA --tb=short ${PYTEST_ARGS:-}
echo "test-ha: done in $(($(date +%s) - start)) s" >&2
