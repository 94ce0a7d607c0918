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
import Foundation
import Testing

/// SPEC §20 "today against the recent season": the percentile and onset rules, exactly.
@Suite struct PollenSeasonTests {
    static let today = CivilDate(year: 2026, month: 5, day: 20)!

    /// A season where `code` has `tenths[i]` on today − (count − 1 − i) … today.
    static func season(_ code: String, _ tenths: [Int], today: CivilDate = today) -> PollenSeason {
        var means: [CivilDate: [String: Int]] = [:]
        for (i, value) in tenths.enumerated() { means[today.adding(days: i - (tenths.count - 1))] = [code: value] }
        return PollenSeason(means: means)
    }

    // MARK: percentile

    @Test func percentileIsTheShareOfPollenDaysAtOrBelowTodayRoundedHalfUp() {
        // 20 pollen days 1…20 (tenths), today the 15th value → 15/20 = 75 %.
        var values = Array(1...20).filter { $0 != 15 }
        values += [15]
        let season = Self.season("BIRCH", values)
        #expect(season.percentile(of: "birch", today: Self.today) == .percent(75))
        #expect(season.percentile(of: "birch", today: Self.today).payload == "75")
        // 16 pollen days, today the 5th smallest: 5/16 = 31.25 → 31; 6/16 = 37.5 → 38 (half up).
        let five = Self.season("BIRCH", [1, 2, 3, 4] + Array(6...16) + [5])
        #expect(five.percentile(of: "birch", today: Self.today) == .percent(31))
        let six = Self.season("BIRCH", [1, 2, 3, 4, 5] + Array(7...16) + [6])
        #expect(six.percentile(of: "birch", today: Self.today) == .percent(38))
    }

    @Test func tiesCountAsAtOrBelow() {
        // 14 pollen days: ten of 30, four of 10; today 30 ties with nine others → 14/14.
        let season = Self.season("BIRCH", [10, 10, 10, 10] + Array(repeating: 30, count: 10))
        #expect(season.percentile(of: "birch", today: Self.today) == .percent(100))
        // Today 10 ties with three others: 4/14 = 28.57 → 29.
        let low = Self.season("BIRCH", Array(repeating: 30, count: 10) + [10, 10, 10, 10])
        #expect(low.percentile(of: "birch", today: Self.today) == .percent(29))
    }

    @Test func zeroDaysAreNotPollenDaysAndTodayZeroIsZeroPercent() {
        // 14 pollen days and 50 zero days; today 0 → 0 of 14 → 0.
        let season = Self.season("GRAMINALES", Array(repeating: 5, count: 14) + Array(repeating: 0, count: 50))
        #expect(season.percentile(of: "graminales", today: Self.today) == .percent(0))
        // The same 14 with today at 5: 14/14 even with the zeros around.
        let high = Self.season("GRAMINALES", Array(repeating: 0, count: 50) + Array(repeating: 5, count: 14))
        #expect(high.percentile(of: "graminales", today: Self.today) == .percent(100))
    }

    @Test func allZeroWindowIsOffSeason() {
        let season = Self.season("RAGWEED", Array(repeating: 0, count: 92))
        #expect(season.percentile(of: "ragweed", today: Self.today) == .offSeason)
        #expect(season.percentile(of: "ragweed", today: Self.today).payload == "off_season")
        #expect(season.percentile(of: "weed", today: Self.today) == .offSeason)
    }

    @Test func thirteenPollenDaysAreInsufficientFourteenAreEnough() {
        let thirteen = Self.season("BIRCH", Array(repeating: 0, count: 79) + Array(repeating: 7, count: 13))
        #expect(thirteen.percentile(of: "birch", today: Self.today) == .insufficient(pollenDays: 13))
        #expect(thirteen.percentile(of: "birch", today: Self.today).payload == "insufficient")
        let fourteen = Self.season("BIRCH", Array(repeating: 0, count: 78) + Array(repeating: 7, count: 14))
        #expect(fourteen.percentile(of: "birch", today: Self.today) == .percent(100))
    }

    @Test func theWindowIsNinetyTwoDaysEndingToday() {
        // 14 pollen days, the oldest one 92 days back (today − 92): outside → 13 → insufficient.
        let outside = Self.season("BIRCH", [9] + Array(repeating: 0, count: 79) + Array(repeating: 9, count: 13))
        #expect(outside.means.count == 93)
        #expect(outside.percentile(of: "birch", today: Self.today) == .insufficient(pollenDays: 13))
        // The same at today − 91: inside.
        let inside = Self.season("BIRCH", [9] + Array(repeating: 0, count: 78) + Array(repeating: 9, count: 13))
        #expect(inside.percentile(of: "birch", today: Self.today) == .percent(100))
        #expect(PollenSeason.window(endingOn: Self.today).count == 92)
        #expect(PollenSeason.window(endingOn: Self.today).first == Self.today.adding(days: -91))
        #expect(PollenSeason.window(endingOn: Self.today).last == Self.today)
    }

    @Test func todayWithoutAMeanIsUnknownAndAnUncarriedIdHasNone() {
        var season = Self.season("BIRCH", Array(repeating: 9, count: 30))
        season.means[Self.today] = nil
        #expect(season.percentile(of: "birch", today: Self.today) == .unknown)
        #expect(season.percentile(of: "birch", today: Self.today).payload == "")
        #expect(Self.season("BIRCH", [9]).percentile(of: "oak", today: Self.today) == .unknown)
    }

    @Test func aTypeIsTheSumOfItsPlants() {
        // Tree: alder 4 + birch 6 = 10 today; earlier days birch alone 1…13, alder alone 20.
        var means: [CivilDate: [String: Int]] = [:]
        for i in 1...13 { means[Self.today.adding(days: -i)] = ["BIRCH": i] }
        means[Self.today.adding(days: -20)] = ["ALDER": 20]
        means[Self.today] = ["ALDER": 4, "BIRCH": 6, "GRAMINALES": 0]
        let season = PollenSeason(means: means)
        #expect(season.mean(of: "tree", on: Self.today) == 10)
        #expect(season.mean(of: "tree", on: Self.today.adding(days: -20)) == 20)
        #expect(season.mean(of: "weed", on: Self.today) == nil)
        // 15 pollen days: 1…13, 20, and today 10 → at or below 10: 1…10 and today = 11 → 73.
        #expect(season.percentile(of: "tree", today: Self.today) == .percent(73))
        #expect(season.percentile(of: "weed", today: Self.today) == .unknown)
    }

    // MARK: season_start

    @Test func onsetThresholdsAreEAACIs() {
        #expect(PollenSeason.onsetGrains["ALDER"] == 10)
        #expect(PollenSeason.onsetGrains["BIRCH"] == 10)
        #expect(PollenSeason.onsetGrains["OLIVE"] == 10)
        #expect(PollenSeason.onsetGrains["MUGWORT"] == 10)
        #expect(PollenSeason.onsetGrains["GRAMINALES"] == 3)
        #expect(PollenSeason.onsetGrains["RAGWEED"] == 3)
        #expect(Set(PollenSeason.onsetGrains.keys) == Set(OpenMeteoPollen.plants.map(\.code)))
    }

    @Test func seasonStartIsTheFirstDayOfTheRunEndingToday() {
        // Birch: 120 (12.0) for 5 days, then 99 (9.9, below 10) once, then 100 (exactly 10) for 3 days.
        let season = Self.season("BIRCH", Array(repeating: 120, count: 5) + [99] + [100, 100, 100])
        #expect(season.seasonStart(of: "birch", today: Self.today) == Self.today.adding(days: -2))
        #expect(season.seasonStart(of: "birch", today: Self.today)?.description == "2026-05-18")
    }

    @Test func todayBelowThresholdHasNoSeasonStart() {
        let season = Self.season("GRAMINALES", Array(repeating: 50, count: 30) + [29])
        #expect(season.seasonStart(of: "graminales", today: Self.today) == nil)
        #expect(season.seasonStart(of: "grass", today: Self.today) == nil)
        // 3.0 is the grass onset: 30 tenths starts it.
        let at = Self.season("GRAMINALES", Array(repeating: 29, count: 30) + [30])
        #expect(at.seasonStart(of: "graminales", today: Self.today) == Self.today)
    }

    @Test func aMissingDayBreaksTheRun() {
        var season = Self.season("MUGWORT", Array(repeating: 200, count: 10))
        season.means[Self.today.adding(days: -4)] = nil
        #expect(season.seasonStart(of: "mugwort", today: Self.today) == Self.today.adding(days: -3))
        var noToday = season
        noToday.means[Self.today] = nil
        #expect(noToday.seasonStart(of: "mugwort", today: Self.today) == nil)
    }

    @Test func aRunLongerThanTheWindowStartsAtTheWindowsFirstDay() {
        let season = Self.season("OLIVE", Array(repeating: 500, count: 120))
        #expect(season.seasonStart(of: "olive", today: Self.today) == Self.today.adding(days: -91))
    }

    @Test func aTypeIsInSeasonWhenAnyPlantReachesItsOwnThreshold() {
        // Weed: ragweed 3.0 (its onset) for 4 days, mugwort 9.9 (below its 10) throughout;
        // before that neither. The sum would not matter: only each plant's own threshold.
        var means: [CivilDate: [String: Int]] = [:]
        for i in 0..<10 { means[Self.today.adding(days: -i)] = ["MUGWORT": 99, "RAGWEED": i < 4 ? 30 : 29] }
        let season = PollenSeason(means: means)
        #expect(season.seasonStart(of: "weed", today: Self.today) == Self.today.adding(days: -3))
        #expect(season.seasonStart(of: "ragweed", today: Self.today) == Self.today.adding(days: -3))
        #expect(season.seasonStart(of: "mugwort", today: Self.today) == nil)
        #expect(season.seasonStart(of: "oak", today: Self.today) == nil)
    }

    @Test func aLeapDayInsideTheWindowIsOneDay() {
        // 2028-03-10: the window runs back to 2027-12-10 and holds 2028-02-29.
        let today = CivilDate(year: 2028, month: 3, day: 10)!
        let window = PollenSeason.window(endingOn: today)
        #expect(window.count == 92)
        #expect(window.first?.description == "2027-12-10")
        #expect(window.contains(CivilDate(year: 2028, month: 2, day: 29)!))
        // Alder at 15 grains from 2028-02-27 on: the run crosses the leap day.
        var means: [CivilDate: [String: Int]] = [:]
        for date in window { means[date] = ["ALDER": date >= CivilDate(year: 2028, month: 2, day: 27)! ? 150 : 20] }
        let season = PollenSeason(means: means)
        #expect(season.seasonStart(of: "alder", today: today)?.description == "2028-02-27")
        // 13 in-season days (27, 28, 29 Feb, 1–10 Mar) and 79 days at 2.0: 92 pollen days,
        // today ties with the 13 → 92/92.
        #expect(season.percentile(of: "alder", today: today) == .percent(100))
        // Dropping the leap day breaks the run.
        var gap = season
        gap.means[CivilDate(year: 2028, month: 2, day: 29)!] = nil
        #expect(gap.seasonStart(of: "alder", today: today)?.description == "2028-03-01")
    }

    // MARK: topics

    @Test func theSeasonTopicsOfEveryCarriedItem() {
        // Birch 12.0 for the last 20 days (in season from today − 19), grass 0.0 throughout,
        // nothing for the weeds.
        var means: [CivilDate: [String: Int]] = [:]
        for i in 0..<92 { means[Self.today.adding(days: -i)] = ["BIRCH": i < 20 ? 120 : 0, "GRAMINALES": 0] }
        let topics = TopicLayout(prefix: "breeze").location("home")
        let ids = ["grass", "tree", "weed", "birch", "graminales", "mugwort", "oak"]
        let standing = PollenSeason(means: means).standing(today: Self.today)
        #expect(standing.today == Self.today)
        #expect(standing.items.count == 9)
        #expect(standing.item("oak") == nil)
        let tree = PollenTopics.seasonTree(topics: topics, standing: standing, itemIDs: ids)
        #expect(tree["breeze/home/pollen/birch/percentile"] == "100")
        #expect(tree["breeze/home/pollen/birch/season_start"] == "2026-05-01")
        #expect(tree["breeze/home/pollen/tree/percentile"] == "100")
        #expect(tree["breeze/home/pollen/tree/season_start"] == "2026-05-01")
        #expect(tree["breeze/home/pollen/grass/percentile"] == "off_season")
        #expect(tree["breeze/home/pollen/grass/season_start"] == "")
        #expect(tree["breeze/home/pollen/graminales/percentile"] == "off_season")
        #expect(tree["breeze/home/pollen/weed/percentile"] == "")
        #expect(tree["breeze/home/pollen/mugwort/season_start"] == "")
        // oak is not in the key-free data: no topics; 6 carried ids × 2.
        #expect(tree["breeze/home/pollen/oak/percentile"] == nil)
        #expect(tree.count == 12)
        // Without a season (Google, or no call yet) the topics do not exist.
        #expect(PollenTopics.seasonTree(topics: topics, standing: nil, itemIDs: ids).isEmpty)
    }

    // MARK: the call

    @Test func theQueryIsThePollenQueryWithNinetyTwoPastDays() {
        let query = PollenSeason.query(latitude: 49.1951, longitude: 16.6068, timezone: "Europe/Prague")
        let pairs = query.map { "\($0.name)=\($0.value)" }
        #expect(pairs.contains("past_days=92"))
        #expect(pairs.contains("forecast_days=4"))
        #expect(pairs.contains("domains=cams_europe"))
        #expect(pairs.filter { $0.hasPrefix("forecast_days=") }.count == 1)
        #expect(
            pairs.contains("hourly=alder_pollen,birch_pollen,grass_pollen,mugwort_pollen,olive_pollen,ragweed_pollen"))
        // The plain pollen query plus past_days, nothing else changed.
        let plain = OpenMeteoPollen.query(latitude: 49.1951, longitude: 16.6068, timezone: "Europe/Prague")
        #expect(query.map { "\($0.name)=\($0.value)" } == plain.map { "\($0.name)=\($0.value)" } + ["past_days=92"])
        // 6 variables × 96 days / 140 = 576/140 = 4.11 calls (a plain call: 24/14 = 1.71).
        #expect(PollenSeason.callWeight.units == 576)
        #expect(PollenSeason.callWeight.description == "4.11")
    }

    /// A real-format body (Open-Meteo's air-quality JSON, as POLLEN-KEYFREE.md shows it) for
    /// `days` local days ending `today`: birch `birch(day)` every hour, grass null.
    static func body(days: Int, today: CivilDate, birch: (Int) -> Double?) -> [UInt8] {
        var times: [String] = []
        var values: [String] = []
        var grass: [String] = []
        for d in 0..<days {
            let date = today.adding(days: d - (days - 1))
            for h in 0..<24 {
                times.append("\"\(date)T\(h < 10 ? "0" : "")\(h):00\"")
                values.append(birch(d).map { String($0) } ?? "null")
                grass.append("null")
            }
        }
        let text = """
            {"latitude":49.2,"longitude":16.6,"generationtime_ms":1.2,"utc_offset_seconds":3600,\
            "timezone":"Europe/Prague","timezone_abbreviation":"GMT+1","elevation":237.0,\
            "hourly_units":{"time":"iso8601","birch_pollen":"grains/m³","grass_pollen":"grains/m³"},\
            "hourly":{"time":[\(times.joined(separator: ","))],\
            "birch_pollen":[\(values.joined(separator: ","))],"grass_pollen":[\(grass.joined(separator: ","))]}}
            """
        return Array(text.utf8)
    }

    @Test func aNinetyThreeDayBodyGivesEveryDaysMean() {
        let today = CivilDate(year: 2026, month: 4, day: 30)!
        // Days 0…92 (oldest first): birch = day index / 10 grains (tenths = index), day 5 null.
        let body = Self.body(days: 93, today: today) { d in d == 5 ? nil : Double(d) / 10 }
        guard case .season(let season, _) = PollenSeason.interpret(httpStatus: 200, body: body) else {
            Issue.record("not a season")
            return
        }
        #expect(season.means.count == 92)
        #expect(season.mean(of: "birch", on: today) == 92)
        #expect(season.mean(of: "birch", on: today.adding(days: -92)) == 0)
        #expect(season.mean(of: "birch", on: today.adding(days: -87)) == nil)
        #expect(season.mean(of: "grass", on: today) == nil)
        // The window (today − 91 … today) holds indexes 1…92 minus the null day 5: 91 pollen days,
        // all at or below today's → 100; birch reached 10 grains (100 tenths) on no day.
        #expect(season.percentile(of: "birch", today: today) == .percent(100))
        #expect(season.seasonStart(of: "birch", today: today) == nil)
        #expect(season.percentile(of: "grass", today: today) == .unknown)
    }

    @Test func failuresAndUnsupportedLocationsAreTheirOwnOutcomes() {
        let error = Array(#"{"error":true,"reason":"No data is available for this location"}"#.utf8)
        #expect(
            PollenSeason.interpret(httpStatus: 400, body: error)
                == .unsupportedLocation(message: "HTTP 400: No data is available for this location"))
        let gateway = PollenSeason.interpret(httpStatus: 502, body: Array("bad gateway".utf8))
        #expect(gateway == .failed(message: "HTTP 502"))
        let allNull = Self.body(days: 2, today: Self.today) { _ in nil }
        guard case .unsupportedLocation = PollenSeason.interpret(httpStatus: 200, body: allNull) else {
            Issue.record("all-null body should be unsupported")
            return
        }
    }
}
