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

// libFuzzer target: Open-Meteo daily bodies → observations → trend → topics.
// Built by fuzz/run.sh against BreezeCore; not part of the Swift package.
import BreezeCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzClimate(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let body = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let observations: [ClimateObservation]
    do {
        observations = try OpenMeteoDailyDecoder.decode(body)
    } catch {
        _ = error.description
        return 0
    }
    guard let last = observations.last else { return 0 }
    // Today is the last observed date; the plan asks the same day in every observed year, the
    // current year from the forecast, the rest from the archive (as the fetcher does).
    let today = last.date
    var years = Array(Set(observations.map(\.date.year))).sorted()
    if years.count > 40 { years = Array(years.suffix(40)) }
    let points = ClimateRequestPlan.points(today: today, years: years)
    do {
        let trend = try ClimateTrend.compute(
            today: today, points: points, archive: observations, forecast: observations)
        for unit in TemperatureUnit.allCases {
            let tree = ClimateTopics.tree(
                topics: TopicLayout(prefix: "breeze").location("home"), trend: trend, unit: unit,
                updatedAt: "2026-05-01T10:00:00Z", stale: false)
            precondition(!tree.isEmpty, "a trend always yields topics")
        }
    } catch {
        _ = error.description
    }
    return 0
}
