#!/usr/bin/env bash
# `make test-image`: both images (scripts/image.sh) loaded and run under podman as
# packaging/compose.yaml runs the agent, against a mosquitto on the loopback (the agent
# with --demo: sample data, topics under breeze-demo/): the tree read back with mosquitto_sub,
# the process's user, the log, SIGTERM -> `offline` retained and exit 0 within 2 s, and that it
# carries no render helper (the -full image does: scripts/test-addon-image.sh). The arm64
# image runs under qemu-user (binfmt). Prints each image's uncompressed size against the
# 80 MB goal. Podman flags from this machine's facts: runc, host network, ulimits.
# Usage: scripts/test-image.sh [amd64] [arm64]    (default: both). Needs root.
#   BREEZE_IMAGE_REGISTRY=<registry>/<owner>  pull <registry>/<owner>/breeze-agent:<version> with
#                        `podman pull --arch` (the published index, scripts/test-release.sh)
#                        instead of building the archive and loading it; plain HTTP when
#                        BREEZE_REGISTRY_TLS_VERIFY=false
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "test-image: run as root (podman, chroot)" >&2; exit 1; }
scripts/deps.sh podman runc mosquitto mosquitto-clients >&2
archs=("$@")
[ ${#archs[@]} -gt 0 ] || archs=(amd64 arm64)
goal_mb=80
. scripts/podman-test.sh
podman_test_begin breeze-image-test
summary=()

for arch in "${archs[@]}"; do
    printf '\n== %s\n' "$arch"
    t0=$(date +%s)
    version=$(tr -d '[:space:]' <VERSION)
    if [ -n "${BREEZE_IMAGE_REGISTRY:-}" ]; then
        tag=$BREEZE_IMAGE_REGISTRY/breeze-agent:$version
        podman pull --arch "$arch" --tls-verify="${BREEZE_REGISTRY_TLS_VERIFY:-true}" "$tag" >"$work/pull-$arch" 2>&1 \
            || { cat "$work/pull-$arch"; bad "$arch: podman pull --arch $arch $tag"; continue; }
        ok "$arch: podman pull --arch $arch $tag ($(grep -c '^Copying blob' "$work/pull-$arch") blob(s) copied)"
        origin="pulled from the registry"
    else
        archive=$(ARCH=$arch scripts/image.sh)
        tag=localhost/breeze-agent:$version-$arch
        podman rmi -f "$tag" >/dev/null 2>&1 || true
        podman load -i "$archive" >"$work/load-$arch" 2>&1 || { cat "$work/load-$arch"; bad "$arch: podman load"; continue; }
        check "$arch: podman load tagged $tag" podman image exists "$tag"
        origin="archive $(du -h "$archive" | cut -f1)"
    fi
    size=$(podman image inspect --format '{{.Size}}' "$tag")
    size_mb=$(awk -v s="$size" 'BEGIN { printf "%.1f", s / 1000000 }')
    check "$arch: image architecture is $arch" bash -c "[ \"\$(podman image inspect --format '{{.Architecture}}' '$tag')\" = '$arch' ]"

    # A config as the compose example has it: the broker on the host's loopback, state in /data.
    port=$(scripts/free-port.sh)
    sed "s/@PORT@/$port/" test/mosquitto/test.conf >"$work/mosquitto-$arch.conf"
    mosquitto -c "$work/mosquitto-$arch.conf" >"$work/mosquitto-$arch.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 1 50); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
    mkdir -p "$work/config-$arch"
    sed -e "s|^  host: localhost |  host: 127.0.0.1 |" -e "s|^  # port: 1883 |  port: $port |" \
        -e 's|^state_dir: /var/lib/breeze-agent |state_dir: /data |' config/breeze-agent.example.yaml \
        >"$work/config-$arch/config.yaml"
    # The status page (libmicrohttpd, dlopened: the image must carry it and its closure).
    hport=$(scripts/free-port.sh)
    printf '\nhttp:\n  listen: "127.0.0.1:%s"\n' "$hport" >>"$work/config-$arch/config.yaml"
    grep -q "^  listen: \"127.0.0.1:$hport\"" "$work/config-$arch/config.yaml" || bad "$arch: could not add http.listen to the test config"
    chmod 0644 "$work/config-$arch/config.yaml"
    mosquitto_sub -h 127.0.0.1 -p "$port" -v -t 'breeze-demo/#' >"$work/seen-$arch" 2>/dev/null &
    pids+=($!)
    sleep 0.3
    name=breeze-agent-test-$arch-$$
    volume=breeze-agent-test-data-$arch-$$
    containers+=("$name")
    "${podman_run[@]}" -d --name "$name" -v "$work/config-$arch:/config:ro" -v "$volume:/data" \
        "$tag" --demo run --config /config/config.yaml >/dev/null
    # The first fetches are spread over the start's first 5 s (and run slower under qemu): wait
    # for the last of the demo's subtrees, not a fixed time (a 3 s sleep saw 31 messages once).
    for _ in $(seq 1 300); do
        grep -q '^breeze-demo/status online' "$work/seen-$arch" \
            && grep -q '^breeze-demo/home/pollen ' "$work/seen-$arch" \
            && grep -q '^breeze-demo/home/climate ' "$work/seen-$arch" \
            && grep -q '^breeze-demo/home/climate/stripes ' "$work/seen-$arch" && break
        sleep 0.2
    done
    sleep 1
    topics=$(grep -c '^breeze-demo/' "$work/seen-$arch" || true)
    check "$arch: published breeze-demo/status online" grep -q '^breeze-demo/status online' "$work/seen-$arch"
    check "$arch: published the demo tree ($topics messages)" test "$topics" -gt 50
    code=$(curl -s -o "$work/metrics-$arch" -w '%{http_code}' -m 10 "http://127.0.0.1:$hport/metrics" || true)
    check "$arch: the status server answers /metrics with 200 (got $code)" test "$code" = 200
    check "$arch: /metrics is the agent's" grep -q '^breeze_' "$work/metrics-$arch"
    pid=$(podman inspect --format '{{.State.Pid}}' "$name")
    puid=$(awk '/^Uid:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo "?")
    check "$arch: runs as the image's breeze-agent user, uid 1883 in every release (uid $puid)" test "$puid" = 1883
    sigterm_checks "$arch" "$name" "$work/log-$arch"
    # Without TZ and without a location's timezone (the image has no zone of its own): UTC and
    # one warning naming both, not exit 78. `forget` reads the image's own config (BREEZE_CONFIG).
    mkdir -p "$work/nozone-$arch"
    sed '/^    timezone: /d' "$work/config-$arch/config.yaml" >"$work/nozone-$arch/config.yaml"
    chmod 0644 "$work/nozone-$arch/config.yaml"
    { "${podman_run[@]}" --rm -v "$work/nozone-$arch:/config:ro" "$tag" check-config 2>&1 >/dev/null; echo "exit $?"; } >"$work/nozone-$arch/out"
    check "$arch: no time zone anywhere: check-config exits 0 with one warning naming TZ ($(tr '\n' ' ' <"$work/nozone-$arch/out" | cut -c1-160))" \
        bash -c "grep -qx 'exit 0' '$work/nozone-$arch/out' && grep -q 'using UTC; set TZ' '$work/nozone-$arch/out'"
    retained=$(mosquitto_sub -h 127.0.0.1 -p "$port" -t breeze-demo/status -C 1 -W 2 --retained-only 2>/dev/null || true)
    check "$arch: offline retained after SIGTERM" test "$retained" = offline
    check "$arch: the log has the agent's lines on stdout ($(wc -l <"$work/log-$arch") lines)" grep -q 'info:' "$work/log-$arch"
    check "$arch: nothing on the container's stderr ($(wc -l <"$work/log-$arch.stderr") lines)" test ! -s "$work/log-$arch.stderr"
    # --demo keeps no state; the volume must be the service user's to write when it runs for real.
    check "$arch: the /data volume belongs to the service user (uid $puid)" bash -c \
        "[ \"\$(stat -c %u \"\$(podman volume inspect --format '{{.Mountpoint}}' '$volume')\")\" = '$puid' ]"
    podman rm -f "$name" >/dev/null 2>&1 || true
    podman volume rm -f "$volume" >/dev/null 2>&1 || true
    # Lean (SPEC §19): the render helper and Cairo are the -full image's, not this one's.
    if "${podman_run[@]}" --rm --entrypoint /usr/libexec/breeze-agent/breeze-agent-render "$tag" </dev/null >/dev/null 2>"$work/helper-$arch"; then
        bad "$arch: the plain image runs a render helper"
    else
        check "$arch: the plain image has no render helper ($(grep -io 'no such file or directory\|not found' "$work/helper-$arch" | head -1))" \
            grep -qiE 'no such file or directory|not found' "$work/helper-$arch"
    fi
    head -5 "$work/log-$arch"
    verdict="met"
    awk -v s="$size" -v g="$goal_mb" 'BEGIN { exit !(s <= g * 1000000) }' || verdict="MISSED"
    summary+=("$arch: $tag, $size_mb MB uncompressed (goal <= $goal_mb MB: $verdict), $origin, $topics messages, stop $stop_s s, $(($(date +%s) - t0)) s")
done

printf '\n== summary\n'
printf '%s\n' "${summary[@]}"
echo "checks: $passes passed, $failures failed"
[ "$failures" -eq 0 ]
