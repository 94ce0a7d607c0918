# Sourced by scripts/test-deb-rootfs.sh and scripts/image.sh: the Debian rootfs trees the
# packages are installed into, cached in $BREEZE_CI_CACHE/rootfs/<suite>-<arch> (mmdebstrap
# minbase plus the packages' run-time libraries; arm64 trees are built under qemu-user) and
# verified before reuse (a stamp with the recipe and the checksum of the tree's dpkg status).
ROOTFS_CACHE=${BREEZE_CI_CACHE:-/var/cache/breeze-agent-ci}/rootfs
ROOTFS_MIRROR=${BREEZE_DEBIAN_MIRROR:-http://deb.debian.org/debian}
ROOTFS_RECIPE=1

# The runtime libraries of both packages, under each release's names, preinstalled so that a
# run needs no download (apt still resolves the .debs' Depends against them).
libs_for() {
    case "$1" in
    bookworm) echo libcurl4,libmosquitto1,libyaml-0-2,libcairo2,libjpeg62-turbo ;;
    trixie) echo libcurl4t64,libmosquitto1,libyaml-0-2,libcairo2,libjpeg62-turbo ;;
    esac
}
major_for() { case "$1" in bookworm) echo 12 ;; trixie) echo 13 ;; esac; }

# Builds (or verifies and reuses) the cached tree for <suite> <arch>; prints its path.
rootfs_tree() {
    local suite=$1 arch=$2 dir=$ROOTFS_CACHE/$1-$2 stamp want
    want="recipe $ROOTFS_RECIPE $suite $arch $(libs_for "$suite")"
    stamp=$dir.stamp
    if [ -f "$stamp" ] && [ "$(head -1 "$stamp")" = "$want" ] && [ -x "$dir/usr/bin/dpkg" ] \
        && grep -q "^$(major_for "$suite")" "$dir/etc/debian_version" \
        && grep -qx "content $(tree_sum "$dir")" "$stamp"; then
        echo "$dir"
        return
    fi
    echo "rootfs: building $suite-$arch tree (mmdebstrap minbase$([ "$arch" = arm64 ] && echo ', under qemu'))" >&2
    local t0 log=$ROOTFS_CACHE/$suite-$arch.log
    t0=$(date +%s)
    mkdir -p "$ROOTFS_CACHE"
    rm -rf "$dir" "$stamp"
    curl -fs -m 20 -o /dev/null "$ROOTFS_MIRROR/dists/$suite/Release" \
        || { echo "rootfs: Debian mirror $ROOTFS_MIRROR unreachable for $suite" >&2; exit 1; }
    mmdebstrap --mode=root --variant=minbase --arch="$arch" --aptopt='Acquire::Check-Valid-Until "false"' \
        --include="adduser,ca-certificates,tzdata,util-linux,fonts-dejavu-core,$(libs_for "$suite")" \
        --skip=cleanup/apt/lists "$suite" "$dir" "$ROOTFS_MIRROR" >"$log" 2>&1 \
        || { echo "rootfs: mmdebstrap $suite $arch failed (see $log)" >&2; exit 1; }
    { echo "$want"; echo "content $(tree_sum "$dir")"; } >"$stamp"
    echo "rootfs: $suite-$arch tree built in $(($(date +%s) - t0)) s ($(du -sh "$dir" | cut -f1))" >&2
    echo "$dir"
}
# The tree's installed packages and versions: what the tests depend on.
tree_sum() { sha256sum <"$1/var/lib/dpkg/status" | cut -d' ' -f1; }

