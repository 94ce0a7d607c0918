#!/usr/bin/env bash
# Installs the Debian packages breeze-agent builds and tests with, only those missing.
# Usage: scripts/deps.sh [extra-package ...]
set -euo pipefail
pkgs=(pkg-config libmosquitto-dev libcurl4-openssl-dev libyaml-dev libmicrohttpd-dev libcairo2-dev libjpeg62-turbo-dev fonts-dejavu-core mosquitto mosquitto-clients openssl ca-certificates tzdata faketime "$@")
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
# .ci/run sets up Home Assistant's Python in the background while other stages run: two of
# these installing at once would meet on apt's lock, so they take turns here.
exec 7>"${TMPDIR:-/tmp}/breeze-agent-deps.lock"
flock 7
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "deps: installing ${missing[*]}" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
