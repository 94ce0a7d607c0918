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

func openMeteoReport(_ body: [UInt8]) throws -> PollenReport {
    let outcome = OpenMeteoPollen.interpret(httpStatus: 200, body: body)
    guard case .report(let report) = outcome else {
        Issue.record("expected a report, got \(outcome)")
        throw CancellationError()
    }
    return report
}

/// An iso8601 body: `hours` hourly steps from local midnight of 2026-04-01, one series per
/// variable given (other pollen variables absent).
func isoBody(hours: Int, series: [String: [Double?]], start: String = "2026-04-01") -> [UInt8] {
    let times = (0..<hours).map { h -> String in
        let day = date(2026, 4, 1).adding(days: h / 24)
        let hh = h % 24
        return "\"\(day)T\(hh < 10 ? "0" : "")\(hh):00\""
    }
    let members = series.map { key, values in
        "\"\(key)\":[" + values.map { $0.map { String($0) } ?? "null" }.joined(separator: ",") + "]"
    }
    return utf8(
        #"{"utc_offset_seconds":7200,"timezone":"Europe/Berlin","hourly_units":{"time":"iso8601"},"hourly":{"time":["#
            + times.joined(separator: ",") + "]" + members.map { "," + $0 }.joined() + "}}")
}

extension PollenReport {
    func value(_ code: String, on day: CivilDate) -> Int?? {
        days.first { $0.date == day }.map { $0.items.first { $0.code == code }?.value ?? nil }
    }
}

@Suite("Open-Meteo pollen")
struct PollenOpenMeteoTests {
    @Test func brnoUnixTimeWithOffset() throws {
        let report = try openMeteoReport(try PollenFixtures.bytes(PollenFixtures.brno))
        #expect(report.source == .openMeteo)
        #expect(report.region == nil)
        // 1790805600 is 2026-09-30T22:00Z: local (UTC+2) midnight of 1 October.
        #expect(report.days.map(\.date) == [date(2026, 10, 1), date(2026, 10, 2), date(2026, 10, 3)])
        #expect(
            report.days[0].items.map(\.code) == [
                "GRASS", "TREE", "WEED", "ALDER", "BIRCH", "OLIVE", "GRAMINALES",
                "MUGWORT", "RAGWEED",
            ])
        let day0 = report.days[0]
        func item(_ code: String, _ day: PollenDay = day0) -> PollenItem { day.items.first { $0.code == code }! }
        #expect(item("ALDER").value == 0 && item("BIRCH").value == 0 && item("OLIVE").value == 0)
        #expect(item("GRAMINALES").value == 0)  // mean 113/24 = 0.47
        #expect(item("GRAMINALES").grainsPerCubicMetre == GrainsPerCubicMetre(meanTenths: 5, maxTenths: 6))
        #expect(item("MUGWORT").value == 1)  // mean 3.02
        #expect(item("MUGWORT").grainsPerCubicMetre == GrainsPerCubicMetre(meanTenths: 30, maxTenths: 43))
        #expect(item("RAGWEED").value == 1)  // mean 0.87
        #expect(item("RAGWEED", report.days[1]).value == 0)  // mean 0.35
        #expect(item("GRASS").value == 0 && item("TREE").value == 0 && item("WEED").value == 1)
        #expect(item("WEED").grainsPerCubicMetre == nil)
        #expect(item("RAGWEED").name == "Ragweed" && item("RAGWEED").category == "WEED" && item("RAGWEED").isPlant)
        #expect(item("GRAMINALES").name == "Grasses" && item("GRAMINALES").inSeason == nil)
    }

    @Test func brnoTopics() throws {
        let report = try openMeteoReport(try PollenFixtures.bytes(PollenFixtures.brno))
        let tree = PollenTopics.tree(
            topics: TopicLayout(prefix: "breeze").location("brno"), report: report, today: date(2026, 10, 1), days: 5,
            fetchedAt: 1_790_830_000, now: 1_790_830_000, stale: false)
        let base = "breeze/brno/pollen"
        #expect(tree["\(base)/mugwort/value"] == "1")
        #expect(tree["\(base)/mugwort/d1/value"] == "1")  // mean 874/240 = 3.6
        #expect(tree["\(base)/mugwort/d3/value"] == "None")  // beyond the 72 h series
        #expect(tree["\(base)/mugwort/d4/value"] == nil)  // never d4 from this source
        let mugwort = try #require(tree["\(base)/mugwort"])
        #expect(mugwort.contains(#""in_season":null,"image_url":null"#))
        #expect(
            mugwort.contains(
                #""index_color":null,"grains_per_m3":{"mean":3.0,"max":4.3},"source":"open-meteo","forecast":["#))
        let summary = try #require(tree[base])
        #expect(summary.contains(#""region":null,"source":"open-meteo""#))
        #expect(
            summary.contains(
                #""attribution":"Pollen data by Open-Meteo.com (CC BY 4.0, https://open-meteo.com/). "#
                    + "Contains modified Copernicus Atmosphere Monitoring Service information 2026. "
                    + "Neither the European Commission nor ECMWF is responsible for any use that may be made of the "
                    + #"information it contains.""#))
        #expect(
            tree["\(base)/max"]
                == ##"{"id":"weed","name":"Weed","value":1,"level":"Low","color":"#34c759","color_rgb":[52,199,89],"trend":"steady"}"##
        )
    }

    @Test func newYorkAllNullIsUnsupported() throws {
        let outcome = OpenMeteoPollen.interpret(httpStatus: 200, body: try PollenFixtures.bytes(PollenFixtures.newYork))
        guard case .unsupportedLocation = outcome else {
            Issue.record("expected unsupported, got \(outcome)")
            return
        }
    }

    @Test func netherlandsThreeHoursIsUnknown() throws {
        let report = try openMeteoReport(try PollenFixtures.bytes(PollenFixtures.netherlands))
        #expect(report.days.map(\.date) == [date(2026, 10, 3)])
        #expect(report.days[0].items.allSatisfy { $0.value == nil && $0.grainsPerCubicMetre == nil })
    }

    @Test func errorBodies() {
        let noData = #"{"error":true,"reason":"No data is available for this location"}"#
        #expect(
            OpenMeteoPollen.interpret(httpStatus: 400, body: utf8(noData))
                == .unsupportedLocation(message: "HTTP 400: No data is available for this location"))
        let other = #"{"reason":"Forecast days is invalid. Allowed range 0 to 7. Given 7.","error":true}"#
        #expect(
            OpenMeteoPollen.interpret(httpStatus: 400, body: utf8(other))
                == .failed(message: "HTTP 400: Forecast days is invalid. Allowed range 0 to 7. Given 7."))
        #expect(OpenMeteoPollen.interpret(httpStatus: 503, body: utf8("busy")) == .failed(message: "HTTP 503"))
        guard case .failed = OpenMeteoPollen.interpret(httpStatus: 200, body: utf8(#"{"hourly":{"time":["#)) else {
            Issue.record("truncated JSON must fail")
            return
        }
    }

    /// Every edge of the SPEC §1b table, for every plant: a constant day at `x` and at the
    /// first value of the next band.
    static let edges: [(String, String, [(Int, Int)])] = [
        (
            "alder_pollen", "ALDER",
            [(0, 0), (1, 1), (10, 1), (11, 2), (27, 2), (28, 3), (69, 3), (70, 4), (249, 4), (250, 5)]
        ),
        (
            "birch_pollen", "BIRCH",
            [(0, 0), (1, 1), (10, 1), (11, 2), (27, 2), (28, 3), (69, 3), (70, 4), (299, 4), (300, 5)]
        ),
        (
            "grass_pollen", "GRAMINALES",
            [(0, 0), (1, 1), (19, 1), (20, 2), (29, 2), (30, 3), (49, 3), (50, 4), (149, 4), (150, 5)]
        ),
        (
            "mugwort_pollen", "MUGWORT",
            [(0, 0), (1, 1), (5, 1), (6, 2), (9, 2), (10, 3), (14, 3), (15, 4), (49, 4), (50, 5)]
        ),
        (
            "ragweed_pollen", "RAGWEED",
            [(0, 0), (1, 1), (5, 1), (6, 2), (7, 2), (8, 3), (10, 3), (11, 4), (39, 4), (40, 5)]
        ),
        (
            "olive_pollen", "OLIVE",
            [(0, 0), (1, 1), (50, 1), (51, 2), (100, 2), (101, 3), (200, 3), (201, 4), (399, 4), (400, 5)]
        ),
    ]

    @Test(arguments: edges)
    func thresholds(variable: String, code: String, edges: [(Int, Int)]) throws {
        // One day per edge: 24 hours at the edge value.
        var values: [Double?] = []
        for (grains, _) in edges { values += Array(repeating: Double(grains), count: 24) }
        let report = try openMeteoReport(isoBody(hours: values.count, series: [variable: values]))
        for (n, (grains, expected)) in edges.enumerated() {
            #expect(report.value(code, on: date(2026, 4, 1).adding(days: n)) == expected, "\(code) at \(grains)")
        }
    }

    @Test func meanRoundsHalfUpFromExactTenths() throws {
        // 12 hours at 10.0 and 12 at 11.0: mean exactly 10.5 → 11 → alder value 2.
        // 12 × 10.4 + 12 × 10.5 = 10.45: tenths round to 10.5 but the whole mean is 10 → value 1.
        let day1 = Array(repeating: 10.0, count: 12) + Array(repeating: 11.0, count: 12)
        let day2 = Array(repeating: 10.4, count: 12) + Array(repeating: 10.5, count: 12)
        let report = try openMeteoReport(isoBody(hours: 48, series: ["alder_pollen": (day1 + day2).map { $0 }]))
        #expect(report.value("ALDER", on: date(2026, 4, 1)) == 2)
        #expect(
            report.days[0].items.first { $0.code == "ALDER" }?.grainsPerCubicMetre
                == GrainsPerCubicMetre(meanTenths: 105, maxTenths: 110))
        #expect(report.value("ALDER", on: date(2026, 4, 2)) == 1)
        #expect(
            report.days[1].items.first { $0.code == "ALDER" }?.grainsPerCubicMetre
                == GrainsPerCubicMetre(meanTenths: 105, maxTenths: 105))
    }

    @Test func elevenHoursIsUnknownTwelveIsNot() throws {
        let day1: [Double?] = Array(repeating: 30.0, count: 11) + Array(repeating: nil, count: 13)
        let day2: [Double?] = Array(repeating: 30.0, count: 12) + Array(repeating: nil, count: 12)
        let report = try openMeteoReport(isoBody(hours: 48, series: ["grass_pollen": day1 + day2]))
        #expect(report.value("GRAMINALES", on: date(2026, 4, 1)) == .some(nil))
        #expect(report.value("GRASS", on: date(2026, 4, 1)) == .some(nil))
        #expect(report.value("GRAMINALES", on: date(2026, 4, 2)) == 3)
        #expect(report.value("GRASS", on: date(2026, 4, 2)) == 3)
    }

    @Test func typesTakeTheMaxOfKnownMembers() throws {
        let hours = 24
        let report = try openMeteoReport(
            isoBody(
                hours: hours,
                series: [
                    "alder_pollen": Array(repeating: 80.0, count: hours),  // 4
                    "birch_pollen": Array(repeating: nil, count: hours),  // Unknown
                    "olive_pollen": Array(repeating: 60.0, count: hours),  // 2
                    "mugwort_pollen": Array(repeating: nil, count: hours),
                    "ragweed_pollen": Array(repeating: nil, count: hours),
                    "grass_pollen": Array(repeating: 0.0, count: hours),
                ]))
        let d = date(2026, 4, 1)
        #expect(report.value("TREE", on: d) == 4)
        #expect(report.value("BIRCH", on: d) == .some(nil))
        #expect(report.value("WEED", on: d) == .some(nil))  // all members Unknown
        #expect(report.value("GRASS", on: d) == 0)
    }

    @Test func localDaySpansTwoUTCDates() throws {
        // UTC+2: local 2026-04-01 00:00 is 2026-03-31T22:00Z; 24 hours at 12.0 then 24 at 0.0.
        let localMidnight: Int64 = 1_774_994_400  // 2026-03-31T22:00:00Z
        let times = (0..<48).map { String(localMidnight + Int64($0) * 3600) }
        let values = (0..<48).map { $0 < 24 ? "12.0" : "0.0" }
        let body = utf8(
            #"{"utc_offset_seconds":7200,"hourly_units":{"time":"unixtime"},"hourly":{"time":["#
                + times.joined(separator: ",") + #"],"birch_pollen":["# + values.joined(separator: ",") + "]}}")
        let report = try openMeteoReport(body)
        #expect(report.days.map(\.date) == [date(2026, 4, 1), date(2026, 4, 2)])
        #expect(report.value("BIRCH", on: date(2026, 4, 1)) == 2)  // all 24 hours, two UTC dates
        #expect(report.value("BIRCH", on: date(2026, 4, 2)) == 0)
    }

    @Test func query() {
        let q = OpenMeteoPollen.query(latitude: 49.1951, longitude: 16.6068, timezone: "Europe/Prague")
        #expect(
            q.map(\.name) == ["latitude", "longitude", "hourly", "domains", "forecast_days", "timezone", "timeformat"])
        #expect(
            q.map(\.value) == [
                "49.1951", "16.6068",
                "alder_pollen,birch_pollen,grass_pollen,mugwort_pollen,olive_pollen,ragweed_pollen",
                "cams_europe", "4", "Europe/Prague", "iso8601",
            ])
    }
}
