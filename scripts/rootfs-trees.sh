#!/usr/bin/env bash
# Builds (or verifies and reuses) the cached Debian rootfs trees that the package tests and the
# images use (scripts/rootfs-common.sh), so that .ci/run can make them beside the Swift build:
# the stages that use them then find them ready (a tree being built is waited for, not built twice).
# Usage: scripts/rootfs-trees.sh [suite-arch ...]   (default: the four that scripts/test-release.sh and the images use)
# Needs root; arm64 trees need qemu-user's binfmt entry (scripts/arm64-toolchain.sh sets it up).
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "rootfs-trees: run as root (mmdebstrap, chroot)" >&2; exit 1; }
scripts/deps.sh mmdebstrap >&2
. scripts/rootfs-common.sh
trees=("$@")
[ ${#trees[@]} -gt 0 ] || trees=(bookworm-amd64 trixie-amd64 bookworm-arm64 trixie-arm64)
for name in "${trees[@]}"; do
    rootfs_tree "${name%-*}" "${name#*-}" >/dev/null
done
