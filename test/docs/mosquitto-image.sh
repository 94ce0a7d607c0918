#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The stand-in for docker.io's eclipse-mosquitto:2 that the Compose recipe pulls (the docs tests
# cannot reach Docker Hub): Debian's own mosquitto binary with its shared-library closure, laid
# out as the real image is (docs: hub.docker.com/_/eclipse-mosquitto) — config in
# /mosquitto/config/mosquitto.conf, data in /mosquitto/data, the user mosquitto with uid and gid
# 1883, entrypoint `mosquitto -c /mosquitto/config/mosquitto.conf`, started as root (mosquitto
# drops to its user itself). Imported into podman's storage as NAME.
# Usage: test/docs/mosquitto-image.sh NAME
set -euo pipefail
name=$1
root=$(mktemp -d /tmp/breeze-mosquitto-image.XXXXXX)
trap 'rm -rf "$root"' EXIT
binary=$(command -v mosquitto || echo /usr/sbin/mosquitto)
files=("$binary" $(ldd "$binary" | awk '/=> \// { print $3 } /^\t\/lib/ { print $1 }'))
for f in "${files[@]}"; do
    mkdir -p "$root$(dirname "$f")"
    cp -L "$f" "$root$f"
done
# The loader under both names a merged /usr has (the binary asks for /lib64/…).
for f in "${files[@]}"; do case "$f" in /lib64/* | /lib/*) mkdir -p "$root/usr$(dirname "$f")" && cp -L "$f" "$root/usr$f" ;; esac; done
mkdir -p "$root/etc" "$root/mosquitto/config" "$root/mosquitto/data" "$root/mosquitto/log" "$root/tmp"
printf 'root:x:0:0:root:/root:/bin/false\nmosquitto:x:1883:1883:mosquitto:/var/empty:/bin/false\n' >"$root/etc/passwd"
printf 'root:x:0:\nmosquitto:x:1883:\n' >"$root/etc/group"
printf 'listener 1883\nallow_anonymous true\n' >"$root/mosquitto/config/mosquitto.conf"
chown -R 1883:1883 "$root/mosquitto"
chmod 1777 "$root/tmp"
tar -C "$root" -cf "$root.tar" .
podman rmi -f "$name" >/dev/null 2>&1 || true
podman import --quiet \
    --change 'ENTRYPOINT ["/usr/sbin/mosquitto", "-c", "/mosquitto/config/mosquitto.conf"]' \
    --change 'VOLUME ["/mosquitto/data", "/mosquitto/log"]' --change 'EXPOSE 1883' \
    "$root.tar" "$name" >/dev/null
rm -f "$root.tar"
echo "$name"
