#!/usr/bin/env bash
# scripts/py-venv.sh NAME REQUIREMENTS [CACHE]: creates (once) the Python venv CACHE/NAME with the
# pinned packages of REQUIREMENTS from PyPI and prints its python on stdout. The venv is made
# again only when REQUIREMENTS changes; a warm call takes milliseconds. Parallel callers wait
# for one creation instead of racing. CACHE defaults to /var/cache/breeze-agent-ci.
# Used by scripts/prom-venv.sh and scripts/test-addon-config.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
name=$1
req=$2
cache=${3:-/var/cache/breeze-agent-ci}
venv=$cache/$name
mkdir -p "$cache"
exec 9>"$cache/.$name-lock"
flock 9
stamp=$venv/.requirements
if [ ! -x "$venv/bin/python3" ] || ! cmp -s "$req" "$stamp"; then
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
    "$venv/bin/python3" -m pip install --quiet --disable-pip-version-check -r "$req" >&2
    cp "$req" "$stamp"
fi
echo "$venv/bin/python3"
