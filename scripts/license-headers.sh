#!/usr/bin/env bash
# Every source file carries the project's Apache-2.0 header with its SPDX identifier, as the
# Swift server projects do (swift-nio, swift-log). `make test` runs this with --check.
#   scripts/license-headers.sh --check   list files without the header; exit 1 if any
#   scripts/license-headers.sh --fix     add the header where it is missing
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:---check}
header='//===----------------------------------------------------------------------===//
//
// This source file is part of the breeze-agent open source project
//
// Copyright (c) 2026 the breeze-agent project authors
// Licensed under the Apache License, Version 2.0 (see LICENSE)
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//'
missing=()
while IFS= read -r -d '' file; do
    grep -q 'SPDX-License-Identifier: Apache-2.0' "$file" && continue
    missing+=("$file")
    [ "$mode" = --fix ] || continue
    tmp=$(mktemp)
    if head -1 "$file" | grep -q '^// swift-tools-version'; then
        # The tools version must stay the first line of Package.swift.
        { head -1 "$file"; echo "$header"; tail -n +2 "$file"; } >"$tmp"
    else
        { echo "$header"; echo; cat "$file"; } >"$tmp"
    fi
    cat "$tmp" >"$file" && rm -f "$tmp"
done < <(git ls-files -z --cached --others --exclude-standard -- '*.swift' '*.h' '*.c' | sort -z)
if [ "$mode" = --check ] && [ ${#missing[@]} -gt 0 ]; then
    echo "license-headers: ${#missing[@]} file(s) without the Apache-2.0 SPDX header (scripts/license-headers.sh --fix):" >&2
    printf '  %s\n' "${missing[@]}" >&2
    exit 1
fi
[ "$mode" = --fix ] && echo "license-headers: added to ${#missing[@]} file(s)" >&2
exit 0
