#!/usr/bin/env bash
# `make test-ha`: the Home Assistant conformance suite (test/ha, pytest) against a real Home
# Assistant 2026.2.3, a private mosquitto, a loopback stand-in of the APIs and the release agent.
# scripts/ha-setup.sh sets up Home Assistant's Debian 13 tree (Debian's python3.13 and the venv)
# and the harness's venv once into a cache outside the clone (BREEZE_HA_CACHE); later runs reuse
# them. Home Assistant runs in that tree (scripts/ha-chroot.sh); the harness, the broker, the
# agent and chromium run on the host. Needs root (chroot).
#   PYTEST_ARGS="-k google"   pass arguments to pytest     BREEZE_HA_KEEP=1 keep the work folder
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
tree=$(scripts/ha-setup.sh)
harness=$(scripts/py-venv.sh ha-harness-venv test/ha/harness-requirements.txt "${BREEZE_HA_CACHE:-/var/cache/breeze-agent-ci}")
# Chromium: test_8_dashboards screenshots the dashboard from Home Assistant's frontend.
scripts/deps.sh chromium >&2
echo "test-ha: Home Assistant tree ready ($(($(date +%s) - start)) s)" >&2
# The release build with the test hooks (shorter timeouts and refresh cooldowns, which the
# shipped binary does not read: scripts/test-hooks-build.sh).
. scripts/test-hooks-build.sh
bin=$(test_hooks_build)/breeze-agent
echo "test-ha: agent built ($(($(date +%s) - start)) s)" >&2
# shellcheck disable=SC2086 # PYTEST_ARGS is a list of words
BREEZE_HA_TREE=$tree BREEZE_AGENT_BIN=$bin "$harness" -m pytest test/ha -p no:cacheprovider \
    -v -rA --tb=short ${PYTEST_ARGS:-}
echo "test-ha: done in $(($(date +%s) - start)) s" >&2
