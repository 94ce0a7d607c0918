#!/usr/bin/env bash
# Creates (once) a Python venv with the real Prometheus client library from PyPI, whose text
# parser the HTTP endpoint tests read /metrics with, and prints its python on stdout.
#   $BREEZE_PROM_CACHE (default /var/cache/breeze-agent-ci)/prom-venv
# Pinned in test/prometheus/requirements.txt; a warm run takes milliseconds.
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${BREEZE_PROM_CACHE:-/var/cache/breeze-agent-ci}
venv=$cache/prom-venv
req=test/prometheus/requirements.txt
mkdir -p "$cache"
exec 9>"$cache/.prom-lock"
flock 9   # parallel test processes wait for one creation instead of racing
stamp=$venv/.requirements
if [ ! -x "$venv/bin/python3" ] || ! cmp -s "$req" "$stamp"; then
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
    "$venv/bin/python3" -m pip install --quiet --disable-pip-version-check -r "$req" >&2
    cp "$req" "$stamp"
fi
echo "$venv/bin/python3"
