#!/usr/bin/env bash
# `make test-addon-image`: the Home Assistant add-on's image (scripts/addon-image.sh) run under
# podman as the Supervisor runs it — /data a bind mount holding the options.json the Supervisor
# wrote (root, 0600), SUPERVISOR_TOKEN in the environment — against stand-ins on the loopback:
# a Supervisor written from its documented API and the pollen/climate APIs
# (test/addon/standins.py; the API facts it relies on are cited there and in
# docs/home-assistant.md), and a mosquitto that refuses anonymous clients and accepts the login
# the Supervisor announces, as the Mosquitto add-on does. Zero configuration: the options are
# config.yaml's defaults, `advanced` only pointing the agent at the stand-in APIs (no Internet
# here), one climate year, and the status page on a free loopback port instead of 0.0.0.0:8099.
# Checked per architecture (arm64 under qemu-user, binfmt): the image's config and that the
# Dockerfile built by podman gives the same; Home Assistant's home published under breeze/home/
# with the Supervisor's login; /data/breeze-agent.yaml written 0600 with the password in it and
# not in the log; the log on stdout; SIGTERM -> `offline` retained and exit 0 within 2 s. On the
# first architecture, a control run with a wrong password announced shows the tree check fails.
# Images (SPEC §19): the options also set two locations, one named with accents and one with
# CJK characters, and three `images:` (two PNGs, one JPEG) that the render helper in the image
# draws; each is read back from the broker (mosquitto_sub -N) and checked by
# test/addon/image_check.py (IHDR or SOF0 size, a full PNG decode, e-ink inks only); the log has
# no error line; nothing was written in the container outside /data (`podman diff`) and /data
# holds no font cache. The helper is also run alone in the image, as root (the add-on) and as
# breeze-agent (the -full image's user), on test/addon/render-request.json with FC_DEBUG=16:
# fontconfig must take every font folder's cache as valid and write none.
#   BREEZE_TEST_IMAGE_DIR=<dir>  keep the images read back there (<arch>-<id>.<ext>) to look at
# Podman flags from this machine's facts (SPEC §14): runc, host network, ulimits.
# Usage: scripts/test-addon-image.sh [amd64] [arm64]    (default: both). Needs root.
#   BREEZE_IMAGE_REGISTRY=<registry>/<owner>  as the Supervisor installs the add-on: the name
#                         config.yaml's `image:` gives, its registry and owner replaced by this
#                         one, tagged with config.yaml's `version`, pulled for the architecture
#                         (`podman pull --platform linux/<arch>`: the Supervisor's
#                         `DockerInterface.install` pulls with platform=MAP_ARCH[arch])
#                         (scripts/test-release.sh; BREEZE_REGISTRY_TLS_VERIFY=false: plain HTTP).
#                         The -full image the Dockerfile builds on is pulled as <version>-full-<arch>.
#   BREEZE_ADDON_UPDATE_GIT=<clone>  after the first architecture's run, the Supervisor's update:
#                         pull that clone of the add-on repository, and run the newer version
#                         its config.yaml names over the same /data
#   BREEZE_ADDON_DIR=<dir>  the add-on folder (config.yaml, Dockerfile) as the Supervisor found it
#                         (default ha-addon/breeze_agent)
#   BREEZE_REUSE_IMAGE=1  use build/breeze-agent-full_<version>_<arch>.oci.tar when it exists;
#                         otherwise scripts/image.sh (BREEZE_IMAGE_FULL=1) builds the -full image first.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "test-addon-image: run as root (podman, chroot)" >&2; exit 1; }
scripts/deps.sh podman runc mosquitto mosquitto-clients python3-yaml >&2
image_dir=${BREEZE_TEST_IMAGE_DIR:-}
[ -z "$image_dir" ] || mkdir -p "$image_dir"
archs=("$@")
[ ${#archs[@]} -gt 0 ] || archs=(amd64 arm64)
version=$(tr -d '[:space:]' <VERSION)
# The add-on folder the Supervisor reads: this tree's, or (BREEZE_ADDON_DIR) the one the stand-in
# Supervisor of scripts/test-docs.sh found in its clone of the published add-on repository.
addon_dir=${BREEZE_ADDON_DIR:-ha-addon/breeze_agent}
. scripts/podman-test.sh
podman_test_begin breeze-addon-image-test
summary=()
secret() { head -c 18 /dev/urandom | base64 | tr -dc 'A-Za-z0-9'; }
token=$(secret)
password=$(secret)
viewer_password=$(secret)

# start_broker NAME: a fresh mosquitto for one run (no retained messages of an earlier run):
# test/mosquitto/test.conf with logins required, the Supervisor's and a viewer's. Sets $port and
# $sub (mosquitto_sub logged in as the viewer). A port taken between free-port.sh and mosquitto's
# bind (other tests' outgoing connections use the same range) is replaced, up to 5 times.
start_broker() {
    local dir=$work/$1 attempt broker
    mkdir -p "$dir"
    mosquitto_passwd -c -b "$dir/passwords" addons "$password"
    mosquitto_passwd -b "$dir/passwords" viewer "$viewer_password"
    for attempt in 1 2 3 4 5; do
        port=$(scripts/free-port.sh)
        sed -e "s/@PORT@/$port/" -e 's/^allow_anonymous true$/allow_anonymous false/' test/mosquitto/test.conf >"$dir/mosquitto.conf"
        grep -q '^allow_anonymous false$' "$dir/mosquitto.conf" || { echo "test-addon-image: could not require logins in test.conf" >&2; exit 1; }
        # As root mosquitto switches to its own user, who could not read the 0600 password file.
        printf 'password_file %s\nuser root\nlog_type notice\nlog_type information\nconnection_messages true\n' \
            "$dir/passwords" >>"$dir/mosquitto.conf"
        mosquitto -c "$dir/mosquitto.conf" >"$dir/mosquitto.log" 2>&1 &
        broker=$!
        for _ in $(seq 1 50); do
            (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
            kill -0 "$broker" 2>/dev/null || break
            sleep 0.1
        done
        if kill -0 "$broker" 2>/dev/null && (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            pids+=("$broker")
            sub=(mosquitto_sub -h 127.0.0.1 -p "$port" -u viewer -P "$viewer_password")
            return
        fi
        echo "test-addon-image: mosquitto did not start on port $port (attempt $attempt): $(tail -n 1 "$dir/mosquitto.log")" >&2
        kill "$broker" 2>/dev/null || true
        wait "$broker" 2>/dev/null || true
    done
    echo "test-addon-image: mosquitto did not start in 5 attempts" >&2
    exit 1
}

# start_standins NAME ANNOUNCED_PASSWORD HTTP_PORT [OPTIONS_JSON]: the Supervisor (announcing the
# broker at $port) and the APIs for one run; writes $work/NAME/data/options.json with the
# options the user set (JSON, default none), sets $supervisor_url.
start_standins() {
    local name=$1 announced=$2 hport=$3 options=${4:-"{}"}
    mkdir -p "$work/$name/data"
    chmod 0700 "$work/$name/data"
    BREEZE_STANDIN_TOKEN=$token BREEZE_STANDIN_MQTT_PASSWORD=$announced python3 test/addon/standins.py \
        --addon-config "$addon_dir/config.yaml" --data "$work/$name/data" --mqtt-port "$port" \
        --advanced "$(printf 'climate: {years: [2010]}\nhttp: {listen: "127.0.0.1:%s"}\n' "$hport")" --options "$options" \
        --state "$work/$name/standins.json" --requests "$work/$name/requests.jsonl" 2>"$work/$name/standins.log" &
    pids+=($!)
    for _ in $(seq 1 300); do [ -s "$work/$name/standins.json" ] && break; sleep 0.1; done
    [ -s "$work/$name/standins.json" ] || { cat "$work/$name/standins.log" >&2; echo "test-addon-image: the stand-ins did not start" >&2; exit 1; }
    supervisor_url=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["supervisor_url"])' "$work/$name/standins.json")
}

# run_addon NAME TAG: watches breeze/# and homeassistant/# into $work/NAME/seen and starts the
# add-on's container as the Supervisor would.
run_addon() {   # run_addon NAME TAG [CONTAINER]: the container is NAME unless given (an update's)
    local name=$1 tag=$2 container=${3:-$1}
    "${sub[@]}" -v -t 'breeze/#' -t 'homeassistant/#' >>"$work/$name/seen" 2>/dev/null &
    pids+=($!)
    sleep 0.3
    containers+=("$container")
    "${podman_run[@]}" -d --name "$container" -v "$work/$name/data:/data" \
        -e "SUPERVISOR_TOKEN=$token" -e "BREEZE_SUPERVISOR_URL=$supervisor_url" "$tag" >/dev/null
}

# The tree check both runs use: messages under breeze/home/ seen by the viewer.
tree_count() { grep -ac '^breeze/home/' "$1" || true; }
tree_min=100

# The images run's options (SPEC §19): two more locations, named with accents and with CJK
# characters (placed in Europe, where the key-free pollen API answers), and images that show
# the names (a heading from 150x150) as PNG, and the e-ink tag size as JPEG.
# id location kind width height palette format
images=(
    "town koeln pollen 400 300 color png"
    "tag cjk climate 400 300 bwr png"
    "door home pollen 296 128 bwr jpeg"
)
images_options=$(python3 -c '
import json, sys
images = [dict(zip(("id", "location", "kind", "width", "height", "palette", "format"), line.split())) for line in sys.argv[1:]]
for image in images:
    image["width"], image["height"] = int(image["width"]), int(image["height"])
print(json.dumps({"locations": [
    {"id": "koeln", "name": "Köln-Mülheim, Straße à l’Œuvre", "latitude": 50.96, "longitude": 7.0, "timezone": "Europe/Berlin"},
    {"id": "cjk", "name": "東京 · 서울 · とうきょう", "latitude": 52.4, "longitude": 13.06, "timezone": "Europe/Berlin"}],
    "images": images}, ensure_ascii=False))' "${images[@]}")
images_seen() {   # images_seen FILE: every image's topic is in FILE (mosquitto_sub -v)
    local i id loc
    for i in "${images[@]}"; do
        read -r id loc _ <<<"$i"
        grep -aq "^breeze/$loc/image/$id " "$1" || return 1
    done
}

first=1
for arch in "${archs[@]}"; do
    printf '\n== %s\n' "$arch"
    t0=$(date +%s)
    case "$arch" in amd64) build_arch=amd64 ;; arm64) build_arch=aarch64 ;; *) bad "$arch: not amd64 or arm64"; continue ;; esac
    if [ -n "${BREEZE_IMAGE_REGISTRY:-}" ]; then
        tls=--tls-verify="${BREEZE_REGISTRY_TLS_VERIFY:-true}"
        image=$(sed -n 's/^image: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' "$addon_dir/config.yaml")
        case "$image" in ghcr.io/breeze-agent/*) ;; *) bad "$arch: config.yaml's image '$image' is not under ghcr.io/breeze-agent/"; continue ;; esac
        # The tag is config.yaml's `version`, as the Supervisor pulls `image:version`.
        addon_version=$(sed -n 's/^version: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' "$addon_dir/config.yaml")
        tag=$BREEZE_IMAGE_REGISTRY/${image#ghcr.io/breeze-agent/}:$addon_version
        tag=${tag//\{arch\}/$build_arch}
        podman pull --platform "linux/$arch" "$tls" "$tag" >"$work/pull-$arch" 2>&1 \
            || { cat "$work/pull-$arch"; bad "$arch: the Supervisor's pull of $tag for linux/$arch"; continue; }
        ok "$arch: pulled $tag for linux/$arch, the name config.yaml gives ($image)"
        base_image=$BREEZE_IMAGE_REGISTRY/breeze-agent
        podman pull --arch "$arch" "$tls" "$base_image:$version-full-$arch" >/dev/null 2>&1 || bad "$arch: podman pull $base_image:$version-full-$arch"
        origin="pulled from the registry"
    else
        base=build/breeze-agent-full_${version}_${arch}.oci.tar
        if [ "${BREEZE_REUSE_IMAGE:-}" = 1 ] && [ -f "$base" ]; then
            echo "test-addon-image: reusing $base (BREEZE_REUSE_IMAGE=1)"
        else
            base=$(ARCH=$arch BREEZE_IMAGE_FULL=1 scripts/image.sh)
        fi
        archive=$(BREEZE_IMAGE_ARCHIVE=$base ARCH=$arch scripts/addon-image.sh)
        tag=localhost/breeze-agent-addon:$version-$arch
        podman rmi -f "$tag" >/dev/null 2>&1 || true
        podman load -i "$archive" >"$work/load-$arch" 2>&1 || { cat "$work/load-$arch"; bad "$arch: podman load"; continue; }
        check "$arch: podman load tagged $tag" podman image exists "$tag"
        podman load -i "$base" >/dev/null 2>&1 || bad "$arch: podman load $base"
        base_image=localhost/breeze-agent
        origin="archive $(du -h "$archive" | cut -f1)"
    fi
    inspect() { podman image inspect --format "$1" "$tag"; }
    size=$(inspect '{{.Size}}')
    size_mb=$(awk -v s="$size" 'BEGIN { printf "%.1f", s / 1000000 }')
    check "$arch: image architecture $arch" test "$(inspect '{{.Architecture}}')" = "$arch"
    check "$arch: runs as root (the Supervisor's options.json is root's, 0600)" test "$(inspect '{{.Config.User}}')" = root
    check "$arch: entrypoint breeze-agent addon, no CMD" test "$(inspect '{{json .Config.Entrypoint}} {{json .Config.Cmd}}')" = '["/usr/bin/breeze-agent","addon"] null'
    check "$arch: labels io.hass.type=app io.hass.arch=$build_arch io.hass.version=$version" test \
        "$(inspect '{{index .Config.Labels "io.hass.type"}} {{index .Config.Labels "io.hass.arch"}} {{index .Config.Labels "io.hass.version"}}')" = "app $build_arch $version"
    check "$arch: /data is a volume, logs on stdout (BREEZE_LOG_STREAM=stdout)" bash -c \
        "podman image inspect --format '{{json .Config.Volumes}} {{json .Config.Env}}' '$tag' | grep -q '\"/data\".*BREEZE_LOG_STREAM=stdout'"
    # The Dockerfile a release builds (docker/podman build over the -full image) must give this
    # image: same config (bar buildah's own label), same layers.
    built=localhost/breeze-agent-addon-dockerfile-test:$version-$arch
    if podman build --pull=never --build-arg "BUILD_ARCH=$build_arch" --build-arg "BUILD_VERSION=$version" \
        --build-arg "BREEZE_IMAGE=$base_image" -t "$built" "$addon_dir" >"$work/build-$arch" 2>&1; then
        norm='{{json .Config}} {{.Architecture}} {{json .RootFS.Layers}}'
        a=$(podman image inspect --format "$norm" "$tag")
        b=$(podman image inspect --format "$norm" "$built" | sed 's/"io.buildah.version":"[^"]*",//')
        check "$arch: podman build of $addon_dir/Dockerfile gives the same config and layers" test "$a" = "$b"
        [ "$a" = "$b" ] || printf 'script:     %s\ndockerfile: %s\n' "$a" "$b"
        podman rmi -f "$built" >/dev/null 2>&1 || true
    else
        tail -5 "$work/build-$arch"
        bad "$arch: podman build of $addon_dir/Dockerfile"
    fi

    name=breeze-addon-test-$arch-$$
    failures_before=$failures
    hport=$(scripts/free-port.sh)
    start_broker "$name"
    start_standins "$name" "$password" "$hport" "$images_options"
    run_addon "$name" "$tag"
    seen=$work/$name/seen
    # The first fetches are spread over the start's first seconds (slower under qemu): wait for
    # the subtrees and the images, not a fixed time.
    for _ in $(seq 1 600); do
        grep -aq '^breeze/status online' "$seen" && grep -aq '^breeze/home/climate/unit ' "$seen" \
            && grep -aq '^breeze/home/pollen/' "$seen" && grep -aq '^homeassistant/.*Zuhause' "$seen" \
            && images_seen "$seen" && break
        [ "$(podman inspect --format '{{.State.Running}}' "$name")" = true ] || break
        sleep 0.2
    done
    sleep 1
    count=$(tree_count "$seen")
    status=$("${sub[@]}" -t breeze/status -C 1 -W 3 --retained-only 2>/dev/null || true)
    check "$arch: breeze/status reads online (retained)" test "$status" = online
    check "$arch: the tree under breeze/home/ ($count messages, at least $tree_min)" test "$count" -ge "$tree_min"
    check "$arch: breeze/home/climate/unit is °C (Home Assistant's unit system)" grep -q '^breeze/home/climate/unit °C$' "$seen"
    check "$arch: discovery names the device as Home Assistant names the home (Zuhause)" grep -q '^homeassistant/.*Zuhause' "$seen"
    check "$arch: the agent logged in to the broker as the Supervisor's user" grep -q "u'addons'" "$work/$name/mosquitto.log"
    check "$arch: the Supervisor was asked for /services/mqtt and /core/api/config with the token" bash -c \
        "grep -q '\"/services/mqtt\", \"authorized\": true, \"status\": 200' '$work/$name/requests.jsonl' && grep -q '\"/core/api/config\", \"authorized\": true, \"status\": 200' '$work/$name/requests.jsonl' && ! grep -q '\"authorized\": false' '$work/$name/requests.jsonl'"
    pid=$(podman inspect --format '{{.State.Pid}}' "$name")
    # Started as root (to read options.json), then dropped for good (docs/home-assistant.md,
    # "Privileges"): the image's breeze-agent user, no capability in any set, no_new_privs, and
    # no Supervisor token in the process's environment.
    puid=$(awk '/^Uid:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo "?")
    caps=$(awk '/^Cap(Inh|Prm|Eff|Bnd|Amb):/ { printf "%s ", $2 }' "/proc/$pid/status" 2>/dev/null)
    nnp=$(awk '/^NoNewPrivs:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
    grep '^Uid:\|^Cap\|^NoNewPrivs' "/proc/$pid/status" 2>/dev/null | tr '\t' ' ' | sed "s/^/  $arch: /"
    check "$arch: the agent runs as breeze-agent, not root (uid $puid)" test "$puid" != 0 -a "$puid" != "?"
    check "$arch: no capabilities in any set ($caps)" \
        test "$caps" = "0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 "
    check "$arch: no_new_privs set ($nnp)" test "$nnp" = 1
    check "$arch: the Supervisor token is not in /proc/<pid>/environ" bash -c "! grep -qaF '$token' /proc/$pid/environ"
    config=$work/$name/data/breeze-agent.yaml
    check "$arch: /data/breeze-agent.yaml written, mode 0600, owner breeze-agent ($(stat -c '%a %u' "$config" 2>/dev/null))" \
        test "$(stat -c '%a %u' "$config" 2>/dev/null)" = "600 $puid"
    check "$arch: it holds the Supervisor's password, Home Assistant's name and state_dir /data" bash -c \
        "grep -qF 'password: \"$password\"' '$config' && grep -q 'name: \"Zuhause\"' '$config' && grep -q '^state_dir: \"/data\"' '$config'"
    code=$(curl -s -o /dev/null -w '%{http_code}' -m 10 "http://127.0.0.1:$hport/healthz" || true)
    check "$arch: the status page answers /healthz with 200 (got $code)" test "$code" = 200
    # The images, as a subscriber gets them: the retained payload's bytes.
    for i in "${images[@]}"; do
        read -r id loc kind width height palette format <<<"$i"
        ext=$([ "$format" = jpeg ] && echo jpg || echo png)
        file=$work/$name/$id.$ext
        "${sub[@]}" -t "breeze/$loc/image/$id" -C 1 -W 5 -N --retained-only >"$file" 2>/dev/null || true
        if result=$(python3 test/addon/image_check.py "$file" "$format" "$width" "$height" "$palette"); then
            ok "$arch: breeze/$loc/image/$id ($kind, $palette) read back from the broker: $result"
        else
            bad "$arch: breeze/$loc/image/$id ($kind $width x $height $palette $format): $result"
        fi
        [ -z "$image_dir" ] || cp "$file" "$image_dir/$arch-$id.$ext"
    done
    check "$arch: the log has no error line" bash -c "! grep -aE '(^| )error: ' <(podman logs '$name' 2>&1)"
    # Fonts without surprises: the helper wrote nothing in the container (no font cache under
    # /root or /var/cache), and nothing in /data but the agent's own files.
    # (`C /etc` is podman's: the mount points of /etc/hosts and /etc/resolv.conf.)
    changed=$(podman diff "$name" 2>&1 | grep -vx 'C /etc' | tr '\n' ' ' || true)
    check "$arch: nothing written in the container outside /data (podman diff, less C /etc: ${changed:-nothing})" test -z "$changed"
    check "$arch: no font cache in /data" bash -c "! find '$work/$name/data' -iname '*fontconfig*' -o -name '*.cache-*' | grep -q ."
    for user in root breeze-agent; do
        out=$work/$name/helper-$user.png
        "${podman_run[@]}" --rm -i --user "$user" -e FC_DEBUG=16 --entrypoint /usr/libexec/breeze-agent/breeze-agent-render \
            "$tag" <test/addon/render-request.json >"$out" 2>"$out.stderr" && helper_rc=0 || helper_rc=$?
        # fontconfig prints its debug lines with stdio on stdout, flushed at exit after the image
        # (written with write(2)): what follows the PNG's IEND chunk is fontconfig's.
        python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); i = d.find(b"IEND\xaeB`\x82"); i = len(d) if i < 0 else i + 8
open(sys.argv[1], "wb").write(d[:i]); open(sys.argv[2], "wb").write(d[i:])' "$out" "$out.fc"
        cat "$out.stderr" >>"$out.fc"
        valid=$(grep -c '^FcCacheTimeValid' "$out.fc" || true)
        stale=$(awk '/^FcCacheTimeValid/ { if ($(NF - 3) != $NF) n++ } END { print n + 0 }' "$out.fc")
        check "$arch: the helper alone as $user (exit $helper_rc): a valid 800x480 PNG" \
            bash -c "[ '$helper_rc' = 0 ] && python3 test/addon/image_check.py '$out' png 800 480 color"
        check "$arch: as $user fontconfig read its caches ($valid folders, $stale stale) and wrote none" bash -c \
            "[ '$valid' -ge 3 ] && [ '$stale' = 0 ] && ! grep -qE 'FcDirCacheWrite|CACHEDIR.TAG|Fontconfig (error|warning)' '$out.fc' \
             && grep -q 'dir: /usr/share/fonts/truetype/dejavu' '$out.fc' && grep -q 'dir: /usr/share/fonts/truetype/wqy' '$out.fc'"
        [ "$failures" -eq "$failures_before" ] || { echo "-- fontconfig's debug lines and the helper's stderr as $user:"; head -30 "$out.fc"; }
        [ -z "$image_dir" ] || cp "$out" "$image_dir/$arch-helper-$user.png"
    done
    sigterm_checks "$arch" "$name" "$work/$name/log"
    run_stop_s=$stop_s
    retained=$("${sub[@]}" -t breeze/status -C 1 -W 3 --retained-only 2>/dev/null || true)
    check "$arch: offline retained after SIGTERM" test "$retained" = offline
    check "$arch: the log is on stdout ($(wc -l <"$work/$name/log") lines, add-on: wrote … first)" \
        grep -q 'add-on: wrote /data/breeze-agent.yaml (mode 0600)' "$work/$name/log"
    check "$arch: nothing on the container's stderr ($(wc -l <"$work/$name/log.stderr") lines)" test ! -s "$work/$name/log.stderr"
    check "$arch: the password is not in the container log" bash -c "! grep -qF '$password' '$work/$name/log' '$work/$name/log.stderr'"
    echo "-- the Supervisor stand-in's answers (password masked):"
    python3 -c 'import json, sys; [print(k, "->", v) for k, v in json.load(open(sys.argv[1]))["answers"].items()]' "$work/$name/standins.json"
    echo "-- /data/breeze-agent.yaml as the entrypoint wrote it (password masked):"
    sed "s/$password/***/" "$config"
    echo "-- the log's first lines:"
    head -4 "$work/$name/log"
    if [ "$failures" -gt "$failures_before" ]; then
        echo "-- a check failed: the log's last lines, the broker's and the Supervisor's requests:"
        tail -n 15 "$work/$name/log" "$work/$name/log.stderr" "$work/$name/mosquitto.log" "$work/$name/requests.jsonl" | sed "s/$password/***/g"
    fi
    podman rm -f "$name" >/dev/null 2>&1 || true

    # The add-on's update as the Supervisor makes it (BREEZE_ADDON_UPDATE_GIT, the first
    # architecture only): its store pulls the repository (store/git.py: fetch --depth 1, reset
    # --hard to the branch, clean), sees a newer `version` in config.yaml, pulls that image tag and
    # starts it over the same /data.
    if [ "$first" = 1 ] && [ -n "${BREEZE_ADDON_UPDATE_GIT:-}" ] && [ -n "${BREEZE_IMAGE_REGISTRY:-}" ]; then
        store=$BREEZE_ADDON_UPDATE_GIT
        branch=$(git -C "$store" rev-parse --abbrev-ref HEAD)
        git -C "$store" fetch --quiet --update-shallow --depth 1 origin "$branch" \
            && git -C "$store" reset --quiet --hard "origin/$branch" && git -C "$store" clean -xdfq \
            || bad "$arch: the store's pull of the add-on repository"
        updated=$(sed -n 's/^version: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' "$store/breeze_agent/config.yaml")
        check "$arch: the store sees an update of the add-on: $addon_version -> $updated" bash -c \
            "[ '$updated' != '$addon_version' ] && [ \"\$(printf '%s\n%s\n' '$addon_version' '$updated' | sort -V | tail -1)\" = '$updated' ]"
        tag_new=${tag%:*}:$updated
        podman pull --platform "linux/$arch" "$tls" "$tag_new" >"$work/pull-update-$arch" 2>&1 \
            && ok "$arch: the update pulled $tag_new" || { cat "$work/pull-update-$arch"; bad "$arch: the update's pull of $tag_new"; }
        echo kept >"$work/$name/data/update-marker"
        before=$(ls "$work/$name/data" | tr '\n' ' ')
        updated_name=$name-updated
        : >"$work/$name/seen"
        run_addon "$name" "$tag_new" "$updated_name"
        for _ in $(seq 1 300); do
            grep -aq '^breeze/status online' "$work/$name/seen" && grep -aq '^breeze/home/pollen/' "$work/$name/seen" && break
            sleep 0.2
        done
        check "$arch: the updated add-on is online and publishes the tree again" bash -c \
            "grep -aq '^breeze/status online' '$work/$name/seen' && grep -aq '^breeze/home/pollen/' '$work/$name/seen'"
        check "$arch: /data kept across the update ($before)" bash -c \
            "grep -qx kept '$work/$name/data/update-marker' && [ -d '$work/$name/data/published' ]"
        podman rm -f "$updated_name" >/dev/null 2>&1 || true
    fi
    stop_at=$(date +%s)
    control_note=""

    if [ "$first" = 1 ]; then
        first=0
        # Control: the same run with a wrong password announced must fail the tree check. Wait
        # for the refusal in the log, then for a barrier message through the viewer's
        # subscription, and count (no sleep decides it).
        control=breeze-addon-control-$arch-$$
        start_broker "$control"
        start_standins "$control" "not-$password" "$(scripts/free-port.sh)"
        run_addon "$control" "$tag"
        for _ in $(seq 1 300); do
            podman logs "$control" 2>&1 | grep -qi 'not authori' && break
            sleep 0.2
        done
        mosquitto_pub -h 127.0.0.1 -p "$port" -u viewer -P "$viewer_password" -t breeze/control-barrier -m x
        for _ in $(seq 1 50); do grep -q '^breeze/control-barrier' "$work/$control/seen" && break; sleep 0.1; done
        ccount=$(tree_count "$work/$control/seen")
        refusal=$(podman logs "$control" 2>&1 | grep -i 'not authori' | head -n 1 | cut -c1-140 || true)
        if [ "$ccount" -ge "$tree_min" ] || [ -z "$refusal" ] || ! grep -q '^breeze/control-barrier' "$work/$control/seen"; then
            bad "$arch control: a wrong broker password still passed the tree check ($ccount messages; refusal: ${refusal:-none})"
        else
            ok "$arch control: with a wrong password announced the tree check fails ($ccount messages, at least $tree_min needed); log: $refusal"
        fi
        check "$arch control: still running, waiting for the broker (no crash loop)" \
            test "$(podman inspect --format '{{.State.Running}}' "$control")" = true
        sigterm_checks "$arch control" "$control" "$work/$control/log"
        podman rm -f "$control" >/dev/null 2>&1 || true
        control_note=" (+ control run $(($(date +%s) - stop_at)) s)"
    fi
    summary+=("$arch: $tag, $size_mb MB uncompressed, $origin, $count messages under breeze/home/, stop $run_stop_s s, $((stop_at - t0)) s$control_note")
done

printf '\n== summary\n'
printf '%s\n' "${summary[@]}"
podman images --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep '^localhost/breeze-agent-addon:' || true
echo "checks: $passes passed, $failures failed"
[ "$failures" -eq 0 ]
