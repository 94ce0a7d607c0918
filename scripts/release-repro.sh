#!/usr/bin/env bash
# `make release-repro` (SPEC §18): is a release reproducible? The commit HEAD is cloned twice into
# two fresh folders (different paths, no build cache shared), `make release` runs in each, one
# after the other (different times), with a throw-away key, and what must be identical is
# compared byte for byte:
#   the four .debs, and every blob (layers, configs, manifests, indexes) of the image archives.
# Signatures, the apt repository's Release files (reprepro dates them) and SHA256SUMS are not
# compared: they are made from those and the key. Where a file differs, diffoscope (Debian's
# diffoscope-minimal) writes what differs to build/release-repro/<file>.diff.txt and the first
# lines are printed; both release folders stay in build/release-repro/{first,second}/.
# Uncommitted changes are not in the clones: the commit is what is checked.
# Needs root (as make release). Exits 1 if anything differs. Takes two cold release builds.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "release-repro: run as root (as make release)" >&2; exit 1; }
scripts/deps.sh diffoscope-minimal gnupg git >&2
[ -z "$(git status --porcelain)" ] || echo "release-repro: note: uncommitted changes are not part of the check (HEAD is cloned)" >&2
commit=$(git rev-parse HEAD)
version=$(tr -d '[:space:]' <VERSION)
report=$PWD/build/release-repro
rm -rf "$report"
mkdir -p "$report"
work=$(mktemp -d /tmp/breeze-release-repro.XXXXXX)
export GNUPGHOME=$work/gnupg
cleanup() { gpgconf --kill all >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
mkdir -m 0700 "$GNUPGHOME"
gpg --batch --quiet --passphrase '' --quick-gen-key "breeze-agent reproducibility check <repro@breeze-agent.invalid>" ed25519 sign 1d
gpg --batch --armor --export-secret-keys >"$work/key.asc"
declare -A out
for run in first second; do
    t0=$(date +%s)
    git clone --quiet --no-local "$PWD" "$work/$run-$RANDOM/breeze-agent"
    clone=$(echo "$work/$run"-*/breeze-agent)
    git -C "$clone" checkout --quiet "$commit"
    echo "release-repro: $run build in $clone (started $(date -u +%H:%M:%S))" >&2
    (cd "$clone" && BREEZE_RELEASE_KEY=$work/key.asc scripts/release.sh >"$report/$run.log" 2>&1) \
        || { tail -20 "$report/$run.log" >&2; echo "release-repro: make release failed in the $run clone" >&2; exit 1; }
    # The two outputs are kept (build/release-repro/<run>/), the clones and their builds are not.
    mv "$clone/build/release/$version" "$report/$run"
    out[$run]=$report/$run
    rm -rf "$clone"
    echo "release-repro: $run build done in $(($(date +%s) - t0)) s" >&2
done

# Every blob of an archive, as "<digest> <size>" lines, into a folder of its own.
blobs() { mkdir -p "$2" && tar -xf "$1" -C "$2" blobs && (cd "$2/blobs/sha256" && ls | LC_ALL=C sort); }
same=0
different=0
compare() {   # compare LABEL FILE_A FILE_B
    if cmp -s "$2" "$3"; then
        same=$((same + 1))
        echo "release-repro: identical  $1 ($(sha256sum <"$2" | cut -c1-16))"
    else
        different=$((different + 1))
        echo "release-repro: DIFFERENT  $1"
        diffoscope --text "$report/$(basename "$1").diff.txt" --max-report-size 2000000 "$2" "$3" >/dev/null 2>&1 || true
        head -60 "$report/$(basename "$1").diff.txt" 2>/dev/null | sed 's/^/    /'
    fi
}
a=${out[first]} b=${out[second]}
for deb in "$a"/*.deb; do compare "$(basename "$deb")" "$deb" "$b/$(basename "$deb")"; done
for archive in "$a"/*.oci.tar; do
    name=$(basename "$archive")
    la=$(blobs "$archive" "$work/blobs-a/$name") lb=$(blobs "$b/$name" "$work/blobs-b/$name")
    if [ "$la" != "$lb" ]; then
        echo "release-repro: $name: the blob sets differ (digests of one run missing in the other)"
        { diff <(echo "$la") <(echo "$lb") || true; } | head -10 | sed 's/^/    /'
    fi
    for digest in $la; do
        [ -f "$work/blobs-b/$name/blobs/sha256/$digest" ] || continue
        compare "$name:${digest:0:12}" "$work/blobs-a/$name/blobs/sha256/$digest" "$work/blobs-b/$name/blobs/sha256/$digest"
    done
    compare "$name" "$archive" "$b/$name"
done
echo "release-repro: commit ${commit:0:12}, version $version: $same identical, $different different (reports in $report)"
[ "$different" -eq 0 ]
