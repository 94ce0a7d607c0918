#!/usr/bin/env bash
# The version is written in one place, VERSION (SPEC §18); every other place that says it must
# agree. Checked here, and by `make release` before and after it builds:
#   Sources/BreezeCore/Version.swift   what `breeze-agent --version` prints
#   packaging/changelog                         the .deb's version (top entry)
#   ha-addon/breeze_agent/config.yaml           the add-on's `version` (the image tag pulled)
#   CHANGELOG.md, ha-addon/breeze_agent/CHANGELOG.md   their top `## <version>` section
#   packaging/compose.yaml                      the released image's tag
# and, given as arguments, built artifacts:
#   --deb FILE      its Version field
#   --image FILE    an OCI archive's org.opencontainers.image.version label (and io.hass.version
#                   when the image has one); for an index, every image under it
#   --binary FILE   the first line of `FILE --version` (an arm64 binary runs under binfmt)
# Prints one line per place; exits 1 naming every place that differs from VERSION.
set -euo pipefail
cd "$(dirname "$0")/.."
want=$(tr -d '[:space:]' <VERSION)
[[ $want =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "version-check: VERSION is '$want', not MAJOR.MINOR.PATCH" >&2; exit 1; }
differs=()
seen() {   # seen PLACE VALUE
    if [ "$2" = "$want" ]; then
        echo "version-check: $1: $2"
    else
        echo "version-check: $1: '${2:-nothing found}' (VERSION says $want)" >&2
        differs+=("$1")
    fi
}
top_section() { sed -n 's/^## \[\{0,1\}\([0-9][0-9A-Za-z.+~-]*\).*/\1/p' "$1" | head -1; }
seen Sources/BreezeCore/Version.swift "$(sed -n 's/.*static let string = "\([^"]*\)".*/\1/p' Sources/BreezeCore/Version.swift)"
seen packaging/changelog "$(sed -n '1s/^breeze-agent (\([^)]*\)).*/\1/p' packaging/changelog)"
seen ha-addon/breeze_agent/config.yaml "$(sed -n 's/^version: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' ha-addon/breeze_agent/config.yaml)"
seen CHANGELOG.md "$(top_section CHANGELOG.md 2>/dev/null || true)"
seen ha-addon/breeze_agent/CHANGELOG.md "$(top_section ha-addon/breeze_agent/CHANGELOG.md)"
seen packaging/compose.yaml "$(sed -n 's|^ *image: ghcr.io/breeze-agent/breeze-agent:\([^ #]*\).*|\1|p' packaging/compose.yaml)"

# What the add-on shows inside Home Assistant describes the release it ships in: no "not yet
# released" (or "not yet available") left in its documentation or its option texts.
for file in ha-addon/breeze_agent/DOCS.md ha-addon/breeze_agent/translations/*.yaml; do
    if grep -niE 'not yet (released|available)|cannot be installed' "$file" >/dev/null; then
        echo "version-check: $file still says: $(grep -niE 'not yet (released|available)|cannot be installed' "$file" | head -1)" >&2
        differs+=("$file (not yet released)")
    fi
done

image_versions() {   # every version label of every image in an OCI archive, one per line
    python3 - "$1" <<'PY'
import json, sys, tarfile
with tarfile.open(sys.argv[1]) as tar:
    blob = lambda d: json.loads(tar.extractfile("blobs/sha256/" + d["digest"].split(":")[1]).read())
    pending = json.loads(tar.extractfile("index.json").read())["manifests"]
    while pending:
        d = pending.pop()
        m = blob(d)
        if "manifests" in m:
            pending += m["manifests"]
            continue
        labels = blob(m["config"]).get("config", {}).get("Labels", {})
        arch = d.get("platform", {}).get("architecture", "?")
        for key in ("org.opencontainers.image.version", "io.hass.version"):
            if key in labels:
                print(f"{arch} {key} {labels[key]}")
PY
}
while [ $# -gt 0 ]; do
    case "$1" in
    --deb) seen "$(basename "$2") Version" "$(dpkg-deb -f "$2" Version 2>/dev/null || true)" ;;
    --binary) seen "$2 --version" "$("$2" --version 2>/dev/null | head -1 | awk '{ print $NF }' || true)" ;;
    --image)
        labels=$(image_versions "$2") || { differs+=("$2 (unreadable)"); labels=""; }
        [ -n "$labels" ] || seen "$(basename "$2") labels" ""
        while read -r arch key value; do
            [ -n "$key" ] && seen "$(basename "$2") $arch $key" "$value"
        done <<<"$labels"
        ;;
    *) echo "version-check: unknown argument '$1' (--deb, --image, --binary)" >&2; exit 2 ;;
    esac
    shift 2
done
if [ ${#differs[@]} -gt 0 ]; then
    echo "version-check: ${#differs[@]} place(s) differ from VERSION ($want): ${differs[*]}" >&2
    exit 1
fi
