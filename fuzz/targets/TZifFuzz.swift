//===----------------------------------------------------------------------===//
//
// This source file is part of the breeze-agent open source project
//
// Copyright (c) 2026 the breeze-agent project authors
// Licensed under the Apache License, Version 2.0 (see LICENSE)
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// libFuzzer target: TZif files (RFC 8536) and their POSIX footer, then lookups around every
// transition. Built by fuzz/run.sh against BreezeCore; not part of the Swift package.
import BreezeCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTZif(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let rules: ZoneRules
    do {
        rules = try ZoneRules(tzif: bytes)
    } catch {
        _ = error.description
        return 0
    }
    // Instants the agent can meet (years 1900–2200) plus both sides of each transition in range.
    var instants: [Int64] = [-2_208_988_800, 0, 1_777_629_600, 7_258_118_400]
    for t in rules.transitions.prefix(64) where t > -2_208_988_800 && t < 7_258_118_400 {
        instants += [t - 1, t, t + 1]
    }
    for t in instants {
        _ = rules.localTimeType(atUnixTime: t)
        _ = rules.localDate(atUnixTime: t)
    }
    return 0
}
