#!/usr/bin/env bash
# `make image ARCH=amd64|arm64`: build/breeze-agent_<version>_<arch>.oci.tar, an OCI archive
# `podman load` accepts, tagged localhost/breeze-agent:<version>-<arch>. No registry and no base
# image: the .deb (scripts/deb.sh) is installed with apt into the cached Debian 12 rootfs of
# scripts/rootfs-common.sh (on an overlay), and the image takes from it only what the agent
# needs, the distroless way:
#   /usr/bin/breeze-agent and its shared-library closure (readelf NEEDED, followed), the loader,
#   and libmicrohttpd.so.12 with its closure (the agent dlopens it for `http:`, the status page)
#   /etc/ssl/certs/ca-certificates.crt, /usr/share/zoneinfo (without the right/ leap-second copy)
#   /etc/passwd, /etc/group with root and the package's breeze-agent system user
#   /config/config.yaml (the package's example with state_dir: /data), /data (a volume), /tmp
# The image runs /usr/bin/breeze-agent run --config /config/config.yaml as breeze-agent; the
# agent logs to stdout (BREEZE_LOG_STREAM=stdout, the container log). The render helper is not
# in this image (images: need Cairo's closure). Prints the archive's path.
#
# BREEZE_IMAGE_FULL=1 (`make image-full`, SPEC §19): build/breeze-agent-full_<version>_<arch>.oci.tar,
# tagged localhost/breeze-agent:<version>-full-<arch>: the same plus the render helper
# (/usr/libexec/breeze-agent/breeze-agent-render from the breeze-agent-render .deb) and exactly
# what it needs at run time:
#   its shared-library closure, found the same way (Cairo, pixman, libpng, libjpeg-turbo,
#   FreeType, fontconfig and what they link)
#   fontconfig's configuration (/etc/fonts) and the font files fontconfig itself picks for the
#   faces the helper asks for (fc-match in the tree: DejaVu Sans, regular and bold; its
#   condensed cut where the tree has one) and for the CJK fallback (WenQuanYi Micro Hei,
#   fonts-wqy-microhei: DejaVu has no CJK glyphs; docs/images.md "Fonts")
#   fontconfig's cache for exactly those fonts, made in the tree by fc-cache with every font
#   folder's time set to the image's epoch (the time the layer gives them), so it is valid in
#   the container: the helper never scans the fonts nor tries to write a cache (/data stays clean)
# The add-on (scripts/addon-image.sh) builds on this image.
#   BREEZE_RENDER_ARCHIVE  the breeze-agent-render .deb for this architecture (scripts/release.sh);
#                          otherwise scripts/deb-render.sh builds it
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "image: run as root (chroot, mounts)" >&2; exit 1; }
scripts/deps.sh mmdebstrap python3 binutils file >&2
. scripts/rootfs-common.sh
arch=${ARCH:-$(dpkg --print-architecture)}
case "$arch" in amd64 | arm64) ;; *) echo "image: ARCH=$arch is not supported (amd64 or arm64)" >&2; exit 1 ;; esac
t0=$(date +%s)

# BREEZE_DEB_ARCHIVE: a .deb already built for this architecture (scripts/release.sh builds the
# packages once); otherwise scripts/deb.sh builds it.
if [ -n "${BREEZE_DEB_ARCHIVE:-}" ]; then
    deb=$BREEZE_DEB_ARCHIVE
    [ "$(dpkg-deb -f "$deb" Architecture 2>/dev/null)" = "$arch" ] || { echo "image: BREEZE_DEB_ARCHIVE=$deb is not an $arch package" >&2; exit 1; }
else
    deb=$(ARCH=$arch scripts/deb.sh)
fi
version=$(dpkg-deb -f "$deb" Version)
full=${BREEZE_IMAGE_FULL:-0}
case "$full" in 0 | 1) ;; *) echo "image: BREEZE_IMAGE_FULL=$full: expected 0 or 1" >&2; exit 1 ;; esac
debs=("$deb")
if [ "$full" = 1 ]; then
    if [ -n "${BREEZE_RENDER_ARCHIVE:-}" ]; then
        render_deb=$BREEZE_RENDER_ARCHIVE
    else
        render_deb=$(ARCH=$arch scripts/deb-render.sh)
    fi
    [ "$(dpkg-deb -f "$render_deb" Package 2>/dev/null)" = breeze-agent-render ] && [ "$(dpkg-deb -f "$render_deb" Architecture)" = "$arch" ] \
        && [ "$(dpkg-deb -f "$render_deb" Version)" = "$version" ] \
        || { echo "image: $render_deb is not breeze-agent-render $version for $arch" >&2; exit 1; }
    debs+=("$render_deb")
    out=build/breeze-agent-full_${version}_${arch}.oci.tar
    tag=localhost/breeze-agent:$version-full-$arch
else
    out=build/breeze-agent_${version}_${arch}.oci.tar
    tag=localhost/breeze-agent:$version-$arch
fi
base=$(rootfs_tree bookworm "$arch")
# The image takes its libraries from this tree: nothing in it may have a newer version in
# bookworm, -updates or -security (rootfs_tree makes a tree Debian has overtaken again; this
# refuses, naming them, if that did not help). The SBOM lists the versions taken.
stale=$(rootfs_upgradable "$base" "$arch") || exit 1
[ -z "$stale" ] || { echo "image: the $arch tree has packages with newer Debian versions (security updates?): $(tr '\n' ';' <<<"$stale")" >&2; exit 1; }

work=$(mktemp -d /tmp/breeze-image.XXXXXX)
mounts=()
cleanup() {
    local i
    for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[i]}" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
r=$work/full
mkdir -p "$work/upper" "$work/work" "$r"
mount -t overlay overlay -o "lowerdir=$base,upperdir=$work/upper,workdir=$work/work" "$r" && mounts+=("$r")
mount -t proc proc "$r/proc" && mounts+=("$r/proc")
mount --rbind /dev "$r/dev" && mount --make-rslave "$r/dev" && mounts+=("$r/dev")
install=()
for d in "${debs[@]}"; do cp "$d" "$r/tmp/" && install+=("/tmp/$(basename "$d")"); done
# fontconfig (fc-match, fc-cache) only to find the fonts and make the cache; it is not taken.
[ "$full" = 0 ] || install+=(fontconfig fonts-wqy-microhei)
in_tree() { chroot "$r" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"; }
in_tree apt-get -o Acquire::Check-Valid-Until=false -y --no-install-recommends install "${install[@]}" libmicrohttpd12 \
    >"$work/apt.log" 2>&1 || { echo "image: installing ${debs[*]} in the bookworm-$arch tree failed:" >&2; tail -5 "$work/apt.log" >&2; exit 1; }

img=$work/image
mkdir -p "$img"
# The tree's file for <path>, its symlinks followed inside the tree: an absolute link (fontconfig's
# /etc/fonts/conf.d/* -> /usr/share/fontconfig/conf.avail/*) names the tree's file, not the host's.
in_tree_file() {
    local path=$1 hops=0 target
    while [ -L "$r$path" ] && [ "$hops" -lt 40 ]; do
        target=$(readlink "$r$path")
        case "$target" in /*) path=$target ;; *) path=$(dirname "$path")/$target ;; esac
        hops=$((hops + 1))
    done
    echo "$r$path"
}
# Copies <path> (as the tree has it, symlinks followed) into the image at the same path.
take() {
    local path=$1 file
    file=$(in_tree_file "$path")
    [ -e "$file" ] || { echo "image: $path is not in the tree" >&2; exit 1; }
    mkdir -p "$img$(dirname "$path")"
    cp -L --preserve=mode "$file" "$img$path"
    taken+=("$path")
}
taken=()
case "$arch" in amd64) triplet=x86_64-linux-gnu ;; arm64) triplet=aarch64-linux-gnu ;; esac
# The closure: each NEEDED name resolved in the tree's library directories, then its NEEDED.
# closure ROOT...: takes the roots and every file they need that is not taken yet, and lists
# those files in `closure_files` (the full image tells the helper's own share from the agent's).
declare -A seen
closure() {
    local queue=("$@") file lib found dir
    closure_files=()
    while [ ${#queue[@]} -gt 0 ]; do
        file=${queue[0]}
        queue=("${queue[@]:1}")
        [ -z "${seen[$file]:-}" ] || continue
        seen[$file]=1
        take "$file"
        closure_files+=("$file")
        for lib in $(readelf -dW "$r$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
            found=""
            for dir in /lib/$triplet /usr/lib/$triplet /lib /usr/lib; do
                if [ -e "$r$dir/$lib" ]; then found=$dir/$lib; break; fi
            done
            [ -n "$found" ] || { echo "image: $lib (needed by $file) not found in the tree" >&2; exit 1; }
            queue+=("$found")
        done
    done
}
closure /usr/bin/breeze-agent "/usr/lib/$triplet/libmicrohttpd.so.12"
agent_files=("${closure_files[@]}")
helper_files=()
if [ "$full" = 1 ]; then
    closure /usr/libexec/breeze-agent/breeze-agent-render
    helper_files=("${closure_files[@]}")
fi
interp=$(readelf -lW "$r/usr/bin/breeze-agent" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
take "$interp"
take /etc/ssl/certs/ca-certificates.crt
mkdir -p "$img/usr/share"
cp -a "$r/usr/share/zoneinfo" "$img/usr/share/"
rm -rf "$img/usr/share/zoneinfo/right"
take /usr/share/doc/breeze-agent/copyright
epoch=$(git log -1 --format=%ct 2>/dev/null || date +%s)
if [ "$full" = 1 ]; then
    take /usr/share/doc/breeze-agent-render/copyright
    # fontconfig's configuration: fonts.conf and the conf.d links (taken as the files they name).
    for conf in "$r"/etc/fonts/fonts.conf "$r"/etc/fonts/conf.d/*.conf; do take "${conf#"$r"}"; done
    # The fonts: the files fontconfig resolves in the tree for each face the helper selects
    # (Sources/BreezeRender/Canvas.swift, Face and the fallback), as the helper will resolve them.
    fonts=()
    for pattern in 'DejaVu Sans' 'DejaVu Sans:bold' 'DejaVu Sans Condensed' 'DejaVu Sans Condensed:bold' \
        'WenQuanYi Micro Hei' 'WenQuanYi Micro Hei:bold'; do
        font=$(in_tree fc-match -f '%{file}' "$pattern") || { echo "image: fc-match '$pattern' failed in the tree" >&2; exit 1; }
        case " ${fonts[*]} " in *" $font "*) ;; *) fonts+=("$font") ;; esac
    done
    for font in "${fonts[@]}"; do take "$font"; done
    grep -q 'wqy-microhei' <<<"${fonts[*]}" || { echo "image: fontconfig found no WenQuanYi Micro Hei (CJK) in the tree: ${fonts[*]}" >&2; exit 1; }
    # The cache: the tree's fonts reduced to the image's, every font folder's time set to the
    # epoch (what the layer gives them; fontconfig checks a folder's cache against its mtime),
    # then fc-cache in the tree. Only these fonts' caches are taken.
    find "$r/usr/share/fonts" "$r/usr/local/share/fonts" -type f 2>/dev/null | while read -r f; do
        case " ${fonts[*]} " in *" ${f#"$r"} "*) ;; *) rm -f "$f" ;; esac
    done
    find "$r/usr/share/fonts" -depth -type d -empty -delete
    rm -rf "$r/var/cache/fontconfig" "$r/usr/local/share/fonts"
    find "$r/usr/share/fonts" -type d -exec touch -h -d "@$epoch" {} +
    in_tree env SOURCE_DATE_EPOCH="$epoch" fc-cache -s -f >"$work/fc-cache.log" 2>&1 \
        || { echo "image: fc-cache in the tree failed:" >&2; cat "$work/fc-cache.log" >&2; exit 1; }
    for cache in "$r"/var/cache/fontconfig/*; do take "${cache#"$r"}"; done
    # Every folder above the fonts is in the image with the epoch's time too (oci-pack.py).
    [ "$(find "$img/usr/share/fonts" -type f | wc -l)" = "${#fonts[@]}" ] || { echo "image: the fonts taken are not ${fonts[*]}" >&2; exit 1; }
fi
# Users: root and breeze-agent with a uid and gid fixed across releases (1883, mosquitto's port;
# docs/installing.md): the Debian package's system user gets whatever id its tree has free, and
# a volume made by one image must stay the service's own after an upgrade or a rebuild.
uid=1883 gid=1883
mkdir -p "$img/etc" "$img/config" "$img/data" "$img/tmp"
printf 'root:x:0:0:root:/root:/usr/sbin/nologin\nbreeze-agent:x:%s:%s:breeze-agent:/data:/usr/sbin/nologin\n' "$uid" "$gid" >"$img/etc/passwd"
printf 'root:x:0:\nbreeze-agent:x:%s:\n' "$gid" >"$img/etc/group"
printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$img/etc/nsswitch.conf"
scripts/container-config.sh >"$img/config/config.yaml"
chmod 0644 "$img/config/config.yaml" "$img/etc/passwd" "$img/etc/group" "$img/etc/nsswitch.conf"
chown "$uid:$gid" "$img/data"
chmod 0750 "$img/data"
chmod 1777 "$img/tmp"
file -b "$img/usr/bin/breeze-agent" | grep -q "$([ "$arch" = arm64 ] && echo 'ARM aarch64' || echo 'x86-64')" \
    || { echo "image: the binary is not $arch: $(file -b "$img/usr/bin/breeze-agent")" >&2; exit 1; }

mkdir -p build
python3 scripts/oci-pack.py --root "$img" --arch "$arch" --tag "$tag" --version "$version" \
    --user "$uid:$gid" --epoch "$epoch" --out "$out" >&2
# The SBOM (scripts/sbom.py): the Debian packages the image's files came from (dpkg's database in
# the tree; the CA bundle is generated by ca-certificates, the zone files are tzdata's), at the
# versions installed, and the Swift runtime the .deb's SBOM names.
# A library found under /lib is /usr/lib's (usrmerge) and dpkg may know it by either name.
packages=$(for path in "${taken[@]}"; do
    case "$path" in /usr/lib/*) other=${path#/usr} ;; /lib/* | /lib64/*) other=/usr$path ;; *) other=$path ;; esac
    dpkg-query --admindir="$r/var/lib/dpkg" -S "$path" 2>/dev/null || dpkg-query --admindir="$r/var/lib/dpkg" -S "$other" 2>/dev/null || true
done \
    | sed -n 's/^\([^:,]*\)[:,].*/\1/p' | sort -u)
grep -qx breeze-agent <<<"$packages" || { echo "image: dpkg does not know /usr/bin/breeze-agent's package in the tree" >&2; exit 1; }
sbom_args=()
generated=(ca-certificates tzdata)
[ "$full" = 0 ] || generated+=(fontconfig)   # the font cache is fc-cache's
for p in $packages "${generated[@]}"; do [ "$p" = breeze-agent ] || sbom_args+=(--package "$p"); done
python3 scripts/sbom.py --name "breeze-agent$([ "$full" = 0 ] || echo -full)-image" --version "$version" --arch "$arch" --kind image --file "$out" \
    --root "$r" "${sbom_args[@]}" --relation CONTAINS --swift-version "from:$deb.spdx.json" --distro debian-12 \
    --epoch "$epoch" --out "$out.spdx.json" >&2
# What each part weighs (apparent bytes, as the image's uncompressed size counts them).
megabytes() { awk -v n="$1" 'BEGIN { if (n < 100000) printf "%.0f kB", n / 1000; else printf "%.1f MB", n / 1000000 }'; }
weigh() { local n=0 f; for f in "$@"; do n=$((n + $(stat -c %s "$img$f"))); done; megabytes "$n"; }
weigh_dir() { megabytes "$(du -s --apparent-size --block-size=1 "$img$1" | cut -f1)"; }
parts="agent $(weigh /usr/bin/breeze-agent), its libraries $(weigh "${agent_files[@]:1}" "$interp"), zoneinfo $(weigh_dir /usr/share/zoneinfo), CA bundle $(weigh /etc/ssl/certs/ca-certificates.crt)"
if [ "$full" = 1 ]; then
    parts+=", render helper $(weigh /usr/libexec/breeze-agent/breeze-agent-render), its own libraries $(weigh "${helper_files[@]:1}") ($((${#helper_files[@]} - 1)) files)"
    parts+=", fonts $(weigh "${fonts[@]}") ($(for f in "${fonts[@]}"; do printf '%s %s; ' "$(basename "$f")" "$(weigh "$f")"; done | sed 's/; $//'))"
    parts+=", fontconfig's config and cache $(weigh_dir /etc/fonts) + $(weigh_dir /var/cache/fontconfig)"
fi
echo "image: $arch parts: $parts" >&2
echo "image: $out ($tag): $(du -sh --apparent-size "$img" | cut -f1) uncompressed, archive $(du -h "$out" | cut -f1), ${#seen[@]} files in the closure, $(($(date +%s) - t0)) s" >&2
echo "$out"
