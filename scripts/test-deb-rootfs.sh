#!/usr/bin/env bash
# Part of `make test-deb`: the packages on the releases hubs run, each in a Debian rootfs tree
# (mmdebstrap minbase plus the packages' dependencies, cached in
# $BREEZE_CI_CACHE/rootfs/<suite>-<arch> and verified before reuse; every run works on an
# overlay, so the cached tree stays clean):
#   bookworm-amd64  trixie-amd64  bookworm-arm64  trixie-arm64 (arm64 under qemu-user/binfmt)
# In each: `apt-get install ./breeze-agent_<v>_<arch>.deb ./breeze-agent-render_…` (the
# Depends must resolve there: libcurl4 on 12, libcurl4t64 on 13), the unit's ExecStart run in
# the foreground as the service user with --demo against a mosquitto on the host's loopback
# (a chroot shares the network): online while running, SIGTERM -> offline retained and exit 0
# within 2 s; then an upgrade to <v>+upgradetest1 and a purge that leaves no config or state.
# Usage: scripts/test-deb-rootfs.sh [suite-arch ...]   (default: all four)
# Needs root. Every mount is undone by the EXIT trap.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "test-deb-rootfs: run as root (chroot, mounts)" >&2; exit 1; }
scripts/deps.sh mmdebstrap mosquitto mosquitto-clients >&2
. scripts/rootfs-common.sh
trees=("$@")
[ ${#trees[@]} -gt 0 ] || trees=(bookworm-amd64 trixie-amd64 bookworm-arm64 trixie-arm64)
t_all=$(date +%s)

work=$(mktemp -d /tmp/breeze-rootfs.XXXXXX)
mounts=()
pids=()
cleanup() {
    local i
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[i]}" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
. scripts/checks.sh

broker_get() { mosquitto_sub -h 127.0.0.1 -p "$1" -t "$2" -C 1 -W 2 --retained-only 2>/dev/null || true; }

# The packages, per architecture: this version, and +upgradetest1 with a changed conffile.
declare -A deb1 deb2 render
build_debs() {
    local arch=$1 version
    deb1[$arch]=$(ARCH=$arch scripts/deb.sh)
    version=$(dpkg-deb -f "${deb1[$arch]}" Version)
    cp config/breeze-agent.example.yaml "$work/config-v2.yaml"
    printf '\n# Added in %s+upgradetest1 (upgrade test): a changed conffile.\n' "$version" >>"$work/config-v2.yaml"
    deb2[$arch]=$(ARCH=$arch BREEZE_VERSION=$version+upgradetest1 BREEZE_DEB_CONFIG=$work/config-v2.yaml scripts/deb.sh)
    render[$arch]=$(ARCH=$arch scripts/deb-render.sh)
}

summary=()
for name in "${trees[@]}"; do
    suite=${name%-*}
    arch=${name#*-}
    case "$name" in bookworm-amd64 | trixie-amd64 | bookworm-arm64 | trixie-arm64) ;; *)
        echo "test-deb-rootfs: unknown tree '$name' (bookworm|trixie)-(amd64|arm64)" >&2; exit 1 ;;
    esac
    [ -n "${deb1[$arch]:-}" ] || build_debs "$arch"
    base=$(rootfs_tree "$suite" "$arch")
    t0=$(date +%s)
    before=$failures
    printf '\n== %s (%s)\n' "$name" "$(cat "$base/etc/debian_version")"
    # An overlay over the cached tree: the run's changes land in $work and vanish with it.
    r=$work/$name/root
    mkdir -p "$work/$name/upper" "$work/$name/work" "$r"
    mount -t overlay overlay -o "lowerdir=$base,upperdir=$work/$name/upper,workdir=$work/$name/work" "$r"
    mounts+=("$r")
    mount -t proc proc "$r/proc" && mounts+=("$r/proc")
    mount --rbind /dev "$r/dev" && mount --make-rslave "$r/dev" && mounts+=("$r/dev")
    cp "${deb1[$arch]}" "${deb2[$arch]}" "${render[$arch]}" "$r/tmp/"
    in_root() { chroot "$r" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }
    apt_local=(apt-get -o Acquire::Check-Valid-Until=false -o Debug::NoLocking=1 -y --no-install-recommends)
    v1=$(dpkg-deb -f "${deb1[$arch]}" Version)
    v2=$(dpkg-deb -f "${deb2[$arch]}" Version)

    if in_root "${apt_local[@]}" install "/tmp/$(basename "${deb1[$arch]}")" "/tmp/$(basename "${render[$arch]}")" \
        >"$work/$name.install" 2>&1; then
        ok "$name: apt-get install of both packages (Depends resolved with: $(in_root dpkg-query -W -f='${Status} ${Package}\n' 'libcurl4*' | awk '/ installed / { print $NF }'))"
    else
        bad "$name: apt-get install failed:"; tail -15 "$work/$name.install"
    fi
    check "$name: breeze-agent $v1 installed" bash -c "chroot '$r' dpkg-query -W -f='\${Status} \${Version}' breeze-agent | grep -qx 'install ok installed $v1'"
    check "$name: the installed binary is $arch" bash -c "file -b '$r/usr/bin/breeze-agent' | grep -q '$([ "$arch" = arm64 ] && echo aarch64 || echo x86-64)'"
    check "$name: service user breeze-agent" in_root getent passwd breeze-agent
    check "$name: config root:breeze-agent 0640" bash -c "[ \"\$(chroot '$r' stat -c '%U:%G %a' /etc/breeze-agent/config.yaml)\" = 'root:breeze-agent 640' ]"
    check "$name: breeze-agent --version runs" bash -c "chroot '$r' /usr/bin/breeze-agent --version | grep -qF '$v1'"

    # The unit's ExecStart with --demo (no API keys or network needed: topics under
    # breeze-demo/), as the service user, against a fresh broker on the host's loopback.
    mqtt_port=$(scripts/free-port.sh)
    sed "s/@PORT@/$mqtt_port/" test/mosquitto/test.conf >"$work/$name.mosquitto.conf"
    mosquitto -c "$work/$name.mosquitto.conf" >"$work/$name.mosquitto.log" 2>&1 &
    broker=$!
    pids+=("$broker")
    for _ in $(seq 1 50); do (exec 3<>"/dev/tcp/127.0.0.1/$mqtt_port") 2>/dev/null && break; sleep 0.1; done
    sed -i -e "s|^  host: localhost |  host: 127.0.0.1 |" -e "s|^  # port: 1883 |  port: $mqtt_port |" \
        "$r/etc/breeze-agent/config.yaml"
    prefix=breeze-demo
    exec_start=$(sed -n 's/^ExecStart=//p' "$r/lib/systemd/system/breeze-agent.service")
    read -r -a command <<<"$exec_start"
    command=("${command[0]}" --demo "${command[@]:1}")
    mosquitto_sub -h 127.0.0.1 -p "$mqtt_port" -v -t "$prefix/#" >"$work/$name.seen" 2>/dev/null &
    sub=$!
    sleep 0.3
    # Every step execs the next (no shell function or subshell in between), so $! is the
    # agent's own process and the SIGTERM below reaches it, as systemd's would.
    chroot "$r" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
        setpriv --reuid=breeze-agent --regid=breeze-agent --init-groups --no-new-privs -- \
        sh -c 'umask 0077 && exec "$@"' sh "${command[@]}" >"$work/$name.out" 2>"$work/$name.err" &
    agent=$!
    pids+=("$agent")
    # Running: online, then the demo tree (well over 50 retained topics) within 30 s.
    for _ in $(seq 1 150); do
        [ "$(grep -c "^$prefix/" "$work/$name.seen" || true)" -gt 50 ] && break
        sleep 0.2
    done
    sleep 1
    term_at=$(date +%s.%N)
    kill -TERM "$agent" 2>/dev/null || true
    set +e
    timeout 10 tail --pid="$agent" -f /dev/null
    wait "$agent"
    rc=$?
    set -e
    stop_s=$(awk -v a="$term_at" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
    sleep 0.3
    kill "$sub" 2>/dev/null || true
    check "$name: the daemon published $prefix/status online" grep -q "^$prefix/status online" "$work/$name.seen"
    topics=$(grep -c "^$prefix/" "$work/$name.seen" || true)
    check "$name: the daemon published the demo tree ($topics messages)" test "$topics" -gt 50
    check "$name: SIGTERM -> exit 0 (got $rc)" test "$rc" -eq 0
    check "$name: SIGTERM -> stopped in ${stop_s} s (<= 2 s)" awk -v s="$stop_s" 'BEGIN { exit !(s <= 2) }'
    check "$name: offline retained after SIGTERM" test "$(broker_get "$mqtt_port" "$prefix/status")" = offline
    # (--demo keeps no state; the directory is the package's, for the service to write.)
    check "$name: state dir /var/lib/breeze-agent breeze-agent:breeze-agent 0750" \
        bash -c "[ \"\$(chroot '$r' stat -c '%U:%G %a' /var/lib/breeze-agent)\" = 'breeze-agent:breeze-agent 750' ]"
    if [ "$rc" -ne 0 ]; then head -20 "$work/$name.err"; fi
    kill "$broker" 2>/dev/null || true
    wait "$broker" 2>/dev/null || true

    printf '# edited by the administrator\n' >>"$r/etc/breeze-agent/config.yaml"
    if in_root "${apt_local[@]}" -o Dpkg::Options::=--force-confold install "/tmp/$(basename "${deb2[$arch]}")" \
        >"$work/$name.upgrade" 2>&1; then ok "$name: upgrade to $v2"; else bad "$name: upgrade failed"; tail -15 "$work/$name.upgrade"; fi
    check "$name: $v2 installed" bash -c "chroot '$r' dpkg-query -W -f='\${Version}' breeze-agent | grep -qx '$v2'"
    check "$name: the edited config kept" grep -q 'edited by the administrator' "$r/etc/breeze-agent/config.yaml"
    if in_root "${apt_local[@]}" purge breeze-agent breeze-agent-render >"$work/$name.purge" 2>&1; then
        ok "$name: purge"; else bad "$name: purge failed"; tail -15 "$work/$name.purge"; fi
    check "$name: /etc/breeze-agent gone" test ! -e "$r/etc/breeze-agent"
    check "$name: /var/lib/breeze-agent gone" test ! -e "$r/var/lib/breeze-agent"
    check "$name: the helper gone" test ! -e "$r/usr/libexec/breeze-agent/breeze-agent-render"

    umount -l "$r/dev" "$r/proc" "$r"
    mounts=("${mounts[@]:0:${#mounts[@]}-3}")
    verdict=passed
    [ "$failures" -eq "$before" ] || verdict=FAILED
    summary+=("$name ($(cat "$base/etc/debian_version")): install, run (stop ${stop_s} s, $topics messages), upgrade, purge: $verdict in $(($(date +%s) - t0)) s")
done

printf '\n== summary\n'
printf '%s\n' "${summary[@]}"
echo "checks: $passes passed, $failures failed ($(($(date +%s) - t_all)) s)"
[ "$failures" -eq 0 ]
