# Sourced by scripts/test-image.sh and scripts/test-addon-image.sh: podman's flags on this
# machine (SPEC §14: `--runtime runc`, crun fails on rlimits and hybrid cgroups here; host
# network; ulimits), a work folder, cleanup of what a test started, and the SIGTERM checks.
#   podman_test_begin NAME     sets $work (/tmp/NAME.XXXXXX, removed at exit), $pids and
#                              $containers (killed / removed at exit); sources scripts/checks.sh
#   sigterm_checks LABEL CONTAINER LOG
#                              `podman stop` (SIGTERM, then SIGKILL after 10 s); checks exit 0
#                              and a stop within 2 s; the container's stdout in LOG, its stderr
#                              in LOG.stderr; sets $stop_s
podman_run=(podman run --runtime runc --network host --ulimit nofile=1000:1000 --ulimit nproc=1000:1000)

podman_test_begin() {
    work=$(mktemp -d "/tmp/$1.XXXXXX")
    chmod 0755 "$work"
    pids=()
    containers=()
    trap podman_test_cleanup EXIT
    . scripts/checks.sh
}

podman_test_cleanup() {
    local c pid
    for c in "${containers[@]}"; do podman rm -f "$c" >/dev/null 2>&1 || true; done
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}

sigterm_checks() {
    local label=$1 name=$2 log=$3 term_at rc
    term_at=$(date +%s.%N)
    podman stop -t 10 "$name" >/dev/null
    stop_s=$(awk -v a="$term_at" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
    rc=$(podman inspect --format '{{.State.ExitCode}}' "$name")
    podman logs "$name" >"$log" 2>"$log.stderr" || true
    check "$label: SIGTERM -> exit 0 (got $rc)" test "$rc" = 0
    check "$label: SIGTERM -> stopped in $stop_s s (<= 2 s)" awk -v s="$stop_s" 'BEGIN { exit !(s <= 2) }'
}
