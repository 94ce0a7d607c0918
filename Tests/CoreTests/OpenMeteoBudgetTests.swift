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
        #expect(budget.lines.map(\.requests) == [4, 25, 2, 1])
        // Pollen: the day's first call carries the season (past_days=92, 576 units = 4.11),
        // the other three are plain (1.00 each): 996 units = 7.11.
        #expect(budget.lines.map(\.weight.description) == ["7.11", "25.00", "6.00", "120.01"])
        #expect(budget.lines[0].weight.units == 3 * 140 + 576)
        #expect(
            budget.lines[0].note == "4 per location: 1 × 4.11 with the season (past_days=92) + 3 × 1.00")
        #expect(budget.lines[1].note == "25 × 1.00 per location")
        #expect(budget.dailyTotal.units == 996 + 31 * 140)
        #expect(budget.dailyTotal.description == "38.11")
        #expect(budget.withinDailyLimit)
    }

    @Test func fleetOverTheLimit() {
        // 300 locations with air every hour (+1 after midnight): 7,500 calls, plus climate 6 each
        // = 9,300: under.
        let under = OpenMeteoBudget.plan(.init(locations: 300, airInterval: 3600, climateArchiveYears: 5))
        #expect(under.dailyTotal == .calls(9_300) && under.withinDailyLimit)
        // 400 locations: 12,400, over.
        let over = OpenMeteoBudget.plan(.init(locations: 400, airInterval: 3600, climateArchiveYears: 5))
        #expect(over.dailyTotal == .calls(12_400) && !over.withinDailyLimit)
        // Exactly 10,000 is not "fewer than 10,000".
        let edge = OpenMeteoBudget.plan(.init(locations: 10_000, climateArchiveYears: 0))
        #expect(edge.dailyTotal == .calls(10_000) && !edge.withinDailyLimit)
    }

    /// Air refetches right after local midnight (its data covers one day): one more a day, except
    /// with an interval of a day or more, where that fetch is the only one.
    @Test(arguments: [(3600, 25), (6 * 3600, 5), (7 * 3600, 5), (15 * 60, 97), (86_400, 1)])
    func airMidnightFetch(interval: Int, requests: Int) {
        let budget = OpenMeteoBudget.plan(.init(locations: 1, airInterval: interval))
        #expect(budget.lines.map(\.requests) == [requests])
        #expect(budget.dailyTotal == .calls(requests))
    }

    /// One season call a day per location, whatever the interval; a day-long interval makes
    /// it the only call.
    @Test(arguments: [(3600, 24, 23 * 140 + 576), (86_400, 1, 576), (15 * 60, 96, 95 * 140 + 576)])
    func pollenCarriesOneSeasonCallADay(interval: Int, requests: Int, units: Int) {
        let budget = OpenMeteoBudget.plan(.init(locations: 3, pollenInterval: interval))
        #expect(budget.lines.map(\.requests) == [3 * requests])
        #expect(budget.dailyTotal.units == 3 * units)
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
