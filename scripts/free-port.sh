#!/usr/bin/env bash
# Prints a TCP port on 127.0.0.1 that nothing listens on. It is picked below the kernel's
# ephemeral range (net.ipv4.ip_local_port_range, 32768–60999 by default), so an outgoing
# connection's source port cannot take it between this check and the listener's bind
# (mosquitto once failed with "Address already in use" that way).
set -euo pipefail
low=32768
read -r low _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true
top=$(( low > 21024 ? low : 32768 ))   # ports 20000 .. top-1
for _ in $(seq 1 200); do
    port=$(( 20000 + RANDOM % (top - 20000) ))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; exit 0; fi
done
echo "free-port: no free port found in 20000-$((top - 1))" >&2; exit 1
