#!/usr/bin/env bash
# `make test-addon-private`: the add-on's start (AddonSupervisorTests) with the agent's binary in a
# folder only root may enter (a checkout under a 0700 home, say), on a machine where the
# `breeze-agent` user exists (any machine that ever installed the package: make test-deb makes
# it, and a purge keeps it, as Debian does). The add-on drops root to that user and then starts
# the agent again; by path, the user could not reach the binary ("Permission denied", hardening
# round 4, finding 8). Runs the suite's built test bundle against a copy of the debug binary.
# Needs root and the test build (make test).
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "test-addon-private: run as root (the add-on drops root)" >&2; exit 1; }
getent passwd breeze-agent >/dev/null || {
    echo "test-addon-private: no user breeze-agent on this machine (make test-deb creates it): the drop would not happen" >&2
    exit 1
}
private=$(mktemp -d /tmp/breeze-addon-private.XXXXXX)
chmod 0700 "$private"
. scripts/test-broker.sh
cleanup() { stop_test_broker; rm -rf "$private"; }
trap cleanup EXIT
start_test_broker addon-private
trap cleanup EXIT   # start_test_broker set its own
cp "$(swift build --show-bin-path)/breeze-agent" "$private/breeze-agent"
echo "test-addon-private: the agent at $private/breeze-agent (0700 folder), user breeze-agent uid $(id -u breeze-agent)" >&2
BREEZE_TEST_AGENT_BINARY=$private/breeze-agent timeout --kill-after=30 600 \
    swift test --skip-build --filter 'AgentIntegrationTests.AddonSupervisorTests'
