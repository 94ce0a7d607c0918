#!/usr/bin/env bash
# `make publish` (SPEC §18): publishes a release folder that `make release` wrote.
#   images  each image index (breeze-agent, breeze-agent-addon) pushed with skopeo to
#           $REGISTRY/<name> as <v>, <major>.<minor> and latest — one name for amd64 and arm64 —
#           and each single-architecture image as <v>-amd64, <v>-arm64; the -full image (the
#           render helper and its fonts, SPEC §19) into $REGISTRY/breeze-agent as <v>-full,
#           <major>.<minor>-full, latest-full and <v>-full-amd64, <v>-full-arm64
#   files   the apt repository to $PUBLISH_TARGET/apt/ (pool/ first, dists/ last, so a client
#           never reads a Release naming files not there yet), the keyring beside it
#           ($PUBLISH_TARGET/apt/breeze-agent-archive-keyring.gpg), and every release file to
#           $PUBLISH_TARGET/releases/<v>/
# Usage: scripts/publish.sh [RELEASE_FOLDER]   (default build/release/<VERSION>)
# Environment:
#   REGISTRY             where images go (default ghcr.io/breeze-agent)
#   REGISTRY_USER, REGISTRY_TOKEN   the registry login (skopeo --dest-creds); none: skopeo's own
#                        auth file (skopeo login, or $REGISTRY_AUTH_FILE)
#   REGISTRY_TLS_VERIFY  false for a plain-HTTP registry (the rehearsal's loopback one)
#   PUBLISH_TARGET       a folder, or an rsync destination (host:path, rsync://…) — required
#   PUBLISH_IMAGES=0     files only (the rehearsal's second version publishes only its apt
#                        repository over the first)
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(tr -d '[:space:]' <VERSION)
release=${1:-build/release/$version}
[ -d "$release" ] || { echo "publish: no release folder $release (make release writes it)" >&2; exit 1; }
v=$(basename "$release")
[[ $v =~ ^([0-9]+)\.([0-9]+)\.[0-9]+([~+].*)?$ ]] || { echo "publish: $release is not named after a version (MAJOR.MINOR.PATCH)" >&2; exit 1; }
minor=${BASH_REMATCH[1]}.${BASH_REMATCH[2]}
target=${PUBLISH_TARGET:-}
[ -n "$target" ] || { echo "publish: PUBLISH_TARGET is not set (a folder or an rsync destination; docs/releasing.md)" >&2; exit 1; }
t0=$(date +%s)

if [ "${PUBLISH_IMAGES:-1}" != 0 ]; then
    scripts/deps.sh skopeo >&2
    registry=${REGISTRY:-ghcr.io/breeze-agent}
    skopeo_args=(--dest-tls-verify="${REGISTRY_TLS_VERIFY:-true}")
    if [ -n "${REGISTRY_USER:-}" ]; then skopeo_args+=(--dest-creds "$REGISTRY_USER:${REGISTRY_TOKEN:?REGISTRY_TOKEN is not set}"); fi
    # archive name, repository, tag suffix
    for image in "breeze-agent breeze-agent" "breeze-agent-full breeze-agent -full" "breeze-agent-addon breeze-agent-addon"; do
        read -r name repository suffix <<<"$image"
        archive=$release/${name}_${v}.oci.tar
        [ -f "$archive" ] || { echo "publish: $archive is missing" >&2; exit 1; }
        dest=docker://$registry/$repository
        # --all: the index and both images; --preserve-digests: the layers as built (no
        # recompression), so the registry serves the bytes SHA256SUMS and the SBOMs describe.
        skopeo copy --quiet --all --preserve-digests "${skopeo_args[@]}" "oci-archive:$archive" "$dest:$v$suffix" >&2
        for tag in "$minor" latest; do
            skopeo copy --quiet --all --preserve-digests --src-tls-verify="${REGISTRY_TLS_VERIFY:-true}" \
                "${skopeo_args[@]}" "$dest:$v$suffix" "$dest:$tag$suffix" >&2
        done
        # Each architecture also under <v>-<arch>: the add-on's Dockerfile builds on
        # breeze-agent:<v>-full-<arch> (a `docker build` per architecture, as Home Assistant's
        # builder runs it), and a user may pin one.
        for arch in amd64 arm64; do
            skopeo copy --quiet --preserve-digests "${skopeo_args[@]}" "oci-archive:$release/${name}_${v}_$arch.oci.tar" "$dest:$v$suffix-$arch" >&2
        done
        echo "publish: $registry/$repository: $v$suffix, $minor$suffix, latest$suffix (amd64 + arm64), $v$suffix-amd64, $v$suffix-arm64" >&2
    done
fi

# Files. A folder gets a copy; anything else goes through rsync (its own login, ssh keys).
remote=0
case "$target" in *:*) remote=1; scripts/deps.sh rsync >&2 ;; *) mkdir -p "$target" ;; esac
put() {   # put SOURCE... SUBDIR: files or folder contents (a trailing /) into $target/SUBDIR/
    local dest=$target/${*: -1}
    if [ "$remote" = 1 ]; then rsync -a --mkpath "${@:1:$#-1}" "$dest/"; else mkdir -p "$dest" && cp -a "${@:1:$#-1}" "$dest/"; fi
}
if [ -d "$release/apt" ]; then
    put "$release/apt/pool/." apt/pool
    for suite in "$release"/apt/dists/*/; do
        name=$(basename "$suite")
        if [ "$remote" = 1 ]; then
            put "$suite." "apt/dists/$name"
        else
            # A suite replaced by one rename: a client reads the old Release or the new one.
            rm -rf "$target/apt/dists/.$name.new" "$target/apt/dists/.$name.old"
            put "$suite." "apt/dists/.$name.new"
            if [ -d "$target/apt/dists/$name" ]; then mv "$target/apt/dists/$name" "$target/apt/dists/.$name.old"; fi
            mv "$target/apt/dists/.$name.new" "$target/apt/dists/$name"
            rm -rf "$target/apt/dists/.$name.old"
        fi
    done
fi
if [ -f "$release/breeze-agent-archive-keyring.gpg" ]; then put "$release/breeze-agent-archive-keyring.gpg" apt; fi
if [ -f "$release/SHA256SUMS" ]; then put "$release/." "releases/$v"; fi
echo "publish: $release: files to $target in $(($(date +%s) - t0)) s" >&2
