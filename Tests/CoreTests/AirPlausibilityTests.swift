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

/// Issue 50, finding 7: an air value no atmosphere on Earth gives (AQI and UV 1,000,000) is
/// treated as null — value `None`, level Unknown — with one warning per metric, while the real
/// extremes Open-Meteo sends stay data (docs/operations.md "Plausible air values").
@Suite("Air quality: plausible values")
struct AirPlausibilityTests {
    static let metrics = ["european_aqi", "us_aqi", "pm2_5", "pm10", "uv_index"]

    func tree(_ values: [String: Double]) throws -> (TopicTree, [String]) {
        let body = airQualityBody(
            times: isoHours(from: date(2026, 6, 21), count: 24),
            series: Self.metrics.map { name in (name, [Double?](repeating: values[name], count: 24)) }, offset: "0")
        let report = try airReport(body)
        let reading = AirReading.select(report: report, zone: .utc, now: utc(2026, 6, 21, 12, 5))
        let tree = AirTopics.tree(
            topics: TopicLayout(prefix: "breeze").location("home"), reading: reading, fetchedAt: 0, stale: false)
        return (tree, report.warnings)
    }

    /// 1,000,000 of everything: all Unknown, one warning per metric naming its range.
    @Test func aMillionIsUnknown() throws {
        let (tree, warnings) = try tree(Dictionary(uniqueKeysWithValues: Self.metrics.map { ($0, 1_000_000) }))
        for metric in Self.metrics + ["uv_index_max"] {
            #expect(tree["breeze/home/air/\(metric)/value"] == "None", "\(metric)")
        }
        for metric in ["european_aqi", "us_aqi", "uv_index", "uv_index_max"] {
            #expect(tree["breeze/home/air/\(metric)/level"] == "Unknown", "\(metric)")
        }
        #expect(
            warnings == [
                "air: 24 european_aqi value(s) above 10000, the most a real atmosphere gives, published as Unknown",
                "air: 24 us_aqi value(s) above 20000, the most a real atmosphere gives, published as Unknown",
                "air: 24 pm2_5 value(s) above 10000, the most a real atmosphere gives, published as Unknown",
                "air: 24 pm10 value(s) above 20000, the most a real atmosphere gives, published as Unknown",
                "air: 24 uv_index value(s) above 45, the most a real atmosphere gives, published as Unknown",
            ])
    }

    /// Real extremes stay data: US AQI 1,008 and 702 (what Open-Meteo sent for Gurgaon and an
    /// Indian city in 2025, beyond the EPA's 500), European AQI 444 (PM2.5 at 1,000 µg/m³ on
    /// the 2024 bands, extrapolated as Open-Meteo does), PM10 10,155 µg/m³ (the hourly reading of
    /// the Las Cruces dust storm of 18 March 2012), UV 26 (the high Andes).
    @Test func realExtremesArePublished() throws {
        let (tree, warnings) = try tree([
            "european_aqi": 444, "us_aqi": 1_008, "pm2_5": 1_139, "pm10": 10_155, "uv_index": 26,
        ])
        #expect(tree["breeze/home/air/european_aqi/value"] == "444")
        #expect(tree["breeze/home/air/european_aqi/level"] == "Extremely poor")
        #expect(tree["breeze/home/air/us_aqi/value"] == "1008")
        #expect(tree["breeze/home/air/us_aqi/level"] == "Hazardous")
        #expect(tree["breeze/home/air/pm2_5/value"] == "1139.0")
        #expect(tree["breeze/home/air/pm10/value"] == "10155.0")
        #expect(tree["breeze/home/air/uv_index/value"] == "26")
        #expect(tree["breeze/home/air/uv_index_max/level"] == "Extreme")
        #expect(warnings.isEmpty)
    }

    /// Each bound is inclusive; just past it is Unknown. Negative values keep their own words.
    @Test(arguments: [
        ("european_aqi", 10_000.0, 10_000.5), ("us_aqi", 20_000, 20_000.5), ("pm2_5", 10_000, 10_000.05),
        ("pm10", 20_000, 20_000.05), ("uv_index", 45, 45.5),
    ])
    func boundsAreInclusive(metric: String, atBound: Double, beyond: Double) throws {
        let (kept, keptWarnings) = try tree([metric: atBound])
        #expect(kept["breeze/home/air/\(metric)/value"] != "None")
        #expect(keptWarnings.isEmpty)
        let (dropped, droppedWarnings) = try tree([metric: beyond])
        #expect(dropped["breeze/home/air/\(metric)/value"] == "None")
        #expect(droppedWarnings.count == 1)
        let (negative, negativeWarnings) = try tree([metric: -1])
        #expect(negative["breeze/home/air/\(metric)/value"] == "None")
        #expect(negativeWarnings == ["air: 24 negative \(metric) value(s), published as Unknown"])
    }

    /// Out of range both ways in one body: still one line for the metric.
    @Test func oneWarningPerMetric() throws {
        let body = airQualityBody(
            times: isoHours(from: date(2026, 6, 21), count: 3), series: [("us_aqi", [-1, 1_000_000, 42])],
            offset: "0")
        let report = try airReport(body)
        #expect(report.hours.map { $0.tenths[.usAQI] } == [nil, nil, 420])
        #expect(
            report.warnings == [
                "air: 2 us_aqi value(s) outside 0…20000 (1 negative), published as Unknown"
            ])
    }
}
