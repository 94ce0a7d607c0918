#!/usr/bin/env bash
# `make verify-release RELEASE_DIR=<folder>`: the checks of a release folder that `make release`
# wrote, before `make publish` sends it out. The release workflow runs it on the very files it is
# about to publish (.github/workflows/release.yml), and the rehearsal (scripts/test-release.sh)
# runs it on the release it built, so what is published is what passed these checks:
#   0. the folder itself, before anything is started: named after VERSION, every file a release
#      has present (by name), SHA256SUMS.asc a good signature by the release's own keyring,
#      `sha256sum -c` passing, and no file outside SHA256SUMS (the workflow uploads every file
#      of the folder). Each problem is named; any of them ends the run at once (exit 1);
#   1. a local OCI registry (Debian's docker-registry), a static folder (the Pages site) and a
#      bare git repository (the add-on branch) receive `make publish` (scripts/publish.sh);
#      `skopeo inspect --raw` shows each image index with amd64 and arm64, and the tags;
#   2. the signatures: gpgv of both InRelease; `gpg --verify SHA256SUMS.asc` and `sha256sum -c`
#      of the release pass, and fail after one flipped byte; every SBOM passes the SPDX
#      project's validator (pyspdxtools, PyPI, pinned in test/release/spdx-requirements.txt);
#   3. the images from empty podman storage: scripts/test-image.sh pulls
#      <registry>/breeze-agent:<v> with `--arch arm64` and `--arch amd64` and runs each against a
#      broker; the stand-in Supervisor clones the add-on repository by the URL the docs give and
#      validates it, and scripts/test-addon-image.sh pulls the add-on its config.yaml names, for
#      each architecture, and runs it against a stand-in Supervisor and a login-only broker;
#      the docker and compose recipes run under podman in a namespace of their own
#      (scripts/test-docs.sh);
#   4. apt in four Debian trees (bookworm/trixie x amd64/arm64, arm64 under qemu-user; cached
#      by scripts/rootfs-common.sh, each run on an overlay): a repository changed after signing,
#      an unsigned one and an expired one are refused by apt (amd64 trees: apt 2.6 and 3.0; apt's
#      error shown); then the apt recipes: check, install, configure (the service started,
#      online on a broker), then version <v+1> published over it and the upgrade recipe (the
#      edited config and the state kept), then the removal recipe (stop, forget: nothing left on
#      the broker, purge);
#   5. three more versions published over those: the site's size after each (the pool keeps the
#      newest 3; GitHub Pages serves at most 1 GB).
# <v+1>… are patch versions after VERSION, built by scripts/deb.sh with BREEZE_VERSION (the
# binary inside still says <v>: only the packages and the repository are new), <v+1>'s conffile
# changed so that the upgrade has a conffile question to answer (the administrator's edit wins).
# The release key is not needed and never handed to this script: the repositories it makes
# itself (<v+1>…, the expired copy) are signed by a throw-away stand-in key made here, which the
# trees trust beside the release's keyring only for those steps (the stand-in of a later
# release's key); the release's own repository is installed against its own keyring alone.
# Needs root (chroot, mounts, podman, port 443 on two 127.77.46.x addresses). Every check is
# reported; the script fails at the end if any check failed, and prints
# `verify-release: … checks N passed, M failed`. Environment: BREEZE_CI_CACHE (the trees, the
# validator's venv).
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(tr -d '[:space:]' <VERSION)
release=${1:-build/release/$version}
[ "$(id -u)" -eq 0 ] || { echo "verify-release: run as root (chroot, mounts, podman)" >&2; exit 1; }
[ -d "$release" ] || { echo "verify-release: no release folder $release (make release writes build/release/$version)" >&2; exit 1; }
release=$(realpath "$release")
[ "$(basename "$release")" = "$version" ] || {
    echo "verify-release: $release is not named after VERSION $version (make publish takes the version from the folder's name)" >&2; exit 1; }
scripts/deps.sh skopeo docker-registry podman runc reprepro gnupg mmdebstrap mosquitto mosquitto-clients python3 python3-venv curl file openssl git >&2
t_all=$(date +%s)
next=$(awk -F. '{ printf "%d.%d.%d", $1, $2, $3 + 1 }' <<<"$version")
cache=${BREEZE_CI_CACHE:-/var/cache/breeze-agent-ci}

# 0. The folder: complete, signed, and nothing in it that SHA256SUMS does not cover. Cheap, and
# first: a broken folder is refused before a registry or a tree is started.
refused=()
refuse() { refused+=("$*"); echo "verify-release: $release: $*" >&2; }
expected=(SHA256SUMS SHA256SUMS.asc RELEASE-NOTES.md breeze-agent-archive-keyring.gpg compose.yaml mosquitto.conf config.yaml
    "breeze-agent-addon-repository_$version.tar" ha-addon/repository.yaml ha-addon/breeze_agent/config.yaml
    apt/dists/bookworm/InRelease apt/dists/bookworm/Release.gpg apt/dists/trixie/InRelease apt/dists/trixie/Release.gpg)
for arch in amd64 arm64; do
    for f in "breeze-agent_${version}_$arch.deb" "breeze-agent-render_${version}_$arch.deb" "breeze-agent_${version}_$arch.oci.tar" \
        "breeze-agent-full_${version}_$arch.oci.tar" "breeze-agent-addon_${version}_$arch.oci.tar"; do
        expected+=("$f" "$f.spdx.json")
    done
done
for name in breeze-agent breeze-agent-full breeze-agent-addon; do expected+=("${name}_$version.oci.tar"); done
for f in "${expected[@]}"; do [ -s "$release/$f" ] || refuse "$f is missing or empty"; done
for f in "$release"/apt/pool/main/b/*/*.deb; do
    [ -e "$f" ] || { refuse "apt/pool holds no package"; break; }
done
if [ -f "$release/SHA256SUMS" ]; then
    # Every file of the folder is in SHA256SUMS, and SHA256SUMS names no file that is not there.
    listed=$(sed -n 's/^[0-9a-f]\{64\}  //p' "$release/SHA256SUMS" | LC_ALL=C sort)
    present=$(cd "$release" && find . -type f ! -name SHA256SUMS ! -name SHA256SUMS.asc -printf '%P\n' | LC_ALL=C sort)
    while read -r f; do [ -z "$f" ] || refuse "$f is not in SHA256SUMS (it would be published unchecked)"; done \
        < <(LC_ALL=C comm -13 <(echo "$listed") <(echo "$present"))
    while read -r f; do [ -z "$f" ] || refuse "$f is named in SHA256SUMS but missing"; done \
        < <(LC_ALL=C comm -23 <(echo "$listed") <(echo "$present"))
    while read -r line; do refuse "sha256sum -c: $line"; done \
        < <(cd "$release" && sha256sum --quiet -c SHA256SUMS 2>&1 | grep -v '^sha256sum: WARNING' || true)
fi
if [ -s "$release/SHA256SUMS.asc" ] && [ -s "$release/breeze-agent-archive-keyring.gpg" ]; then
    gpgv --keyring "$release/breeze-agent-archive-keyring.gpg" "$release/SHA256SUMS.asc" "$release/SHA256SUMS" >/dev/null 2>&1 \
        || refuse "SHA256SUMS.asc is not a good signature of SHA256SUMS by breeze-agent-archive-keyring.gpg"
fi
if [ "${#refused[@]}" -gt 0 ]; then
    echo "verify-release: refused $release: ${#refused[@]} problem(s) above; nothing was started" >&2
    exit 1
fi
echo "verify-release: $release: ${#expected[@]} expected files present, $(wc -l <"$release/SHA256SUMS") files match the signed SHA256SUMS, none outside it" >&2

. scripts/rootfs-common.sh
. scripts/checks.sh
. scripts/test-docs.sh
work=$(mktemp -d /tmp/breeze-verify-release.XXXXXX)
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

# The stand-in key for the repositories made here (never the release key).
export GNUPGHOME=$work/gnupg
mkdir -m 0700 "$GNUPGHOME"
gpg --batch --quiet --passphrase '' --quick-gen-key "breeze-agent verification stand-in <verify@breeze-agent.invalid>" ed25519 sign 1d
fpr=$(gpg --batch --with-colons --list-secret-keys | awk -F: '$1 == "fpr" { print $10; exit }')
gpg --batch --export "$fpr" >"$work/standin-key.gpg"
cat "$release/breeze-agent-archive-keyring.gpg" "$work/standin-key.gpg" >"$work/keyring-and-standin.gpg"
echo "verify-release: stand-in key $fpr (signs <v+1>… and the expired copy only)"
out=$release

# 1. The stand-ins and make publish.
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
wait_port "$reg_port" || { cat "$work/registry.log" >&2; echo "verify-release: docker-registry did not start" >&2; exit 1; }
www_port=$(scripts/free-port.sh)
python3 -m http.server --bind 127.0.0.1 --directory "$work/www" "$www_port" >"$work/www.log" 2>&1 &
pids+=($!)
wait_port "$www_port" || { cat "$work/www.log" >&2; echo "verify-release: the static server did not start" >&2; exit 1; }
registry=127.0.0.1:$reg_port/breeze-agent
apt_url=http://127.0.0.1:$www_port/apt
# github.com/breeze-agent/breeze-agent as git sees it: a bare repository the add-on branch goes to.
git init --quiet --bare "$work/git/breeze-agent/breeze-agent.git"
# Only the stand-ins: a registry login or branch name of the caller's environment is not used.
publish=(env -u REGISTRY_USER -u REGISTRY_TOKEN -u ADDON_BRANCH -u APT_KEEP_VERSIONS
    REGISTRY="$registry" REGISTRY_TLS_VERIFY=false PUBLISH_TARGET="$work/www"
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
# breeze-agent holds the plain image and the -full one, each under its own tags.
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

# 2. Signatures, checksums, SBOMs, as a user checks them: from what was published.
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

# 3. The images, from empty storage, as Docker and the Supervisor pull them.
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

# 4. apt in the four trees.
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
# And one whose signatures are valid but whose Valid-Until has passed (a frozen mirror): signed
# again by the stand-in key, which the refusal trees trust beside the release's keyring, so that
# the expiry is the only thing wrong with it.
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
        install -D -m 0644 "$work/keyring-and-standin.gpg" "$r/usr/share/keyrings/breeze-agent-archive-keyring.gpg"
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

# <v+1>, published over the first: its packages (the conffile changed), its repository, signed by
# the stand-in key. Each tree's keyring (the one the install recipe fetched from the site) gets
# the stand-in key added, as a user's would get a later release's key.
section "apt: $next published, upgrade, purge"
cp config/breeze-agent.example.yaml "$work/config-next.yaml"
printf '\n# Added in %s (release verification): a changed conffile.\n' "$next" >>"$work/config-next.yaml"
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
    cat "$work/standin-key.gpg" >>"$r/etc/apt/keyrings/breeze-agent.gpg"
    docs_apt_upgrade "$name" "$r" "$next"
    docs_apt_remove "$name" "$r" "${port_of[$name]}"
    echo "   $name: upgrade and removal in $(($(date +%s) - t0)) s"
done
site_sizes+=("$(printf '%-10s %8s %6s' "$next" "$(site_mb)" "$(find "$work/www/apt/pool" -name 'breeze-agent_*_amd64.deb' | wc -l)")")

# 5. Three more releases over those (their packages repacked from <v+1>'s with a new version, xz
# at level 1 for speed: about 15 % larger than a release's): the site stays bounded. Its size is
# the site's own, without the tampered, unsigned and expired copies of the repository.
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
check "the oldest releases' folders left the site ($(ls "$work/www/releases" | tr '\n' ' '))" bash -c "[ ! -e '$work/www/releases/$version' ]"
printf '  %-10s %8s %6s\n' release "site" "pool versions (amd64 .debs)"
printf '  %s\n' "${site_sizes[@]}"
section done

docs_summary
printf '\n== summary\n'
printf '  %s\n' "${timings[@]}"
echo "verify-release: $release ($version, then $next over it): checks $passes passed, $failures failed in $(($(date +%s) - t_all)) s"
[ "$failures" -eq 0 ]
