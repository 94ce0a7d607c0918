#!/usr/bin/env bash
# Builds the libFuzzer targets into build/fuzz and runs each for a bounded time.
#
#   fuzz/run.sh                 build, then run every target for FUZZ_SECONDS (default 60) each
#   fuzz/run.sh config tzif     build, then run only these targets
#   fuzz/run.sh --build-only    build only
#
# Environment: FUZZ_SECONDS (per target), SWIFTC (default: swiftc on PATH, else
# /opt/swift/usr/bin/swiftc).
#
# The package's sources are compiled directly with swiftc (SwiftPM cannot build a libFuzzer
# binary): BreezeCore, BreezeYAML and BreezeConfig (each a whole package target, its
# Sources/<name> folder) become modules built with coverage instrumentation and
# AddressSanitizer, and each target links against them.
# Seeds come from fuzz/corpus/<target> (committed, read-only here); what libFuzzer discovers
# goes into build/fuzz/corpus/<target>, crashes into build/fuzz/artifacts/<target>/. A crash
# makes the script exit 1 after the remaining targets ran; copy the input into
# Tests/CoreTests/Fixtures/fuzz-regressions/<target>/ (AgentUnitTests replays config's) and fix.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

SWIFTC=${SWIFTC:-$(command -v swiftc || echo /opt/swift/usr/bin/swiftc)}
SECONDS_PER_TARGET=${FUZZ_SECONDS:-60}
OUT=build/fuzz
MODULES=$OUT/modules
ALL_TARGETS=(google-pollen openmeteo-pollen air climate stripes config tzif posix-tz)

# The package's swiftSettings (Package.swift), so the sources compile exactly as there.
SWIFT_FLAGS=(
    -parse-as-library -swift-version 6 -O -g
    -sanitize=fuzzer,address
    -enable-upcoming-feature ExistentialAny
    -enable-upcoming-feature MemberImportVisibility
    -enable-upcoming-feature InternalImportsByDefault
    -enable-upcoming-feature NonisolatedNonsendingByDefault
    -enable-upcoming-feature InferIsolatedConformances
    -I "$MODULES" -I Sources/CYAML
)

source_of() {
    case $1 in
        google-pollen) echo GooglePollenFuzz ;;
        openmeteo-pollen) echo OpenMeteoPollenFuzz ;;
        air) echo AirQualityFuzz ;;
        climate) echo ClimateFuzz ;;
        stripes) echo StripesFuzz ;;
        config) echo ConfigFuzz ;;
        tzif) echo TZifFuzz ;;
        posix-tz) echo PosixTZFuzz ;;
        *) echo "unknown target $1 (known: ${ALL_TARGETS[*]})" >&2; exit 2 ;;
    esac
}

# Rebuilds a module when any of its sources, or a module built before it (its dependencies,
# in build order), is newer than its object file.
BUILT=()
build_module() {
    local name=$1; shift
    local object=$OUT/obj/$name.o
    local stale=0
    [[ -f $object ]] || stale=1
    for f in "$@" "${BUILT[@]}"; do [[ $f -nt $object ]] && stale=1; done
    BUILT+=("$object")
    ((stale)) || return 0
    echo "fuzz: compiling module $name ($# files)"
    "$SWIFTC" "${SWIFT_FLAGS[@]}" -module-name "$name" -wmo -c "$@" -o "$object" \
        -emit-module -emit-module-path "$MODULES/$name.swiftmodule"
}

build() {
    mkdir -p "$MODULES" "$OUT/obj"
    # The config needs the core and the YAML reader only: no MQTT client, no curl, no runtime.
    local module
    for module in BreezeCore BreezeYAML BreezeConfig; do
        local sources
        mapfile -t sources < <(find "Sources/$module" -name '*.swift' | sort)
        build_module "$module" "${sources[@]}"
    done
    for target in "${TARGETS[@]}"; do
        local src binary
        src=fuzz/targets/$(source_of "$target").swift
        binary=$OUT/$target
        local objects=("$OUT/obj/BreezeCore.o") libs=()
        if [[ $target == config ]]; then
            objects+=("$OUT/obj/BreezeYAML.o" "$OUT/obj/BreezeConfig.o")
            libs=(-lyaml)
        fi
        local newest=$src
        for o in "${objects[@]}"; do [[ $o -nt $newest ]] && newest=$o; done
        if [[ -f $binary && $binary -nt $newest ]]; then continue; fi
        # lld: gold warns about every ASan check symbol it cannot export.
        echo "fuzz: linking $target"
        "$SWIFTC" "${SWIFT_FLAGS[@]}" -module-name "Fuzz_${target//-/_}" "$src" "${objects[@]}" "${libs[@]}" \
            -use-ld=lld -o "$binary"
    done
}

run() {
    local failed=()
    for target in "${TARGETS[@]}"; do
        local work=$OUT/corpus/$target artifacts=$OUT/artifacts/$target/
        mkdir -p "$work" "$artifacts"
        echo "fuzz: running $target for ${SECONDS_PER_TARGET}s"
        local log=$OUT/$target.log
        # -rss_limit_mb and -timeout catch blow-ups and hangs as findings, not only crashes.
        # The Swift backtracer fights ASan over the crashed process; libFuzzer reports instead.
        if SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=1 "$OUT/$target" "$work" "fuzz/corpus/$target" \
            -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
            -artifact_prefix="$artifacts" -print_final_stats=1 \
            >"$log" 2>&1; then
            grep -E '^(stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb)|cov: .*DONE|#[0-9]+.*DONE' \
                "$log" | tail -4 || true
        else
            echo "fuzz: $target FAILED, see $log and $artifacts" >&2
            grep -E 'ERROR|Fatal error|SUMMARY|Test unit written' "$log" | head -5 >&2 || true
            failed+=("$target")
        fi
    done
    if ((${#failed[@]})); then
        echo "fuzz: findings in: ${failed[*]}" >&2
        exit 1
    fi
    echo "fuzz: no findings"
}

BUILD_ONLY=0
TARGETS=()
for arg in "$@"; do
    if [[ $arg == --build-only ]]; then BUILD_ONLY=1; else source_of "$arg" >/dev/null; TARGETS+=("$arg"); fi
done
((${#TARGETS[@]})) || TARGETS=("${ALL_TARGETS[@]}")

build
((BUILD_ONLY)) || run
