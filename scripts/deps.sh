#!/usr/bin/env bash
# Installs the Debian packages breeze-agent builds and tests with, only those missing.
# Usage: scripts/deps.sh [extra-package ...]
set -euo pipefail
pkgs=(pkg-config libmosquitto-dev libcurl4-openssl-dev libyaml-dev libmicrohttpd-dev libcairo2-dev libjpeg62-turbo-dev fonts-dejavu-core fonts-wqy-microhei mosquitto mosquitto-clients openssl ca-certificates tzdata faketime "$@")
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
# Another apt or dpkg on the machine (unattended-upgrades on a hub, another job in CI) holds its
# locks for a while: wait for them, up to 10 minutes, instead of failing at once.
# apt-get install waits by itself (DPkg::Lock::Timeout); apt 2.6's `update` ignores that for
# the lists lock, so it is tried again every 5 s while the lock is the only error.
wait_lock=(-o DPkg::Lock::Timeout=600)
err=$(mktemp)
trap 'rm -f "$err"' EXIT
for attempt in $(seq 1 120); do
    if $SUDO apt-get "${wait_lock[@]}" update -qq 2>"$err"; then break; fi
    if ! grep -q 'Could not get lock' "$err" || [ "$attempt" -eq 120 ]; then cat "$err" >&2; exit 1; fi
    [ "$attempt" -gt 1 ] || echo "deps: waiting for apt's lock ($(grep -m1 'Could not get lock' "$err"))" >&2
    sleep 5
done
DEBIAN_FRONTEND=noninteractive $SUDO apt-get "${wait_lock[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
