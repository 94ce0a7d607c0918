#!/usr/bin/env bash
# Builds what `make test-ha` needs to run a real Home Assistant, once, into a cache folder
# outside the clone, and reuses it on later runs (a warm run takes seconds):
#   $BREEZE_HA_CACHE (default /var/cache/breeze-agent-ci)
#     python3.13/     CPython built from Debian trixie's python3.13 source package
#     ha-venv/        venv with test/ha/requirements.txt (Home Assistant, its frontend, pytest)
#     apt/            a private apt configuration (own sources list, lists, cache) that knows
#                     only trixie's deb-src; the system's apt sources are never touched
# Debian 12 has Python 3.11 only and current Home Assistant needs 3.13; trixie's source
# package builds with Debian 12's gcc (without CPython's own test suite, --disable-test-modules:
# Home Assistant never imports it; Lib/test is 1054 of the 1751 .py files, each compiled three
# times at install, and 140 MB of the 396 MB installed).
# Prints the venv path on stdout when done.
# Usage: scripts/ha-setup.sh            (BREEZE_HA_CACHE=/some/dir to move the cache)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
cache=${BREEZE_HA_CACHE:-/var/cache/breeze-agent-ci}
py=$cache/python3.13
venv=$cache/ha-venv
req=$root/test/ha/requirements.txt
log() { echo "ha-setup: $*" >&2; }

# Debian packages: the agent's own (mosquitto for the test broker) and CPython's build needs.
scripts/deps.sh build-essential xz-utils libssl-dev libffi-dev zlib1g-dev libsqlite3-dev \
    libbz2-dev liblzma-dev libreadline-dev uuid-dev libgdbm-dev libexpat1-dev >&2

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9   # two runs at once (CI and a developer) wait for each other instead of racing

if [ ! -x "$py/bin/python3.13" ] || [ ! -f "$py/.built" ]; then
    start=$(date +%s)
    apt_dir=$cache/apt
    rm -rf "$apt_dir" "$py"
    mkdir -p "$apt_dir/etc/sources.list.d" "$apt_dir/etc/preferences.d" "$apt_dir/lists/partial" \
        "$apt_dir/cache/archives/partial" "$apt_dir/src"
    # The Debian mirror this machine already uses (first URI of its own apt sources), so the
    # private list reaches the same registry the system does.
    mirror=$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -v security | head -1 || true)
    [ -n "$mirror" ] || mirror=$(grep -hs '^deb ' /etc/apt/sources.list | awk '{print $2}' | head -1 || true)
    [ -n "$mirror" ] || { log "no Debian mirror found in /etc/apt/sources.list*"; exit 1; }
    echo "deb-src $mirror trixie main" >"$apt_dir/etc/sources.list"
    cat >"$apt_dir/apt.conf" <<CONF
Dir::Etc::SourceList "$apt_dir/etc/sources.list";
Dir::Etc::SourceParts "$apt_dir/etc/sources.list.d";
Dir::Etc::Preferences "$apt_dir/etc/preferences";
Dir::Etc::PreferencesParts "$apt_dir/etc/preferences.d";
Dir::State::Lists "$apt_dir/lists";
Dir::Cache "$apt_dir/cache";
CONF
    log "fetching python3.13 source package (trixie) with a private apt configuration"
    # apt downloads as its unprivileged user when it can write the target folder.
    if id _apt >/dev/null 2>&1; then chown _apt "$apt_dir/src"; fi
    APT_CONFIG=$apt_dir/apt.conf apt-get update -qq >&2
    (cd "$apt_dir/src" && APT_CONFIG=$apt_dir/apt.conf apt-get source --download-only -qq python3.13 >&2)
    orig=$(ls "$apt_dir"/src/python3.13_*.orig.tar.* | head -1)
    [ -f "$orig" ] || { log "no python3.13 orig tarball downloaded"; exit 1; }
    build=$cache/build
    rm -rf "$build" && mkdir -p "$build"
    tar -xf "$orig" -C "$build"
    src=$(ls -d "$build"/Python-3.13* | head -1)
    log "building $(basename "$src") into $py (about 6 minutes on 2 cores)"
    (cd "$src" && ./configure --prefix="$py" --with-ensurepip=install --disable-test-modules >"$build/configure.log" 2>&1 \
        && make -j"$(nproc)" >"$build/make.log" 2>&1 \
        && make install >"$build/install.log" 2>&1) \
        || { log "CPython build failed; last lines of the logs in $build:"; tail -20 "$build"/*.log >&2; exit 1; }
    "$py/bin/python3.13" -c 'import ssl, sqlite3, ctypes, zlib, bz2, lzma' \
        || { log "the built Python lacks a module Home Assistant needs"; exit 1; }
    rm -rf "$build"
    touch "$py/.built"
    log "python3.13 built in $(($(date +%s) - start)) s"
fi

want=$(sha256sum "$req" | cut -d' ' -f1)
if [ ! -f "$venv/.installed" ] || [ "$(cat "$venv/.installed")" != "$want" ]; then
    start=$(date +%s)
    rm -rf "$venv"
    log "installing $(grep -v '^#' "$req" | tr '\n' ' ')into $venv (several minutes)"
    "$py/bin/python3.13" -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check --upgrade pip >&2
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$req" >&2
    echo "$want" >"$venv/.installed"
    log "venv ready in $(($(date +%s) - start)) s"
fi
echo "$venv"
