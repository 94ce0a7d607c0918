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

/// Unix seconds of a UTC wall-clock time (test literals).
func utc(_ y: Int, _ m: Int, _ d: Int, _ h: Int, _ min: Int = 0) -> Int64 {
    Int64(date(y, m, d).daysSinceEpoch) * 86_400 + Int64(h * 3600 + min * 60)
}

/// A zone read from the system zoneinfo (package tzdata), as the agent reads it.
func zoneInfo(_ name: String) throws -> ZoneRules {
    try ZoneRules(tzif: [UInt8](try Data(contentsOf: URL(fileURLWithPath: "/usr/share/zoneinfo/" + name))))
}

enum AirFixtures {
    static let summer = "air/synthetic__air_berlin_2026-06-21.json"
    static let dstEnd = "air/synthetic__air_berlin_2026-10-25_dst_end.json"
}

func airReport(_ body: [UInt8], status: Int = 200) throws -> AirReport {
    let outcome = AirQualityDecoder.interpret(httpStatus: status, body: body)
    guard case .report(let report) = outcome else {
        Issue.record("expected a report, got \(outcome)")
        throw CancellationError()
    }
    return report
}

/// An iso8601 body written at `offset`: 24 hourly steps of `day` from local midnight (as the
/// server lays them out), one series per metric given.
func airBody(day: CivilDate, offset: Int, series: [String: [Double?]], hours: Int = 24) -> [UInt8] {
    let times = (0..<hours).map { h -> String in
        let d = day.adding(days: h / 24)
        let hh = h % 24
        return "\"\(d)T\(hh < 10 ? "0" : "")\(hh):00\""
    }
    let members = series.keys.sorted().map { key in
        "\"\(key)\":[" + series[key]!.map { $0.map { String($0) } ?? "null" }.joined(separator: ",") + "]"
    }
    return utf8(
        #"{"latitude":52.5,"longitude":13.4,"utc_offset_seconds":"# + String(offset)
            + #","hourly_units":{"time":"iso8601"},"hourly":{"time":["# + times.joined(separator: ",") + "]"
            + members.map { "," + $0 }.joined() + "}}")
}

@Suite("Air quality: request and call weight")
struct AirRequestTests {
    @Test func query() {
        let query = AirQualityRequest.query(latitude: 52.52, longitude: 13.405, timezone: "Europe/Berlin")
        #expect(query.map(\.name) == ["latitude", "longitude", "hourly", "forecast_days", "timezone", "timeformat"])
        #expect(
            query.map(\.value) == [
                "52.52", "13.405", "european_aqi,us_aqi,pm2_5,pm10,uv_index", "1", "Europe/Berlin", "iso8601",
            ])
        #expect(!query.contains { $0.name == "domains" })  // auto: worldwide
        #expect(AirQualityRequest.path == "/air-quality")
        #expect(AirQualityRequest.weight == .calls(1))
    }
}

@Suite("Air quality: bands")
struct AirBandTests {
    /// (index, level, color): both sides of every boundary of the SPEC §10.1 table.
    @Test(arguments: [
        (0, "Good", "#50f0e6"), (20, "Good", "#50f0e6"), (21, "Fair", "#50ccaa"), (40, "Fair", "#50ccaa"),
        (41, "Moderate", "#f0e641"), (60, "Moderate", "#f0e641"), (61, "Poor", "#ff5050"), (80, "Poor", "#ff5050"),
        (81, "Very poor", "#960032"), (100, "Very poor", "#960032"), (101, "Extremely poor", "#7d2181"),
        (1000, "Extremely poor", "#7d2181"),
    ])
    func europeanAQI(value: Int, level: String, color: String) {
        let band = AirMetric.europeanAQI.band(tenths: value * 10)
        #expect(band == AirBand(level: level, color: HexColor(hex: color)!))
    }

    @Test(arguments: [
        (0, "Good", "#00e400"), (50, "Good", "#00e400"), (51, "Moderate", "#ffff00"), (100, "Moderate", "#ffff00"),
        (101, "Unhealthy for sensitive groups", "#ff7e00"), (150, "Unhealthy for sensitive groups", "#ff7e00"),
        (151, "Unhealthy", "#ff0000"), (200, "Unhealthy", "#ff0000"), (201, "Very unhealthy", "#8f3f97"),
        (300, "Very unhealthy", "#8f3f97"), (301, "Hazardous", "#7e0023"), (500, "Hazardous", "#7e0023"),
    ])
    func usAQI(value: Int, level: String, color: String) {
        let band = AirMetric.usAQI.band(tenths: value * 10)
        #expect(band == AirBand(level: level, color: HexColor(hex: color)!))
    }

    /// UV in tenths: rounded half up to a whole index first, so 2.4 is Low and 2.5 Moderate.
    @Test(arguments: [
        (0, "Low", "#289500"), (24, "Low", "#289500"), (25, "Moderate", "#f7e400"), (30, "Moderate", "#f7e400"),
        (54, "Moderate", "#f7e400"), (55, "High", "#f85900"), (60, "High", "#f85900"), (74, "High", "#f85900"),
        (75, "Very high", "#d8001d"), (80, "Very high", "#d8001d"), (104, "Very high", "#d8001d"),
        (105, "Extreme", "#6b49c8"), (110, "Extreme", "#6b49c8"), (200, "Extreme", "#6b49c8"),
    ])
    func uvIndex(tenths: Int, level: String, color: String) {
        let expected = AirBand(level: level, color: HexColor(hex: color)!)
        #expect(AirMetric.uvIndex.band(tenths: tenths) == expected)
        #expect(AirMetric.uvIndexMax.band(tenths: tenths) == expected)
    }

    @Test(arguments: [AirMetric.europeanAQI, .usAQI, .uvIndex, .uvIndexMax])
    func nullAndNegativeAreUnknown(metric: AirMetric) {
        #expect(metric.band(tenths: nil) == .unknown)
        #expect(metric.band(tenths: -1) == .unknown)
        #expect(metric.band(tenths: -10) == .unknown)
        #expect(AirBand.unknown.level == "Unknown" && AirBand.unknown.color.description == "#8e8e93")
    }

    @Test func particulatesHaveNoBand() {
        #expect(AirMetric.pm2_5.band(tenths: 123) == nil)
        #expect(AirMetric.pm10.band(tenths: nil) == nil)
        #expect(AirBand.levels(of: .pm10).isEmpty)
    }

    @Test func levelListsCoverTheBands() {
        for metric in [AirMetric.europeanAQI, .usAQI, .uvIndex] {
            let seen = Set((0...5000).compactMap { metric.band(tenths: $0)?.level })
            #expect(seen.union(["Unknown"]) == Set(AirBand.levels(of: metric)))
        }
    }
}

@Suite("Air quality: decoding and the current hour")
struct AirDecodeTests {
    @Test func summerFixtureCurrentHourAndMax() throws {
        let report = try airReport(try PollenFixtures.bytes(AirFixtures.summer))
        #expect(report.hours.count == 24)
        #expect(report.warnings.isEmpty)
        // 00:00 at UTC+2 is 22:00Z the day before.
        #expect(report.hours.first?.instant == utc(2026, 6, 20, 22))
        let berlin = try zoneInfo("Europe/Berlin")
        // 13:20 CEST is 11:20Z: the 13:00 entry.
        let reading = AirReading.select(report: report, zone: berlin, now: utc(2026, 6, 21, 11, 20))
        #expect(reading.today == date(2026, 6, 21))
        #expect(reading.hour == utc(2026, 6, 21, 11))
        #expect(reading.value(.europeanAQI) == 430)
        #expect(reading.value(.usAQI) == 660)
        #expect(reading.value(.pm2_5) == 129)
        #expect(reading.value(.pm10) == 212)
        // UV 7.4 is the whole index 7 (SPEC §10.1: rounded half up once, then banded).
        #expect(reading.value(.uvIndex) == 70)
        #expect(reading.value(.uvIndexMax) == 70)
        // At 18:59 local UV is 2.0 (Low) while today's max stays 7.4 → 7 (High).
        let evening = AirReading.select(report: report, zone: berlin, now: utc(2026, 6, 21, 16, 59))
        #expect(evening.value(.uvIndex) == 20)
        #expect(evening.value(.uvIndexMax) == 70)
        #expect(AirMetric.uvIndex.band(tenths: evening.value(.uvIndex))?.level == "Low")
        #expect(AirMetric.uvIndexMax.band(tenths: evening.value(.uvIndexMax))?.level == "High")
        // The hour boundary: 23:59:59 local is still the 23:00 entry, local midnight is not in the data.
        let last = AirReading.select(report: report, zone: berlin, now: utc(2026, 6, 21, 21, 59) + 59)
        #expect(last.hour == utc(2026, 6, 21, 21) && last.value(.europeanAQI) == 270)
        let next = AirReading.select(report: report, zone: berlin, now: utc(2026, 6, 21, 22))
        #expect(next.today == date(2026, 6, 22))
        #expect(next.hour == nil && next.tenths.isEmpty)
    }

    /// The server writes the whole day at the request-time offset (API-FACTS §2.3): after the
    /// fall-back at 03:00 CEST the entry texts run an hour ahead of real local time.
    @Test func dstEndMatchesByInstantNotText() throws {
        let report = try airReport(try PollenFixtures.bytes(AirFixtures.dstEnd))
        let berlin = try zoneInfo("Europe/Berlin")
        // 12:30 CET = 11:30Z. Now floored is 12:00 CET = 11:00Z, which the body writes "13:00"
        // (index 13: EAQI 44). The entry *written* "12:00" (index 12, EAQI 42) is 11:00 CET.
        let noon = AirReading.select(report: report, zone: berlin, now: utc(2026, 10, 25, 11, 30))
        #expect(noon.hour == utc(2026, 10, 25, 11))
        #expect(noon.value(.europeanAQI) == 440)
        #expect(noon.value(.usAQI) == 670)
        #expect(noon.value(.pm2_5) == 133)
        #expect(noon.value(.uvIndex) == 20)  // 1.8 → 2
        // The repeated hour: 02:30 CEST (00:30Z) and 02:30 CET (01:30Z) are different entries.
        let first = AirReading.select(report: report, zone: berlin, now: utc(2026, 10, 25, 0, 30))
        let second = AirReading.select(report: report, zone: berlin, now: utc(2026, 10, 25, 1, 30))
        #expect(first.value(.europeanAQI) == 280)  // written "02:00"
        #expect(second.value(.europeanAQI) == 270)  // written "03:00"
        // Every entry is on the 25th in real local time (22:00Z on the 24th is 00:00 CEST).
        #expect(noon.value(.uvIndexMax) == 20)  // 1.9 → 2
        #expect(noon.today == date(2026, 10, 25))
    }

    /// Spring forward, asked at 00:30 CET: entries are written at UTC+1 all day.
    @Test func dstStartMatchesByInstant() throws {
        let eaqi = (0..<24).map { Double($0) }
        let body = airBody(day: date(2026, 3, 29), offset: 3600, series: ["european_aqi": eaqi])
        let report = try airReport(body)
        let berlin = try zoneInfo("Europe/Berlin")
        // 15:10 CEST = 13:10Z → 13:00Z, written "14:00" at UTC+1.
        let reading = AirReading.select(report: report, zone: berlin, now: utc(2026, 3, 29, 13, 10))
        #expect(reading.value(.europeanAQI) == 140)
        // 01:59 CET (00:59Z), before the switch: written "01:00".
        let early = AirReading.select(report: report, zone: berlin, now: utc(2026, 3, 29, 0, 59))
        #expect(early.value(.europeanAQI) == 10)
    }

    /// Unix times (the real Brno body) are instants already; the response's offset is not applied.
    @Test func brnoUnixTimes() throws {
        let report = try airReport(try PollenFixtures.bytes(PollenFixtures.brno))
        #expect(report.hours.count == 72)
        let prague = try zoneInfo("Europe/Prague")
        // 10:45 CEST on 1 October = 08:45Z: the 11th entry (10:00 local).
        let reading = AirReading.select(report: report, zone: prague, now: utc(2026, 10, 1, 8, 45))
        #expect(reading.hour == Int64(1_790_805_600 + 10 * 3600))
        #expect(reading.value(.europeanAQI) == 240)
        #expect(reading.value(.pm2_5) == 72)
        #expect(reading.value(.pm10) != nil)
        // The body has no us_aqi and no uv_index: Unknown, not an error.
        #expect(reading.value(.usAQI) == nil && reading.value(.uvIndex) == nil)
        #expect(reading.value(.uvIndexMax) == nil)
        // The next local day is in the body too (72 hours).
        let tomorrow = AirReading.select(report: report, zone: prague, now: utc(2026, 10, 2, 8, 45))
        #expect(tomorrow.value(.europeanAQI) == 280)  // index 34
    }

    @Test func newYorkNegativeOffset() throws {
        let report = try airReport(try PollenFixtures.bytes(PollenFixtures.newYork))
        let newYork = try zoneInfo("America/New_York")
        // 18:05 EDT = 22:05Z; the first entry is 00:00 EDT (04:00Z), so index 18.
        let reading = AirReading.select(report: report, zone: newYork, now: utc(2026, 10, 1, 22, 5))
        #expect(reading.hour == utc(2026, 10, 1, 22))
        #expect(reading.value(.europeanAQI) == 460)
        #expect(reading.today == date(2026, 10, 1))
    }

    @Test func frenckFixtureIsoHours() throws {
        let report = try airReport(try PollenFixtures.bytes(PollenFixtures.netherlands))
        let amsterdam = try zoneInfo("Europe/Amsterdam")
        let reading = AirReading.select(report: report, zone: amsterdam, now: utc(2026, 10, 3, 0, 30))
        #expect(reading.value(.europeanAQI) == 420 && reading.value(.usAQI) == 620)
        #expect(reading.value(.pm2_5) == 189 && reading.value(.pm10) == 239)
        #expect(reading.value(.uvIndex) == 0 && reading.value(.uvIndexMax) == 0)
    }

    /// India is UTC+5:30: local hours start at :30 UTC, and so do Open-Meteo's entries there.
    @Test func halfHourZone() throws {
        let body = airBody(
            day: date(2026, 6, 1), offset: 19_800, series: ["us_aqi": (0..<24).map { Double(100 + $0) }])
        let report = try airReport(body)
        let kolkata = try zoneInfo("Asia/Kolkata")  // UTC+5:30 all year
        // 10:40 IST = 05:10Z → 10:00 IST = 04:30Z.
        let reading = AirReading.select(report: report, zone: kolkata, now: utc(2026, 6, 1, 5, 10))
        #expect(reading.hour == utc(2026, 6, 1, 4, 30))
        #expect(reading.value(.usAQI) == 1100)
    }

    @Test func nullsAndNegativesAreUnknown() throws {
        var uv: [Double?] = Array(repeating: 1.0, count: 24)
        uv[12] = nil
        uv[13] = -0.5
        uv[14] = 9.9  // the max survives the bad neighbours
        var pm: [Double?] = Array(repeating: 5.0, count: 24)
        pm[12] = -3
        let body = airBody(
            day: date(2026, 6, 21), offset: 7200,
            series: [
                "european_aqi": Array(repeating: nil, count: 24), "us_aqi": Array(repeating: -1, count: 24),
                "uv_index": uv, "pm2_5": pm,
            ])
        let report = try airReport(body)
        #expect(report.warnings.contains("air: 24 negative us_aqi value(s), published as Unknown"))
        #expect(report.warnings.contains("air: 1 negative uv_index value(s), published as Unknown"))
        #expect(report.warnings.contains("air: 1 negative pm2_5 value(s), published as Unknown"))
        let zone = try zoneInfo("Etc/GMT-2")  // UTC+2 all year
        let at12 = AirReading.select(report: report, zone: zone, now: utc(2026, 6, 21, 10, 1))
        #expect(at12.value(.europeanAQI) == nil && at12.value(.usAQI) == nil)
        #expect(at12.value(.uvIndex) == nil && at12.value(.pm2_5) == nil && at12.value(.pm10) == nil)
        #expect(at12.value(.uvIndexMax) == 100)  // 9.9 → 10
        let at13 = AirReading.select(report: report, zone: zone, now: utc(2026, 6, 21, 11, 1))
        #expect(at13.value(.uvIndex) == nil)
        let tree = AirTopics.tree(
            topics: TopicLayout(prefix: "breeze").location("home"), reading: at12, fetchedAt: 0, stale: false)
        for metric in ["european_aqi", "us_aqi", "uv_index"] {
            #expect(tree["breeze/home/air/\(metric)/value"] == "None")
            #expect(tree["breeze/home/air/\(metric)/level"] == "Unknown")
            #expect(tree["breeze/home/air/\(metric)/color"] == "#8e8e93")
        }
        #expect(tree["breeze/home/air/pm2_5/value"] == "None")
        #expect(tree["breeze/home/air/uv_index_max/level"] == "Very high")
        // A current hour that exists but is all null is not stale: the data says "unknown".
        #expect(tree["breeze/home/air/stale"] == "false")
    }

    @Test func allUnknownUVMax() throws {
        let body = airBody(
            day: date(2026, 6, 21), offset: 7200,
            series: [
                "uv_index": [Double?](repeating: nil, count: 23) + [-1],
                "european_aqi": [Double?](repeating: 10, count: 24),
            ])
        let reading = AirReading.select(
            report: try airReport(body), zone: try zoneInfo("Etc/GMT-2"), now: utc(2026, 6, 21, 10))
        #expect(reading.value(.uvIndexMax) == nil)
        #expect(reading.value(.europeanAQI) == 100)
    }

    @Test func roundingOfFractionalValues() throws {
        let body = airBody(
            day: date(2026, 6, 21), offset: 0,
            series: [
                "european_aqi": [20.4, 20.5, 0, 0], "us_aqi": [50.49, 50.5, 0, 0], "uv_index": [2.46, 2.44, 0, 0],
                "pm10": [12.04, 12.06, 0, 0],
            ], hours: 4)
        let report = try airReport(body)
        #expect(report.hours[0].tenths[.europeanAQI] == 200)  // 20.4 → 20: Good
        #expect(report.hours[1].tenths[.europeanAQI] == 210)  // 20.5 → 21: Fair
        #expect(report.hours[0].tenths[.usAQI] == 500 && report.hours[1].tenths[.usAQI] == 510)
        // UV is a whole index, rounded once from the API's value: 2.46 and 2.44 are both 2 (Low).
        #expect(report.hours[0].tenths[.uvIndex] == 20 && report.hours[1].tenths[.uvIndex] == 20)
        #expect(report.hours[0].tenths[.pm10] == 120 && report.hours[1].tenths[.pm10] == 121)
        #expect(AirMetric.europeanAQI.band(tenths: report.hours[1].tenths[.europeanAQI])?.level == "Fair")
        #expect(AirMetric.uvIndex.band(tenths: report.hours[0].tenths[.uvIndex])?.level == "Low")
    }

    /// Issue 27 finding 10: UV is banded once, from the API's value rounded half up (SPEC §10.1),
    /// and the published value is that whole number, never a one-decimal text banded again
    /// (2.49 is Low, not Moderate). Every x.45 … x.50 edge of the four band limits.
    @Test(arguments: [2, 5, 7, 10])
    func uvIsBandedOnceAtEveryEdge(whole: Int) throws {
        let hundredths = Array(45...50)
        let values = hundredths.map { Double(whole) + Double($0) / 100 }
        let body = airBody(day: date(2026, 6, 21), offset: 0, series: ["uv_index": values], hours: values.count)
        let report = try airReport(body)
        let zone = try zoneInfo("Etc/UTC")
        for (hour, fraction) in hundredths.enumerated() {
            let expected = fraction < 50 ? whole : whole + 1
            let reading = AirReading.select(report: report, zone: zone, now: utc(2026, 6, 21, hour, 5))
            let tree = AirTopics.tree(
                topics: TopicLayout(prefix: "breeze").location("home"), reading: reading, fetchedAt: 0, stale: false)
            let label = "\(whole).\(fraction)"
            #expect(tree["breeze/home/air/uv_index/value"] == String(expected), "\(label)")
            #expect(tree["breeze/home/air/uv_index/level"] == AirBand.uvIndex(expected).level, "\(label)")
            #expect(tree["breeze/home/air/uv_index/color"] == AirBand.uvIndex(expected).color.description, "\(label)")
        }
    }

    @Test func implausibleValuesDoNotTrap() throws {
        let body = utf8(
            #"{"utc_offset_seconds":0,"hourly":{"time":["2026-06-21T00:00","2026-06-21T01:00"],"#
                + #""european_aqi":[1e300,-1e300],"pm2_5":[1.7976931348623157e308,3.0]}}"#)
        let report = try airReport(body)
        #expect(report.hours[0].tenths.isEmpty)
        #expect(report.hours[1].tenths == [.pm2_5: 30])
        #expect(
            report.warnings == [
                "air: 2 european_aqi value(s) outside 0…10000 (1 negative), published as Unknown",
                "air: 1 pm2_5 value(s) above 10000, the most a real atmosphere gives, published as Unknown",
            ])
    }

    @Test func unreadableHoursAreSkipped() throws {
        let body = utf8(
            #"{"utc_offset_seconds":0,"hourly":{"time":["2026-06-21T00:00","yesterday","2026-06-21T25:00","#
                + #""2026-06-21T02:00"],"european_aqi":[1,2,3,4]}}"#)
        let report = try airReport(body)
        #expect(report.hours.map(\.instant) == [utc(2026, 6, 21, 0), utc(2026, 6, 21, 2)])
        #expect(report.hours.map { $0.tenths[.europeanAQI] } == [10, 40])  // values stay with their hour
        #expect(report.warnings.count == 2)
    }

    @Test func hourCountIsBounded() throws {
        let hours = AirQualityDecoder.maximumHours + 10
        let times = (0..<hours).map { String(1_790_805_600 + Int64($0) * 3600) }.joined(separator: ",")
        let body = utf8(#"{"utc_offset_seconds":0,"hourly":{"time":["# + times + "]}}")
        let report = try airReport(body)
        #expect(report.hours.count == AirQualityDecoder.maximumHours)
        #expect(report.warnings == ["air: 10 hour(s) beyond \(AirQualityDecoder.maximumHours) dropped"])
    }

    @Test func shortSeriesAreNullBeyondTheirEnd() throws {
        let body = airBody(day: date(2026, 6, 21), offset: 0, series: ["pm10": [1, 2, 3]])
        let report = try airReport(body)
        #expect(report.hours.count == 24)
        #expect(report.hours[2].tenths == [.pm10: 30] && report.hours[3].tenths.isEmpty)
    }
}

@Suite("Air quality: faults")
struct AirFaultTests {
    func failure(_ status: Int, _ body: [UInt8]) -> String? {
        if case .failed(let message) = AirQualityDecoder.interpret(httpStatus: status, body: body) { return message }
        return nil
    }

    @Test func httpErrors() throws {
        #expect(failure(500, utf8("Internal Server Error")) == "HTTP 500")
        #expect(failure(503, []) == "HTTP 503")
        // A valid body with a non-200 status is still a failure.
        #expect(failure(502, try PollenFixtures.bytes(AirFixtures.summer)) == "HTTP 502")
        #expect(
            failure(429, utf8(#"{"reason":"Minutely API request limit exceeded.","error":true}"#))
                == "HTTP 429: Minutely API request limit exceeded.")
        #expect(failure(400, utf8(#"{"error":true,"reason":"Cannot initialize AirQualityVariable"}"#)) != nil)
    }

    @Test func truncatedAndInvalidBodies() throws {
        let full = try PollenFixtures.bytes(AirFixtures.summer)
        for cut in [1, 100, full.count / 2, full.count - 1] {
            let message = failure(200, Array(full.prefix(cut)))
            #expect(message?.hasPrefix("invalid Open-Meteo air-quality response") == true, "cut at \(cut)")
        }
        // A failure while streaming appends text after a 200 (API-FACTS §2.3).
        #expect(failure(200, full + utf8("Unexpected error while streaming data: timeout")) != nil)
        #expect(failure(200, utf8(#"{"latitude":1}"#)) == "Open-Meteo air-quality response without hourly times")
        #expect(failure(200, utf8(#"{"hourly":{"time":[true]}}"#)) != nil)
        #expect(failure(200, utf8(#"{"utc_offset_seconds":9000000,"hourly":{"time":[]}}"#)) != nil)
    }
}

@Suite("Air quality: topics")
struct AirTopicTests {
    func summerReading(now: Int64 = utc(2026, 6, 21, 11, 20)) throws -> AirReading {
        AirReading.select(
            report: try airReport(try PollenFixtures.bytes(AirFixtures.summer)), zone: try zoneInfo("Europe/Berlin"),
            now: now)
    }

    @Test func scalars() throws {
        let tree = AirTopics.tree(
            topics: TopicLayout(prefix: "breeze").location("home"), reading: try summerReading(),
            fetchedAt: utc(2026, 6, 21, 11, 5),
            stale: false)
        let base = "breeze/home/air"
        let expected: [(String, String)] = [
            ("european_aqi/value", "43"), ("european_aqi/level", "Moderate"), ("european_aqi/color", "#f0e641"),
            ("us_aqi/value", "66"), ("us_aqi/level", "Moderate"), ("us_aqi/color", "#ffff00"),
            ("pm2_5/value", "12.9"), ("pm10/value", "21.2"),
            ("uv_index/value", "7"), ("uv_index/level", "High"), ("uv_index/color", "#f85900"),
            ("uv_index_max/value", "7"), ("uv_index_max/level", "High"), ("uv_index_max/color", "#f85900"),
            ("updated_at", "2026-06-21T11:05:00Z"), ("stale", "false"),
        ]
        for (topic, payload) in expected { #expect(tree["\(base)/\(topic)"] == payload, "\(topic)") }
        #expect(tree["\(base)/pm2_5/level"] == nil && tree["\(base)/pm10/color"] == nil)
        #expect(tree.count == 1 + expected.count)
        #expect(tree.topics.allSatisfy { $0 == base || $0.hasPrefix(base + "/") })
    }

    @Test func json() throws {
        let tree = AirTopics.tree(
            topics: TopicLayout(prefix: "breeze").location("home"), reading: try summerReading(),
            fetchedAt: utc(2026, 6, 21, 11, 5),
            stale: true)
        let expected =
            #"{"date":"2026-06-21","hour":"2026-06-21T11:00:00Z","updated_at":"2026-06-21T11:05:00Z","stale":true,"#
            + #""attribution":"Air quality data by Open-Meteo.com (CC BY 4.0, https://open-meteo.com/). "#
            + #"Contains modified Copernicus Atmosphere Monitoring Service information 2026. "#
            + #"Neither the European Commission nor ECMWF is responsible for any use that may be made of the "#
            + #"information it contains.","#
            + ##""european_aqi":{"value":43,"level":"Moderate","color":"#f0e641"},"##
            + ##""us_aqi":{"value":66,"level":"Moderate","color":"#ffff00"},"##
            + #""pm2_5":{"value":12.9,"unit":"μg/m³"},"pm10":{"value":21.2,"unit":"μg/m³"},"#
            + ##""uv_index":{"value":7,"level":"High","color":"#f85900"},"##
            + ##""uv_index_max":{"value":7,"level":"High","color":"#f85900"}}"##
        #expect(tree["breeze/home/air"] == expected)
        #expect(tree["breeze/home/air/stale"] == "true")
        // GREEK SMALL LETTER MU, as Open-Meteo writes it.
        #expect(AirMetric.microgramsPerCubicMetre.unicodeScalars.first?.value == 0x03BC)
    }

    /// Stored data from yesterday: no entry for the current hour → all Unknown and stale, even
    /// when the last fetch succeeded.
    @Test func noCurrentHourIsStaleAndUnknown() throws {
        let reading = try summerReading(now: utc(2026, 6, 22, 9))
        let tree = AirTopics.tree(
            topics: TopicLayout(prefix: "p").location("l"), reading: reading, fetchedAt: 0, stale: false)
        #expect(tree["p/l/air/stale"] == "true")
        #expect(tree["p/l/air/european_aqi/value"] == "None")
        #expect(tree["p/l/air/uv_index_max/level"] == "Unknown")
        let json = try #require(tree["p/l/air"])
        #expect(json.contains(#""date":"2026-06-22","hour":null,"#))
        #expect(json.contains(#""pm2_5":{"value":null,"unit":"μg/m³"}"#))
        #expect(json.contains(##""uv_index_max":{"value":null,"level":"Unknown","color":"#8e8e93"}"##))
    }

    @Test func displayMember() throws {
        #expect(
            AirTopics.displayJSON(reading: try summerReading()).serialized
                == ##"{"eu":[43,"#f0e641"],"us":[66,"#ffff00"],"uv":[7,"#f85900"],"uvmax":[7,"#f85900"],"##
                + #""pm25":12.9,"pm10":21.2}"#)
        let empty = AirReading(today: date(2026, 1, 1), hour: nil, tenths: [:])
        #expect(
            AirTopics.displayJSON(reading: empty).serialized
                == ##"{"eu":[null,"#8e8e93"],"us":[null,"#8e8e93"],"uv":[null,"#8e8e93"],"uvmax":[null,"#8e8e93"],"##
                + #""pm25":null,"pm10":null}"#)
    }

    @Test func valueText() {
        #expect(AirTopics.text(.europeanAQI, 430) == "43")
        #expect(AirTopics.text(.pm2_5, 5) == "0.5")
        #expect(AirTopics.text(.uvIndex, 0) == "0")  // a whole index (SPEC §16 "UV is banded once")
        #expect(AirTopics.text(.pm10, 12345) == "1234.5")
    }
}
