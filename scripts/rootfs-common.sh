# Sourced by scripts/test-release.sh and scripts/image.sh: the Debian rootfs trees the
# packages are installed into, cached in $BREEZE_CI_CACHE/rootfs/<suite>-<arch> (mmdebstrap
# minbase plus the packages' run-time libraries) and verified before reuse (a stamp with the
# recipe and the checksum of the tree's dpkg status).
#
# Trees of the host's architecture are built the ordinary way (mmdebstrap --mode=root: the
# maintainer scripts run inside the tree). A foreign (arm64) tree built that way runs every
# maintainer script under qemu-user: 735-1060 s cold here, most of it update-ca-certificates
# (88 s per run under qemu, and it runs twice). So foreign trees use mmdebstrap's chrootless
# mode instead (dpkg --root with --force-script-chrootless; the scripts run natively with
# DPKG_ROOT set): about a minute. Two packages of the set ignore DPKG_ROOT and write to the *host* --
# ca-certificates (/etc/ca-certificates.conf, /etc/ssl/certs) and fontconfig-config
# (/etc/fonts/conf.d) -- so the build runs in a private mount namespace whose /etc, /usr,
# /var/lib, /var/log and /root are copy-on-write overlays thrown away at the end
# (rootfs_sandbox), and those two packages' work is then redone natively for the tree with
# the tree's folders bound over the host's paths (rootfs_redo_in_tree). The result is checked
# under qemu (dpkg --audit, the loader cache, a CA bundle) before it is stamped.
ROOTFS_CACHE=${BREEZE_CI_CACHE:-/var/cache/breeze-agent-ci}/rootfs
ROOTFS_MIRROR=${BREEZE_DEBIAN_MIRROR:-http://deb.debian.org/debian}
ROOTFS_SECURITY_MIRROR=${BREEZE_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
# 3: from <suite>, <suite>-updates and <suite>-security (what a Debian install has), apt's
# Valid-Until check on; a cached tree that Debian's updates have overtaken is made again.
ROOTFS_RECIPE=3
# How long a tree's "nothing to upgrade" is trusted before Debian's lists are read again.
ROOTFS_FRESH_SECONDS=${BREEZE_ROOTFS_FRESH_SECONDS:-3600}

# The runtime libraries of both packages, under each release's names, preinstalled so that a
# run needs no download (apt still resolves the .debs' Depends against them).
libs_for() {
    case "$1" in
    bookworm) echo libcurl4,libmosquitto1,libyaml-0-2,libcairo2,libjpeg62-turbo ;;
    trixie) echo libcurl4t64,libmosquitto1,libyaml-0-2,libcairo2,libjpeg62-turbo ;;
    esac
}
major_for() { case "$1" in bookworm) echo 12 ;; trixie) echo 13 ;; esac; }
# What a tree of <suite> <flavour> holds: the packages' trees (no flavour) get the run-time
# libraries above; the `ha` flavour is Debian's own Python 3.13 (trixie) that Home Assistant runs
# on (scripts/ha-setup.sh): a prebuilt interpreter instead of compiling CPython.
includes_for() {
    case "$2" in
    "") echo "adduser,ca-certificates,tzdata,util-linux,fonts-dejavu-core,$(libs_for "$1")" ;;
    ha) echo "python3.13-venv,python3.13-dev,gcc,libc6-dev,ca-certificates,tzdata" ;;
    esac
}

# Builds (or verifies and reuses) the cached tree for <suite> <arch> [<flavour>]; prints its path
# ($ROOTFS_CACHE/<suite>-<arch>[-<flavour>]).
rootfs_tree() {
    local suite=$1 arch=$2 flavour=${3:-} dir=$ROOTFS_CACHE/$1-$2${3:+-$3} stamp want
    want="recipe $ROOTFS_RECIPE $suite $arch $(includes_for "$suite" "$flavour")"
    stamp=$dir.stamp
    mkdir -p "$ROOTFS_CACHE"
    # Two callers at once (.ci/run builds trees beside other stages) wait for one build: the
    # lock is held until the subshell that prints the path ends.
    local lock
    exec {lock}>"$dir.lock"
    flock "$lock"
    if [ -f "$stamp" ] && [ "$(head -1 "$stamp")" = "$want" ] && [ -x "$dir/usr/bin/dpkg" ] \
        && grep -q "^$(major_for "$suite")" "$dir/etc/debian_version" \
        && grep -qx "content $(tree_sum "$dir")" "$stamp"; then
        local upgradable
        upgradable=$(rootfs_upgradable "$dir" "$arch") || exit 1
        if [ -z "$upgradable" ]; then
            rootfs_apt_cache "$dir" "$(basename "$dir")" || exit 1
            echo "$dir"
            return
        fi
        echo "rootfs: $(basename "$dir"): Debian has newer packages ($(tr '\n' ' ' <<<"$upgradable")): made again" >&2
    fi
    local t0 log=$dir.log mode=root
    [ "$arch" = "$(dpkg --print-architecture)" ] || mode=chrootless
    echo "rootfs: building $(basename "$dir") tree (mmdebstrap minbase, $mode mode)" >&2
    t0=$(date +%s)
    mkdir -p "$ROOTFS_CACHE"
    rm -rf "$dir" "$stamp"
    curl -fs -m 20 -o /dev/null "$ROOTFS_MIRROR/dists/$suite/Release" \
        || { echo "rootfs: Debian mirror $ROOTFS_MIRROR unreachable for $suite" >&2; exit 1; }
    local args=(--variant=minbase --arch="$arch"
        --include="$(includes_for "$suite" "$flavour")"
        --skip=cleanup/apt/lists "$suite" "$dir"
        "deb $ROOTFS_MIRROR $suite main" "deb $ROOTFS_MIRROR $suite-updates main"
        "deb $ROOTFS_SECURITY_MIRROR $suite-security main")
    if [ "$mode" = root ]; then
        mmdebstrap --mode=root "${args[@]}" >"$log" 2>&1 \
            || { echo "rootfs: mmdebstrap $suite $arch failed (see $log)" >&2; exit 1; }
    else
        scripts/deps.sh debconf-utils >&2   # debconf-loadtemplate, for rootfs_redo_in_tree
        # bookworm's usrmerge package cannot be configured chrootless; mmdebstrap's merged-usr
        # hook lays out /bin -> usr/bin itself and installs usr-is-merged in its place.
        local hooks=()
        [ "$suite" != bookworm ] || hooks=(--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr)
        rootfs_sandbox mmdebstrap --mode=chrootless "${hooks[@]}" "${args[@]}" >"$log" 2>&1 \
            || { echo "rootfs: mmdebstrap $suite $arch (chrootless) failed (see $log)" >&2; exit 1; }
        rootfs_redo_in_tree "$dir" >>"$log" 2>&1 \
            || { echo "rootfs: finishing ca-certificates/fontconfig in the $(basename "$dir") tree failed (see $log)" >&2; exit 1; }
        rootfs_check_foreign "$dir" "$(basename "$dir")" || exit 1
    fi
    rootfs_apt_cache "$dir" "$(basename "$dir")" || exit 1
    { echo "$want"; echo "content $(tree_sum "$dir")"; } >"$stamp"
    echo "rootfs: $(basename "$dir") tree built in $(($(date +%s) - t0)) s ($(du -sh "$dir" | cut -f1))" >&2
    echo "$dir"
}
# The tree's installed packages and versions: what the tests depend on.
tree_sum() { sha256sum <"$1/var/lib/dpkg/status" | cut -d' ' -f1; }

# rootfs_upgradable DIR ARCH: the tree's packages that Debian (its sources: the suite, -updates,
# -security) has newer versions of, one `name old -> new` per line; empty when it is current.
# The host's apt reads the tree's own sources, keys and dpkg status natively (no chroot, no qemu
# for an arm64 tree), at most once per ROOTFS_FRESH_SECONDS; the lists land in the tree.
rootfs_upgradable() {
    local dir=$1 arch=$2 fresh=$1.fresh now list
    now=$(date +%s)
    # The last answer, when it is recent: its time on the first line, the packages after it.
    if [ -f "$fresh" ] && [ $((now - $(head -1 "$fresh"))) -lt "$ROOTFS_FRESH_SECONDS" ] \
        && [ "$(sed -n 2p "$fresh")" = "status $(tree_sum "$dir")" ]; then
        tail -n +3 "$fresh"
        return 0
    fi
    local apt=(apt-get -q -o Dir="$dir" -o Dir::State::status="$dir/var/lib/dpkg/status" -o APT::Architecture="$arch"
        -o APT::Architectures="$arch" -o APT::Sandbox::User=root -o Debug::NoLocking=1)
    "${apt[@]}" update >"$dir.update.log" 2>&1 \
        || { echo "rootfs: reading Debian's lists for $(basename "$dir") failed (see $dir.update.log)" >&2; return 1; }
    list=$("${apt[@]}" -s upgrade 2>/dev/null | sed -n 's/^Inst \([^ ]*\) \[\([^]]*\)\] (\([^ ]*\) .*/\1 \2 -> \3/p'
        [ "${PIPESTATUS[0]}" -eq 0 ]) || { echo "rootfs: apt-get -s upgrade in $(basename "$dir") failed" >&2; return 1; }
    { echo "$now"; echo "status $(tree_sum "$dir")"; [ -z "$list" ] || echo "$list"; } >"$fresh"
    [ -z "$list" ] || echo "$list"
}


# Runs "$@" in a private mount namespace in which the host's /etc, /usr, /var/lib, /var/log and
# /var/cache/debconf and /root are overlays with a throw-away upper layer on a private tmpfs: whatever a maintainer
# script that ignores DPKG_ROOT writes there is gone when the command ends. The rootfs cache
# (under /var/cache) and /tmp stay the real ones, so the tree itself persists.
rootfs_sandbox() {
    unshare --mount --propagation private bash -euc '
        up=$(mktemp -d /tmp/breeze-rootfs-sandbox.XXXXXX)
        mount -t tmpfs tmpfs "$up"
        for d in /etc /usr /var/lib /var/log /var/cache/debconf /root; do
            [ -d "$d" ] || continue
            n=${d//\//_}
            mkdir -p "$up/$n.upper" "$up/$n.work"
            mount -t overlay overlay -o "lowerdir=$d,upperdir=$up/$n.upper,workdir=$up/$n.work" "$d"
        done
        status=0
        "$@" || status=$?
        exit "$status"
    ' rootfs-sandbox "$@"
    local status=$?
    rmdir /tmp/breeze-rootfs-sandbox.* 2>/dev/null || true
    return "$status"
}

# What ca-certificates' and fontconfig-config's maintainer scripts would have done inside the
# tree, done natively (the difference to a tree built under qemu was checked file by file:
# /etc/ca-certificates.conf's comment is the only one left): in the sandbox, the tree's folders are bound over the host paths those
# scripts use, so the host's update-ca-certificates (same file layout) writes the tree's
# /etc/ssl/certs with links that are right inside the tree, and fontconfig-config's own
# postinst makes the tree's /etc/fonts/conf.d links from the debconf defaults. The tree's
# ca-certificates.conf enables every certificate it ships, as a fresh install does.
rootfs_redo_in_tree() {
    local tree=$1
    {
        echo "# Written by breeze-agent's scripts/rootfs-common.sh as ca-certificates' postinst would:"
        echo "# every certificate the package ships is enabled."
        (cd "$tree/usr/share/ca-certificates" && find . -name '*.crt' | sed 's|^\./||' | LC_ALL=C sort)
    } >"$tree/etc/ca-certificates.conf"
    mkdir -p "$tree/usr/local/share/ca-certificates" "$tree/etc/ca-certificates/update.d"
    rootfs_sandbox bash -euc '
        tree=$1
        mount --bind "$tree/usr/local" /usr/local
        mount --bind "$tree/etc/ssl/certs" /etc/ssl/certs
        mount --bind "$tree/usr/share/ca-certificates" /usr/share/ca-certificates
        mount --bind "$tree/etc/ca-certificates" /etc/ca-certificates
        mount --bind "$tree/etc/ca-certificates.conf" /etc/ca-certificates.conf
        update-ca-certificates --fresh --hooksdir ""
        mount --bind "$tree/etc/fonts" /etc/fonts
        mount --bind "$tree/usr/share/fontconfig" /usr/share/fontconfig
        debconf-loadtemplate fontconfig-config "$tree/var/lib/dpkg/info/fontconfig-config.templates"
        DEBIAN_FRONTEND=noninteractive sh "$tree/var/lib/dpkg/info/fontconfig-config.postinst" configure
    ' rootfs-redo "$tree"
    # libpam-runtime's pam-auth-update ran before the other PAM profiles were unpacked in
    # chrootless order (common-session lacked pam_umask); rerun it in the tree, under qemu (7 s).
    chroot "$tree" pam-auth-update --package
}

# A chrootless tree is checked by running its own tools under qemu-user: dpkg's database is
# consistent, the loader cache is the tree's, the CA bundle and the font links are there.
rootfs_check_foreign() {
    local tree=$1 name=$2 audit certs
    chroot "$tree" /sbin/ldconfig || { echo "rootfs: ldconfig in the $name tree failed (is qemu-user binfmt registered?)" >&2; return 1; }
    audit=$(chroot "$tree" dpkg --audit 2>&1) || true
    [ -z "$audit" ] || { echo "rootfs: dpkg --audit in the $name tree is not clean: $audit" >&2; return 1; }
    certs=$(grep -c 'BEGIN CERTIFICATE' "$tree/etc/ssl/certs/ca-certificates.crt" 2>/dev/null || echo 0)
    [ "$certs" -ge 100 ] || { echo "rootfs: the $name tree's CA bundle has $certs certificates" >&2; return 1; }
    [ -L "$tree/etc/fonts/conf.d/10-hinting-slight.conf" ] || { echo "rootfs: the $name tree has no fontconfig links" >&2; return 1; }
    chroot "$tree" /usr/bin/openssl verify -CAfile /etc/ssl/certs/ca-certificates.crt \
        "/etc/ssl/certs/$(ls "$tree/etc/ssl/certs" | grep -m1 '\.pem$')" >/dev/null \
        || { echo "rootfs: the $name tree's openssl cannot verify against its CA links" >&2; return 1; }
}

# apt's binary caches, made once in the cached tree: mmdebstrap removes them, and then every apt
# call of a test run (install, upgrade, purge; each on a fresh overlay) rebuilt them from the
# package lists first -- 95 s per call in the trixie arm64 tree under qemu, where a call with
# the caches present takes about a second. The caches follow the lists and dpkg's status, so
# apt keeps them valid itself; a tree cached before this existed gets them on its next use.
rootfs_apt_cache() {
    local tree=$1 name=$2 t0
    [ ! -s "$tree/var/cache/apt/srcpkgcache.bin" ] || return 0
    t0=$(date +%s)
    chroot "$tree" apt-cache gencaches >/dev/null \
        || { echo "rootfs: apt-cache gencaches in the $name tree failed" >&2; return 1; }
    echo "rootfs: apt caches of the $name tree made in $(($(date +%s) - t0)) s" >&2
}
