#!/usr/bin/env bash
# `make test-release` (and `make test-docs`): the release rehearsed end to end, every public
# service replaced by a local stand-in, and the docs' install, upgrade and removal recipes run
# as written against it (scripts/test-docs.sh):
#   1. a throw-away signing key (GnuPG, ed25519, one day), never written outside the work folder;
#   2. `make release` with it (scripts/release.sh) -> build/release/<v>/;
#   3. a local OCI registry (Debian's docker-registry), a static folder (the Pages site) and a bare
#      git repository (the add-on branch) receive `make publish` (scripts/publish.sh);
#      `skopeo inspect --raw` shows each image index with amd64 and arm64, and the tags;
#   4. the signatures: gpgv of both InRelease; `gpg --verify SHA256SUMS.asc` and `sha256sum -c`
#      of the release pass, and fail after one flipped byte; every SBOM passes the SPDX
#      project's validator (pyspdxtools, PyPI, pinned in test/release/spdx-requirements.txt);
#   5. the images from empty podman storage: scripts/test-image.sh pulls
#      <registry>/breeze-agent:<v> with `--arch arm64` and `--arch amd64` and runs each against a
#      broker; the stand-in Supervisor clones the add-on repository by the URL the docs give and
#      validates it, and scripts/test-add-on-image.sh pulls the add-on its config.yaml names, for
#      each architecture, and runs it against a stand-in Supervisor and a login-only broker;
#      the docker and compose recipes run under podman in a namespace of their own;
#   6. apt in four Debian trees (bookworm/trixie x amd64/arm64, arm64 under qemu-user; cached
#      by scripts/rootfs-common.sh, each run on an overlay): a repository changed after signing
#      and an unsigned one are refused by apt (amd64 trees: apt 2.6 and 3.0; apt's error shown);
#      then the apt recipes: check, install, configure (the service started, online on a broker),
#      then version <v+1> published over it and the upgrade recipe (the edited config and the
#      state kept), then the removal recipe (stop, forget: nothing left on the broker, purge);
#   7. three more versions published over those: the site's size after each (the pool keeps the
#      newest 3; GitHub Pages serves at most 1 GB).
# <v+1>… are patch versions after VERSION, built by scripts/deb.sh with BREEZE_VERSION (the
# binary inside still says <v>: only the packages and the repository are new), <v+1>'s conffile
# changed so that the upgrade has a conffile question to answer (the administrator's edit wins).
# Needs root (chroot, mounts, podman, port 443 on two 127.77.46.x addresses). Every check is
# reported; the script fails at the end if any check failed. Environment: BREEZE_CI_CACHE (the
# trees, the validator's venv).
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "test-release: run as root (chroot, mounts, podman)" >&2; exit 1; }
scripts/deps.sh skopeo docker-registry podman runc reprepro gnupg mmdebstrap mosquitto mosquitto-clients python3 python3-venv curl file openssl git >&2
. scripts/rootfs-common.sh
. scripts/checks.sh
. scripts/test-docs.sh
t_all=$(date +%s)
version=$(tr -d '[:space:]' <VERSION)
next=$(awk -F. '{ printf "%d.%d.%d", $1, $2, $3 + 1 }' <<<"$version")
cache=${BREEZE_CI_CACHE:-/var/cache/breeze-agent-ci}

work=$(mktemp -d /tmp/breeze-test-release.XXXXXX)
chmod 0755 "$work"
pids=()
mounts=()
storage_conf=$work/containers/storage.conf
cleanup() {
    local i pid
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[i]}" 2>/dev/null || true; done
    if [ -f "$storage_conf" ]; then
        CONTAINERS_STORAGE_CONF=$storage_conf podman rm -a -f >/dev/null 2>&1 || true
        CONTAINERS_STORAGE_CONF=$storage_conf podman rmi -a -f >/dev/null 2>&1 || true
    fi
    GNUPGHOME=$work/gnupg gpgconf --kill all >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
timings=()
section_start=$(date +%s)
section() {   # section NAME: starts a timed section (the previous one's time is recorded)
    local now
    now=$(date +%s)
    [ -z "${section_name:-}" ] || timings+=("$(printf '%-34s %4d s' "$section_name" $((now - section_start)))")
    section_name=$1 section_start=$now
    printf '\n== %s\n' "$1"
}
wait_port() { local _; for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; return 1; }

# 1. The throw-away key.
section "key and make release"
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

# 2. make release. A working copy with changes is rehearsed as it is (a real release refuses it).
section "make release"
allow_dirty=0
[ -z "$(git status --porcelain 2>/dev/null)" ] || allow_dirty=1
out=$(BREEZE_RELEASE_KEY=$work/release-key.asc BREEZE_RELEASE_ALLOW_DIRTY=$allow_dirty scripts/release.sh) \
    || { echo "test-release: make release failed" >&2; exit 1; }
ok "make release wrote $out"
ls -l "$out"

# 3. The stand-ins and make publish.
section "registry, static server, make publish"
reg_port=$(scripts/free-port.sh)
mkdir -p "$work/registry" "$work/www"
cat >"$work/registry.yml" <<EOF
version: 0.1
log: {level: warn}
storage: {filesystem: {rootdirectory: $work/registry}}
http: {addr: 127.0.0.1:$reg_port}
EOF
docker-registry serve "$work/registry.yml" >"$work/registry.log" 2>&1 &
pids+=($!)
wait_port "$reg_port" || { cat "$work/registry.log" >&2; echo "test-release: docker-registry did not start" >&2; exit 1; }
www_port=$(scripts/free-port.sh)
python3 -m http.server --bind 127.0.0.1 --directory "$work/www" "$www_port" >"$work/www.log" 2>&1 &
pids+=($!)
wait_port "$www_port" || { cat "$work/www.log" >&2; echo "test-release: the static server did not start" >&2; exit 1; }
registry=127.0.0.1:$reg_port/breeze-agent
apt_url=http://127.0.0.1:$www_port/apt
# github.com/breeze-agent/breeze-agent as git sees it: a bare repository the add-on branch goes to.
git init --quiet --bare "$work/git/breeze-agent/breeze-agent.git"
publish=(env REGISTRY="$registry" REGISTRY_TLS_VERIFY=false PUBLISH_TARGET="$work/www"
    ADDON_GIT="$work/git/breeze-agent/breeze-agent.git" scripts/publish.sh)
if "${publish[@]}" "$out"; then ok "make publish to $registry, $work/www and the add-on branch"; else bad "make publish"; fi
site_mb() { echo "$(du -sm --exclude=apt-tampered --exclude=apt-unsigned --exclude=apt-expired "$work/www" | cut -f1) MB"; }
site_sizes=("$(printf '%-10s %8s %6s' "$version" "$(site_mb)" "$(find "$work/www/apt/pool" -name 'breeze-agent_*_amd64.deb' | wc -l)")")
check "the site holds no package or image outside the pool (Pages: apt, keyring, checksums, SBOMs, notes)" bash -c \
    "[ -z \"\$(find '$work/www/releases' -name '*.deb' -o -name '*.oci.tar' -o -name 'compose.yaml')\" ]"
# The GitHub release's downloads: the release folder itself.
mkdir -p "$work/releases" && ln -s "$(realpath "$out")" "$work/releases/$version"
docs_begin "$work/docs" "$work/www" "$work/releases" "$work/registry" "$work/git"
docs_plain_registry=$registry
for ref in breeze-agent:$version breeze-agent:$version-full breeze-agent-addon:$version; do
    raw=$(skopeo inspect --raw --tls-verify=false "docker://$registry/$ref" 2>&1 || true)
    echo "skopeo inspect --raw docker://$registry/$ref"
    python3 -m json.tool <<<"$raw" 2>/dev/null || echo "$raw"
    platforms=$(python3 -c 'import json, sys; d = json.loads(sys.argv[1]); print(d["mediaType"], " ".join(sorted(m["platform"]["os"] + "/" + m["platform"]["architecture"] for m in d["manifests"])))' "$raw" 2>/dev/null || true)
    check "$ref is an OCI image index over linux/amd64 and linux/arm64 ($platforms)" \
        test "$platforms" = "application/vnd.oci.image.index.v1+json linux/amd64 linux/arm64"
done
# breeze-agent holds the plain image and the -full one (SPEC §19), each under its own tags.
for name in breeze-agent breeze-agent-addon; do
    suffixes=("")
    [ "$name" != breeze-agent ] || suffixes+=(-full)
    want=$(for s in "${suffixes[@]}"; do printf '%s\n' "$version$s" "${version%.*}$s" "latest$s" "$version$s-amd64" "$version$s-arm64"; done | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')
    tags=$(skopeo list-tags --tls-verify=false "docker://$registry/$name" 2>/dev/null | python3 -c 'import json, sys; print(" ".join(sorted(json.load(sys.stdin)["Tags"])))' || true)
    check "$name tags: $tags" test "$tags" = "$want"
done
# The plain image stays lean and the -full one carries the helper: sizes from the registry.
for arch in amd64 arm64; do
    plain=$(skopeo inspect --raw --tls-verify=false "docker://$registry/breeze-agent:$version-$arch" 2>/dev/null | python3 -c 'import json, sys; print(sum(l["size"] for l in json.load(sys.stdin)["layers"]))' || echo 0)
    fullsize=$(skopeo inspect --raw --tls-verify=false "docker://$registry/breeze-agent:$version-full-$arch" 2>/dev/null | python3 -c 'import json, sys; print(sum(l["size"] for l in json.load(sys.stdin)["layers"]))' || echo 0)
    check "breeze-agent:$version-$arch is smaller than $version-full-$arch (compressed $plain and $fullsize bytes)" test "$plain" -gt 0 -a "$plain" -lt "$fullsize"
done

# 4. Signatures, checksums, SBOMs, as a user checks them: from what was published.
section "signatures, checksums, SBOMs"
# As a user checks a download: the GitHub release's files (the whole release folder) against
# the SHA256SUMS and its signature, which the site carries too (and must be the same bytes).
published=$out
check "the site's SHA256SUMS(.asc) are the release's" bash -c "cmp -s '$work/www/releases/$version/SHA256SUMS' '$out/SHA256SUMS' && cmp -s '$work/www/releases/$version/SHA256SUMS.asc' '$out/SHA256SUMS.asc'"
keyring=$work/www/apt/breeze-agent-archive-keyring.gpg
for suite in bookworm trixie; do
    until=$(sed -n 's/^Valid-Until: //p' "$work/www/apt/dists/$suite/Release")
    check "$suite's Release is valid until a date 25-31 days away ($until)" bash -c \
        "d=\$(( (\$(date -d '$until' +%s) - \$(date +%s)) / 86400 )); [ \$d -ge 25 ] && [ \$d -le 31 ]"
    result=$(gpgv --keyring "$keyring" "$work/www/apt/dists/$suite/InRelease" 2>&1 || true)
    echo "gpgv $suite/InRelease: $(grep -E 'Good signature|BAD|bad|no public key' <<<"$result" | head -2 | tr '\n' ' ')"
    check "gpgv: $suite's InRelease verifies against the published keyring" gpgv --keyring "$keyring" "$work/www/apt/dists/$suite/InRelease"
done
user_gpg=$work/user-gnupg
mkdir -m 0700 "$user_gpg"
GNUPGHOME=$user_gpg gpg --batch --quiet --import "$keyring"
verify() { (cd "$1" && GNUPGHOME=$user_gpg gpg --batch --verify SHA256SUMS.asc SHA256SUMS 2>&1); }
echo "gpg --verify SHA256SUMS.asc: $(verify "$published" | grep -E 'Good signature|BAD' || true)"
check "gpg --verify SHA256SUMS.asc SHA256SUMS passes" verify "$published"
check "sha256sum -c SHA256SUMS passes ($(wc -l <"$published/SHA256SUMS") files)" bash -c "cd '$published' && sha256sum --quiet -c SHA256SUMS"
# One flipped byte in a copy: in SHA256SUMS (the signature must fail), in a .deb (its sum must).
flip() { python3 -c 'import sys; p = sys.argv[1]; b = bytearray(open(p, "rb").read()); b[len(b) // 2] ^= 1; open(p, "wb").write(b)' "$1"; }
cp -a "$published" "$work/flipped-sums"
flip "$work/flipped-sums/SHA256SUMS"
if verify "$work/flipped-sums" >"$work/flipped-sums.log"; then bad "gpg --verify passed a SHA256SUMS with a flipped byte"; else
    ok "gpg --verify refuses SHA256SUMS with one flipped byte: $(grep -E 'BAD signature' "$work/flipped-sums.log" | head -1)"; fi
cp -a "$published" "$work/flipped-deb"
flip "$work/flipped-deb/breeze-agent_${version}_arm64.deb"
if (cd "$work/flipped-deb" && sha256sum --quiet -c SHA256SUMS) >"$work/flipped-deb.log" 2>&1; then bad "sha256sum -c passed a .deb with a flipped byte"; else
    ok "sha256sum -c refuses a .deb with one flipped byte: $(grep FAILED "$work/flipped-deb.log" | head -1)"; fi
spdx_python=$(scripts/py-venv.sh spdx-venv test/release/spdx-requirements.txt "$cache")
for sbom in "$out"/*.spdx.json; do
    if "$(dirname "$spdx_python")/pyspdxtools" -i "$sbom" >"$work/spdx.log" 2>&1; then
        ok "pyspdxtools: $(basename "$sbom") is valid SPDX 2.3 ($(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["packages"]))' "$sbom") packages)"
    else
        bad "pyspdxtools: $(basename "$sbom") is not valid:"; head -20 "$work/spdx.log"
    fi
done

# 5. The images, from empty storage, as Docker and the Supervisor pull them.
section "images pulled from the registry"
mkdir -p "$work/containers"
printf '[storage]\ndriver = "overlay"\ngraphroot = "%s"\nrunroot = "%s"\n' "$work/containers/storage" "$work/containers/run" >"$storage_conf"
export CONTAINERS_STORAGE_CONF=$storage_conf
check "podman storage empty before the pulls ($(podman images -q | wc -l) images)" test -z "$(podman images -q)"
pulled=(env BREEZE_IMAGE_REGISTRY="$registry" BREEZE_REGISTRY_TLS_VERIFY=false)
if "${pulled[@]}" scripts/test-image.sh arm64 amd64 >"$work/test-image.log" 2>&1; then
    ok "the image pulled with --arch arm64 and --arch amd64 ran and published the tree (scripts/test-image.sh)"
else
    bad "scripts/test-image.sh against the registry"
fi
grep -E '^(ok|FAIL) |^(amd64|arm64): ' "$work/test-image.log" | sed 's/^/  image: /'
docs_addon_clone "$work/supervisor-store"
# The next version's add-on on the branch after the clone, its image under the next tag: the
# update the Supervisor offers (scripts/test-addon-image.sh pulls the clone and runs it).
mkdir -p "$work/addon-next/$next"
cp -a ha-addon "$work/addon-next/$next/ha-addon"
sed -i "s/^version: .*/version: \"$next\"/" "$work/addon-next/$next/ha-addon/breeze_agent/config.yaml"
PUBLISH_IMAGES=0 "${publish[@]}" "$work/addon-next/$next" >"$work/publish-addon-next.log" 2>&1 || { bad "publishing the add-on $next"; cat "$work/publish-addon-next.log"; }
skopeo copy --quiet --all --src-tls-verify=false --dest-tls-verify=false \
    "docker://$registry/breeze-agent-addon:$version" "docker://$registry/breeze-agent-addon:$next" || bad "tagging the add-on image $next"
if "${pulled[@]}" BREEZE_ADDON_DIR="$work/supervisor-store/breeze_agent" BREEZE_ADDON_UPDATE_GIT="$work/supervisor-store" \
    GIT_CONFIG_GLOBAL="$docs_work/gitconfig" scripts/test-addon-image.sh >"$work/test-addon-image.log" 2>&1; then
    ok "the add-on pulled by config.yaml's name for amd64 and arm64 ran, published the tree and drew its images (scripts/test-addon-image.sh)"
else
    bad "scripts/test-addon-image.sh against the registry"
    tail -40 "$work/test-addon-image.log"
fi
grep -E '^(ok|FAIL) |^(amd64|arm64): ' "$work/test-addon-image.log" | sed 's/^/  add-on: /'
podman images --format '  {{.Repository}}:{{.Tag}} {{.Digest}} {{.Size}}'
section "the docker and compose recipes"
docs_containers "$version"
unset CONTAINERS_STORAGE_CONF

# 6. apt in the four trees.
section "apt: refusals, install, run ($version)"
trees=(bookworm-amd64 trixie-amd64 bookworm-arm64 trixie-arm64)
apt_get=(apt-get -o Debug::NoLocking=1 -y)
sources() {   # sources ROOT SUITE URL: a deb822 entry for the refusal checks (the recipes write their own)
    printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/breeze-agent-archive-keyring.gpg\n' "$3" "$2" \
        >"$1/etc/apt/sources.list.d/breeze-agent.sources"
}
# A copy of the published repository changed after signing (a line of Release and of InRelease's
# signed text), and one with the signatures removed.
cp -a "$work/www/apt" "$work/www/apt-tampered"
cp -a "$work/www/apt" "$work/www/apt-unsigned"
for suite in bookworm trixie; do
    sed -i 's/^Label: breeze-agent$/Label: breeze-agent (changed after signing)/' \
        "$work/www/apt-tampered/dists/$suite/Release" "$work/www/apt-tampered/dists/$suite/InRelease"
    rm "$work/www/apt-unsigned/dists/$suite/InRelease" "$work/www/apt-unsigned/dists/$suite/Release.gpg"
done
# And one whose signatures are valid but whose Valid-Until has passed (a frozen mirror).
cp -a "$work/www/apt" "$work/www/apt-expired"
scripts/apt-resign.sh "$work/www/apt-expired" "$fpr" -1
check "the tampered copy differs from the signed text" bash -c "! cmp -s '$work/www/apt/dists/bookworm/InRelease' '$work/www/apt-tampered/dists/bookworm/InRelease'"
declare -A root port_of
for name in "${trees[@]}"; do
    suite=${name%-*} arch=${name#*-}
    base=$(rootfs_tree "$suite" "$arch")
    t0=$(date +%s)
    printf -- '-- %s (Debian %s)\n' "$name" "$(cat "$base/etc/debian_version")"
    r=$work/$name/root
    root[$name]=$r
    mkdir -p "$work/$name/upper" "$work/$name/work" "$r"
    mount -t overlay overlay -o "lowerdir=$base,upperdir=$work/$name/upper,workdir=$work/$name/work" "$r" && mounts+=("$r")
    mount -t proc proc "$r/proc" && mounts+=("$r/proc")
    mount --rbind /dev "$r/dev" && mount --make-rslave "$r/dev" && mounts+=("$r/dev")
    # mmdebstrap turned apt's Valid-Until check off for the cached tree; a user's apt has it on.
    sed -i '/Check-Valid-Until/d' "$r/etc/apt/apt.conf.d/99mmdebstrap" 2>/dev/null || true
    in_root() { chroot "$r" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }
    if [ "$arch" = amd64 ]; then
        # The refusals with the tree's Debian sources set aside (only the bad repository is read),
        # then put back for the recipes, which install curl from Debian.
        mkdir -p "$work/$name/debian-sources"
        mv "$r/etc/apt/sources.list" "$r"/etc/apt/sources.list.d/* "$work/$name/debian-sources/" 2>/dev/null || true
        install -D -m 0644 "$keyring" "$r/usr/share/keyrings/breeze-agent-archive-keyring.gpg"
        for bad_repo in apt-tampered apt-unsigned apt-expired; do
            sources "$r" "$suite" "http://127.0.0.1:$www_port/$bad_repo"
            if in_root "${apt_get[@]}" update >"$work/$name.$bad_repo" 2>&1; then
                bad "$name: apt-get update accepted $bad_repo"
            else
                # apt's own words (apt 3.0's sqv message spans lines), squeezed onto one line.
                ok "$name: apt refuses $bad_repo: $(grep -v -e 'Some index files' -e '^Reading' "$work/$name.$bad_repo" | grep -A3 -E '^(E|W):' | tr -s '[:space:]' ' ' | cut -c1-400)"
            fi
            check "$name: nothing of $bad_repo was taken (no package list)" bash -c "! ls '$r/var/lib/apt/lists/' | grep -q '$bad_repo.*Packages'"
            rm -rf "$r"/var/lib/apt/lists/127.0.0.1*
        done
        rm -f "$r/etc/apt/sources.list.d/breeze-agent.sources" "$r/usr/share/keyrings/breeze-agent-archive-keyring.gpg"
        for f in "$work/$name/debian-sources"/*; do
            [ -e "$f" ] || continue
            case "$(basename "$f")" in sources.list) mv "$f" "$r/etc/apt/" ;; *) mv "$f" "$r/etc/apt/sources.list.d/" ;; esac
        done
    fi
    # The install recipes, as written (the tree's own Debian sources stay: curl comes from there).
    mqtt_port=$(scripts/free-port.sh)
    sed "s/@PORT@/$mqtt_port/" test/mosquitto/test.conf >"$work/$name.mosquitto.conf"
    mosquitto -c "$work/$name.mosquitto.conf" >"$work/$name.mosquitto.log" 2>&1 &
    pids+=($!)
    port_of[$name]=$mqtt_port
    wait_port "$mqtt_port" || bad "$name: mosquitto did not start"
    docs_apt_install "$name" "$r" "$mqtt_port" "$version"
    seen_version=$(in_root /usr/bin/breeze-agent --version 2>&1 | head -1 || true)
    check "$name: breeze-agent --version says $version ($seen_version)" test "$seen_version" = "breeze-agent $version"
    check "$name: the installed binary is $arch" bash -c "file -b '$r/usr/bin/breeze-agent' | grep -q '$([ "$arch" = arm64 ] && echo aarch64 || echo x86-64)'"
    # What an upgrade must keep: the administrator's edit and the service's state.
    printf '# edited by the administrator\n' >>"$r/etc/breeze-agent/config.yaml"
    in_root setpriv --reuid=breeze-agent --regid=breeze-agent --init-groups -- sh -c 'echo kept >/var/lib/breeze-agent/rehearsal-state'
    check "$name: state written by the service user" test -s "$r/var/lib/breeze-agent/rehearsal-state"
    echo "   $name: install and run in $(($(date +%s) - t0)) s"
done

# <v+1>, published over the first: its packages (the conffile changed), its repository.
section "apt: $next published, upgrade, purge"
cp config/breeze-agent.example.yaml "$work/config-next.yaml"
printf '\n# Added in %s (release rehearsal): a changed conffile.\n' "$next" >>"$work/config-next.yaml"
next_debs=()
for arch in amd64 arm64; do
    next_debs+=("$(ARCH=$arch BREEZE_VERSION=$next BREEZE_DEB_CONFIG=$work/config-next.yaml scripts/deb.sh)")
    next_debs+=("$(ARCH=$arch BREEZE_VERSION=$next scripts/deb-render.sh)")
done
scripts/apt-repo.sh "$work/next/$next/apt" "$fpr" "${next_debs[@]}"
if PUBLISH_IMAGES=0 "${publish[@]}" "$work/next/$next"; then ok "$next's repository published over $version's"; else bad "publishing $next"; fi
for name in "${trees[@]}"; do
    suite=${name%-*} arch=${name#*-} r=${root[$name]}
    t0=$(date +%s)
    in_root() { chroot "$r" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }
    docs_apt_upgrade "$name" "$r" "$next"
    docs_apt_remove "$name" "$r" "${port_of[$name]}"
    echo "   $name: upgrade and removal in $(($(date +%s) - t0)) s"
done
site_sizes+=("$(printf '%-10s %8s %6s' "$next" "$(site_mb)" "$(find "$work/www/apt/pool" -name 'breeze-agent_*_amd64.deb' | wc -l)")")

# 7. Three more releases over those (their packages repacked from <v+1>'s with a new version, xz
# at level 1 for speed: about 15 % larger than a release's): the site stays bounded. Its size is
# the site's own, without the rehearsal's tampered and unsigned copies of the repository.
section "five releases in a row: the site's size"
previous=("${next_debs[@]}")
for n in 2 3 4; do
    later=$(awk -F. -v n="$n" '{ printf "%d.%d.%d", $1, $2, $3 + n }' <<<"$version")
    debs=()
    for deb in "${previous[@]}"; do
        x=$work/repack/$later/$(basename "$deb")
        rm -rf "$x" && mkdir -p "$x"
        dpkg-deb --raw-extract "$deb" "$x/tree"
        sed -i "s/^Version: .*/Version: $later/" "$x/tree/DEBIAN/control"
        pkg=$(sed -n 's/^Package: //p' "$x/tree/DEBIAN/control") a=$(sed -n 's/^Architecture: //p' "$x/tree/DEBIAN/control")
        dpkg-deb --root-owner-group -Zxz -z1 --build "$x/tree" "$work/repack/$later/${pkg}_${later}_$a.deb" >/dev/null
        debs+=("$work/repack/$later/${pkg}_${later}_$a.deb")
    done
    scripts/apt-repo.sh "$work/repack/$later/release/apt" "$fpr" "${debs[@]}" >/dev/null
    cp "$out/SHA256SUMS" "$out/SHA256SUMS.asc" "$work/repack/$later/release/"
    mv "$work/repack/$later/release" "$work/repack/$later/$later"
    if PUBLISH_IMAGES=0 "${publish[@]}" "$work/repack/$later/$later" >"$work/publish-$later.log" 2>&1; then :; else bad "publishing $later"; cat "$work/publish-$later.log"; fi
    site_sizes+=("$(printf '%-10s %8s %6s' "$later" "$(site_mb)" "$(find "$work/www/apt/pool" -name 'breeze-agent_*_amd64.deb' | wc -l)")")
done
pool_versions=$(find "$work/www/apt/pool" -name 'breeze-agent_*_amd64.deb' -printf '%f\n' | sed 's/breeze-agent_\(.*\)_amd64.deb/\1/' | sort -V | tr '\n' ' ')
check "after five releases the pool keeps the newest 3 versions ($pool_versions)" test "$(wc -w <<<"$pool_versions")" = 3
# Between releases the workflow signs the repository again before its Valid-Until passes
# (.github/workflows/apt-resign.yml: make apt-resign).
before=$(sed -n 's/^Valid-Until: //p' "$work/www/apt/dists/bookworm/Release")
if BREEZE_RELEASE_KEY=$work/release-key.asc scripts/release.sh --resign "$work/www/apt" 60 >"$work/resign.log" 2>&1; then
    after=$(sed -n 's/^Valid-Until: //p' "$work/www/apt/dists/bookworm/Release")
    check "make apt-resign: Valid-Until moved from $before to $after, InRelease verifies" bash -c \
        "[ \$(date -d '$after' +%s) -gt \$(date -d '$before' +%s) ] && gpgv --keyring '$keyring' '$work/www/apt/dists/bookworm/InRelease' 2>/dev/null"
else
    bad "make apt-resign failed:"; tail -5 "$work/resign.log"
fi
check "the oldest releases' folders left the site ($(ls "$work/www/releases" | tr '\n' ' '))" bash -c "[ ! -e '$work/www/releases/$version' ]"
printf '  %-10s %8s %6s\n' release "site" "pool versions (amd64 .debs)"
printf '  %s\n' "${site_sizes[@]}"
section done

docs_summary
printf '\n== summary\n'
printf '  %s\n' "${timings[@]}"
echo "test-release: $version (then $next) rehearsed: checks $passes passed, $failures failed in $(($(date +%s) - t_all)) s"
[ "$failures" -eq 0 ]
