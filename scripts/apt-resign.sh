#!/usr/bin/env bash
# scripts/apt-resign.sh APT_DIR FINGERPRINT [DAYS]: the apt repository's signatures renewed in
# place. Each suite's Release (dists/<suite>/Release) gets a new Date and a Valid-Until DAYS days
# later (default 30; a negative number makes an expired one, for the rehearsal's refusal), and is
# signed again (InRelease, Release.gpg) with FINGERPRINT's key from $GNUPGHOME. The indexes it
# names do not change, so their hashes stay right.
#
# Why: the Release files carry a Valid-Until (scripts/apt-repo.sh, `ValidFor`), so a client that
# is served an old, validly signed copy of the repository after a newer one exists refuses it
# once it has expired, instead of installing an old version without a word. The repository must
# then be signed again before its Valid-Until passes even when no release happens:
# .github/workflows/apt-resign.yml runs this weekly (`make apt-resign`, docs/releasing.md).
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: scripts/apt-resign.sh APT_DIR FINGERPRINT [DAYS]" >&2; exit 2; }
apt=$1 fpr=$2 days=${3:-30}
[[ $days =~ ^-?[0-9]+$ ]] || { echo "apt-resign: DAYS is '$days', not a whole number" >&2; exit 2; }
now=$(date -u +%s)
date_text=$(LC_ALL=C date -u -d "@$now" '+%a, %d %b %Y %H:%M:%S UTC')
until_text=$(LC_ALL=C date -u -d "@$((now + days * 86400))" '+%a, %d %b %Y %H:%M:%S UTC')
suites=0
for release in "$apt"/dists/*/Release; do
    [ -f "$release" ] || continue
    dir=$(dirname "$release")
    tmp=$release.new
    awk -v d="$date_text" -v u="$until_text" '
        /^Date: / { print "Date: " d; if (!seen) { print "Valid-Until: " u; seen = 1 }; next }
        /^Valid-Until: / { next }
        { print }' "$release" >"$tmp"
    grep -q '^Valid-Until: ' "$tmp" || { echo "apt-resign: $release has no Date line" >&2; rm -f "$tmp"; exit 1; }
    gpg --batch --yes --local-user "$fpr" --clearsign --output "$dir/InRelease.new" "$tmp"
    gpg --batch --yes --local-user "$fpr" --armor --detach-sign --output "$dir/Release.gpg.new" "$tmp"
    # Release first, then its signatures: a client reads either the old set or the new one
    # within a second, and apt re-fetches on a mismatch.
    mv "$tmp" "$release"
    mv "$dir/Release.gpg.new" "$dir/Release.gpg"
    mv "$dir/InRelease.new" "$dir/InRelease"
    suites=$((suites + 1))
done
[ "$suites" -gt 0 ] || { echo "apt-resign: no dists/*/Release under $apt" >&2; exit 1; }
echo "apt-resign: $apt: $suites suite(s) signed again, valid until $until_text" >&2
