#!/usr/bin/env bash
# `make release-repro` (SPEC §18): is a release reproducible? The commit HEAD is cloned twice into
# two fresh folders (different paths, no build cache shared), `make release` runs in each, one
# after the other (different times), with a throw-away key, and what must be identical is
# compared byte for byte:
#   the four .debs, every blob (layers, configs, manifests, indexes) of the image archives, and
#   every other file of the release folder (the apt pool and Packages indexes, SBOMs, the add-on
#   repository). The signatures, the apt Release files (reprepro dates them) and SHA256SUMS (which
#   lists those) differ by design: they are named, and compared without their dates and
#   signatures. Where a file differs, diffoscope (Debian's
# diffoscope-minimal) writes what differs to build/release-repro/<file>.diff.txt and the first
# lines are printed; both release folders stay in build/release-repro/{first,second}/.
# Uncommitted changes are not in the clones: the commit is what is checked.
# Needs root (as make release). Exits 1 if anything differs. Takes two cold release builds;
# `scripts/release-repro.sh --compare` compares the kept folders again.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "release-repro: run as root (as make release)" >&2; exit 1; }
scripts/deps.sh diffoscope-minimal gnupg git >&2
[ -z "$(git status --porcelain)" ] || echo "release-repro: note: uncommitted changes are not part of the check (HEAD is cloned)" >&2
commit=$(git rev-parse HEAD)
version=$(tr -d '[:space:]' <VERSION)
report=$PWD/build/release-repro
# --compare: compare the two release folders a previous run kept, without building again.
compare_only=0
[ "${1:-}" != --compare ] || compare_only=1
if [ "$compare_only" = 0 ]; then rm -rf "$report"; fi
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
    out[$run]=$report/$run
    [ "$compare_only" = 0 ] || continue
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
compare() {   # compare LABEL FILE_A FILE_B [nodiffoscope]
    if cmp -s "$2" "$3"; then
        same=$((same + 1))
        echo "release-repro: identical  $1 ($(sha256sum <"$2" | cut -c1-16))"
    else
        different=$((different + 1))
        echo "release-repro: DIFFERENT  $1"
        [ -z "${4:-}" ] || return 0
        # Named by the whole label: Packages, Release and the pool's .debs have the same basenames.
        local diff_report=$report/${1//\//_}.diff.txt
        diffoscope --text "$diff_report" --max-report-size 2000000 "$2" "$3" </dev/null >/dev/null 2>&1 || true
        { head -60 "$diff_report" 2>/dev/null | sed 's/^/    /'; } || true
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
    compare "$name" "$archive" "$b/$name" nodiffoscope
    # Which files of the image's layer differ (the layers are the binary plus its closure).
    python3 - "$archive" "$b/$name" <<'PY' || true
import gzip, hashlib, io, json, sys, tarfile
def entries(path):
    out, t = {}, tarfile.open(path)
    blob = lambda d: t.extractfile("blobs/sha256/" + d["digest"].split(":")[1]).read()
    top = json.loads(t.extractfile("index.json").read())["manifests"][0]
    manifest = json.loads(blob(top))
    if "layers" not in manifest:   # an index: its images' layers are compared under their own archives
        return None
    for layer in manifest["layers"]:
        lt = tarfile.open(fileobj=io.BytesIO(gzip.decompress(blob(layer))))
        for m in lt.getmembers():
            data = lt.extractfile(m).read() if m.isreg() else b""
            out[m.name] = (m.mode, m.uid, m.gid, m.mtime, m.size, hashlib.sha256(data).hexdigest())
    return out
a, b = entries(sys.argv[1]), entries(sys.argv[2])
if a is not None and a != b:
    names = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
    print(f"    layer entries that differ ({len(names)} of {len(a)}): {' '.join(names[:20])}")
PY
done
# Everything else in the release folder (the apt pool and its Packages indexes, the SBOMs, the
# add-on repository): identical too. The files made with the key and a date differ by design and
# are named with what differs: the signatures, and `Date:`/`Valid-Until:` of the apt Release
# files (reprepro dates them) — compared without those lines — and, through them, their lines in
# SHA256SUMS, compared without them.
dated=0
unsigned() { sed -e '/^-----BEGIN PGP SIGNATURE-----$/,$d' -e '/^-----BEGIN PGP SIGNED MESSAGE-----$/,/^$/d' \
    -e '/^Date: /d' -e '/^Valid-Until: /d' "$1"; }
while IFS= read -r rel; do
    case "$rel" in
    *.deb | *.oci.tar) [[ "$rel" == */* ]] || continue ;;   # compared above
    esac
    [ -e "$b/$rel" ] || continue   # named with the folders' other differences below
    if cmp -s "$a/$rel" "$b/$rel"; then
        compare "$rel" "$a/$rel" "$b/$rel"
    elif [[ "$rel" == *.asc || "$rel" == */Release.gpg ]]; then
        dated=$((dated + 1))
        echo "release-repro: signature $rel (made with the key at build time: differs by design)"
    elif [[ "$rel" == */InRelease || "$rel" == */Release ]] && cmp -s <(unsigned "$a/$rel") <(unsigned "$b/$rel"); then
        dated=$((dated + 1))
        echo "release-repro: dated     $rel (identical but for Date:, Valid-Until: and its signature)"
    elif [ "$rel" = SHA256SUMS ] && cmp -s <(grep -vE '(/(In)?Release|\.gpg|\.asc)$' "$a/$rel") \
        <(grep -vE '(/(In)?Release|\.gpg|\.asc)$' "$b/$rel"); then
        dated=$((dated + 1))
        echo "release-repro: dated     $rel (identical but for the lines of the dated and signed files)"
    else
        compare "$rel" "$a/$rel" "$b/$rel"
    fi
done < <(cd "$a" && find . -type f ! -name '*.diff.txt' | sed 's|^\./||' | LC_ALL=C sort)
missing=$(diff <(cd "$a" && find . -type f | LC_ALL=C sort) <(cd "$b" && find . -type f | LC_ALL=C sort) || true)
if [ -n "$missing" ]; then
    different=$((different + 1))
    echo "release-repro: the two release folders hold different files:"
    echo "$missing" | head -10 | sed 's/^/    /'
fi
echo "release-repro: commit ${commit:0:12}, version $version: $same identical, $different different, $dated dated or signed by design (reports in $report)"
[ "$different" -eq 0 ]
