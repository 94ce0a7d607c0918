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

// libFuzzer target: POSIX TZ strings (the TZif footer grammar), then lookups over a year.
// Built by fuzz/run.sh against BreezeCore; not part of the Swift package.
import BreezeCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPosixTZ(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: data == nil ? 0 : size), as: UTF8.self)
    let rule: PosixTimeZoneRule
    do {
        rule = try PosixTimeZoneRule(text)
    } catch {
        _ = error.description
        return 0
    }
    // Every ten days of 2026, and the years 1900 and 2200.
    var instants: [Int64] = [-2_208_988_800, 7_258_118_400]
    for day in stride(from: 0, to: 366, by: 10) { instants.append(1_767_225_600 + Int64(day) * 86_400) }
    for t in instants { _ = rule.zone(atUnixTime: t) }
    return 0
}
