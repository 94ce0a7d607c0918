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

// libFuzzer target: Google Pollen bodies through the whole pure pipeline.
// Built by fuzz/run.sh against BreezeCore; not part of the Swift package.
import BreezeCore

/// The fetch instant the harness pretends: 2026-05-01T10:00:00Z.
private let fetchedAt: Int64 = 1_777_629_600

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGooglePollen(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let body = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    // Status from the first byte for short inputs is pointless; alternate on the length instead,
    // so an error body and a data body are both interpreted.
    for status in [200, size % 2 == 0 ? 403 : 429] {
        guard case .report(let report) = GooglePollen.interpret(httpStatus: status, body: body) else { continue }
        precondition(!report.days.isEmpty, "a report has at least one day")
        // Today at the first and at the last reported date; fresh, a day old and stale.
        for today in [report.days.first!.date, report.days.last!.date] {
            for age: Int64 in [0, 30 * 3600, 50 * 3600] {
                let tree = PollenTopics.tree(
                    topics: TopicLayout(prefix: "breeze").location("home"), report: report, today: today, days: 5,
                    fetchedAt: fetchedAt, now: fetchedAt + age, stale: age > 0)
                precondition(!tree.isEmpty, "a report always yields topics")
            }
        }
    }
    return 0
}
