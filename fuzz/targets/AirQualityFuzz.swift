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

// libFuzzer target: Open-Meteo air-quality bodies (AQI, PM, UV) through the air pipeline.
// Built by fuzz/run.sh against BreezeCore; not part of the Swift package.
import BreezeCore

/// The fetch instant the harness pretends: 2026-05-01T10:00:00Z.
private let fetchedAt: Int64 = 1_777_629_600

/// UTC, a DST zone's summer offset and a half-hour zone (fixed offsets: no zoneinfo needed).
private let zones: [ZoneRules] = [.utc, .fixed(utcOffset: 7200), .fixed(utcOffset: 19_800)]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAirQuality(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let body = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    for status in [200, 500] {
        guard case .report(let report) = AirQualityDecoder.interpret(httpStatus: status, body: body) else { continue }
        precondition(report.hours.count <= AirQualityDecoder.maximumHours, "the hour count is bounded")
        var clocks: [Int64] = [fetchedAt]
        if let first = report.hours.first?.instant, let last = report.hours.last?.instant {
            clocks += [first, last, last &+ 3_600]
        }
        for zone in zones {
            for now in clocks {
                let reading = AirReading.select(report: report, zone: zone, now: now)
                for (metric, tenths) in reading.tenths { precondition(tenths >= 0, "\(metric) negative") }
                let tree = AirTopics.tree(
                    topics: TopicLayout(prefix: "breeze").location("home"), reading: reading, fetchedAt: fetchedAt,
                    stale: false)
                precondition(tree.count == 17, "every air topic is always published")
            }
        }
    }
    return 0
}
