#!/usr/bin/env bash
# Checks ha-addon/ (the Home Assistant add-on repository, SPEC §15) against the Supervisor's
# rules for repository.yaml, config.yaml, options/schema and translations, with voluptuous from
# PyPI (the Supervisor's own validation library, at its pinned version): no Swift, and no
# network beyond PyPI on the first run. The venv (scripts/py-venv.sh) is cached in
#   $BREEZE_ADDON_CACHE (default /var/cache/breeze-agent-ci)/addon-venv
# pinned in test/addon/requirements.txt; a warm run takes under a second.
set -euo pipefail
cd "$(dirname "$0")/.."
python=$(scripts/py-venv.sh addon-venv test/addon/requirements.txt "${BREEZE_ADDON_CACHE:-/var/cache/breeze-agent-ci}")
exec "$python" test/addon/test_addon_config.py -v "$@"
