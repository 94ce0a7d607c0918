#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The container recipes of docs/installing.md (docker-*, compose-*), run as written by
# scripts/test-docs.sh inside `unshare --net --mount`: a network of their own (the Compose
# broker's port 1883 and the stand-ins' port 443 meet nothing else on a shared machine) and this
# namespace's own /etc/hosts and CA bundle, which send the public hosts to the stand-ins:
#   breeze-agent.github.io, github.com   test/docs/standin.py on $DOCS_PAGES_IP:443
#   ghcr.io, registry-1.docker.io        docker-registry on $DOCS_REGISTRY_IP:443 over the
#                                         rehearsal's registry storage (the published images and
#                                         the eclipse-mosquitto stand-in)
# `docker` is podman (as Debian's podman-docker makes it), `docker compose` is podman-compose
# (PyPI's, $DOCS_PODMAN_COMPOSE);
# podman's settings on this machine (runc, the ulimits) are a containers.conf. Prints ok/FAIL
# lines and one `recipe NAME WHERE RESULT` line per recipe run.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/checks.sh
work=$DOCS_WORK/containers
mkdir -p "$work/bin"
pids=()
cleanup() {
    for c in $(podman ps -aq 2>/dev/null); do podman rm -f "$c" >/dev/null 2>&1 || true; done
    podman volume prune -f >/dev/null 2>&1 || true
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT
record() { echo "recipe $1 $2 $3"; }
ip link set lo up

# The public hosts, as the namespace resolves and trusts them.
{ printf '127.0.0.1 localhost\n::1 localhost\n'; cat "$DOCS_WORK/hosts"; } >"$work/hosts"
mount --bind "$work/hosts" /etc/hosts
mount --bind "$DOCS_WORK/bundle.crt" /etc/ssl/certs/ca-certificates.crt
python3 test/docs/standin.py --bind "$DOCS_PAGES_IP" --port 443 --cert "$DOCS_WORK/host.crt" --key "$DOCS_WORK/host.key" \
    --site "$DOCS_SITE" --releases "$DOCS_RELEASES" --log "$work/standin.log" >"$work/standin.err" 2>&1 &
pids+=($!)
cat >"$work/registry.yml" <<EOF
version: 0.1
log: {level: warn}
storage: {filesystem: {rootdirectory: $DOCS_REGISTRY_ROOT}}
http:
  addr: $DOCS_REGISTRY_IP:443
  tls: {certificate: $DOCS_WORK/host.crt, key: $DOCS_WORK/host.key}
EOF
docker-registry serve "$work/registry.yml" >"$work/registry.log" 2>&1 &
pids+=($!)
for ip in "$DOCS_PAGES_IP" "$DOCS_REGISTRY_IP"; do
    for _ in $(seq 1 50); do (exec 3<>"/dev/tcp/$ip/443") 2>/dev/null && break; sleep 0.1; done
done
check "ghcr.io answers over HTTPS with the stand-in's certificate" curl -fsS -o /dev/null https://ghcr.io/v2/
# The pollen and climate APIs, as the machine would reach Open-Meteo (test/docs/apis.py).
python3 test/docs/apis.py "$work/apis.url" >"$work/apis.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do [ -s "$work/apis.url" ] && break; sleep 0.1; done
apis=$(cat "$work/apis.url")
# The user's edit after the install recipe (docs: "Edit config/config.yaml …, then restart"):
# the endpoints at the API stand-in; the broker stays localhost:1883.
edit_config() {
    sed -i -e "s|^  air_quality: https://air-quality-api.open-meteo.com/v1|  air_quality: $apis/aq/v1|" \
        -e "s|^  climate_archive: https://archive-api.open-meteo.com/v1|  climate_archive: $apis/archive/v1|" \
        -e "s|^  climate_forecast: https://api.open-meteo.com/v1|  climate_forecast: $apis/forecast/v1|" "$1"
    grep -q "^  air_quality: $apis/aq/v1" "$1" || bad "could not point $1's endpoints at the API stand-in"
}
device_config() { retained homeassistant/device/breeze_home/config 5 | head -c 30; }
cat >"$work/bin/docker" <<EOF
#!/bin/sh
# docker as Debian's podman-docker gives it; \`docker compose\` as podman-compose.
if [ "\${1:-}" = compose ]; then shift; exec "$DOCS_PODMAN_COMPOSE" "\$@"; fi
exec podman "\$@"
EOF
chmod +x "$work/bin/docker"
cat >"$work/containers.conf" <<'EOF'
# This machine's podman facts (docs/operations.md): runc (crun fails here), bounded ulimits.
[containers]
default_ulimits = ["nofile=1000:1000", "nproc=1000:1000"]
[engine]
runtime = "runc"
EOF
export CONTAINERS_CONF=$work/containers.conf
export PATH=$work/bin:$PATH

run_recipe() {   # run_recipe NAME DIR: the recipe as written, in DIR
    local name=$1 dir=$2 status=0
    python3 test/docs/recipes.py show docs/installing.md "$name" >"$work/$name.sh"
    # Bounded: a recipe that hangs (a compose waiting on a container that never came) fails.
    (cd "$dir" && timeout --kill-after=10 600 bash -e -o pipefail "$work/$name.sh") >"$work/$name.log" 2>&1 </dev/null || status=$?
    if [ "$status" -eq 0 ]; then ok "$name ran"; record "$name" podman pass; else
        bad "$name failed ($status):"; tail -20 "$work/$name.log"; record "$name" podman FAIL; fi
    return "$status"
}
retained() { mosquitto_sub -h 127.0.0.1 -p 1883 -t "$1" -C 1 -W "${2:-2}" --retained-only 2>/dev/null || true; }
wait_online() {
    local seen=""
    for _ in $(seq 1 60); do seen=$(retained breeze/status 1); [ "$seen" = online ] && break; sleep 0.5; done
    echo "$seen"
}
left_on_broker() { timeout 5 mosquitto_sub -h 127.0.0.1 -p 1883 -t 'breeze/#' -t 'homeassistant/#' -v -W 2 --retained-only 2>/dev/null | cut -c1-60 | head -5 || true; }

# --- docker run, with a broker the user already has -------------------------------------------
sed "s/@PORT@/1883/" test/mosquitto/test.conf >"$work/mosquitto.conf"
mosquitto -c "$work/mosquitto.conf" >"$work/mosquitto.log" 2>&1 &
broker=$!
pids+=("$broker")
for _ in $(seq 1 50); do (exec 3<>/dev/tcp/127.0.0.1/1883) 2>/dev/null && break; sleep 0.1; done
mkdir -p "$work/docker"
if run_recipe docker-install "$work/docker"; then
    check "docker-install: the config came from the release on github.com" grep -q "^github.com GET /breeze-agent/breeze-agent/releases/download/v$DOCS_VERSION/config.yaml 200" "$work/standin.log"
    check "docker-install: the image came from ghcr.io (the stand-in registry)" bash -c "podman inspect --format '{{.ImageName}}' breeze-agent | grep -qx 'ghcr.io/breeze-agent/breeze-agent:latest'"
    online=$(wait_online)
    check "docker-install: the agent reached the broker (breeze/status: $online)" test "$online" = online
    edit_config "$work/docker/breeze-agent/config/config.yaml"
    check "docker-install: docker restart after the config edit" docker restart breeze-agent
    for _ in $(seq 1 60); do [ -n "$(device_config)" ] && break; sleep 0.5; done
    check "docker-install: with data, the Home Assistant device config is retained ($(device_config)…)" test -n "$(device_config)"
    pid=$(podman inspect --format '{{.State.Pid}}' breeze-agent)
    check "docker-install: runs as uid 1883 ($(awk '/^Uid:/ { print $2 }' /proc/$pid/status))" \
        test "$(awk '/^Uid:/ { print $2 }' "/proc/$pid/status")" = 1883
    volume=$(podman volume inspect --format '{{.Mountpoint}}' breeze-agent-data)
    check "docker-install: the state volume is the agent's (uid $(stat -c %u "$volume"))" test "$(stat -c %u "$volume")" = 1883
    echo kept >"$volume/docs-test-marker"
    if run_recipe docker-upgrade "$work/docker/breeze-agent"; then
        online=$(wait_online)
        check "docker-upgrade: the new container is online again ($online)" test "$online" = online
        check "docker-upgrade: the volume was kept" grep -qx kept "$volume/docs-test-marker"
    fi
    if run_recipe docker-remove "$work/docker/breeze-agent"; then
        check "docker-remove: forget cleared the device config first" bash -c \
            "grep '^cleared ' '$work/docker-remove.log' | head -1 | grep -q 'homeassistant/device/breeze_home/config'"
        check "docker-remove: forget cleared the topics ($(grep -c '^cleared ' "$work/docker-remove.log"))" grep -qE '^forget: [1-9][0-9]* retained topics? cleared' "$work/docker-remove.log"
        left=$(left_on_broker)
        check "docker-remove: nothing of the agent is left on the broker (${left:-none})" test -z "$left"
        check "docker-remove: the container and the volume are gone" bash -c '! podman container exists breeze-agent && ! podman volume exists breeze-agent-data'
    fi
else
    record docker-upgrade podman skipped
    record docker-remove podman skipped
fi
kill "$broker" 2>/dev/null; wait "$broker" 2>/dev/null

# --- Compose, with its own broker ---------------------------------------------------------------
mkdir -p "$work/compose"
if run_recipe compose-install "$work/compose"; then
    dir=$work/compose/breeze-agent
    check "compose-install: compose.yaml, mosquitto.conf and config.yaml came from the release" bash -c \
        "for f in compose.yaml mosquitto.conf config.yaml; do grep -q \"^github.com GET /breeze-agent/breeze-agent/releases/download/v$DOCS_VERSION/\$f 200\" '$work/standin.log' || exit 1; done"
    check "compose-install: compose.yaml names this release's image" grep -q "image: ghcr.io/breeze-agent/breeze-agent:$DOCS_VERSION" "$dir/compose.yaml"
    online=$(wait_online)
    check "compose-install: the agent reached the Compose broker (breeze/status: $online)" test "$online" = online
    edit_config "$dir/config/config.yaml"
    check "compose-install: docker compose restart after the config edit" bash -c "cd '$dir' && docker compose restart breeze-agent"
    for _ in $(seq 1 60); do [ -n "$(device_config)" ] && break; sleep 0.5; done
    check "compose-install: with data, the Home Assistant device config is retained ($(device_config)…)" test -n "$(device_config)"
    check "compose-install: the broker runs from eclipse-mosquitto:2 with the release's mosquitto.conf" bash -c \
        "podman ps --format '{{.Image}}' | grep -qx 'docker.io/library/eclipse-mosquitto:2'"
    if run_recipe compose-upgrade "$dir"; then
        online=$(wait_online)
        check "compose-upgrade: online again ($online)" test "$online" = online
    fi
    if run_recipe compose-remove "$dir"; then
        check "compose-remove: forget cleared the device config first" bash -c \
            "grep '^cleared ' '$work/compose-remove.log' | head -1 | grep -q 'homeassistant/device/breeze_home/config'"
        check "compose-remove: forget cleared the topics ($(grep -c '^cleared ' "$work/compose-remove.log"))" grep -qE '^forget: [1-9][0-9]* retained topics? cleared' "$work/compose-remove.log"
        left=$(podman ps -a --format '{{.Names}}'; podman volume ls -q | grep '^breeze-agent_' || true)
        check "compose-remove: no container and none of the project's volumes left (${left:-none})" test -z "$left"
    fi
else
    record compose-upgrade podman skipped
    record compose-remove podman skipped
fi
echo "containers: checks $passes passed, $failures failed"
[ "$failures" -eq 0 ]
