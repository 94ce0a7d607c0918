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
# in the image (images: need Cairo's closure; docs/installing.md). Prints the archive's path.
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
out=build/breeze-agent_${version}_${arch}.oci.tar
tag=localhost/breeze-agent:$version-$arch
base=$(rootfs_tree bookworm "$arch")

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
cp "$deb" "$r/tmp/"
chroot "$r" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
    apt-get -o Acquire::Check-Valid-Until=false -y --no-install-recommends install "/tmp/$(basename "$deb")" libmicrohttpd12 \
    >"$work/apt.log" 2>&1 || { echo "image: installing $deb in the bookworm-$arch tree failed:" >&2; tail -5 "$work/apt.log" >&2; exit 1; }

img=$work/image
mkdir -p "$img"
# Copies <path> (as the tree has it, symlinks followed) into the image at the same path.
take() {
    local path=$1
    [ -e "$r$path" ] || { echo "image: $path is not in the tree" >&2; exit 1; }
    mkdir -p "$img$(dirname "$path")"
    cp -L --preserve=mode "$r$path" "$img$path"
    taken+=("$path")
}
taken=()
case "$arch" in amd64) triplet=x86_64-linux-gnu ;; arm64) triplet=aarch64-linux-gnu ;; esac
# The closure: each NEEDED name resolved in the tree's library directories, then its NEEDED.
declare -A seen
queue=(/usr/bin/breeze-agent "/usr/lib/$triplet/libmicrohttpd.so.12")
while [ ${#queue[@]} -gt 0 ]; do
    file=${queue[0]}
    queue=("${queue[@]:1}")
    [ -z "${seen[$file]:-}" ] || continue
    seen[$file]=1
    take "$file"
    for lib in $(readelf -dW "$r$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
        found=""
        for dir in /lib/$triplet /usr/lib/$triplet /lib /usr/lib; do
            if [ -e "$r$dir/$lib" ]; then found=$dir/$lib; break; fi
        done
        [ -n "$found" ] || { echo "image: $lib (needed by $file) not found in the tree" >&2; exit 1; }
        queue+=("$found")
    done
done
interp=$(readelf -lW "$r/usr/bin/breeze-agent" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
take "$interp"
take /etc/ssl/certs/ca-certificates.crt
mkdir -p "$img/usr/share"
cp -a "$r/usr/share/zoneinfo" "$img/usr/share/"
rm -rf "$img/usr/share/zoneinfo/right"
take /usr/share/doc/breeze-agent/copyright
# Users: root and the package's system user, with their numeric ids from the tree.
uid=$(awk -F: '$1 == "breeze-agent" { print $3 }' "$r/etc/passwd")
gid=$(awk -F: '$1 == "breeze-agent" { print $4 }' "$r/etc/passwd")
mkdir -p "$img/etc" "$img/config" "$img/data" "$img/tmp"
printf 'root:x:0:0:root:/root:/usr/sbin/nologin\nbreeze-agent:x:%s:%s:breeze-agent:/data:/usr/sbin/nologin\n' "$uid" "$gid" >"$img/etc/passwd"
printf 'root:x:0:\nbreeze-agent:x:%s:\n' "$gid" >"$img/etc/group"
printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$img/etc/nsswitch.conf"
sed 's|^state_dir: /var/lib/breeze-agent |state_dir: /data |' config/breeze-agent.example.yaml >"$img/config/config.yaml"
grep -q '^state_dir: /data ' "$img/config/config.yaml" || { echo "image: could not set state_dir: /data in the config" >&2; exit 1; }
chmod 0644 "$img/config/config.yaml" "$img/etc/passwd" "$img/etc/group" "$img/etc/nsswitch.conf"
chown "$uid:$gid" "$img/data"
chmod 0750 "$img/data"
chmod 1777 "$img/tmp"
file -b "$img/usr/bin/breeze-agent" | grep -q "$([ "$arch" = arm64 ] && echo 'ARM aarch64' || echo 'x86-64')" \
    || { echo "image: the binary is not $arch: $(file -b "$img/usr/bin/breeze-agent")" >&2; exit 1; }

epoch=$(git log -1 --format=%ct 2>/dev/null || date +%s)
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
for p in $packages ca-certificates tzdata; do [ "$p" = breeze-agent ] || sbom_args+=(--package "$p"); done
python3 scripts/sbom.py --name breeze-agent-image --version "$version" --arch "$arch" --kind image --file "$out" \
    --root "$r" "${sbom_args[@]}" --relation CONTAINS --swift-version "from:$deb.spdx.json" --distro debian-12 \
    --epoch "$epoch" --out "$out.spdx.json" >&2
echo "image: $out ($tag): $(du -sh --apparent-size "$img" | cut -f1) uncompressed, archive $(du -h "$out" | cut -f1), ${#seen[@]} files in the closure, $(($(date +%s) - t0)) s" >&2
echo "$out"
