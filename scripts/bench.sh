#!/usr/bin/env bash
# `make bench` (issue 8): builds the release binary and the .deb, then prints the footprint and
# cost figures of breeze-agent on this machine (bench/README.md explains each; bench/RESULTS.md
# holds a recorded run). Takes about 8 minutes; BENCH_QUICK=1 is a 2-minute smoke run with fewer
# repetitions and a 10 s idle window. Progress goes to stderr, the report to stdout.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh >&2
# The .deb's build is the release build (`make binary` flags, -z now included); the bench measures
# that binary, unstripped (the stripped copy only gives the shipped size).
echo "bench: release build and .deb" >&2
deb=$(scripts/deb.sh)
bin=$(swift build -c release --static-swift-stdlib --show-bin-path)/breeze-agent
# The bench drives the agent with test-only settings (a 1 s refresh cooldown, a loopback HTTPS
# API's CA), which the shipped binary does not read: it runs the same release build with the
# test hooks compiled in (scripts/test-hooks-build.sh); the sizes below are the shipped binary's.
echo "bench: release build with the test hooks" >&2
. scripts/test-hooks-build.sh
agent=$(test_hooks_build)/breeze-agent

# Decode throughput, in-process: the BreezeCore sources and bench/decode compiled into one
# optimized executable (no bench target in Package.swift; see bench/README.md).
echo "bench: decode benchmark build" >&2
mkdir -p .build/bench
features=()
for f in ExistentialAny MemberImportVisibility InternalImportsByDefault NonisolatedNonsendingByDefault \
    InferIsolatedConformances; do
    features+=(-enable-upcoming-feature "$f")
done
mapfile -t core < <(find Sources/BreezeCore -name '*.swift' | sort)
swiftc -O -wmo -parse-as-library -swift-version 6 "${features[@]}" -module-name BreezeCore \
    "${core[@]}" bench/decode/DecodeBench.swift -o .build/bench/decode-bench
# The largest accepted and the refused key-free pollen body (issue 50): the same core, decoding once.
swiftc -O -wmo -parse-as-library -swift-version 6 "${features[@]}" -module-name BreezeCore \
    "${core[@]}" bench/decode/PollenBoundsBench.swift -o .build/bench/pollen-bounds-bench
fixture=Tests/CoreTests/Fixtures/eXPerience83-pollenlevels__google_pollen_forecast_5_days.es.json
mapfile -t decode < <(.build/bench/decode-bench "$fixture" 5 1)
rates=$(printf '%s\n' "${decode[@]}" | awk '{print $1}' | sort -n | tr '\n' ' ')
median=$(printf '%s\n' "${decode[@]}" | awk '{print $1}' | sort -n | sed -n 3p)
us=$(printf '%s\n' "${decode[@]}" | awk '{print $2}' | sort -n | sed -n 3p)

size() { stat -c %s "$1"; }
stripped=.build/bench/breeze-agent.stripped
strip --remove-section=.comment --remove-section=.note --strip-unneeded -o "$stripped" "$bin"
quick=()
idle=60
if [ "${BENCH_QUICK:-0}" = 1 ]; then quick=(--quick); idle=10; fi

python3 bench/bench.py --agent "$agent" --idle "$idle" "${quick[@]}" \
    --extra "binary (release, static stdlib)=$(size "$bin") bytes ($(( $(size "$bin") / 1024 )) KiB)" \
    --extra "binary stripped (as in the .deb)=$(size "$stripped") bytes ($(( $(size "$stripped") / 1024 )) KiB)" \
    --extra ".deb=$(size "$deb") bytes ($(( $(size "$deb") / 1024 )) KiB), $(basename "$deb")" \
    --extra "decode 5-day Google pollen fixture=$median responses/s median, ${us} µs each (5 rounds of 1 s: $rates)"

# Issue 50: time and peak RSS of the largest accepted pollen body and of the 340,000-hour body
# that is refused, decoded alone and through `print` (bench/README.md).
echo
echo "key-free pollen bodies at the bound (bench/pollen_bounds.py):"
python3 bench/pollen_bounds.py --decoder .build/bench/pollen-bounds-bench --agent "$bin"
