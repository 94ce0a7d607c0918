#!/usr/bin/env bash
# `make test-release` (and `make test-docs`): the release workflow (.github/workflows/release.yml)
# rehearsed end to end, its make targets in its order, every public service replaced by a local
# stand-in:
#   1. a throw-away signing key (GnuPG, ed25519, one day), never written outside the work folder;
#      the key's safety: a key with a passphrase is refused before the build, SIGKILL to the
#      release or SIGTERM to make alone leaves no key, no agent and nothing signed;
#   2. `make release-preflight` (the workflow's first step): passes with the key and the tag
#      v<VERSION>; refuses, naming what is wrong, another tag, no key, a key that is not one, a
#      key with a passphrase. `make pages-branch` makes gh-pages (.nojekyll) in a bare repository
#      standing in for github.com, and leaves it alone the second time;
#   3. `make release` with the key -> build/release/<v>/;
#   4. `make verify-release` (scripts/verify-release.sh) on that folder: first on broken copies of
#      it (a .deb with a flipped byte, a .deb missing, a file outside SHA256SUMS), which it must
#      refuse at once, naming the file; then on the folder itself: published to its own local
#      registry, site and add-on branch, the images pulled and run, the add-on cloned and run as
#      the Supervisor does, apt in four Debian trees, the docs' recipes as written
#      (scripts/test-docs.sh), signatures, SBOMs. Its checks count in this script's total;
#   5. `make publish` of the same folder as the workflow runs it, to stand-ins: a local registry,
#      a clone of the bare repository's gh-pages (the workflow's checkout of it), the add-on
#      branch of the bare repository; then `make pages-push`. The registry's image indexes must
#      have the digests of the verified archives, and the branches the verified files;
#   6. `make apt-resign` on the published site's repository (the weekly workflow).
# What the workflow does beyond these targets needs GitHub itself (its glue: docs/releasing.md).
# Needs root (chroot, mounts, podman, port 443 on two 127.77.46.x addresses). Every check is
# reported; the script fails at the end if any check failed. Environment: BREEZE_CI_CACHE (the
# trees, the validator's venv).
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "test-release: run as root (chroot, mounts, podman)" >&2; exit 1; }
scripts/deps.sh skopeo docker-registry podman runc reprepro gnupg python3 git >&2
. scripts/checks.sh
t_all=$(date +%s)
version=$(tr -d '[:space:]' <VERSION)

work=$(mktemp -d /tmp/breeze-test-release.XXXXXX)
chmod 0755 "$work"
pids=()
cleanup() {
    local pid
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    GNUPGHOME=$work/gnupg gpgconf --kill all >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# 1. The throw-away key, and its safety.
section "the key"
export GNUPGHOME=$work/gnupg
mkdir -m 0700 "$GNUPGHOME"
gpg --batch --quiet --passphrase '' --quick-gen-key "breeze-agent release rehearsal <rehearsal@breeze-agent.invalid>" ed25519 sign 1d
fpr=$(gpg --batch --with-colons --list-secret-keys | awk -F: '$1 == "fpr" { print $10; exit }')
gpg --batch --armor --export-secret-keys "$fpr" >"$work/release-key.asc"
echo "test-release: throw-away key $fpr"

# The key's safety (hardening round 4, finding 3), before the real release: a key with a
# passphrase is refused before anything is built; SIGKILL to the release, or SIGTERM to make
# alone, leaves no key on disk and no gpg-agent, and nothing signed.
section "the signing key: refused, killed, stopped"
gpg --batch --quiet --passphrase 'secret' --pinentry-mode loopback --quick-gen-key "passphrase key <p@breeze-agent.invalid>" ed25519 sign 1d
pfpr=$(gpg --batch --with-colons --list-secret-keys "p@breeze-agent.invalid" | awk -F: '$1 == "fpr" { print $10; exit }')
gpg --batch --pinentry-mode loopback --passphrase 'secret' --armor --export-secret-keys "$pfpr" >"$work/passphrase-key.asc"
t0=$(date +%s)
if BREEZE_RELEASE_KEY=$work/passphrase-key.asc BREEZE_RELEASE_ALLOW_DIRTY=1 scripts/release.sh >"$work/refused.out" 2>"$work/refused.err"; then
    bad "a key with a passphrase was taken"
else
    check "a key with a passphrase is refused in $(($(date +%s) - t0)) s, before the build: $(grep -m1 'cannot sign' "$work/refused.err" | cut -c1-120)" \
        bash -c "grep -q 'cannot sign without a passphrase' '$work/refused.err' && ! grep -q '^deb:' '$work/refused.err'"
fi
key_gone() {   # key_gone LABEL ERR: the run's GnuPG home (named on its stderr) holds no key, no agent runs for it
    local home
    home=$(sed -n 's/.*GnuPG home \([^,]*\), a tmpfs.*/\1/p' "$2" | head -1)
    check "$1: the run's GnuPG home was named (${home:-none})" test -n "$home"
    check "$1: no private key left under $home" bash -c "[ -z \"\$(find '$home' -mindepth 1 2>/dev/null)\" ]"
    # [g]pg: the pattern must not match the shell that runs pgrep, whose command line holds it.
    check "$1: no gpg-agent left for it" bash -c "! pgrep -f -- '[g]pg-agent --homedir $home' >/dev/null"
    [ -z "$home" ] || rm -rf "$(dirname "$home")"
}
wait_line() { local _; for _ in $(seq 1 600); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done; return 1; }
BREEZE_RELEASE_KEY=$work/release-key.asc BREEZE_RELEASE_ALLOW_DIRTY=1 BREEZE_RELEASE_OUT=$work/killed-release \
    setsid scripts/release.sh >/dev/null 2>"$work/killed.err" &
killed=$!
wait_line "$work/killed.err" 'GnuPG home' || bad "the release to be killed did not start signing"
kill -KILL "$killed"
wait "$killed" 2>/dev/null || true
sleep 1
key_gone "SIGKILL to the release" "$work/killed.err"
BREEZE_RELEASE_KEY=$work/release-key.asc BREEZE_RELEASE_ALLOW_DIRTY=1 BREEZE_RELEASE_OUT=$work/stopped-release \
    setsid make --no-print-directory release >/dev/null 2>"$work/stopped.err" &
stopped=$!
wait_line "$work/stopped.err" 'GnuPG home' || bad "the release under make did not start signing"
under_make=$(pgrep -P "$stopped" | head -1)
t0=$(date +%s.%N)
kill -TERM "$stopped"
for _ in $(seq 1 300); do kill -0 "$under_make" 2>/dev/null || break; sleep 0.1; done
gone=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
check "SIGTERM to make alone: the release under it (pid ${under_make:-none}) stopped in $gone s" \
    bash -c "[ -n '$under_make' ] && ! kill -0 '$under_make' 2>/dev/null"
check "SIGTERM to make alone: nothing was signed" test ! -e "$work/stopped-release/SHA256SUMS.asc"
key_gone "SIGTERM to make" "$work/stopped.err"

# 2. The workflow's first steps: the preflight (every refusal of make release that needs no
# build) and the Pages branch. A working copy with changes is rehearsed as it is (a real release
# refuses it).
section "make release-preflight, make pages-branch"
allow_dirty=0
[ -z "$(git status --porcelain 2>/dev/null)" ] || allow_dirty=1
preflight() {   # preflight LOG [VAR=VALUE…]: make release-preflight with these settings
    local log=$1
    shift
    env -u BREEZE_RELEASE_KEY BREEZE_RELEASE_ALLOW_DIRTY=$allow_dirty "$@" make -s --no-print-directory release-preflight >"$log" 2>&1
}
t0=$(date +%s)
if preflight "$work/preflight.log" BREEZE_RELEASE_KEY="$work/release-key.asc" RELEASE_TAG="v$version"; then
    ok "make release-preflight passes with the key and the tag v$version in $(($(date +%s) - t0)) s: $(grep -m1 'preflight passed' "$work/preflight.log" | cut -c1-140)"
else
    bad "make release-preflight with the key and the tag v$version:"; tail -5 "$work/preflight.log"
fi
refused_for() {   # refused_for WHAT PATTERN VAR=VALUE…: the preflight must fail, saying PATTERN
    local what=$1 pattern=$2 log=$work/preflight-$RANDOM.log
    shift 2
    if preflight "$log" "$@"; then
        bad "make release-preflight passed $what"
    else
        check "make release-preflight refuses $what: $(grep -m1 -E '^release: ' "$log" | cut -c1-150)" grep -q -- "$pattern" "$log"
    fi
}
printf 'not a key\n' >"$work/not-a-key.asc"
refused_for "the tag v9.9.9" "the tag v9.9.9 does not match VERSION $version" BREEZE_RELEASE_KEY="$work/release-key.asc" RELEASE_TAG=v9.9.9
refused_for "no key" "BREEZE_RELEASE_KEY is not set" RELEASE_TAG="v$version"
refused_for "a file that holds no key" "holds no usable secret key" BREEZE_RELEASE_KEY="$work/not-a-key.asc" RELEASE_TAG="v$version"
refused_for "a key with a passphrase" "cannot sign without a passphrase" BREEZE_RELEASE_KEY="$work/passphrase-key.asc" RELEASE_TAG="v$version"
# github.com/breeze-agent/breeze-agent as the workflow's git sees it: a bare repository.
origin=$work/origin/breeze-agent.git
git init --quiet --bare "$origin"
if make -s --no-print-directory pages-branch PAGES_GIT="$origin" >"$work/pages-branch.log" 2>&1; then
    ok "make pages-branch on a repository without gh-pages: $(tail -1 "$work/pages-branch.log")"
else
    bad "make pages-branch:"; tail -5 "$work/pages-branch.log"
fi
check "gh-pages holds .nojekyll and nothing else ($(git -C "$origin" ls-tree --name-only gh-pages 2>/dev/null | tr '\n' ' '))" \
    test "$(git -C "$origin" ls-tree --name-only gh-pages 2>/dev/null)" = .nojekyll
pages_head=$(git -C "$origin" rev-parse gh-pages 2>/dev/null || true)
make -s --no-print-directory pages-branch PAGES_GIT="$origin" >"$work/pages-branch-2.log" 2>&1 || bad "make pages-branch, second time"
check "make pages-branch leaves an existing gh-pages alone ($(tail -1 "$work/pages-branch-2.log"))" \
    test "$(git -C "$origin" rev-parse gh-pages 2>/dev/null)" = "$pages_head"
if make -s --no-print-directory pages-branch PAGES_GIT="$work/no-such-repository.git" >"$work/pages-branch-3.log" 2>&1; then
    bad "make pages-branch accepted a repository it cannot read"
else
    ok "make pages-branch refuses a repository it cannot read: $(grep -m1 "^pages:" "$work/pages-branch-3.log" | cut -c1-120)"
fi

# 3. make release, as the workflow runs it.
section "make release"
out=$(BREEZE_RELEASE_KEY=$work/release-key.asc BREEZE_RELEASE_ALLOW_DIRTY=$allow_dirty \
    make -s --no-print-directory release RELEASE_TAG="v$version" | tail -1) \
    || { echo "test-release: make release failed" >&2; exit 1; }
ok "make release wrote $out"
ls -l "$out"

# 4. make verify-release: refusals of broken copies first (cheap: it stops before it starts
# anything), then the release itself.
section "make verify-release: broken folders"
broken() {   # broken NAME: a copy of the release (hard links) at $work/broken-NAME/<v>
    local dest=$work/broken-$1/$version
    mkdir -p "$(dirname "$dest")"
    cp -al "$out" "$dest"
    echo "$dest"
}
refuses() {   # refuses WHAT FOLDER PATTERN: make verify-release must fail at once, naming PATTERN
    local what=$1 folder=$2 pattern=$3 log=$work/verify-$RANDOM.log status=0 t0
    t0=$(date +%s)
    make -s --no-print-directory verify-release RELEASE_DIR="$folder" >"$log" 2>&1 || status=$?
    if [ "$status" -eq 0 ]; then
        bad "make verify-release passed $what"
    else
        check "make verify-release refuses $what in $(($(date +%s) - t0)) s, exit $status: $(grep -m1 -- "$pattern" "$log" | cut -c1-160)" \
            bash -c "grep -q -- '$pattern' '$log' && grep -q 'nothing was started' '$log'"
    fi
}
flip() { python3 -c 'import sys; p = sys.argv[1]; b = bytearray(open(p, "rb").read()); b[len(b) // 2] ^= 1; open(p, "wb").write(b)' "$1"; }
deb=breeze-agent_${version}_amd64.deb
b=$(broken flipped)
rm "$b/$deb" && cp "$out/$deb" "$b/$deb" && flip "$b/$deb"   # a copy of its own: the link would change the release
refuses "a .deb with one flipped byte" "$b" "$deb: FAILED"
b=$(broken missing)
rm "$b/breeze-agent-render_${version}_arm64.deb"
refuses "a folder without a .deb" "$b" "breeze-agent-render_${version}_arm64.deb is missing"
b=$(broken extra)
echo "not signed" >"$b/extra.txt"
refuses "a file outside SHA256SUMS" "$b" "extra.txt is not in SHA256SUMS"
b=$(broken resigned)
rm "$b/SHA256SUMS" && sed "s/^[0-9a-f]\{64\}  $deb\$/$(sha256sum "$work/broken-flipped/$version/$deb" | cut -d' ' -f1)  $deb/" "$out/SHA256SUMS" >"$b/SHA256SUMS"
rm "$b/$deb" && cp "$work/broken-flipped/$version/$deb" "$b/$deb"
refuses "a changed .deb with SHA256SUMS changed to match (the signature no longer does)" "$b" "SHA256SUMS.asc is not a good signature"
rm -rf "$work"/broken-*

section "make verify-release"
status=0
make -s --no-print-directory verify-release RELEASE_DIR="$out" 2>&1 | tee "$work/verify.log" || status=$?
read -r v_pass v_fail < <(sed -n 's/^verify-release: .*checks \([0-9]*\) passed, \([0-9]*\) failed.*/\1 \2/p' "$work/verify.log" | tail -1) || true
passes=$((passes + ${v_pass:-0})) failures=$((failures + ${v_fail:-0}))
if [ "$status" -eq 0 ] && [ -n "${v_pass:-}" ]; then
    ok "make verify-release passed on $out (its ${v_pass} checks counted above)"
else
    bad "make verify-release failed on $out (exit $status; ${v_pass:-?} passed, ${v_fail:-?} failed)"
fi

# 5. make publish, as the workflow runs it: to a registry, a clone of gh-pages and the add-on
# branch of the bare repository; then make pages-push.
section "make publish, make pages-push (stand-ins)"
reg_port=$(scripts/free-port.sh)
mkdir -p "$work/registry"
printf 'version: 0.1\nlog: {level: warn}\nstorage: {filesystem: {rootdirectory: %s}}\nhttp: {addr: 127.0.0.1:%s}\n' \
    "$work/registry" "$reg_port" >"$work/registry.yml"
docker-registry serve "$work/registry.yml" >"$work/registry.log" 2>&1 &
pids+=($!)
wait_port "$reg_port" || { cat "$work/registry.log" >&2; echo "test-release: docker-registry did not start" >&2; exit 1; }
registry=127.0.0.1:$reg_port/breeze-agent
git clone --quiet --branch gh-pages "$origin" "$work/site"
if env REGISTRY="$registry" REGISTRY_TLS_VERIFY=false PUBLISH_TARGET="$work/site" ADDON_GIT="$origin" ADDON_BRANCH=addon \
    make -s --no-print-directory publish >"$work/publish.log" 2>&1; then
    ok "make publish to $registry, the gh-pages clone and the addon branch"
else
    bad "make publish:"; tail -10 "$work/publish.log"
fi
if make -s --no-print-directory pages-push SITE="$work/site" >"$work/pages-push.log" 2>&1; then
    ok "make pages-push: $(tail -1 "$work/pages-push.log")"
else
    bad "make pages-push:"; tail -5 "$work/pages-push.log"
fi
for name in breeze-agent breeze-agent-full breeze-agent-addon; do
    ref=$name:$version
    [ "$name" != breeze-agent-full ] || ref=breeze-agent:$version-full
    verified=$(skopeo inspect --raw "oci-archive:$out/${name}_$version.oci.tar" 2>/dev/null | sha256sum | cut -c1-64)
    served=$(skopeo inspect --raw --tls-verify=false "docker://$registry/$ref" 2>/dev/null | sha256sum | cut -c1-64)
    check "the registry's $ref is the verified index (sha256:${served:0:16}…)" test "$served" = "$verified"
done
shown() { git -C "$origin" show "$1" 2>/dev/null | sha256sum | cut -c1-64; }
for pair in "apt/dists/bookworm/InRelease apt/dists/bookworm/InRelease" "apt/dists/trixie/InRelease apt/dists/trixie/InRelease" \
    "apt/breeze-agent-archive-keyring.gpg breeze-agent-archive-keyring.gpg" "releases/$version/SHA256SUMS.asc SHA256SUMS.asc"; do
    read -r f src <<<"$pair"
    check "gh-pages holds the verified $f" test "$(shown "gh-pages:$f")" = "$(sha256sum <"$out/$src" | cut -c1-64)"
done
check "gh-pages still holds .nojekyll" git -C "$origin" cat-file -e gh-pages:.nojekyll
check "the addon branch holds the verified add-on (repository.yaml, config.yaml)" bash -c \
    "[ \"\$(git -C '$origin' show addon:breeze_agent/config.yaml | sha256sum)\" = \"\$(sha256sum <'$out/ha-addon/breeze_agent/config.yaml')\" ] \
     && git -C '$origin' cat-file -e addon:repository.yaml"

# 6. Between releases the apt-resign workflow signs the repository again before its Valid-Until
# passes: make apt-resign on the site's repository as published.
section "make apt-resign"
before=$(sed -n 's/^Valid-Until: //p' "$work/site/apt/dists/bookworm/Release")
sleep 1
if BREEZE_RELEASE_KEY=$work/release-key.asc make -s --no-print-directory apt-resign APT_DIR="$work/site/apt" >"$work/resign.log" 2>&1; then
    after=$(sed -n 's/^Valid-Until: //p' "$work/site/apt/dists/bookworm/Release")
    check "make apt-resign: Valid-Until moved from $before to $after, InRelease verifies" bash -c \
        "[ \$(date -d '$after' +%s) -gt \$(date -d '$before' +%s) ] && gpgv --keyring '$out/breeze-agent-archive-keyring.gpg' '$work/site/apt/dists/bookworm/InRelease' 2>/dev/null"
else
    bad "make apt-resign failed:"; tail -5 "$work/resign.log"
fi
section done

printf '\n== summary\n'
printf '  %s\n' "${timings[@]}"
echo "test-release: $version rehearsed (make release-preflight, pages-branch, release, verify-release, publish, pages-push, apt-resign): checks $passes passed, $failures failed in $(($(date +%s) - t_all)) s"
[ "$failures" -eq 0 ]
