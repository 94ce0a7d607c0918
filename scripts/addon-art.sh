#!/usr/bin/env bash
# Draws the add-on's icon.png (128×128) and logo.png (250×100) in ha-addon/breeze_agent with the
# project's own render helper (breeze-agent-render, docs/images.md), `kind: stripes`: the warming
# stripes of the demo data, years 1980 and 2025 under them, and on the logo the name between.
# Sizes: Home Assistant's developer docs, docs/apps/presentation.md "App icon & logo" (icon
# square, 128×128 recommended; logo around 250×100); test/addon checks them.
#   scripts/addon-art.sh           redraw both files
#   scripts/addon-art.sh --check   draw into a temporary folder, compare byte for byte, exit 1 on a difference
# BREEZE_RENDER=<path> uses that helper; otherwise `swift build --product breeze-agent-render`.
# The output depends only on the request and the helper's Cairo and fonts (same bytes from the
# debug and the release helper here).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}
case "$mode" in "" | --check) ;; *) echo "usage: scripts/addon-art.sh [--check]" >&2; exit 64 ;; esac

render=${BREEZE_RENDER:-}
if [ -z "$render" ]; then
    swift build --product breeze-agent-render >&2
    render=$(swift build --show-bin-path)/breeze-agent-render
fi

# `breeze-agent print --demo` on 2026-12-02: breeze-demo/home/climate/stripes/colors, 1980–2025
# (SPEC §9.1 colors of the demo responder's synthetic archive), pinned so the art does not
# change with the year.
colors='#92c5de,#92c5de,#4393c3,#fddbc7,#fddbc7,#d1e5f0,#d1e5f0,#92c5de,#92c5de,#4393c3,#f4a582,#fddbc7,#d1e5f0,#d1e5f0,#d1e5f0,#92c5de,#f4a582,#f4a582,#fddbc7,#fddbc7,#d1e5f0,#d1e5f0,#92c5de,#f4a582,#f4a582,#f4a582,#fddbc7,#fddbc7,#d1e5f0,#d6604d,#d6604d,#f4a582,#f4a582,#fddbc7,#fddbc7,#d1e5f0,#d6604d,#d6604d,#d6604d,#f4a582,#f4a582,#fddbc7,#b2182b,#b2182b,#d6604d,#d6604d'

# request <width> <height> <name printed between the years>
request() {
    local list
    list=$(printf '"%s",' ${colors//,/ })
    printf '{"kind":"stripes","width":%d,"height":%d,"palette":"color","format":"png",' "$1" "$2"
    printf '"content":{"locationName":"%s","stripes":{"firstYear":1980,"lastYear":2025,"colors":[%s]}}}\n' \
        "$3" "${list%,}"
}

out=ha-addon/breeze_agent
if [ "$mode" = --check ]; then
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
fi
request 128 128 "" | "$render" >"$out/icon.png"
request 250 100 "breeze-agent" | "$render" >"$out/logo.png"

if [ "$mode" = --check ]; then
    status=0
    for name in icon.png logo.png; do
        if cmp -s "$out/$name" "ha-addon/breeze_agent/$name"; then
            echo "addon-art: $name is what the render helper draws" >&2
        else
            echo "addon-art: ha-addon/breeze_agent/$name differs from what the render helper draws (run scripts/addon-art.sh)" >&2
            status=1
        fi
    done
    exit $status
fi
echo "addon-art: wrote $out/icon.png and $out/logo.png" >&2
