#!/usr/bin/env bash
# Checks ha-addon/ (the Home Assistant add-on repository, SPEC §15) against the Supervisor's
# rules for repository.yaml, config.yaml, options/schema and translations, with voluptuous from
# PyPI (the Supervisor's own validation library, at its pinned version). No Swift, no network
# beyond PyPI on the first run. The venv is cached:
#   $BREEZE_ADDON_CACHE (default /var/cache/breeze-agent-ci)/addon-venv
# Pinned in test/addon/requirements.txt; a warm run takes well under a second.
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${BREEZE_ADDON_CACHE:-/var/cache/breeze-agent-ci}
venv=$cache/addon-venv
req=test/addon/requirements.txt
mkdir -p "$cache"
exec 9>"$cache/.addon-lock"
flock 9
stamp=$venv/.requirements
if [ ! -x "$venv/bin/python3" ] || ! cmp -s "$req" "$stamp"; then
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
    "$venv/bin/python3" -m pip install --quiet --disable-pip-version-check -r "$req" >&2
    cp "$req" "$stamp"
fi
exec "$venv/bin/python3" test/addon/test_addon_config.py -v "$@"
