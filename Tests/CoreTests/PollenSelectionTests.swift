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

/// A report with one day per (date, grass value, tree value, weed value) and a plant BIRCH.
func syntheticReport(_ days: [(CivilDate, Int?, Int?, Int?)], source: PollenSource = .google) -> PollenReport {
    PollenReport(
        source: source, region: "DE",
        days: days.map { d, g, t, w in
            PollenDay(
                date: d,
                items: [
                    PollenItem(code: "GRASS", name: "Grass", isPlant: false, category: "GRASS", value: g),
                    PollenItem(code: "TREE", name: "Tree", isPlant: false, category: "TREE", value: t),
                    PollenItem(code: "WEED", name: "Weed", isPlant: false, category: "WEED", value: w),
                    PollenItem(code: "BIRCH", name: "Birch", isPlant: true, category: "TREE", value: t),
                ])
        })
}

let hour: Int64 = 3600

@Suite("Pollen levels, colors and max")
struct PollenLevelTests {
    @Test(arguments: [
        (Int?.none, PollenLevel.unknown, "#8e8e93"), (0, .none, "#34c759"), (1, .low, "#34c759"),
        (2, .moderate, "#ff9500"), (3, .moderate, "#ff9500"), (4, .high, "#ff3b30"), (5, .veryHigh, "#8e0000"),
    ])
    func levelAndColor(value: Int?, level: PollenLevel, color: String) {
        #expect(PollenLevel(value: value) == level)
        #expect(PollenPalette.standard.color(for: level).description == color)
    }

    @Test func levelLabels() {
        #expect(PollenLevel.allCases.map(\.label) == ["None", "Low", "Moderate", "High", "Very High", "Unknown"])
    }

    @Test func paletteOverride() {
        let custom = PollenPalette(high: HexColor(hex: "#123456")!, unknown: HexColor(hex: "#000000")!)
        #expect(custom.color(for: .high).description == "#123456")
        #expect(custom.color(for: .unknown).description == "#000000")
        #expect(custom.color(for: .moderate).description == "#ff9500")
        let report = syntheticReport([(date(2026, 4, 1), 4, nil, 1)])
        let tree = PollenTopics.tree(
            topics: TopicLayout(prefix: "breeze").location("home"), report: report, today: date(2026, 4, 1), days: 1,
            fetchedAt: 0, now: 0, stale: false, palette: custom)
        #expect(tree["breeze/home/pollen/grass/color"] == "#123456")
        #expect(tree["breeze/home/pollen/tree/color"] == "#000000")
        #expect(tree["breeze/home/pollen/weed/color"] == "#34c759")
        #expect(tree["breeze/home/pollen/max/color"] == "#123456")
    }

    @Test(arguments: [
        ((Int?)(3), (Int?)(3), (Int?)(3), "GRASS"), (1, 3, 3, "TREE"), (1, 2, 3, "WEED"), (4, 4, 1, "GRASS"),
        (nil, 0, 0, "TREE"), (nil, nil, 0, "WEED"), (2, nil, 2, "GRASS"),
    ])
    func maxWithTies(grass: Int?, tree: Int?, weed: Int?, expected: String) {
        let d = date(2026, 4, 1)
        let selection = PollenSelection.select(
            report: syntheticReport([(d, grass, tree, weed)]), today: d, days: 1, fetchedAt: 0, now: 0, stale: false)
        #expect(selection.max?.code == expected)
    }

    @Test func maxIgnoresPlantsAndIsNilWithoutIndex() {
        let d = date(2026, 4, 1)
        var report = syntheticReport([(d, nil, nil, nil)])
        report.days[0].items[3].value = 5  // BIRCH has an index, the types do not
        let selection = PollenSelection.select(report: report, today: d, days: 1, fetchedAt: 0, now: 0, stale: false)
        #expect(selection.max == nil)
        let tree = PollenTopics.tree(topics: TopicLayout(prefix: "b").location("l"), selection: selection, fetchedAt: 0)
        #expect(
            tree["b/l/pollen/max"]
                == ##"{"id":null,"name":null,"value":null,"level":"Unknown","color":"#8e8e93","color_rgb":[142,142,147],"##
                + ##""trend":"unknown"}"##)
        #expect(tree["b/l/pollen/max/value"] == "None")
        #expect(tree["b/l/pollen/max/level"] == "Unknown")
        #expect(tree["b/l/pollen/max/color"] == "#8e8e93")
    }
}

@Suite("Pollen days by date and freshness")
struct PollenSelectionTests {
    @Test func dayZeroIsTheEntryDatedToday() {
        // Google dates are UTC: a location already on the next local date starts at the second entry.
        let report = syntheticReport([
            (date(2026, 4, 1), 1, 1, 1), (date(2026, 4, 2), 2, 2, 2), (date(2026, 4, 3), 3, 3, 3),
        ])
        let s = PollenSelection.select(
            report: report, today: date(2026, 4, 2), days: 5, fetchedAt: 0, now: hour, stale: false)
        #expect(s.days.map(\.date) == (2...6).map { date(2026, 4, $0) })
        #expect(s.items.first { $0.code == "GRASS" }?.value == 2)
        #expect(s.days[1].items.first { $0.code == "GRASS" }?.value == 3)
        for n in 2...4 { #expect(s.days[n].items.allSatisfy { $0.value == nil }) }
        #expect(s.stale == false)
    }

    @Test func missingForecastDateIsUnknown() {
        let report = syntheticReport([
            (date(2026, 4, 1), 1, 1, 1), (date(2026, 4, 3), 3, 3, 3), (date(2026, 4, 4), 4, 4, 4),
        ])
        let s = PollenSelection.select(
            report: report, today: date(2026, 4, 1), days: 4, fetchedAt: 0, now: 0, stale: false)
        #expect(s.days.map { $0.items[0].value } == [1, nil, 3, 4])
        let tree = PollenTopics.tree(topics: TopicLayout(prefix: "b").location("l"), selection: s, fetchedAt: 0)
        #expect(tree["b/l/pollen/grass/d1/value"] == "None")
        #expect(tree["b/l/pollen/grass/d1/level"] == "Unknown")
        #expect(tree["b/l/pollen/grass/d2/value"] == "3")
        #expect(tree["b/l/pollen/grass/d3/level"] == "High")
        #expect(tree["b/l/pollen/grass/d4/value"] == nil)  // days: 4 → d1…d3
    }

    @Test func onlyPastDatesServeNothing() {
        let report = syntheticReport([(date(2026, 3, 30), 4, 4, 4), (date(2026, 3, 31), 5, 5, 5)])
        let s = PollenSelection.select(
            report: report, today: date(2026, 4, 1), days: 2, fetchedAt: 0, now: 0, stale: false)
        #expect(s.days.count == 2)
        #expect(s.items.map(\.code) == ["GRASS", "TREE", "WEED", "BIRCH"])
        #expect(s.days.allSatisfy { $0.items.allSatisfy { $0.value == nil } })
        #expect(s.max == nil)
    }

    @Test(arguments: [
        // (age in seconds, today served, forecast served, stale)
        (Int64(0), true, true, false), (24 * hour - 1, true, true, false), (24 * hour, true, false, true),
        (48 * hour - 1, true, false, true), (48 * hour, false, false, true), (-5 * hour, true, true, false),
    ])
    func freshness(age: Int64, todayServed: Bool, forecastServed: Bool, stale: Bool) {
        let report = syntheticReport([(date(2026, 4, 1), 2, 2, 2), (date(2026, 4, 2), 4, 4, 4)])
        let fetchedAt: Int64 = 1_775_000_000
        let s = PollenSelection.select(
            report: report, today: date(2026, 4, 1), days: 2, fetchedAt: fetchedAt, now: fetchedAt + age,
            stale: false)
        #expect((s.items[0].value != nil) == todayServed)
        #expect((s.days[1].items[0].value != nil) == forecastServed)
        #expect(s.days.count == 2)  // expired days are published as Unknown, not omitted
        #expect(s.stale == stale)
    }

    @Test func runtimeStaleFlagPassesThrough() {
        let report = syntheticReport([(date(2026, 4, 1), 2, 2, 2)])
        let s = PollenSelection.select(
            report: report, today: date(2026, 4, 1), days: 1, fetchedAt: 0, now: hour, stale: true)
        #expect(s.stale)
        #expect(s.items[0].value == 2)
    }

    @Test func expiredDaysLoseTheirIndexTextButKeepDescriptions() throws {
        let report = try googleReport(try PollenFixtures.bytes(PollenFixtures.israel))
        let s = PollenSelection.select(
            report: report, today: date(2023, 7, 11), days: 1, fetchedAt: 0, now: 48 * hour, stale: false)
        let birch = try #require(s.items.first { $0.code == "BIRCH" })
        #expect(birch.value == nil && birch.inSeason == nil && birch.indexCategory == nil && birch.indexColor == nil)
        #expect(birch.family == "Betulaceae (the Birch family)")
        #expect(birch.category == "TREE")
    }

    @Test func dayCountFollowsSettingAndSource() {
        let report = syntheticReport([(date(2026, 4, 1), 1, 1, 1)])
        func count(_ days: Int, _ source: PollenSource) -> Int {
            var r = report
            r.source = source
            return PollenSelection.select(
                report: r, today: date(2026, 4, 1), days: days, fetchedAt: 0, now: 0,
                stale: false
            ).days.count
        }
        #expect(count(1, .google) == 1)
        #expect(count(3, .google) == 3)
        #expect(count(5, .google) == 5)
        #expect(count(9, .google) == 5)
        #expect(count(0, .google) == 1)
        #expect(count(5, .openMeteo) == 4)
        #expect(count(2, .openMeteo) == 2)
    }

    @Test func topicIDs() {
        func id(_ code: String) -> String { PollenItem(code: code, name: "", isPlant: true).topicID }
        #expect(id("GRASS") == "grass")
        #expect(id("JAPANESE_CEDAR") == "japanese_cedar")
        #expect(id("Cypress-Pine 2") == "cypress_pine_2")
        #expect(id("ÉRABLE") == "_rable")
        #expect(id("A/B#+") == "a_b__")
        #expect(id("") == "_")
        #expect(id("MAX") == "max_")
        #expect(id("STALE") == "stale_")
    }

    @Test func collidingTopicIDsKeepTheFirst() {
        let d = date(2026, 4, 1)
        let report = PollenReport(
            source: .google,
            days: [
                PollenDay(
                    date: d,
                    items: [
                        PollenItem(code: "OAK-1", name: "a", isPlant: true, value: 1),
                        PollenItem(code: "OAK_1", name: "b", isPlant: true, value: 2),
                    ])
            ])
        let s = PollenSelection.select(report: report, today: d, days: 1, fetchedAt: 0, now: 0, stale: false)
        #expect(s.items.map(\.name) == ["a"])
        #expect(s.warnings.count == 1)
    }
}
