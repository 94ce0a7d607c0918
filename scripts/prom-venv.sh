#!/usr/bin/env bash
# Creates (once) a Python venv with the real Prometheus client library from PyPI, whose text
# parser the HTTP endpoint tests read /metrics with, and prints its python on stdout.
#   $BREEZE_PROM_CACHE (default /var/cache/breeze-agent-ci)/prom-venv
# Pinned in test/prometheus/requirements.txt; a warm run takes milliseconds (scripts/py-venv.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
exec scripts/py-venv.sh prom-venv test/prometheus/requirements.txt "${BREEZE_PROM_CACHE:-/var/cache/breeze-agent-ci}"
