#!/usr/bin/env bash
# Runs a command inside the Home Assistant tree (scripts/ha-setup.sh) as its root, with host
# folders seen at their own paths, in a private mount namespace: every mount is gone when the
# command ends, however it ends. The network is the host's (loopback included).
#   scripts/ha-chroot.sh [--writable] TREE DIR... -- COMMAND [ARG...]
#     DIR         a host folder bound at the same path inside the tree (Home Assistant's config)
#     --writable  the command writes into the tree itself (the venv's install); without it the
#                 tree is the lower layer of an overlay on a private tmpfs, so a run leaves the
#                 cached tree as it found it
# The command replaces this script's process (unshare, bash and chroot exec one another), so a
# signal sent to the pid that started it reaches the command itself: the harness stops Home
# Assistant with SIGTERM. Its environment is a clean one (HOME, PATH, LANG, TZ=UTC).
set -euo pipefail
writable=0
if [ "${1:-}" = --writable ]; then writable=1; shift; fi
[ $# -ge 3 ] || { echo "usage: scripts/ha-chroot.sh [--writable] TREE DIR... -- COMMAND [ARG...]" >&2; exit 2; }
tree=$1
shift
[ -x "$tree/usr/bin/python3.13" ] || { echo "ha-chroot: $tree is not the Home Assistant tree (scripts/ha-setup.sh)" >&2; exit 2; }
exec unshare --mount --propagation private bash -euc '
    tree=$1 writable=$2
    shift 2
    binds=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do binds+=("$(realpath "$1")"); shift; done
    [ "${1:-}" = -- ] || { echo "ha-chroot: no -- before the command" >&2; exit 2; }
    shift
    if [ "$writable" = 1 ]; then
        root=$tree
    else
        # The scratch mount point: a folder beside the tree, empty on the host.
        scratch=$tree.run
        mkdir -p "$scratch"
        mount -t tmpfs tmpfs "$scratch"
        mkdir "$scratch/upper" "$scratch/work" "$scratch/root"
        mount -t overlay overlay -o "lowerdir=$tree,upperdir=$scratch/upper,workdir=$scratch/work" "$scratch/root"
        root=$scratch/root
    fi
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
    mount --rbind /sys "$root/sys"
    mount -t tmpfs tmpfs "$root/tmp"
    for dir in "${binds[@]}"; do
        mkdir -p "$root$dir"
        mount --bind "$dir" "$root$dir"
    done
    exec chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TZ=UTC \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
' ha-chroot "$tree" "$writable" "$@"
