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

@Suite("Pollen topic tree")
struct PollenTopicTests {
    /// 2023-07-11T08:30:00Z.
    static let fetchedAt: Int64 = 1_689_064_200

    @Test func israelFixtureExactPayloads() throws {
        let report = try googleReport(try PollenFixtures.bytes(PollenFixtures.israel))
        let tree = PollenTopics.tree(
            topics: TopicLayout(prefix: "breeze").location("home"), report: report, today: date(2023, 7, 11), days: 2,
            fetchedAt: Self.fetchedAt, now: Self.fetchedAt + hour, stale: false)
        let base = "breeze/home/pollen"
        let grassDesc = "People with very high allergy to pollen are likely to experience symptoms"
        let grassRec = "Pollen levels are very low right now. It's a great day to enjoy the outdoors!"
        let grassItem =
            ##"{"id":"grass","name":"Grass","value":1,"level":"Low","color":"#34c759","color_rgb":[52,199,89],"##
            + ##""category":"GRASS","is_plant":false,"in_season":true,"image_url":null,"image_closeup_url":null,"##
            + ##""family":null,"season":null,"appearance":null,"cross_reaction":null,"##
            + ##""health_recommendations":["\##(grassRec)"],"index_category":"Very Low","##
            + ##""index_description":"\##(grassDesc)","index_color":"#009e3a","grains_per_m3":null,"##
            + ##""source":"google""##
        let forecast = ##","forecast":[{"date":"2023-07-12","value":null,"level":"Unknown","color":"#8e8e93"}]}"##
        #expect(tree["\(base)/grass"] == grassItem + forecast)

        let birch = try #require(tree["\(base)/birch"])
        #expect(
            birch.hasPrefix(
                ##"{"id":"birch","name":"Birch","value":1,"level":"Low","color":"#34c759","color_rgb":[52,199,89],"##
                    + ##""category":"TREE","is_plant":true,"in_season":false,"##
                    + ##""image_url":"https://storage.googleapis.com/pollen-pictures/birch_full.jpg","##
                    + ##""image_closeup_url":"https://storage.googleapis.com/pollen-pictures/birch_closeup.jpg","##
                    + ##""family":"Betulaceae (the Birch family)","season":"Late winter, spring","appearance":"Birch "##
            ))
        #expect(
            birch.hasSuffix(
                ##""health_recommendations":null,"index_category":"Very Low","index_description":"\##(grassDesc)","##
                    + ##""index_color":"#009e3a","grains_per_m3":null,"source":"google""## + forecast))

        let max =
            ##"{"id":"grass","name":"Grass","value":1,"level":"Low","color":"#34c759","color_rgb":[52,199,89],"##
            + ##""trend":"unknown"}"##
        let days =
            ##""days":[{"date":"2023-07-11","items":[{"id":"grass","value":1,"level":"Low","color":"#34c759"},"##
            + ##"{"id":"birch","value":1,"level":"Low","color":"#34c759"}]},"##
            + ##"{"date":"2023-07-12","items":[{"id":"grass","value":null,"level":"Unknown","color":"#8e8e93"},"##
            + ##"{"id":"birch","value":null,"level":"Unknown","color":"#8e8e93"}]}]}"##
        let summary = try #require(tree[base])
        #expect(
            summary.hasPrefix(
                ##"{"date":"2023-07-11","region":"IL","source":"google","updated_at":"2023-07-11T08:30:00Z","##
                    + ##""stale":false,"attribution":"Includes pollen data from Google","max":\##(max),"##
                    + ##""items":[\##(grassItem)},{"id":"birch""##))
        #expect(summary.hasSuffix(days))

        #expect(tree["\(base)/max"] == max)
        #expect(tree["\(base)/max/value"] == "1")
        #expect(tree["\(base)/max/level"] == "Low")
        #expect(tree["\(base)/max/color"] == "#34c759")
        #expect(tree["\(base)/updated_at"] == "2023-07-11T08:30:00Z")
        #expect(tree["\(base)/stale"] == "false")
        #expect(tree["\(base)/grass/value"] == "1")
        #expect(tree["\(base)/grass/level"] == "Low")
        #expect(tree["\(base)/grass/color"] == "#34c759")
        #expect(tree["\(base)/grass/d1/value"] == "None")
        #expect(tree["\(base)/grass/d1/level"] == "Unknown")
        #expect(tree["\(base)/grass/d1/color"] == "#8e8e93")
        #expect(tree["\(base)/birch/d1/value"] == "None")
        #expect(tree["\(base)/grass/d2/value"] == nil)
        // Tomorrow has no index: no trend.
        #expect(tree["\(base)/grass/trend"] == "unknown")
        #expect(tree["\(base)/max/trend"] == "unknown")
        #expect(
            tree["\(base)/peak"]
                == ##"{"date":"2023-07-11","id":"grass","name":"Grass","value":1,"level":"Low","color":"#34c759"}"##)
        #expect(tree["\(base)/peak/date"] == "2023-07-11")
        // summary + per item (json, 3 scalars, trend, 3 per forecast day) + max (json + 3 + trend)
        // + peak (json + 3) + updated_at + stale
        #expect(tree.count == 1 + 2 * (1 + 3 + 1 + 3) + 5 + 4 + 2)
    }

    @Test func germanyFixtureTopics() throws {
        let report = try googleReport(try PollenFixtures.bytes(PollenFixtures.germany))
        let tree = PollenTopics.tree(
            topics: TopicLayout(prefix: "breeze").location("berlin"), report: report, today: date(2025, 8, 3), days: 5,
            fetchedAt: 1_754_200_000, now: 1_754_200_000, stale: false)
        let base = "breeze/berlin/pollen"
        #expect(tree["\(base)/grass/value"] == "2")
        #expect(tree["\(base)/grass/level"] == "Moderate")
        #expect(tree["\(base)/grass/color"] == "#ff9500")
        #expect(tree["\(base)/tree/value"] == "None")
        #expect(tree["\(base)/tree/level"] == "Unknown")
        #expect(tree["\(base)/weed/level"] == "Low")
        #expect(tree["\(base)/graminales/d2/value"] == "2")
        #expect(tree["\(base)/graminales/d3/value"] == "None")
        #expect(tree["\(base)/graminales/d4/level"] == "Unknown")
        #expect(tree["\(base)/mugwort/d1/level"] == "Low")
        #expect(
            tree["\(base)/max"]
                == ##"{"id":"grass","name":"Grass","value":2,"level":"Moderate","color":"#ff9500","color_rgb":[255,149,0],"##
                + ##""trend":"steady"}"##)
        #expect(tree["\(base)/max/trend"] == "steady")
        #expect(tree["\(base)/weed/trend"] == "steady")
        #expect(tree["\(base)/tree/trend"] == "unknown")
        // Ties go to the earliest day.
        #expect(tree["\(base)/peak/date"] == "2025-08-03")
        #expect(tree["\(base)/peak/level"] == "Moderate")
        #expect(tree["\(base)/peak/color"] == "#ff9500")
        // Plant descriptions of the days 4–5 items are borrowed from day 1 entries (same plant).
        let graminales = try #require(tree["\(base)/graminales"])
        #expect(graminales.contains(##""family":"Poaceae""##))
        #expect(
            graminales.contains(##""forecast":[{"date":"2025-08-04","value":2,"level":"Moderate","color":"#ff9500"}"##))
        #expect(graminales.hasSuffix(##"{"date":"2025-08-07","value":null,"level":"Unknown","color":"#8e8e93"}]}"##))
        let ids = tree.topics.filter { $0.hasPrefix("\(base)/") && $0.hasSuffix("/value") && !$0.contains("/d") }
        #expect(ids.count == 15)  // 14 items + max
    }

    @Test func spainSummaryIsLocalizedAndStale() throws {
        let report = try googleReport(try PollenFixtures.bytes(PollenFixtures.spain))
        // Fetched 30 h ago: today is served stale, forecast days are Unknown.
        let tree = PollenTopics.tree(
            topics: TopicLayout(prefix: "p").location("madrid"), report: report, today: date(2026, 6, 14), days: 3,
            fetchedAt: 0, now: 30 * hour, stale: false)
        #expect(tree["p/madrid/pollen/stale"] == "true")
        #expect(tree["p/madrid/pollen/grass/value"] == "3")
        #expect(tree["p/madrid/pollen/grass/d1/value"] == "None")
        let summary = try #require(tree["p/madrid/pollen"])
        #expect(summary.hasPrefix(##"{"date":"2026-06-14","region":"ES","source":"google","##))
        #expect(summary.contains(##""name":"Gramíneas""##))
        #expect(summary.contains(##""index_category":"Moderado""##))
        #expect(summary.contains(##""updated_at":"1970-01-01T00:00:00Z","stale":true"##))
    }

    @Test func rfc3339() {
        let tree = { (t: Int64) in
            PollenTopics.tree(
                topics: TopicLayout(prefix: "p").location("l"), report: syntheticReport([]), today: date(2026, 1, 1),
                days: 1,
                fetchedAt: t, now: t, stale: false)["p/l/pollen/updated_at"]
        }
        #expect(tree(1_796_008_583) == "2026-11-30T03:16:23Z")
        #expect(tree(0) == "1970-01-01T00:00:00Z")
        #expect(tree(-1) == "1969-12-31T23:59:59Z")
        #expect(tree(951_825_600) == "2000-02-29T12:00:00Z")
    }

    @Test func trendComparesTomorrowWithToday() {
        #expect(PollenTrend(today: 1, tomorrow: 3) == .rising)
        #expect(PollenTrend(today: 4, tomorrow: 0) == .falling)
        #expect(PollenTrend(today: 0, tomorrow: 0) == .steady)
        #expect(PollenTrend(today: nil, tomorrow: 2) == .unknown)
        #expect(PollenTrend(today: 2, tomorrow: nil) == .unknown)
    }

    @Test func peakIsTheHighestMaxOverTheDaysWithData() {
        func day(_ d: Int, grass: Int?, tree: Int?) -> PollenDay {
            PollenDay(
                date: date(2026, 5, d),
                items: [
                    PollenItem(code: "GRASS", name: "Grass", isPlant: false, value: grass),
                    PollenItem(code: "TREE", name: "Tree", isPlant: false, value: tree),
                ])
        }
        func select(_ days: [PollenDay]) -> PollenSelection {
            PollenSelection.select(
                report: PollenReport(source: .google, days: days), today: date(2026, 5, 1), days: 4, fetchedAt: 0,
                now: 0, stale: false)
        }
        let busy = select([
            day(1, grass: 1, tree: nil), day(2, grass: 2, tree: 4), day(3, grass: 4, tree: 0),
            day(4, grass: nil, tree: nil),
        ])
        #expect(busy.peak?.date == date(2026, 5, 2))
        #expect(busy.peak?.item.code == "TREE")
        let empty = select([day(1, grass: nil, tree: nil), day(2, grass: nil, tree: nil)])
        #expect(empty.peak == nil)
        let tree = PollenTopics.tree(topics: TopicLayout(prefix: "b").location("x"), selection: empty, fetchedAt: 0)
        #expect(tree["b/x/pollen/peak/date"] == "None")
        #expect(tree["b/x/pollen/peak/level"] == "Unknown")
        #expect(
            tree["b/x/pollen/peak"]
                == ##"{"date":null,"id":null,"name":null,"value":null,"level":"Unknown","color":"#8e8e93"}"##)
    }
}
