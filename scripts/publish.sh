#!/usr/bin/env bash
# `make publish`: publishes a release folder that `make release` wrote.
#   images  each image index (breeze-agent, breeze-agent-addon) pushed with skopeo to
#           $REGISTRY/<name> as <v>, <major>.<minor> and latest — one name for amd64 and arm64 —
#           and each single-architecture image as <v>-amd64, <v>-arm64; the -full image (the
#           render helper and its fonts) into $REGISTRY/breeze-agent as <v>-full,
#           <major>.<minor>-full, latest-full and <v>-full-amd64, <v>-full-arm64
#   site    what GitHub Pages serves, into $PUBLISH_TARGET: the apt repository (apt/: pool/ first,
#           dists/ last, so a client never reads a Release naming files not there yet; the pool
#           keeps the newest $APT_KEEP_VERSIONS versions), the keyring beside it, and per release
#           releases/<v>/ with SHA256SUMS, SHA256SUMS.asc, the SBOMs and the release notes only.
#           The packages and images themselves are the GitHub release's assets (the workflow
#           uploads the whole release folder): Pages serves at most 1 GB, and a release is ~290 MB.
#   add-on  the release's ha-addon/ tree as the whole content of the branch $ADDON_BRANCH (addon)
#           of the git repository $ADDON_GIT, one commit per release, so the Supervisor clones
#           repository.yaml at its root (docs/installing.md, "Home Assistant OS")
# Usage: scripts/publish.sh [RELEASE_FOLDER]   (default build/release/<VERSION>)
# Environment:
#   REGISTRY             where images go (default ghcr.io/breeze-agent)
#   REGISTRY_USER, REGISTRY_TOKEN   the registry login (a private auth file written by
#                        `skopeo login --password-stdin`); none: skopeo's own auth file
#                        (skopeo login, or $REGISTRY_AUTH_FILE)
#   REGISTRY_TLS_VERIFY  false for a plain-HTTP registry (the rehearsal's loopback one)
#   PUBLISH_TARGET       a folder, or an rsync destination (host:path, rsync://…) — required
#   APT_KEEP_VERSIONS    how many versions the pool keeps (default 3; docs/releasing.md)
#   ADDON_GIT            a git URL or folder that receives the add-on branch (none: skipped)
#   ADDON_BRANCH         its branch (default addon)
#   PUBLISH_IMAGES=0     files only (the rehearsal's later versions publish only their apt
#                        repository and add-on branch over the first)
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
    src_args=()
    if [ -n "${REGISTRY_USER:-}" ]; then
        # The token goes to skopeo on stdin into a private auth file, never on a command line
        # (which every local user can read in /proc).
        authdir=$(mktemp -d /tmp/breeze-publish-auth.XXXXXX)
        trap 'rm -rf "$authdir"' EXIT
        printf '%s' "${REGISTRY_TOKEN:?REGISTRY_TOKEN is not set}" \
            | skopeo login --authfile "$authdir/auth.json" --tls-verify="${REGISTRY_TLS_VERIFY:-true}" \
                --username "$REGISTRY_USER" --password-stdin "${registry%%/*}" >&2
        skopeo_args+=(--dest-authfile "$authdir/auth.json")
        src_args=(--src-authfile "$authdir/auth.json")
    fi
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
            skopeo copy --quiet --all --preserve-digests --src-tls-verify="${REGISTRY_TLS_VERIFY:-true}" "${src_args[@]}" \
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
# The pool keeps the newest versions only: a client that read yesterday's index still finds its
# files for a few releases, and the site stays bounded (Pages serves at most 1 GB).
keep=${APT_KEEP_VERSIONS:-3}
if [ "$remote" = 0 ] && [ -d "$target/apt/pool" ]; then
    mapfile -t versions < <(find "$target/apt/pool" -name '*.deb' -printf '%f\n' | sed -n 's/^[a-z0-9.+-]*_\([^_]*\)_[a-z0-9]*\.deb$/\1/p' | sort -uV)
    drop=$((${#versions[@]} - keep))
    for ((i = 0; i < drop; i++)); do
        find "$target/apt/pool" -name "*_${versions[i]}_*.deb" -delete
        rm -rf "$target/releases/${versions[i]}"
        echo "publish: dropped $(basename "${versions[i]}") from the pool and releases/ (keeping the newest $keep)" >&2
    done
    find "$target/apt/pool" -mindepth 1 -type d -empty -delete
fi
# Per release on the site: what a user checks a download with; the large files are the GitHub
# release's assets (the workflow uploads the whole folder there).
small=()
for f in SHA256SUMS SHA256SUMS.asc RELEASE-NOTES.md "$release"/*.spdx.json; do
    f=$(basename "$f")
    [ -f "$release/$f" ] && small+=("$release/$f")
done
if [ -f "$release/SHA256SUMS" ]; then put "${small[@]}" "releases/$v"; fi

# The add-on repository: the release's ha-addon/ tree as the branch's whole content.
if [ -n "${ADDON_GIT:-}" ] && [ -d "$release/ha-addon" ]; then
    branch=${ADDON_BRANCH:-addon}
    clone=$(mktemp -d /tmp/breeze-addon-branch.XXXXXX)
    if git clone --quiet --depth 1 --branch "$branch" "$ADDON_GIT" "$clone" 2>/dev/null; then
        :
    else
        rm -rf "$clone" && mkdir -p "$clone"
        git -C "$clone" init --quiet
        git -C "$clone" checkout --quiet --orphan "$branch"
        git -C "$clone" remote add origin "$ADDON_GIT"
    fi
    find "$clone" -mindepth 1 -maxdepth 1 ! -name .git -exec rm -rf {} +
    cp -a "$release/ha-addon/." "$clone/"
    git -C "$clone" add -A
    epoch=$(stat -c %Y "$release/ha-addon/repository.yaml")
    if git -C "$clone" diff --cached --quiet 2>/dev/null && git -C "$clone" rev-parse -q --verify HEAD >/dev/null; then
        echo "publish: $ADDON_GIT $branch already holds this add-on" >&2
    else
        GIT_AUTHOR_DATE="@$epoch" GIT_COMMITTER_DATE="@$epoch" \
            git -C "$clone" -c user.name="breeze-agent release" -c user.email="releases@users.noreply.github.com" \
            commit --quiet -m "breeze-agent add-on $v"
        git -C "$clone" push --quiet origin "HEAD:refs/heads/$branch"
        echo "publish: the add-on $v to $ADDON_GIT, branch $branch ($(git -C "$clone" rev-parse --short HEAD))" >&2
    fi
    rm -rf "$clone"
fi
echo "publish: $release: files to $target in $(($(date +%s) - t0)) s" >&2
