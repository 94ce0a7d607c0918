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

/// Inputs the libFuzzer targets (fuzz/targets) crashed on, kept under
/// `Fixtures/fuzz-regressions/<target>/` and replayed through the same pure pipeline as the
/// target: each must now give a typed outcome, and the specific ones the outcome we chose.
@Suite struct FuzzRegressionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/fuzz-regressions")

    /// Every saved input of a target (file name, bytes), sorted by name.
    static func inputs(_ target: String) -> [(name: String, bytes: [UInt8])] {
        let directory = root.appendingPathComponent(target)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().compactMap { name in
            guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path)
            else { return nil }
            return (name, Array(data))
        }
    }

    static func input(_ target: String, _ name: String) throws -> [UInt8] {
        try #require(inputs(target).first { $0.name == name }?.bytes, "missing \(target)/\(name)")
    }

    /// 2026-05-01T10:00:00Z, the fetch instant the fuzz targets use.
    static let fetchedAt: Int64 = 1_777_629_600

    /// What the pollen targets do with a report: topics for today at its first and last date,
    /// fresh, a day old and two days old. Checks what must hold for any report.
    static func publish(_ report: PollenReport, days: Int) {
        guard let first = report.days.first, let last = report.days.last else { return }
        for today in [first.date, last.date] {
            for age: Int64 in [0, 30 * 3600, 50 * 3600] {
                let tree = PollenTopics.tree(
                    topics: TopicLayout(prefix: "breeze").location("home"), report: report, today: today, days: days,
                    fetchedAt: fetchedAt, now: fetchedAt + age, stale: age > 0)
                #expect(tree["breeze/home/pollen/stale"] == (age > 0 ? "true" : "false"))
                #expect(tree["breeze/home/pollen/updated_at"] == "2026-05-01T10:00:00Z")
                for topic in tree.topics where topic.hasSuffix("/value") {
                    let value = tree[topic]!
                    #expect(
                        value == PollenTopics.noValue || (Int(value).map { (0...5).contains($0) } ?? false),
                        "\(topic) = \(value)")
                }
            }
        }
    }

    // MARK: Google Pollen

    @Test func everySavedGoogleInputGivesAnOutcome() {
        let inputs = Self.inputs("google-pollen")
        #expect(!inputs.isEmpty)
        for (_, bytes) in inputs {
            for status in [200, 403, 429] {
                if case .report(let report) = GooglePollen.interpret(httpStatus: status, body: bytes) {
                    #expect(!report.days.isEmpty)
                    Self.publish(report, days: 5)
                }
            }
        }
    }

    /// `{"year": 9223372036854775807, …}` made day arithmetic overflow once the date was served.
    @Test func googleDateWithAYearNearIntMaxIsSkippedAsInvalid() throws {
        let body = try Self.input("google-pollen", "year-overflow.json")
        let response = try GooglePollenResponse.decode(body)
        let report = GooglePollen.report(from: response)
        #expect(report.days.isEmpty)
        #expect(report.warnings == ["pollen: dailyInfo[0] has no valid date, skipped"])
        #expect(
            GooglePollen.interpret(httpStatus: 200, body: body)
                == .unsupportedLocation(message: "Google Pollen returned no days for this location"))
    }

    @Test func googleDatesKeepWorkingInsideTheFourDigitYears() throws {
        let body = Array(
            #"{"dailyInfo":[{"date":{"year":9999,"month":12,"day":31}},{"date":{"year":0,"month":1,"day":1}}]}"#.utf8)
        let report = GooglePollen.report(from: try GooglePollenResponse.decode(body))
        #expect(report.days.map(\.date) == [date(9999, 12, 31)])
        #expect(report.warnings == ["pollen: dailyInfo[1] has no valid date, skipped"])
    }

    // MARK: Open-Meteo pollen

    @Test func everySavedOpenMeteoInputGivesAnOutcome() {
        let inputs = Self.inputs("openmeteo-pollen")
        #expect(!inputs.isEmpty)
        for (_, bytes) in inputs {
            for status in [200, 400] {
                if case .report(let report) = OpenMeteoPollen.interpret(httpStatus: status, body: bytes) {
                    Self.publish(report, days: 4)
                }
            }
        }
    }

    /// A mutated air-quality fixture with an hourly pollen value beyond `Int` once in tenths:
    /// `Int((value * 10).rounded())` trapped.
    @Test func openMeteoHugePollenValueCountsAsNull() throws {
        let body = try Self.input("openmeteo-pollen", "huge-value-3c39cf33.json")
        guard case .report(let report) = OpenMeteoPollen.interpret(httpStatus: 200, body: body) else {
            Issue.record("expected a report")
            return
        }
        #expect(report.warnings.contains { $0.contains("implausible") })
        for item in report.days.flatMap(\.items) {
            if let grains = item.grainsPerCubicMetre {
                #expect(grains.maxTenths <= Int(OpenMeteoPollen.maximumGrains) * 10)
            }
        }
    }

    @Test func openMeteoValueBoundIsInclusiveAndSymmetric() throws {
        func hours(_ value: String) -> [UInt8] {
            let times = (0..<12).map { "\"2026-05-01T\($0 < 10 ? "0" : "")\($0):00\"" }.joined(separator: ",")
            let values = Array(repeating: value, count: 12).joined(separator: ",")
            return Array(#"{"hourly":{"time":[\#(times)],"alder_pollen":[\#(values)]}}"#.utf8)
        }
        guard case .report(let atBound) = OpenMeteoPollen.interpret(httpStatus: 200, body: hours("1000000")) else {
            Issue.record("expected a report at the bound")
            return
        }
        #expect(atBound.days.first?.items.first { $0.code == "ALDER" }?.value == 5)
        #expect(atBound.warnings.isEmpty)
        for beyond in ["1000000.5", "-1e300", "1e300"] {
            #expect(
                OpenMeteoPollen.interpret(httpStatus: 200, body: hours(beyond))
                    == .unsupportedLocation(message: "Open-Meteo has no pollen for this location (all values null)"),
                "\(beyond)")
        }
    }

    /// Unix hour stamps whose sum with `utc_offset_seconds` overflows `Int64` trapped. Such an
    /// hour is unreadable, so a body made only of them has no values; an offset of `Int64.max`
    /// is refused outright (issue 50: not within ±86,400 s), before any hour is placed.
    @Test(arguments: [
        (
            "unix-time-overflow.json",
            PollenOutcome.unsupportedLocation(message: "Open-Meteo has no pollen for this location (all values null)")
        ),
        (
            "utc-offset-overflow.json",
            PollenOutcome.failed(
                message: "Open-Meteo air-quality response with utc_offset_seconds 9223372036854775807, "
                    + "not a whole number of seconds within ±86400; refused")
        ),
    ])
    func openMeteoUnixTimeOverflowIsAnUnreadableHour(name: String, outcome: PollenOutcome) throws {
        let body = try Self.input("openmeteo-pollen", name)
        let response = try JSONDecoder().decode(OpenMeteoAirQualityResponse.self, from: Data(body))
        #expect(OpenMeteoPollen.report(from: response) == nil)
        #expect(OpenMeteoPollen.interpret(httpStatus: 200, body: body) == outcome)
    }

    /// The most negative `utc_offset_seconds` an `Int` holds: its magnitude does not fit, and
    /// `abs` of it trapped in the air decoder's offset check. Both readers of the air-quality
    /// body refuse it instead, with the same message.
    @Test func theMostNegativeOffsetIsRefusedNotATrap() {
        let body = Array(
            #"{"utc_offset_seconds":-9223372036854775808,"hourly":{"time":["2026-06-01T00:00"],"european_aqi":[20],"grass_pollen":[1.0]}}"#
                .utf8)
        let message =
            "Open-Meteo air-quality response with utc_offset_seconds -9223372036854775808, "
            + "not a whole number of seconds within ±86400; refused"
        #expect(AirQualityDecoder.interpret(httpStatus: 200, body: body) == .failed(message: message))
        #expect(OpenMeteoPollen.interpret(httpStatus: 200, body: body) == .failed(message: message))
    }

    // MARK: Climate

    @Test func everySavedClimateInputGivesAnOutcome() {
        let inputs = Self.inputs("climate")
        #expect(!inputs.isEmpty)
        for (_, bytes) in inputs {
            guard let observations = try? OpenMeteoDailyDecoder.decode(bytes), let last = observations.last else {
                continue
            }
            let years = Array(Set(observations.map(\.date.year))).sorted()
            let points = ClimateRequestPlan.points(today: last.date, years: years)
            if let trend = try? ClimateTrend.compute(
                today: last.date, points: points, archive: observations, forecast: observations)
            {
                let tree = ClimateTopics.tree(
                    topics: TopicLayout(prefix: "breeze").location("home"), trend: trend, unit: .celsius,
                    updatedAt: "2026-05-01T10:00:00Z", stale: false)
                #expect(tree["breeze/home/climate/unit"] == "°C")
            }
        }
    }

    /// A daily Unix stamp of `Int64.max` plus a positive offset trapped.
    @Test func climateUnixTimeOverflowIsAnInvalidDate() throws {
        let body = try Self.input("climate", "unix-time-overflow.json")
        #expect(throws: ClimateDecodeError.invalidDate("9223372036854775807")) {
            try OpenMeteoDailyDecoder.decode(body)
        }
    }
}
