#!/usr/bin/env bash
# `make security-check [RELEASE=build/release/<v>]`: whether Debian has published newer versions
# (bookworm, -updates, -security) of any package a release's images or .debs were made from —
# the signal to cut the release again (docs/releasing.md, "Security updates"). Each SBOM's
# Debian packages and versions are compared with the candidates apt sees in the cached tree of
# that architecture (its lists read again natively, scripts/rootfs-common.sh). Prints one line
# per outdated package and SBOM; exits 1 when there is any.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(tr -d '[:space:]' <VERSION)
release=${1:-build/release/$version}
[ -d "$release" ] || { echo "security-check: no release folder $release" >&2; exit 2; }
. scripts/rootfs-common.sh
outdated=0
for arch in amd64 arm64; do
    tree=$(rootfs_tree bookworm "$arch")
    apt=(apt-cache -o Dir="$tree" -o Dir::State::status="$tree/var/lib/dpkg/status" -o APT::Architecture="$arch")
    for sbom in "$release"/*_"$arch".*.spdx.json; do
        [ -f "$sbom" ] || continue
        while read -r name have; do
            want=$("${apt[@]}" policy "$name" 2>/dev/null | sed -n 's/^  Candidate: //p')
            [ -n "$want" ] && [ "$want" != "(none)" ] || continue
            if dpkg --compare-versions "$want" gt "$have"; then
                echo "security-check: $(basename "$sbom"): $name $have -> $want"
                outdated=$((outdated + 1))
            fi
        done < <(python3 -c 'import json, sys
for p in json.load(open(sys.argv[1]))["packages"]:
    if p.get("supplier", "").find("Debian") >= 0 or p.get("externalRefs"):
        print(p["name"], p.get("versionInfo", ""))' "$sbom")
    done
done
echo "security-check: $release: $outdated outdated package(s) in its SBOMs" >&2
[ "$outdated" -eq 0 ]
