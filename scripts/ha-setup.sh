#!/usr/bin/env bash
# Sets up what `make test-ha` needs to run a real Home Assistant, once, into a cache folder
# outside the clone, and reuses it on later runs (a warm run takes about a second):
#   $BREEZE_HA_CACHE (default /var/cache/breeze-agent-ci)
#     rootfs/trixie-amd64-ha/          a Debian 13 tree (mmdebstrap minbase, scripts/rootfs-common.sh)
#                                      with Debian's own python3.13: Home Assistant needs Python
#                                      >= 3.13.2 and Debian 12 has 3.11 only
#       opt/ha-venv/                   the venv with test/ha/requirements.txt (Home Assistant, its
#                                      frontend), made and run inside the tree (scripts/ha-chroot.sh)
#     ha-harness-venv/                 the host's Python with what the pytest harness itself
#                                      imports (test/ha/harness-requirements.txt)
# Home Assistant runs in that tree (a chroot shares the host's loopback: the broker, the agent,
# the API stand-in and chromium stay on the host). A prebuilt interpreter replaced CPython
# compiled from source here: 1,122-1,405 s of CPU on two cores, against about a minute.
# Prints the tree's path on stdout when done.
# Usage: scripts/ha-setup.sh            (BREEZE_HA_CACHE=/some/dir to move the cache)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
[ "$(id -u)" -eq 0 ] || { echo "ha-setup: run as root (mmdebstrap, chroot)" >&2; exit 1; }
cache=${BREEZE_HA_CACHE:-/var/cache/breeze-agent-ci}
req=$root/test/ha/requirements.txt
log() { echo "ha-setup: $*" >&2; }

scripts/deps.sh mmdebstrap python3-venv >&2
mkdir -p "$cache"
exec 9>"$cache/.ha-lock"
flock 9   # two runs at once (CI and a developer) wait for each other instead of racing

# The layout before the tree (a CPython built from source, a venv on the host): 1.5 GB freed.
for old in python3.13 ha-venv apt build; do
    if [ -e "$cache/$old" ]; then log "removing the former set-up's $cache/$old"; rm -rf "${cache:?}/$old"; fi
done

. scripts/rootfs-common.sh
ROOTFS_CACHE=$cache/rootfs
start=$(date +%s)
tree=$(rootfs_tree trixie amd64 ha)
log "tree $tree ready ($(chroot "$tree" python3.13 --version), $(($(date +%s) - start)) s)"

venv=/opt/ha-venv
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ ! -f "$tree$venv/.installed" ] || [ "$(cat "$tree$venv/.installed")" != "$want" ]; then
    start=$(date +%s)
    rm -rf "${tree:?}$venv"
    log "installing $(grep -v '^#' "$req" | tr '\n' ' ')into $tree$venv (several minutes)"
    # PyPI from inside the tree as the host reaches it: the host's resolver configuration, the
    # CA bundle the host's pip trusts (a machine behind a TLS-inspecting proxy adds its CA there),
    # and the host's pip and proxy settings (PIP_*, *_proxy; not PIP_FIND_LINKS, a host path).
    cp -L /etc/resolv.conf "$tree/etc/resolv.conf"
    ca=${PIP_CERT:-$(python3 -m pip config get global.cert 2>/dev/null || true)}
    [ -f "$ca" ] || ca=/etc/ssl/certs/ca-certificates.crt
    cp -L "$ca" "$tree/etc/ssl/host-ca-certificates.crt"
    pipenv=(env PIP_CERT=/etc/ssl/host-ca-certificates.crt SSL_CERT_FILE=/etc/ssl/host-ca-certificates.crt)
    while IFS= read -r var; do pipenv+=("$var"); done < <(env | grep -E '^(PIP_[A-Z_]+|https?_proxy|HTTPS?_PROXY|no_proxy|NO_PROXY)=' \
        | grep -vE '^PIP_(CERT|FIND_LINKS)=' || true)
    scripts/ha-chroot.sh --writable "$tree" "$root/test/ha" -- python3.13 -m venv "$venv" >&2
    scripts/ha-chroot.sh --writable "$tree" "$root/test/ha" -- "${pipenv[@]}" "$venv/bin/pip" install -q \
        --disable-pip-version-check --no-cache-dir -r "$req" >&2
    echo "$want" >"$tree$venv/.installed"
    log "venv ready in $(($(date +%s) - start)) s ($(du -sh "$tree$venv" | cut -f1))"
fi
scripts/py-venv.sh ha-harness-venv test/ha/harness-requirements.txt "$cache" >/dev/null
echo "$tree"
