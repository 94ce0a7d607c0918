#!/usr/bin/env bash
# scripts/apt-repo.sh OUT FINGERPRINT DEB...: the signed apt repository of a release (SPEC §18),
# made by reprepro: suites bookworm and trixie, component main, amd64 + arm64, every DEB in both
# suites (one pool: the same .deb installs on Debian 12 and 13, its Depends naming both library
# names, scripts/deb-common.sh), signed with FINGERPRINT's key from $GNUPGHOME (InRelease and
# Release.gpg). reprepro's database and configuration stay in a scratch folder; OUT gets dists/
# and pool/ only. Used by scripts/release.sh, and by scripts/test-release.sh for the rehearsal's
# second version. Checks each InRelease with gpgv against the key before it is done.
# Each Release carries a Valid-Until $APT_VALID_DAYS (30) days on: a client served an old copy
# after it expired refuses it; scripts/apt-resign.sh renews it between releases.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 3 ] || { echo "usage: scripts/apt-repo.sh OUT FINGERPRINT DEB..." >&2; exit 2; }
out=$1 fpr=$2
shift 2
scripts/deps.sh reprepro gnupg >&2
base=$(mktemp -d /tmp/breeze-apt-repo.XXXXXX)
trap 'rm -rf "$base"' EXIT
mkdir -p "$base/conf"
for suite in bookworm:12 trixie:13; do
    cat >>"$base/conf/distributions" <<CONF
Origin: breeze-agent
Label: breeze-agent
Codename: ${suite%%:*}
Architectures: amd64 arm64
Components: main
Description: breeze-agent for Debian ${suite#*:}
SignWith: $fpr
ValidFor: ${APT_VALID_DAYS:-30}d

CONF
done
rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
repo=(reprepro --silent --basedir "$base" --outdir "$out")
for suite in bookworm trixie; do "${repo[@]}" includedeb "$suite" "$@"; done
"${repo[@]}" export
gpg --batch --export "$fpr" >"$base/key.gpg"
for suite in bookworm trixie; do
    [ -s "$out/dists/$suite/InRelease" ] && [ -s "$out/dists/$suite/Release.gpg" ] \
        || { echo "apt-repo: reprepro left no signed $suite (InRelease, Release.gpg)" >&2; exit 1; }
    gpgv --keyring "$base/key.gpg" "$out/dists/$suite/InRelease" 2>/dev/null \
        || { echo "apt-repo: $out/dists/$suite/InRelease does not verify against $fpr" >&2; exit 1; }
done
echo "apt-repo: $out: bookworm, trixie: $(find "$out/pool" -name '*.deb' | wc -l) packages, signed by $fpr" >&2
