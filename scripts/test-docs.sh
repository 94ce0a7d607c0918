#!/usr/bin/env bash
# The install, upgrade and removal recipes of docs/installing.md and the add-on's DOCS.md, run as
# written (SPEC §21): the blocks marked `<!-- recipe: NAME -->` (test/docs/recipes.py), each
# executed verbatim by `bash -e` in a fresh place:
#   apt-*        as root in the four Debian trees of the rehearsal (bookworm/trixie x amd64/arm64,
#                arm64 under qemu-user), each on its own overlay, with Debian's mirror for curl
#   docker-*, compose-*
#                with podman in a network and mount namespace of their own (scripts/podman
#                settings in a containers.conf; `docker` is podman, as Debian's podman-docker makes
#                it, and `docker compose` podman-compose, pinned from PyPI: test/docs/requirements.txt)
#   addon-repository
#                the URL, cloned by the stand-in Supervisor (test/docs/supervisor-store.sh)
# The only difference from a user's machine is where the public hosts are: breeze-agent.github.io
# and github.com resolve (an /etc/hosts entry) to test/docs/standin.py on 127.77.46.1:443, ghcr.io
# and registry-1.docker.io to a docker-registry on 127.77.46.2:443, both with certificates of a
# CA made here that the trees and the namespace trust (appended to their CA bundle); git clones
# github.com from a local git daemon (url.<base>.insteadOf); docker.io's eclipse-mosquitto:2 is a
# stand-in built from Debian's mosquitto (test/docs/mosquitto-image.sh). systemd does not run in
# the trees: test/docs/systemctl starts the unit's ExecStart as its User= and stops it with
# SIGTERM.
#
# Sourced by scripts/test-release.sh, which has made and published a release: it calls
#   docs_begin WORK SITE RELEASES REGISTRY_ROOT ADDON_GIT_ROOT   the stand-ins (host side);
#                                    then docs_plain_registry=<host:port>/<owner> of the plain one
#   docs_apt_install NAME ROOT / docs_apt_upgrade NAME ROOT VERSION / docs_apt_remove NAME ROOT
#   docs_containers                  the docker and compose recipes
#   docs_addon_clone DEST            the stand-in Supervisor's clone of the docs' URL
#   docs_summary                     the table of recipes run (file:line, where, result)
# Every check goes through scripts/checks.sh (ok/bad), so the rehearsal fails at its end.
# `make test-docs` runs the rehearsal (scripts/test-release.sh): the recipes need a release.

docs_files=(docs/installing.md ha-addon/breeze_agent/DOCS.md)
docs_results=()
docs_pages_ip=127.77.46.1
docs_registry_ip=127.77.46.2

docs_recipe() {   # docs_recipe NAME [FILE]: the recipe's text
    python3 test/docs/recipes.py show "${2:-docs/installing.md}" "$1"
}
docs_where() {    # docs_where NAME [FILE]: file:line
    python3 test/docs/recipes.py list "${2:-docs/installing.md}" | awk -v n="$1" '$1 == n { print $2 }'
}
docs_record() {   # docs_record NAME WHERE STATUS [FILE]
    docs_results+=("$(printf '%-18s %-34s %-16s %s' "$1" "$(docs_where "$1" "${4:-}")" "$2" "$3")")
}

docs_begin() {
    docs_work=$1 docs_site=$2 docs_releases=$3 docs_registry_root=$4 docs_git_root=$5
    mkdir -p "$docs_work"
    # Every recipe named here exists, and every recipe there is named here (a new one is run).
    local listed
    listed=$(python3 test/docs/recipes.py list "${docs_files[@]}" | awk '{ print $1 }' | sort -u | tr '\n' ' ')
    check "the docs' recipes are the ones the test runs ($listed)" test "$listed" = \
        "addon-repository apt-check apt-configure apt-install apt-remove apt-upgrade compose-install compose-remove compose-upgrade docker-install docker-remove docker-upgrade "
    # The CA and one certificate for every public name.
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=breeze-agent docs test CA" \
        -keyout "$docs_work/ca.key" -out "$docs_work/ca.crt" >/dev/null 2>&1
    openssl req -newkey rsa:2048 -nodes -subj "/CN=breeze-agent.github.io" \
        -keyout "$docs_work/host.key" -out "$docs_work/host.csr" >/dev/null 2>&1
    printf 'subjectAltName=DNS:breeze-agent.github.io,DNS:github.com,DNS:ghcr.io,DNS:registry-1.docker.io\nextendedKeyUsage=serverAuth\n' >"$docs_work/host.ext"
    openssl x509 -req -in "$docs_work/host.csr" -CA "$docs_work/ca.crt" -CAkey "$docs_work/ca.key" -CAcreateserial \
        -days 2 -extfile "$docs_work/host.ext" -out "$docs_work/host.crt" >/dev/null 2>&1
    printf '%s breeze-agent.github.io github.com\n%s ghcr.io registry-1.docker.io\n' "$docs_pages_ip" "$docs_registry_ip" >"$docs_work/hosts"
    # The web hosts, on the host's network for the trees (the apt recipes need Debian's mirror).
    docs_standin_start "$docs_work/standin-host.log"
    # The pollen and climate APIs the installed agents reach (the user's machine reaches
    # Open-Meteo; this one cannot): the test's edit of the config points `endpoints:` here.
    docs_apis_start "$docs_work/apis.url"
    # The add-on repository over git, as github.com would serve it.
    local git_port
    git_port=$(scripts/free-port.sh)
    git daemon --reuseaddr --export-all --base-path="$docs_git_root" --listen=127.0.0.1 --port="$git_port" \
        "$docs_git_root" >"$docs_work/git-daemon.log" 2>&1 &
    pids+=($!)
    printf '[url "git://127.0.0.1:%s/"]\n\tinsteadOf = https://github.com/\n' "$git_port" >"$docs_work/gitconfig"
}

docs_apis_start() {   # docs_apis_start URL_FILE: test/docs/apis.py; its base URL in URL_FILE
    rm -f "$1"
    python3 test/docs/apis.py "$1" >"$1.log" 2>&1 &
    pids+=($!)
    local _
    for _ in $(seq 1 50); do [ -s "$1" ] && return 0; sleep 0.1; done
    bad "the API stand-in did not start: $(tail -3 "$1.log")"
}

# The test's "user" edit of an agent's configuration: the broker (when given) and the API
# stand-in as the endpoints.
docs_edit_config() {   # docs_edit_config FILE API_BASE [MQTT_PORT]
    local file=$1 base=$2 port=${3:-}
    sed -i -e "s|^  pollen: https://pollen.googleapis.com/v1|  pollen: $base/google/v1|" \
        -e "s|^  air_quality: https://air-quality-api.open-meteo.com/v1|  air_quality: $base/aq/v1|" \
        -e "s|^  climate_archive: https://archive-api.open-meteo.com/v1|  climate_archive: $base/archive/v1|" \
        -e "s|^  climate_forecast: https://api.open-meteo.com/v1|  climate_forecast: $base/forecast/v1|" "$file"
    [ -z "$port" ] || sed -i -e "s|^  host: localhost |  host: 127.0.0.1 |" -e "s|^  # port: 1883 |  port: $port |" "$file"
    grep -q "^  air_quality: $base/aq/v1" "$file" || bad "the test could not point $file's endpoints at the API stand-in"
}

docs_standin_start() {   # docs_standin_start LOG: test/docs/standin.py on 127.77.46.1:443
    python3 test/docs/standin.py --bind "$docs_pages_ip" --port 443 --cert "$docs_work/host.crt" \
        --key "$docs_work/host.key" --site "$docs_site" --releases "$docs_releases" --log "$1" \
        >"$1.err" 2>&1 &
    pids+=($!)
    local _
    for _ in $(seq 1 50); do (exec 3<>"/dev/tcp/$docs_pages_ip/443") 2>/dev/null && return 0; sleep 0.1; done
    bad "the web stand-in did not start on $docs_pages_ip:443: $(tail -3 "$1.err")"
}

# --- apt, in a tree -------------------------------------------------------------------------

# The user's machine, but for the public hosts: the stand-ins' names and CA, Debian's mirror
# reachable (resolv.conf), and systemctl's stand-in.
docs_tree_prepare() {   # docs_tree_prepare ROOT
    local r=$1
    cat "$docs_work/hosts" >>"$r/etc/hosts"
    cat "$docs_work/ca.crt" >>"$r/etc/ssl/certs/ca-certificates.crt"
    cp -L /etc/resolv.conf "$r/etc/resolv.conf" 2>/dev/null || true
    install -D -m 0755 test/docs/systemctl "$r/usr/local/sbin/systemctl"
}

docs_in_tree() {   # docs_in_tree ROOT NAME LOG: runs the recipe as root in the tree
    local r=$1 name=$2 log=$3 status=0
    docs_recipe "$name" >"$r/tmp/recipe-$name.sh"
    # Bounded: apt under qemu takes minutes; a recipe that hangs fails instead of holding CI.
    timeout --kill-after=10 900 chroot "$r" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
        DEBIAN_FRONTEND=noninteractive TERM=dumb bash -e -o pipefail "/tmp/recipe-$name.sh" >"$log" 2>&1 </dev/null || status=$?
    return "$status"
}

docs_apt_install() {   # docs_apt_install NAME ROOT MQTT_PORT VERSION
    local name=$1 r=$2 port=$3 version=$4 out
    docs_tree_prepare "$r"
    if docs_in_tree "$r" apt-check "$docs_work/$name.check" && grep -qx 'supported: go on' "$docs_work/$name.check"; then
        ok "$name: apt-check says: $(cat "$docs_work/$name.check")"; docs_record apt-check "$name" pass
    else
        bad "$name: apt-check: $(cat "$docs_work/$name.check")"; docs_record apt-check "$name" FAIL
    fi
    # A 32-bit Raspberry Pi OS: dpkg says armhf (a stand-in dpkg on the PATH, in this tree only).
    mkdir -p "$r/tmp/armhf"
    printf '#!/bin/sh\n[ "$1" = --print-architecture ] && echo armhf && exit 0\nexec /usr/bin/dpkg "$@"\n' >"$r/tmp/armhf/dpkg"
    chmod +x "$r/tmp/armhf/dpkg"
    docs_recipe apt-check >"$r/tmp/recipe-apt-check.sh"
    out=$(chroot "$r" env -i PATH=/tmp/armhf:/usr/bin:/bin bash -e /tmp/recipe-apt-check.sh 2>&1 || true)
    check "$name: apt-check on armhf says re-image with the 64-bit OS ($out)" grep -q '32-bit OS.*64-bit Raspberry Pi OS' <<<"$out"

    if docs_in_tree "$r" apt-install "$docs_work/$name.install"; then
        ok "$name: apt-install ran ($(grep -cE '^(Get|Hit):' "$docs_work/$name.install") sources read)"; docs_record apt-install "$name" pass
    else
        bad "$name: apt-install failed:"; tail -15 "$docs_work/$name.install"; docs_record apt-install "$name" FAIL
    fi
    check "$name: breeze-agent $version installed" bash -c "chroot '$r' dpkg-query -W -f='\${Status} \${Version}' breeze-agent | grep -qx 'install ok installed $version'"
    check "$name: breeze-agent-render $version came with it (Recommends)" bash -c "chroot '$r' dpkg-query -W -f='\${Status} \${Version}' breeze-agent-render | grep -qx 'install ok installed $version'"
    check "$name: the key was fetched from the Pages host over HTTPS" grep -q "^breeze-agent.github.io GET /breeze-agent/apt/breeze-agent-archive-keyring.gpg 200" "$docs_work/standin-host.log"
    check "$name: the source names both architectures and the key in /etc/apt/keyrings" bash -c \
        "grep -qx 'Architectures: amd64 arm64' '$r/etc/apt/sources.list.d/breeze-agent.sources' && grep -qx 'Signed-By: /etc/apt/keyrings/breeze-agent.gpg' '$r/etc/apt/sources.list.d/breeze-agent.sources'"
    check "$name: service user breeze-agent" chroot "$r" getent passwd breeze-agent
    check "$name: config root:breeze-agent 0640" bash -c "[ \"\$(chroot '$r' stat -c '%U:%G %a' /etc/breeze-agent/config.yaml)\" = 'root:breeze-agent 640' ]"

    # The user's edit the docs ask for (the broker; the location stays Berlin): on this
    # machine's broker, a fresh mosquitto per tree, and the APIs as the stand-in.
    docs_edit_config "$r/etc/breeze-agent/config.yaml" "$(cat "$docs_work/apis.url")" "$port"
    if docs_in_tree "$r" apt-configure "$docs_work/$name.configure"; then
        ok "$name: apt-configure: check-config passed, the service started"; docs_record apt-configure "$name" pass
    else
        bad "$name: apt-configure failed:"; tail -15 "$docs_work/$name.configure"; docs_record apt-configure "$name" FAIL
    fi
    check "$name: systemctl status says active (running)" grep -q 'Active: active (running)' "$docs_work/$name.configure"
    local seen=""
    for _ in $(seq 1 100); do
        seen=$(mosquitto_sub -h 127.0.0.1 -p "$port" -t breeze/status -C 1 -W 1 --retained-only 2>/dev/null || true)
        [ "$seen" = online ] && break
        sleep 0.3
    done
    check "$name: the service is online on the broker (breeze/status: $seen)" test "$seen" = online
    # Retained once the first data is in (--retained-only skips a live delivery: ask again).
    local config=""
    for _ in $(seq 1 60); do
        config=$(mosquitto_sub -h 127.0.0.1 -p "$port" -t homeassistant/device/breeze_home/config -C 1 -W 1 --retained-only 2>/dev/null | head -c 40 || true)
        [ -n "$config" ] && break
    done
    check "$name: Home Assistant's device config is retained (${config:0:30}…)" test -n "$config"
    local uid puid
    uid=$(awk -F: '$1 == "breeze-agent" { print $3 }' "$r/etc/passwd")
    puid=$(awk '/^Uid:/ { print $2 }' "/proc/$(cat "$r/run/breeze-agent.standin.pid" 2>/dev/null || echo 0)/status" 2>/dev/null || echo "?")
    check "$name: the agent runs as breeze-agent (uid $puid, the tree's breeze-agent is $uid)" test "$puid" = "$uid"
}

docs_apt_upgrade() {   # docs_apt_upgrade NAME ROOT NEXT
    local name=$1 r=$2 next=$3
    if docs_in_tree "$r" apt-upgrade "$docs_work/$name.upgrade"; then
        ok "$name: apt-upgrade ran"; docs_record apt-upgrade "$name" pass
    else
        bad "$name: apt-upgrade failed:"; tail -15 "$docs_work/$name.upgrade"; docs_record apt-upgrade "$name" FAIL
    fi
    check "$name: breeze-agent and breeze-agent-render $next installed" bash -c \
        "[ \"\$(chroot '$r' dpkg-query -W -f='\${Version} ' breeze-agent breeze-agent-render)\" = '$next $next ' ]"
    check "$name: the edited config kept" grep -q 'edited by the administrator' "$r/etc/breeze-agent/config.yaml"
    check "$name: the state kept" grep -qx kept "$r/var/lib/breeze-agent/rehearsal-state"
    check "$name: the package's new config offered beside it (config.yaml.dpkg-dist)" grep -q "Added in $next" "$r/etc/breeze-agent/config.yaml.dpkg-dist"
}

docs_apt_remove() {   # docs_apt_remove NAME ROOT MQTT_PORT
    local name=$1 r=$2 port=$3 left
    if docs_in_tree "$r" apt-remove "$docs_work/$name.remove"; then
        ok "$name: apt-remove ran ($(grep -c '^cleared ' "$docs_work/$name.remove") topics cleared by forget)"; docs_record apt-remove "$name" pass
    else
        bad "$name: apt-remove failed:"; tail -20 "$docs_work/$name.remove"; docs_record apt-remove "$name" FAIL
    fi
    check "$name: systemctl stop: SIGTERM -> exit 0 within 2 s ($(cat "$r/run/breeze-agent.standin.stopped" 2>/dev/null))" \
        grep -qE '^exit 0 in [01]\.[0-9]+ s$' "$r/run/breeze-agent.standin.stopped"
    check "$name: forget cleared the device config first" bash -c \
        "grep '^cleared ' '$docs_work/$name.remove' | head -1 | grep -q 'homeassistant/device/breeze_home/config'"
    left=$(timeout 5 mosquitto_sub -h 127.0.0.1 -p "$port" -t 'breeze/#' -t 'homeassistant/#' -v -W 2 --retained-only 2>/dev/null | cut -c1-60 | head -5 || true)
    check "$name: nothing of the agent is left on the broker (${left:-none})" test -z "$left"
    check "$name: config, state, helper, source and key gone" bash -c \
        "[ ! -e '$r/etc/breeze-agent' ] && [ ! -e '$r/var/lib/breeze-agent' ] && [ ! -e '$r/usr/libexec/breeze-agent/breeze-agent-render' ] \
         && [ ! -e '$r/etc/apt/sources.list.d/breeze-agent.sources' ] && [ ! -e '$r/etc/apt/keyrings/breeze-agent.gpg' ]"
}

# --- containers, in a namespace -------------------------------------------------------------

# Runs the docker and compose recipes (test/docs/containers.sh) in a network and mount namespace
# of their own: their broker on port 1883 and the stand-ins on port 443 cannot meet anything else
# on a shared machine.
docs_containers() {   # docs_containers VERSION
    local version=$1 status=0
    test/docs/mosquitto-image.sh localhost/eclipse-mosquitto-standin:2 >/dev/null \
        && skopeo copy --quiet --dest-tls-verify=false containers-storage:localhost/eclipse-mosquitto-standin:2 \
            "docker://${docs_plain_registry%%/*}/library/eclipse-mosquitto:2" \
        || bad "the eclipse-mosquitto stand-in image could not be built and pushed"
    local compose_python
    compose_python=$(scripts/py-venv.sh docs-compose-venv test/docs/requirements.txt "${BREEZE_CI_CACHE:-/var/cache/breeze-agent-ci}")
    cp -L "${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}" "$docs_work/bundle.crt"
    cat "$docs_work/ca.crt" >>"$docs_work/bundle.crt"
    unshare --net --mount --propagation private env DOCS_WORK="$docs_work" DOCS_SITE="$docs_site" \
        DOCS_RELEASES="$docs_releases" DOCS_REGISTRY_ROOT="$docs_registry_root" DOCS_VERSION="$version" \
        DOCS_PAGES_IP="$docs_pages_ip" DOCS_REGISTRY_IP="$docs_registry_ip" \
        DOCS_PODMAN_COMPOSE="$(dirname "$compose_python")/podman-compose" \
        test/docs/containers.sh >"$docs_work/containers.log" 2>&1 || status=$?
    grep -E '^(ok|FAIL) |^recipe ' "$docs_work/containers.log" | grep -v '^recipe ' || true
    passes=$((passes + $(grep -c '^ok ' "$docs_work/containers.log" || true)))
    failures=$((failures + $(grep -c '^FAIL ' "$docs_work/containers.log" || true)))
    while read -r _ recipe where result; do docs_record "$recipe" "$where" "$result"; done < <(grep '^recipe ' "$docs_work/containers.log")
    if [ "$status" -ne 0 ]; then bad "the container recipes' namespace ended with $status:"; tail -30 "$docs_work/containers.log"; fi
}

# --- the add-on repository -------------------------------------------------------------------

# The stand-in Supervisor's first step: the URL the docs give, split as the Supervisor's
# RE_REPOSITORY does (`<url>#<branch>`), cloned with git as it does (depth 1, the branch).
docs_addon_clone() {   # docs_addon_clone DEST
    local dest=$1 url file
    for file in docs/installing.md ha-addon/breeze_agent/DOCS.md; do
        url=$(docs_recipe addon-repository "$file" | head -1)
        if [[ $url =~ ^(https://github\.com/[^#]+)#([A-Za-z0-9_-]+)$ ]]; then
            ok "$file: the add-on repository URL $url (branch ${BASH_REMATCH[2]})"
        else
            bad "$file: the add-on repository URL '$url' is not <https://github.com/…>#<branch>"
            docs_record addon-repository "Supervisor" FAIL "$file"
            continue
        fi
        rm -rf "$dest"
        if GIT_CONFIG_GLOBAL=$docs_work/gitconfig git clone --quiet --depth 1 --branch "${BASH_REMATCH[2]}" \
            "${BASH_REMATCH[1]}" "$dest" 2>"$docs_work/clone.log"; then
            ok "$file: the stand-in Supervisor cloned $url over git ($(git -C "$dest" log -1 --format='%h %s'))"
            docs_record addon-repository "Supervisor" pass "$file"
        else
            bad "$file: git clone of $url: $(cat "$docs_work/clone.log")"
            docs_record addon-repository "Supervisor" FAIL "$file"
        fi
    done
    check "the clone holds repository.yaml at its root" test -f "$dest/repository.yaml"
    local python
    python=$(scripts/py-venv.sh addon-venv test/addon/requirements.txt "${BREEZE_ADDON_CACHE:-/var/cache/breeze-agent-ci}")
    if BREEZE_ADDON_REPOSITORY=$dest "$python" test/addon/test_addon_config.py >"$docs_work/addon-validate.log" 2>&1; then
        ok "the cloned add-on passes the Supervisor's rules (repository.yaml, config.yaml, options, translations)"
    else
        bad "the cloned add-on fails the Supervisor's rules:"; tail -20 "$docs_work/addon-validate.log"
    fi
}

docs_summary() {
    printf '\n== the docs'"'"' recipes run\n'
    printf '  %-18s %-34s %-16s %s\n' recipe "file:line" where result
    printf '  %s\n' "${docs_results[@]}"
}
