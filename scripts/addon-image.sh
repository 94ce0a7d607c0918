#!/usr/bin/env bash
# `make addon-image ARCH=amd64|arm64`: build/breeze-agent-addon_<version>_<arch>.oci.tar, the
# Home Assistant add-on's image (SPEC §15), tagged localhost/breeze-agent-addon:<version>-<arch>.
# It is the -full image of `make image-full` (scripts/image.sh with BREEZE_IMAGE_FULL=1: the
# §14 image plus the render helper and its fonts, SPEC §19) with ha-addon/breeze_agent/Dockerfile
# applied to it by scripts/oci-pack.py: the same layer (no file added), and the Dockerfile's
# metadata — USER root, ENTRYPOINT ["/usr/bin/breeze-agent", "addon"], the io.hass.* labels with
# BUILD_ARCH (amd64 | aarch64, Home Assistant's names) and BUILD_VERSION. The Dockerfile is the
# one description of the add-on image: a release's `docker build` of it gives the same config
# (scripts/test-addon-image.sh builds it with podman and compares). No registry involved.
#   BREEZE_IMAGE_ARCHIVE=<-full archive>  use that archive (build/breeze-agent-full_<v>_<arch>.oci.tar)
#                                        instead of running scripts/image.sh
# Prints the archive's path on stdout; progress and the size on stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
arch=${ARCH:-$(dpkg --print-architecture)}
case "$arch" in
amd64) build_arch=amd64 ;;
arm64) build_arch=aarch64 ;;
*) echo "addon-image: ARCH=$arch is not supported (amd64 or arm64)" >&2; exit 1 ;;
esac
t0=$(date +%s)
version=$(tr -d '[:space:]' <VERSION)
addon_version=$(sed -n 's/^version: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' ha-addon/breeze_agent/config.yaml)
# The Supervisor pulls `image:` tagged with config.yaml's version, and io.hass.version must say it.
[ "$addon_version" = "$version" ] || {
    echo "addon-image: ha-addon/breeze_agent/config.yaml has version \"$addon_version\", VERSION has $version" >&2
    exit 1
}
if [ -n "${BREEZE_IMAGE_ARCHIVE:-}" ]; then
    base=$BREEZE_IMAGE_ARCHIVE
    [ -f "$base" ] || { echo "addon-image: BREEZE_IMAGE_ARCHIVE=$base: no such file" >&2; exit 1; }
else
    base=$(ARCH=$arch BREEZE_IMAGE_FULL=1 scripts/image.sh)
fi
case "$(basename "$base")" in
"breeze-agent-full_${version}_$arch.oci.tar") ;;
*) echo "addon-image: $base is not the -full image of $version for $arch (breeze-agent-full_${version}_$arch.oci.tar)" >&2; exit 1 ;;
esac
out=build/breeze-agent-addon_${version}_${arch}.oci.tar
tag=localhost/breeze-agent-addon:$version-$arch
epoch=$(git log -1 --format=%ct 2>/dev/null || date +%s)
mkdir -p build
python3 scripts/oci-pack.py --base "$base" --dockerfile ha-addon/breeze_agent/Dockerfile \
    --build-arg "BUILD_ARCH=$build_arch" --build-arg "BUILD_VERSION=$version" \
    --arch "$arch" --tag "$tag" --epoch "$epoch" --out "$out" >"$out.log"
# Its SBOM: the -full image's packages (the same layer), this archive described.
python3 scripts/sbom.py --name breeze-agent-addon --version "$version" --arch "$arch" --kind image --file "$out" \
    --like "$base.spdx.json" --relation CONTAINS \
    --swift-version "from:$base.spdx.json" \
    --distro debian-12 --epoch "$epoch" --out "$out.spdx.json" 2>>"$out.log" \
    || { cat "$out.log" >&2; echo "addon-image: no SBOM for $out (is $base.spdx.json there?)" >&2; exit 1; }
summary=$(sed -n 's/^oci-pack: [^:]*: //p' "$out.log")
rm -f "$out.log"
echo "addon-image: $out ($tag, over $(basename "$base")): $summary; $(($(date +%s) - t0)) s" >&2
echo "$out"
