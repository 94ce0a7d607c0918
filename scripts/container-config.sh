#!/usr/bin/env bash
# The agent's configuration for a container: config/breeze-agent.example.yaml with
# `state_dir: /data` (the image's volume). The image carries it as /config/config.yaml, and a
# release publishes it as `config.yaml` for the Docker and Compose recipes (docs/installing.md),
# so both say the same. Usage: scripts/container-config.sh > FILE
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(sed 's|^state_dir: /var/lib/breeze-agent |state_dir: /data |' config/breeze-agent.example.yaml)
grep -q '^state_dir: /data ' <<<"$out" || { echo "container-config: no 'state_dir: /var/lib/breeze-agent' line to set to /data in the example" >&2; exit 1; }
printf '%s\n' "$out"
