#!/usr/bin/env bash
# `make release` (SPEC §18): everything a release publishes, in build/release/<version>/:
#   breeze-agent_<v>_{amd64,arm64}.deb, breeze-agent-render_<v>_{amd64,arm64}.deb
#   breeze-agent_<v>_{amd64,arm64}.oci.tar, breeze-agent-full_<v>_{amd64,arm64}.oci.tar,
#   breeze-agent-addon_<v>_{amd64,arm64}.oci.tar
#                          the single-architecture images (§14; §19: -full carries the render
#                          helper and its fonts; §15: the add-on, built on -full)
#   breeze-agent_<v>.oci.tar, breeze-agent-full_<v>.oci.tar, breeze-agent-addon_<v>.oci.tar
#                          per image an OCI image index over amd64 + arm64 (what `make publish`
#                          pushes as one name; scripts/oci-pack.py --index)
#   <file>.spdx.json       an SPDX 2.3 SBOM per .deb and per image (scripts/sbom.py)
#   apt/                   the signed apt repository: suites bookworm and trixie, component main,
#                          amd64 + arm64, InRelease and Release.gpg, made by reprepro
#   breeze-agent-archive-keyring.gpg   the signing key's public part, a binary keyring (Signed-By)
#   RELEASE-NOTES.md       this version's section of CHANGELOG.md
#   compose.yaml, mosquitto.conf, config.yaml
#                          what the Compose and Docker recipes fetch (docs/installing.md)
#   ha-addon/              the add-on repository's tree (repository.yaml at its root), published
#                          to the `addon` branch by `make publish`
#   breeze-agent-addon-repository_<v>.tar   ha-addon/ as one download (a GitHub release asset)
#   SHA256SUMS, SHA256SUMS.asc         every other file's SHA-256, and its detached signature
# Refuses, naming what is wrong: a version that differs anywhere from VERSION
# (scripts/version-check.sh, before and after the build), a tag that is not v<VERSION>
# (RELEASE_TAG, when set), a tree with uncommitted changes, no key, a key that cannot sign.
#   release.sh --preflight   (make release-preflight) those refusals only, then exits: every
#                            check that needs no build, with the same code as the release
#   release.sh --resign APT_DIR [DAYS]   (make apt-resign) the repository's signatures renewed
#
# Environment:
#   BREEZE_RELEASE_KEY          the signing key: an armored secret key (the text), or the path of
#                               a file holding one (armored or binary). Never committed; the
#                               rehearsal (scripts/test-release.sh) makes a throw-away one.
#   BREEZE_RELEASE_ALLOW_DIRTY  1: build from a tree with uncommitted changes anyway (the rehearsal
#                               in a working copy; a real release never sets it)
#   BREEZE_RELEASE_OUT          the output folder (default build/release/<version>)
#   RELEASE_TAG                 the git tag being released (the workflow's); must be v<VERSION>
# Needs root (the arm64 toolchain's chroot, the image trees). Prints the output folder.
#
# The signing key never reaches the disk or another program's environment: the release runs in
# a PID and mount namespace of its own, the key is handed to it on a descriptor (not in its
# environment), imported into a GnuPG home on a tmpfs mounted only in that namespace, and checked
# to sign without a passphrase before anything is built. However the release ends — done, an
# error, SIGTERM, SIGKILL — the namespace's last process takes the tmpfs and the gpg-agent with it
# (the kernel kills every process of a PID namespace whose first one dies). `make release` runs
# it with a parent-death signal, so stopping make stops the release before it signs.
set -euo pipefail
cd "$(dirname "$0")/.."
umask 022
[ "$(id -u)" -eq 0 ] || { echo "release: run as root (cross toolchain chroot, image trees)" >&2; exit 1; }
case "${BREEZE_RELEASE_STAGE:-}" in
"")
    [ -n "${BREEZE_RELEASE_KEY:-}" ] || {
        echo "release: BREEZE_RELEASE_KEY is not set (an armored secret key, or a file holding one; docs/releasing.md)." >&2
        echo "release: to rehearse without a real key: make test-release" >&2
        exit 1
    }
    # The key on descriptor 3 (a pipe: bash passes a short here-string through one); this script
    # goes on without the variable in its environment, so nothing it starts inherits it.
    if [ -f "$BREEZE_RELEASE_KEY" ]; then exec 3<"$BREEZE_RELEASE_KEY"; else exec 3<<<"$BREEZE_RELEASE_KEY"; fi
    exec env -u BREEZE_RELEASE_KEY BREEZE_RELEASE_STAGE=outer "$0" "$@"
    ;;
outer)
    # The release in its namespace. unshare blocks SIGTERM and SIGINT while it waits, so this
    # shell takes them (from make, or make's death: its parent-death signal) and kills the
    # namespace's first process, which takes every other one with it. If this shell dies
    # instead (SIGKILL), unshare gets SIGKILL as its parent-death signal, with the same effect.
    BREEZE_RELEASE_STAGE=inner setpriv --pdeathsig KILL \
        unshare --pid --mount --fork --kill-child --mount-proc --propagation private "$0" "$@" &
    inner=$!
    exec 3<&-
    trap 'kill -KILL "$inner" 2>/dev/null; wait "$inner" 2>/dev/null; exit 143' TERM
    trap 'kill -KILL "$inner" 2>/dev/null; wait "$inner" 2>/dev/null; exit 130' INT
    trap 'kill -KILL "$inner" 2>/dev/null; wait "$inner" 2>/dev/null; exit 129' HUP
    status=0
    wait "$inner" || status=$?
    exit "$status"
    ;;
esac
scripts/deps.sh reprepro gnupg python3 dpkg-dev >&2
t0=$(date +%s)
version=$(tr -d '[:space:]' <VERSION)

# `release.sh --resign APT_DIR [DAYS]` (make apt-resign): only the repository's signatures
# renewed (scripts/apt-resign.sh), with the key handled as for a release. `release.sh
# --preflight` (make release-preflight): the checks below up to the key's, then done.
mode=${1:-}
case "$mode" in
"" | --preflight) ;;
--resign) [ -d "${2:-}" ] || { echo "release: --resign needs an apt repository folder" >&2; exit 2; } ;;
*) echo "release: unknown argument '$mode' (none, --preflight, or --resign APT_DIR [DAYS])" >&2; exit 2 ;;
esac

# 1. The tree: the tag, committed, and one version everywhere.
[ "$mode" = --resign ] || {
if [ -n "${RELEASE_TAG:-}" ] && [ "$RELEASE_TAG" != "v$version" ]; then
    echo "release: the tag $RELEASE_TAG does not match VERSION $version (a release of $version is tagged v$version)" >&2
    exit 1
fi
dirty=$(git status --porcelain --untracked-files=normal 2>/dev/null | head -20)
tree_state=committed
if [ -n "$dirty" ]; then
    if [ "${BREEZE_RELEASE_ALLOW_DIRTY:-}" = 1 ]; then
        tree_state="uncommitted changes allowed (BREEZE_RELEASE_ALLOW_DIRTY=1)"
        echo "release: WARNING: uncommitted changes, building anyway (BREEZE_RELEASE_ALLOW_DIRTY=1):" >&2
        echo "$dirty" | sed 's/^/release:   /' >&2
    else
        echo "release: the tree has uncommitted changes; commit or stash them first:" >&2
        echo "$dirty" | sed 's/^/release:   /' >&2
        exit 1
    fi
fi
scripts/version-check.sh >&2 || { echo "release: refused: make every place above say $version (docs/releasing.md)" >&2; exit 1; }
}
commit=$(git rev-parse HEAD)
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}

# 2. The signing key, imported into a GnuPG home on a tmpfs of this namespace only.
work=$(mktemp -d /tmp/breeze-release.XXXXXX)
export GNUPGHOME=$work/gnupg
cleanup() {
    trap '' INT TERM HUP   # a second signal must not cut the cleanup short
    gpgconf --kill all >/dev/null 2>&1 || true
    # The agent may still be closing its files: detach the tmpfs at once (it is freed with the
    # last file closed, at the latest with this namespace).
    umount -l "$GNUPGHOME" 2>/dev/null || true
    rm -rf "$work" 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir -m 0700 "$GNUPGHOME"
mount -t tmpfs -o size=16m,mode=0700,nodev,nosuid,noexec tmpfs "$GNUPGHOME"
gpg --batch --quiet --import <&3 2>"$work/import.log" || true
exec 3<&-
keys=$(gpg --batch --with-colons --list-secret-keys 2>/dev/null | awk -F: '$1 == "fpr" { print $10; exit }' || true)
[ -n "$keys" ] || { echo "release: BREEZE_RELEASE_KEY holds no usable secret key: $(tr '\n' ' ' <"$work/import.log")" >&2; exit 1; }
fpr=$keys
# A key that asks for a passphrase cannot sign in CI: refused now, not after the build.
if ! echo "breeze-agent release signing test" | gpg --batch --pinentry-mode error --local-user "$fpr" --clearsign \
    >/dev/null 2>"$work/sign.log"; then
    echo "release: the key $fpr cannot sign without a passphrase (export it without one; docs/releasing.md): $(grep -m1 -i 'gpg:' "$work/sign.log")" >&2
    exit 1
fi
echo "release: signing with $(gpg --batch --with-colons --list-keys "$fpr" | awk -F: '$1 == "uid" { print $10; exit }') ($fpr); GnuPG home $GNUPGHOME, a tmpfs of this run only" >&2
if [ "$mode" = --resign ]; then
    scripts/apt-resign.sh "$2" "$fpr" "${3:-30}"
    exit 0
fi
if [ "$mode" = --preflight ]; then
    echo "release: preflight passed: ${RELEASE_TAG:+tag $RELEASE_TAG, }version $version everywhere, tree $tree_state, the key $fpr signs; nothing built" >&2
    exit 0
fi

out=${BREEZE_RELEASE_OUT:-build/release/$version}
rm -rf "$out"
mkdir -p "$out"

# 3. The packages and images, per architecture: the .debs built once, the images from them.
for arch in amd64 arm64; do
    deb=$(ARCH=$arch scripts/deb.sh)
    render=$(ARCH=$arch scripts/deb-render.sh)
    image=$(ARCH=$arch BREEZE_DEB_ARCHIVE=$deb scripts/image.sh)
    full=$(ARCH=$arch BREEZE_DEB_ARCHIVE=$deb BREEZE_RENDER_ARCHIVE=$render BREEZE_IMAGE_FULL=1 scripts/image.sh)
    addon=$(ARCH=$arch BREEZE_IMAGE_ARCHIVE=$full scripts/addon-image.sh)
    for file in "$deb" "$render" "$image" "$full" "$addon"; do cp "$file" "$file.spdx.json" "$out/"; done
done
# Per image, one index over both architectures (the -full one is published as breeze-agent:<v>-full).
for name in breeze-agent breeze-agent-full breeze-agent-addon; do
    tag=$version
    [ "$name" != breeze-agent-full ] || tag=$version-full
    python3 scripts/oci-pack.py --index "$out/${name}_${version}_amd64.oci.tar" "$out/${name}_${version}_arm64.oci.tar" \
        --tag "$tag" --epoch "$SOURCE_DATE_EPOCH" --out "$out/${name}_${version}.oci.tar" >&2
done
checks=()
for f in "$out"/*.deb; do checks+=(--deb "$f"); done
for f in "$out"/*.oci.tar; do checks+=(--image "$f"); done
scripts/version-check.sh "${checks[@]}" --binary "$(. scripts/release-build.sh && release_build)/breeze-agent" >&2 \
    || { echo "release: refused: a built artifact does not say $version" >&2; exit 1; }

# The small files the install recipes fetch from the release (docs/installing.md): the Compose
# file naming this version's image, the broker's configuration beside it, the agent's
# configuration for a container; and the Home Assistant add-on repository as the Supervisor
# clones it (repository.yaml at its root), which `make publish` commits to the `addon` branch.
cp packaging/compose.yaml "$out/compose.yaml"
cp packaging/mosquitto.conf "$out/mosquitto.conf"
scripts/container-config.sh >"$out/config.yaml"
cp -a ha-addon "$out/ha-addon"
find "$out/ha-addon" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
# The same tree as one download of the GitHub release, made here so that SHA256SUMS covers it.
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
    -C "$out" -cf "$out/breeze-agent-addon-repository_$version.tar" ha-addon

# 4. The apt repository (scripts/apt-repo.sh: reprepro, signed with the key above).
scripts/apt-repo.sh "$out/apt" "$fpr" "$out"/*.deb >&2
gpg --batch --export "$fpr" >"$out/breeze-agent-archive-keyring.gpg"

# 5. The notes, the checksums and their signature.
awk -v v="$version" '/^## / { if (inside) exit; if ($2 == v || $2 == "[" v "]") inside = 1 } inside' CHANGELOG.md \
    | sed "1s/.*/# breeze-agent $version/" >"$out/RELEASE-NOTES.md"
printf '\nBuilt from commit %s. Signed by the key %s (breeze-agent-archive-keyring.gpg): the apt\nrepository and SHA256SUMS.asc. Installing: docs/installing.md; verifying: `gpg --verify\nSHA256SUMS.asc SHA256SUMS` and `sha256sum -c SHA256SUMS`.\n' \
    "$commit" "$fpr" >>"$out/RELEASE-NOTES.md"
(cd "$out" && find . -type f ! -name SHA256SUMS ! -name SHA256SUMS.asc -printf '%P\n' | LC_ALL=C sort | xargs sha256sum) >"$out/SHA256SUMS"
gpg --batch --yes --local-user "$fpr" --armor --detach-sign --output "$out/SHA256SUMS.asc" "$out/SHA256SUMS"

echo "release: $out: $(find "$out" -type f | wc -l) files, $(du -sh "$out" | cut -f1), commit ${commit:0:12}, in $(($(date +%s) - t0)) s" >&2
echo "$out"
