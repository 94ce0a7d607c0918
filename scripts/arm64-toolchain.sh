#!/usr/bin/env bash
# The arm64 (Raspberry Pi 4/5, 64-bit) cross toolchain, from Debian packages only, cached outside
# the clone in $BREEZE_CI_CACHE/arm64 (default /var/cache/breeze-agent-ci/arm64):
#   sid-amd64/                      Debian sid chroot with swiftlang 6.2.3 (the compiler: no
#                                   Swift >= 6.2 is packaged for bookworm or trixie)
#   sid-amd64/opt/swift-sdks/…      a Swift SDK bundle whose sysroot is bookworm arm64 (glibc
#                                   2.36, what Raspberry Pi OS 12 and Debian 12/13 can all load)
#                                   plus swiftlang:arm64's static runtime and a glibc-2.36 compat
#                                   archive (sid's static Swift libraries call glibc 2.38 symbols)
#   compiler.stamp, sysroot.stamp   what each part is (version, recipe number, content checksum):
#                                   a part is reused only when its stamp matches what is there
#   qemu/qemu-aarch64               sid's qemu-user (static), which the end-to-end pass runs the
#                                   agent under: bookworm's qemu 7.2 hangs now and then in a fork
#                                   from a multithreaded guest (docs/operations.md, "arm64")
# and qemu-user binfmt for aarch64 (the arm64 tests run the binaries directly).
# Facts and timings behind each step: docs/operations.md ("arm64"); needs root.
#
# Usage:
#   scripts/arm64-toolchain.sh               set up, or verify and reuse; prints the times
#   scripts/arm64-toolchain.sh build ARGS…   `swift build ARGS…` cross-compiling this clone for
#                                            arm64 inside the chroot (clone bind-mounted at /src)
#   scripts/arm64-toolchain.sh sh CMD        run a shell command in the chroot, clone at /src
#   scripts/arm64-toolchain.sh sysroot       print the arm64 sysroot's host path (QEMU_LD_PREFIX)
#   scripts/arm64-toolchain.sh qemu          print the path of sid's qemu-aarch64 (set up with the rest)
#   scripts/arm64-toolchain.sh swift-version print the cross compiler's Swift version (the SBOMs)
# Every mount is undone by a trap, also when the build fails or is interrupted.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
CACHE=${BREEZE_CI_CACHE:-/var/cache/breeze-agent-ci}/arm64
MIRROR=${BREEZE_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SWIFT_DEB=6.2.3-1+b1      # swiftlang in sid; the amd64 compiler and arm64 runtime must match
QEMU_DEB=1:11.1.3+ds-1    # qemu-user in sid: static binaries; its fork emulation does not hang
SDK=swift-6.2.3-debian-aarch64-bookworm
CHROOT=$CACHE/sid-amd64
BUNDLE=/opt/swift-sdks/breeze-aarch64.artifactbundle
SYSROOT=$CHROOT$BUNDLE/sdk/sysroot
# Raise a recipe number when its part must be rebuilt (the stamps record them).
COMPILER_RECIPE=1
SYSROOT_RECIPE=4
# The frozen snapshot mirror's Release files are past their Valid-Until.
APTOPT=(--aptopt='Acquire::Check-Valid-Until "false"')
DEV_PKGS=libmosquitto-dev,libcurl4-openssl-dev,libyaml-dev,libmicrohttpd-dev,libcairo2-dev,libjpeg62-turbo-dev
# Run-time extras for the tests under qemu-user (QEMU_LD_PREFIX=sysroot): libfaketime for the
# release calendar cases, fonts for the render helper.
TEST_PKGS=libfaketime,fonts-dejavu-core
die() { echo "arm64-toolchain: $*" >&2; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
[ "$(id -u)" -eq 0 ] || die "needs root (chroot, mmdebstrap, binfmt): run it with sudo"

# Everything mounted, unmounted in reverse order when the script ends however it ends.
mounts=()
unmount_all() {
    local i
    for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[i]}" 2>/dev/null || true; done
    mounts=()
}
trap unmount_all EXIT
mount_proc() {
    if ! mountpoint -q "$CHROOT/proc"; then mount -t proc proc "$CHROOT/proc" && mounts+=("$CHROOT/proc"); fi
}
# A command in the chroot with only /proc mounted.
chroot_proc() {
    mount_proc
    chroot "$CHROOT" "$@"
}

QEMU=$CACHE/qemu/qemu-aarch64

# What a usable cache has; each prints the first thing missing or stale and fails.
check_compiler() {
    local stamp=$CACHE/compiler.stamp v
    [ -f "$stamp" ] || { echo "compiler: no stamp (never finished)"; return 1; }
    grep -qx "swiftlang $SWIFT_DEB recipe $COMPILER_RECIPE" "$stamp" || { echo "compiler: stamp is for another version"; return 1; }
    [ -x "$CHROOT/usr/libexec/swift/bin/swift-frontend" ] || { echo "compiler: no swift in the chroot"; return 1; }
    # The compiler finds its libraries through $ORIGIN, which needs /proc/self/exe.
    v=$(chroot_proc /usr/libexec/swift/bin/swift --version 2>&1 | head -1) || { echo "compiler: swift --version fails in the chroot"; return 1; }
    case "$v" in *"Swift version 6.2.3"*) ;; *) echo "compiler: '$v', not 6.2.3"; return 1 ;; esac
}
check_sysroot() {
    local stamp=$CACHE/sysroot.stamp f
    [ -f "$stamp" ] || { echo "sysroot: no stamp (never finished)"; return 1; }
    grep -qx "recipe $SYSROOT_RECIPE swiftlang $SWIFT_DEB" "$stamp" || { echo "sysroot: stamp is for another recipe"; return 1; }
    for f in "$CHROOT$BUNDLE/info.json" "$CHROOT$BUNDLE/sdk/swift-sdk.json" \
        "$CHROOT$BUNDLE/sdk/toolset.json" "$CHROOT$BUNDLE/sdk/compat/libglibc236compat.a" \
        "$CHROOT/opt/swift-sdks/env.sh" "$SYSROOT/lib/aarch64-linux-gnu/libc.so.6" \
        "$SYSROOT/usr/lib/aarch64-linux-gnu/libcurl.so" "$SYSROOT/usr/lib/aarch64-linux-gnu/libmosquitto.so" \
        "$SYSROOT/usr/lib/aarch64-linux-gnu/libyaml.so" "$SYSROOT/usr/lib/aarch64-linux-gnu/libcairo.so" \
        "$SYSROOT/var/lib/dpkg/status" "$SYSROOT/usr/lib/swift_static/linux/static-stdlib-args.lnk" \
        "$SYSROOT/usr/lib/swift_static/linux/libswiftCore.a" "$SYSROOT/usr/lib/swift/linux/Swift.swiftmodule"; do
        [ -e "$f" ] || { echo "sysroot: missing ${f#"$CACHE"/}"; return 1; }
    done
    # The content check: the file list and sizes are what they were when the stamp was written.
    grep -qx "content $(sysroot_sum)" "$stamp" || { echo "sysroot: files changed since it was built"; return 1; }
}
check_qemu() {
    local v
    grep -qx "qemu-user $QEMU_DEB" "$CACHE/qemu.stamp" 2>/dev/null || { echo "qemu: no stamp for $QEMU_DEB"; return 1; }
    v=$("$QEMU" --version 2>&1 | head -1) || { echo "qemu: $QEMU does not run"; return 1; }
    case "$v" in *"(Debian $QEMU_DEB)"*) ;; *) echo "qemu: '$v', not $QEMU_DEB"; return 1 ;; esac
}
sysroot_sum() { (cd "$SYSROOT" && find lib usr/lib usr/include var/lib/dpkg -type f -printf '%p %s\n' | LC_ALL=C sort | sha256sum | cut -d' ' -f1); }

# binfmt: arm64 binaries run directly (under qemu-aarch64-static) once this is registered.
ensure_binfmt() {
    command -v qemu-aarch64-static >/dev/null \
        || die "qemu-aarch64-static missing: apt-get install qemu-user-static binfmt-support"
    [ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null \
        || die "cannot mount binfmt_misc (a container without it?): arm64 binaries cannot run here"
    [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
    grep -q '^enabled' /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null \
        || die "binfmt for qemu-aarch64 not enabled: apt-get install qemu-user-static binfmt-support; update-binfmts --enable qemu-aarch64"
}

# Makes the file names absolute symlinks (libm.so -> /lib/…) point at inside the sysroot.
relink() {
    find "$1" -type l -lname '/*' | while read -r l; do
        ln -sfn "$(realpath -m --relative-to="$(dirname "$l")" "$1$(readlink "$l")")" "$l"
    done
}
# The extract variant runs no maintainer scripts, so the SONAME links ldconfig would make are missing.
sonames() {
    local f so
    for f in "$1"/usr/lib/aarch64-linux-gnu/lib*.so.*; do
        [ -f "$f" ] && [ ! -L "$f" ] || continue
        so=$(readelf -d "$f" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
        if [ -n "$so" ] && [ ! -e "$(dirname "$f")/$so" ]; then ln -s "$(basename "$f")" "$(dirname "$f")/$so"; fi
    done
}

check_mirror() {
    curl -fs -m 20 -o /dev/null "$MIRROR/dists/sid/Release" \
        || die "Debian mirror $MIRROR unreachable (set BREEZE_DEBIAN_MIRROR to one that is)"
}
setup_compiler() {
    command -v mmdebstrap >/dev/null || die "mmdebstrap missing: apt-get install mmdebstrap"
    check_mirror
    echo "arm64-toolchain: building the compiler chroot ($1)" >&2
    unmount_all
    # Never delete through a mount left by a killed run (the clone is bind-mounted at /src).
    if findmnt -rn -o TARGET | grep -q "^$CHROOT/"; then
        die "$CHROOT still has mounts ($(findmnt -rn -o TARGET | grep "^$CHROOT/" | tr '\n' ' ')): umount them, then run again"
    fi
    rm -rf "$CHROOT" "$CACHE/compiler.stamp" "$CACHE/sysroot.stamp"
    mkdir -p "$CACHE"
    local log=$CACHE/setup.log
    mmdebstrap --mode=root --variant=apt "${APTOPT[@]}" --include="swiftlang=$SWIFT_DEB,libc6-dev,g++" \
        sid "$CHROOT" "$MIRROR" >"$log" 2>&1 \
        || die "mmdebstrap of the sid compiler chroot failed (swiftlang=$SWIFT_DEB gone from the mirror?): see $log"
    cp /etc/resolv.conf "$CHROOT/etc/resolv.conf"
    chroot "$CHROOT" dpkg --add-architecture arm64
    echo "swiftlang $SWIFT_DEB recipe $COMPILER_RECIPE" >"$CACHE/compiler.stamp"
}

# A dpkg database for the extracted sysroot (the extract variant writes none), so that
# dpkg-shlibdeps --admindir finds each library's package and its symbols/shlibs files. It asks
# `dpkg-query --search` for the host path of each library it found, so the file lists name the
# files by their host paths (this database serves only that purpose).
sysroot_dpkg_db() {
    local root=$1 db=$1/var/lib/dpkg d pkg ma key tmp
    rm -rf "$db" && mkdir -p "$db/info" "$db/updates"
    : >"$db/status"
    echo arm64 >"$db/arch"
    echo 1 >"$db/info/format"   # multiarch names (libfoo:arm64.list), as dpkg writes them
    tmp=$(mktemp -d)
    for d in "$root"/var/cache/apt/archives/*.deb; do
        pkg=$(dpkg-deb -f "$d" Package)
        ma=$(dpkg-deb -f "$d" Multi-Arch)
        key=$pkg
        if [ "$ma" = same ]; then key=$pkg:arm64; fi
        { dpkg-deb -f "$d" | sed '/^Package:/a Status: install ok installed'; echo; } >>"$db/status"
        dpkg-deb --fsys-tarfile "$d" | tar -t | sed -e "s|^\./|$root/|" -e 's|/$||' -e '/^$/d' >"$db/info/$key.list"
        rm -rf "$tmp"/* && dpkg-deb -e "$d" "$tmp"
        for f in shlibs symbols; do if [ -f "$tmp/$f" ]; then cp "$tmp/$f" "$db/info/$key.$f"; fi; done
    done
    rm -rf "$tmp" "$root"/var/cache/apt/archives/*.deb
}

setup_sysroot() {
    check_mirror
    echo "arm64-toolchain: building the arm64 sysroot ($1)" >&2
    local log=$CACHE/setup.log
    rm -rf "$CHROOT/opt/swift-sdks" "$CACHE/sysroot.stamp"
    mkdir -p "$SYSROOT"
    mmdebstrap --mode=root --arch=arm64 --variant=extract --skip=cleanup/apt/cache \
        --include=libc6-dev,libgcc-12-dev,libstdc++-12-dev,linux-libc-dev,$DEV_PKGS,$TEST_PKGS bookworm "$SYSROOT" "$MIRROR" >>"$log" 2>&1 \
        || die "mmdebstrap of the bookworm arm64 sysroot failed (a package missing on the mirror?): see $log"
    sysroot_dpkg_db "$SYSROOT"
    relink "$SYSROOT"
    rm -rf "$SYSROOT/dev"
    sonames "$SYSROOT"
    # The target's Swift runtime and clang headers, from the arm64 packages of the same version.
    chroot_proc sh -c "apt-get -o Acquire::Check-Valid-Until=false update -qq \
        && rm -rf /tmp/arm64 && mkdir -p /tmp/arm64 && cd /tmp/arm64 && apt-get download -q swiftlang:arm64=$SWIFT_DEB libswiftlang:arm64=$SWIFT_DEB" \
        >>"$log" 2>&1 || die "swiftlang:arm64=$SWIFT_DEB could not be downloaded: see $log"
    local x=$CHROOT/tmp/arm64/x d
    mkdir -p "$x"
    for d in "$CHROOT"/tmp/arm64/*.deb; do dpkg-deb -x "$d" "$x"; done
    local L=$x/usr/libexec/swift/lib S=$SYSROOT/usr/lib
    mkdir -p "$S/swift" "$S/clang"
    (cd "$L/swift" && tar --exclude=./host --exclude=./embedded --exclude=./FrameworkABIBaseline -cf - .) | tar -xf - -C "$S/swift"
    cp -a "$L/swift_static" "$S/"
    cp -a "$L/clang/"* "$S/clang/"
    rm -rf "$CHROOT/tmp/arm64"
    # Symbols sid's static Swift libraries take from glibc >= 2.38, for a glibc 2.36 target.
    local B=$CHROOT$BUNDLE
    mkdir -p "$B/sdk/compat"
    install -m 0644 packaging/arm64/glibc236compat.c "$B/sdk/compat/glibc236compat.c"
    chroot_proc sh -c "cd $BUNDLE/sdk/compat && /usr/libexec/swift/bin/clang --target=aarch64-linux-gnu \
        --sysroot=../sysroot -O2 -fPIC -c glibc236compat.c && /usr/libexec/swift/bin/llvm-ar rcs libglibc236compat.a glibc236compat.o \
        && rm glibc236compat.o" >>"$log" 2>&1 || die "compiling the glibc 2.36 compat archive failed: see $log"
    cat >"$B/info.json" <<EOF
{ "schemaVersion": "1.0", "artifacts": {
    "$SDK": { "type": "swiftSDK", "version": "6.2.3", "variants": [ { "path": "sdk" } ] } } }
EOF
    cat >"$B/sdk/swift-sdk.json" <<'EOF'
{ "schemaVersion": "4.0", "targetTriples": { "aarch64-unknown-linux-gnu": {
    "sdkRootPath": "sysroot", "swiftResourcesPath": "sysroot/usr/lib/swift",
    "swiftStaticResourcesPath": "sysroot/usr/lib/swift_static", "toolsetPaths": ["toolset.json"] } } }
EOF
    cat >"$B/sdk/toolset.json" <<EOF
{ "schemaVersion": "1.0", "swiftCompiler": { "extraCLIOptions": ["-use-ld=lld"] },
  "linker": { "extraCLIOptions": ["$BUNDLE/sdk/compat/libglibc236compat.a"] } }
EOF
    # Sourced in the chroot before a cross build: pkg-config answers from the arm64 sysroot.
    cat >"$CHROOT/opt/swift-sdks/env.sh" <<EOF
export SYSROOT=$BUNDLE/sdk/sysroot
export PKG_CONFIG_SYSROOT_DIR=\$SYSROOT
export PKG_CONFIG_LIBDIR=\$SYSROOT/usr/lib/aarch64-linux-gnu/pkgconfig:\$SYSROOT/usr/share/pkgconfig
export PKG_CONFIG_PATH=\$PKG_CONFIG_LIBDIR
CROSS=(--swift-sdks-path /opt/swift-sdks --swift-sdk $SDK)
EOF
    { echo "recipe $SYSROOT_RECIPE swiftlang $SWIFT_DEB"; echo "content $(sysroot_sum)"; } >"$CACHE/sysroot.stamp.tmp"
    mv "$CACHE/sysroot.stamp.tmp" "$CACHE/sysroot.stamp"
}

# The emulator of the end-to-end pass, from sid's qemu-user (its binaries are static-pie). Facts:
# bookworm's qemu-user-static 7.2 emulates posix_spawn's vfork as a plain fork, and that child
# can hang before its exec when other guest threads run (a stuck child with every signal
# blocked, seen in the agent's render helper spawns; a 4-thread test program hung within ~100 of
# 300 spawns in 3 of 3 runs), where qemu 11.1 did 300 of 300 in 3 of 3 runs.
setup_qemu() {
    echo "arm64-toolchain: fetching qemu-user $QEMU_DEB ($1)" >&2
    local log=$CACHE/setup.log d=$CHROOT/tmp/qemu
    chroot_proc sh -c "apt-get -o Acquire::Check-Valid-Until=false update -qq \
        && rm -rf /tmp/qemu && mkdir -p /tmp/qemu && cd /tmp/qemu && apt-get download -q qemu-user=$QEMU_DEB" \
        >>"$log" 2>&1 || die "qemu-user=$QEMU_DEB could not be downloaded from sid: see $log"
    mkdir -p "$d/x" "$CACHE/qemu"
    dpkg-deb -x "$d"/qemu-user_*.deb "$d/x"
    [ -x "$d/x/usr/bin/qemu-aarch64" ] || die "qemu-user=$QEMU_DEB has no usr/bin/qemu-aarch64"
    install -m 0755 "$d/x/usr/bin/qemu-aarch64" "$QEMU"
    rm -rf "$d"
    echo "qemu-user $QEMU_DEB" >"$CACHE/qemu.stamp"
}

# Runs a command in the chroot with /proc, /dev and the clone mounted; the trap unmounts them.
in_chroot() {
    mkdir -p "$CHROOT/src"
    mount_proc
    mount --rbind /dev "$CHROOT/dev" && mount --make-rslave "$CHROOT/dev" && mounts+=("$CHROOT/dev")
    mount --bind "$src" "$CHROOT/src" && mounts+=("$CHROOT/src")
    # SWIFT_DETERMINISTIC_HASHING: the compiler's own Swift code (its optimizer passes) hashes
    # with a fixed seed, so its dictionaries iterate in one order from build to build
    # (docs/releasing.md, Reproducible releases).
    chroot "$CHROOT" env -i PATH=/usr/bin:/bin HOME=/root LANG=C.UTF-8 SWIFT_DETERMINISTIC_HASHING=1 bash -c "$1"
}

# What set-up and the qemu runs need from this machine, installed when missing (a fresh machine
# has none of them; without network, deps.sh fails naming the packages).
scripts/deps.sh mmdebstrap qemu-user-static binfmt-support curl binutils >&2 \
    || die "could not install mmdebstrap qemu-user-static binfmt-support curl binutils (apt-get install them)"
mkdir -p "$(dirname "$CACHE")"
exec 9>"$CACHE.lock"
flock 9
t0=$(now)
built=""
# Mounted here, not in the checks' subshells, so the trap of this shell unmounts it.
if [ -d "$CHROOT/proc" ]; then mount_proc; fi
if ! reason=$(check_compiler); then setup_compiler "$reason"; built=1; fi
if ! reason=$(check_sysroot); then setup_sysroot "$reason"; built=1; fi
if ! reason=$(check_qemu); then setup_qemu "$reason"; built=1; fi
ensure_binfmt
if [ -n "$built" ]; then
    reason=$(check_compiler && check_sysroot && check_qemu) || die "the toolchain just built fails its own check: $reason"
    echo "arm64-toolchain: set up $CACHE in $(since "$t0") s ($(du -sh -x "$CACHE" | cut -f1))" >&2
elif [ "${1:-}" = "" ]; then
    echo "arm64-toolchain: reused $CACHE (verified in $(since "$t0") s)" >&2
fi

case "${1:-}" in
"") ;;
sysroot) echo "$SYSROOT" ;;
qemu) echo "$QEMU" ;;
swift-version) echo "${SWIFT_DEB%%-*}" ;;
build)
    shift
    in_chroot ". /opt/swift-sdks/env.sh && cd /src && swift build \"\${CROSS[@]}\" $(printf '%q ' "$@")"
    ;;
sh) in_chroot "$2" ;;
*) die "unknown command '$1' (none, build, sh, sysroot, qemu, swift-version)" ;;
esac
