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

import BreezeCore
import Testing

@Suite("Open-Meteo daily budget")
struct OpenMeteoBudgetTests {
    @Test func oneLocationEverySource() {
        let budget = OpenMeteoBudget.plan(
            .init(
                locations: 1, pollenInterval: 6 * 3600, airInterval: 3600, climateArchiveYears: 5,
                stripesRange: (date(1980, 1, 1), date(2025, 12, 31))))
        #expect(budget.lines.map(\.source) == ["pollen", "air", "climate", "stripes"])
        #expect(budget.lines.map(\.requests) == [4, 24, 2, 1])
        #expect(budget.lines.map(\.weight.description) == ["4.00", "24.00", "6.00", "120.01"])
        #expect(budget.lines[1].note == "24 × 1.00 per location")
        #expect(budget.dailyTotal == .calls(34))
        #expect(budget.peakTotal.description == "154.01")
        #expect(budget.withinDailyLimit)
    }

    @Test func fleetOverTheLimit() {
        // 300 locations with air every hour: 7,200 calls, plus climate 6 each = 9,000: under.
        let under = OpenMeteoBudget.plan(.init(locations: 300, airInterval: 3600, climateArchiveYears: 5))
        #expect(under.dailyTotal == .calls(9_000) && under.withinDailyLimit)
        // 400 locations: 12,000, over.
        let over = OpenMeteoBudget.plan(.init(locations: 400, airInterval: 3600, climateArchiveYears: 5))
        #expect(over.dailyTotal == .calls(12_000) && !over.withinDailyLimit)
        // Exactly 10,000 is not "fewer than 10,000".
        let edge = OpenMeteoBudget.plan(.init(locations: 10_000, climateArchiveYears: 0))
        #expect(edge.dailyTotal == .calls(10_000) && !edge.withinDailyLimit)
    }

    @Test func nothingEnabled() {
        let budget = OpenMeteoBudget.plan(.init(locations: 3))
        #expect(budget.lines.isEmpty && budget.dailyTotal == .zero && budget.peakTotal == .zero)
    }

    @Test func requestWeightsOfTheSources() {
        #expect(OpenMeteoBudget.pollenRequest == .calls(1))
        #expect(AirQualityRequest.weight == .calls(1))
        // A climate config without past years asks the forecast only.
        let forecastOnly = OpenMeteoBudget.plan(.init(locations: 2, climateArchiveYears: 0))
        #expect(forecastOnly.lines[0].requests == 2 && forecastOnly.lines[0].weight == .calls(2))
    }

    @Test func hugeInputsSaturate() {
        let budget = OpenMeteoBudget.plan(.init(locations: Int.max, pollenInterval: 1, airInterval: 1))
        #expect(budget.dailyTotal.units == Int.max)
        #expect(budget.lines[0].requests == Int.max)
    }
}
