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

/// Issue 50, finding 7: what the two readers of an air-quality body (pollen and air) do with
/// hours the API never sends — an hour listed twice, hours out of time order — and with a
/// `utc_offset_seconds` that is not a whole number of seconds within a day
/// (docs/operations.md "Open-Meteo hours and offsets").
@Suite("Open-Meteo: repeated and unsorted hours, the body's offset")
struct OpenMeteoHourRulesTests {
    // MARK: repeated and unsorted hours

    /// Every hour of the day listed twice, the repeats with 50 times the value: the first of
    /// each hour is used, so the day's mean is the first twelve's, not a blend.
    @Test func pollenUsesTheFirstOfARepeatedHour() throws {
        let first = isoHours(from: date(2026, 4, 1), count: 12)
        let values: [Double?] = Array(repeating: 10, count: 12) + Array(repeating: 500, count: 12)
        let body = airQualityBody(times: first + first, series: [("birch_pollen", values)])
        let report = try openMeteoReport(body)
        #expect(report.value("BIRCH", on: date(2026, 4, 1)) == 1)  // mean 10, not 255
        #expect(report.days[0].items.first { $0.code == "BIRCH" }?.grainsPerCubicMetre?.maxTenths == 100)
        #expect(report.hourly?.hours.count == 12)
        #expect(report.hourly?.hours.allSatisfy { $0.tenths["BIRCH"] == 100 } == true)
        #expect(report.warnings == ["pollen: 12 repeated hour(s) skipped, the first of each used"])
    }

    /// Hours listed backwards: used in time order (the hourly time line ascends), one warning.
    @Test func pollenUsesHoursInTimeOrder() throws {
        let hours = isoHours(from: date(2026, 4, 1), count: 24)
        let body = airQualityBody(
            times: hours.reversed(), series: [("birch_pollen", (0..<24).map { Double(23 - $0) })])
        let report = try openMeteoReport(body)
        let instants = try #require(report.hourly?.hours.map(\.instant))
        #expect(instants == instants.sorted())
        // 2026-04-01T00:00 at UTC+2 is 2026-03-31T22:00Z; the value stays with its hour.
        #expect(report.hourly?.hours.first?.instant == utc(2026, 3, 31, 22))
        #expect(report.hourly?.hours.first?.tenths["BIRCH"] == 0)
        #expect(report.hourly?.hours.last?.tenths["BIRCH"] == 230)
        #expect(report.warnings == ["pollen: hours out of time order, used in time order"])
    }

    /// The air source: the same rules, one warning for both.
    @Test func airUsesTheFirstOfARepeatedHourInTimeOrder() throws {
        let body = airQualityBody(
            times: [#""2026-06-21T01:00""#, #""2026-06-21T00:00""#, #""2026-06-21T01:00""#],
            series: [("european_aqi", [30, 10, 99])], offset: "0")
        let report = try airReport(body)
        #expect(report.hours.map(\.instant) == [utc(2026, 6, 21, 0), utc(2026, 6, 21, 1)])
        #expect(report.hours.map { $0.tenths[.europeanAQI] } == [100, 300])
        #expect(
            report.warnings == [
                "air: 1 repeated hour(s) skipped, the first of each used; hours out of time order, used in time order"
            ])
    }

    // MARK: the body's offset

    static let badOffsets = [#""3600""#, "3600.5", "1e300", "86401", "true"]

    /// Without the location's own offset to fall back on, a body whose offset cannot be read is
    /// refused (its hours cannot be placed on the time line), with one message quoting it.
    @Test(arguments: badOffsets)
    func anOffsetThatIsNotWholeSecondsWithinADayIsRefused(offset: String) {
        let pollen = airQualityBody(
            times: isoHours(from: date(2026, 4, 1), count: 24), series: pollenSeries(count: 24), offset: offset)
        let message: PollenOutcome = OpenMeteoPollen.interpret(httpStatus: 200, body: pollen)
        guard case .failed(let text) = message else {
            Issue.record("\(offset): pollen: \(message)")
            return
        }
        #expect(text.hasPrefix("Open-Meteo air-quality response with utc_offset_seconds "), "\(text)")
        #expect(text.hasSuffix(", not a whole number of seconds within ±86400; refused"), "\(text)")
        let air = airQualityBody(
            times: isoHours(from: date(2026, 6, 21), count: 24),
            series: [("european_aqi", [Double?](repeating: 10, count: 24))], offset: offset)
        guard case .failed(let airText) = AirQualityDecoder.interpret(httpStatus: 200, body: air) else {
            Issue.record("\(offset): air was not refused")
            return
        }
        #expect(airText == text)
    }

    /// The texts quoted: a string as JSON writes it, numbers as read.
    @Test func theRefusedOffsetIsQuoted() {
        let body = airQualityBody(
            times: isoHours(from: date(2026, 6, 21), count: 1), series: [("european_aqi", [10])], offset: #""3600""#)
        #expect(
            AirQualityDecoder.interpret(httpStatus: 200, body: body)
                == .failed(
                    message:
                        #"Open-Meteo air-quality response with utc_offset_seconds "3600", not a whole number of seconds within ±86400; refused"#
                ))
    }

    /// A string is quoted as printable ASCII, cut at 32 characters: it goes into a log line.
    @Test func aRefusedStringCannotForgeALogLine() {
        let body = airQualityBody(
            times: isoHours(from: date(2026, 6, 21), count: 1), series: [("european_aqi", [10])],
            offset: #""36\n00 error: \"forged\" 0123456789012345678""#)
        #expect(
            AirQualityDecoder.interpret(httpStatus: 200, body: body)
                == .failed(
                    message:
                        #"Open-Meteo air-quality response with utc_offset_seconds "36?00 error: ?forged? 0123456789…", not a whole number of seconds within ±86400; refused"#
                ))
    }

    /// Given the location's own offset at the fetch (what Open-Meteo writes: the zone's offset
    /// at request time, API-FACTS §2.3), both readers place the hours by it instead, with one
    /// warning, exactly as a body carrying that offset.
    @Test(arguments: badOffsets)
    func theLocationsOffsetPlacesTheHoursOfARefusedOne(offset: String) throws {
        let hours = isoHours(from: date(2026, 4, 1), count: 24)
        let good = try openMeteoReport(airQualityBody(times: hours, series: pollenSeries(count: 24)))
        let bad = airQualityBody(times: hours, series: pollenSeries(count: 24), offset: offset)
        guard
            case .report(let placed) = OpenMeteoPollen.interpret(httpStatus: 200, body: bad, fallbackUTCOffset: 7_200)
        else {
            Issue.record("\(offset): pollen refused with a fallback")
            return
        }
        #expect(placed.hourly == good.hourly)
        #expect(placed.days == good.days)
        #expect(placed.warnings.count == 1)
        #expect(placed.warnings.first?.hasPrefix("pollen: utc_offset_seconds ") == true)
        #expect(
            placed.warnings.first?.hasSuffix(
                "is not a whole number of seconds within ±86400; the location's own offset at the fetch (7200 s) "
                    + "places the hours instead") == true)
        let season = PollenSeason.interpret(httpStatus: 200, body: bad, fallbackUTCOffset: 7_200)
        guard case .season(_, let warnings) = season else {
            Issue.record("\(offset): season: \(season)")
            return
        }
        #expect(warnings == placed.warnings)

        let air = airQualityBody(
            times: isoHours(from: date(2026, 6, 21), count: 24),
            series: [("european_aqi", [Double?](repeating: 10, count: 24))], offset: offset)
        let report = try #require(
            {
                if case .report(let report) = AirQualityDecoder.interpret(
                    httpStatus: 200, body: air, fallbackUTCOffset: 7_200)
                {
                    return report
                }
                return nil
            }())
        #expect(report.hours.first?.instant == utc(2026, 6, 20, 22))
        #expect(report.warnings.count == 1 && report.warnings[0].hasPrefix("air: utc_offset_seconds "))
    }

    /// A fallback that is no offset either does not rescue the body.
    @Test func aFallbackBeyondADayIsNoFallback() {
        let body = airQualityBody(
            times: isoHours(from: date(2026, 6, 21), count: 1), series: [("european_aqi", [10])], offset: "1e300")
        guard case .failed = AirQualityDecoder.interpret(httpStatus: 200, body: body, fallbackUTCOffset: 90_000) else {
            Issue.record("accepted")
            return
        }
    }

    /// An absent or `null` offset is the API's default zone, GMT (0), as before.
    @Test(arguments: [nil, "null", "0"])
    func anAbsentOrNullOffsetIsGMT(offset: String?) throws {
        var text = #"{"hourly":{"time":["2026-06-21T10:00"],"european_aqi":[10]}}"#
        if let offset { text = #"{"utc_offset_seconds":"# + offset + "," + text.dropFirst() }
        let report = try airReport(utf8(text))
        #expect(report.hours.map(\.instant) == [utc(2026, 6, 21, 10)])
        #expect(report.warnings.isEmpty)
    }
}
