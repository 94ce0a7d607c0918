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

import Foundation
import Testing

@testable import BreezeCore

@Suite struct ClimateRequestTests {
    @Test func yearsAreSortedDeduplicatedAndBounded() {
        let points = ClimateRequestPlan.points(
            today: date(2026, 7, 15), years: [2020, 1980, 2000, 1980, 1939, 1940, 2026, 2030])
        #expect(points.map(\.year) == [1940, 1980, 2000, 2020, 2026])
        #expect(points.map(\.source) == [.archive, .archive, .archive, .archive, .forecast])
        #expect(
            points.map(\.date) == [
                date(1940, 7, 15), date(1980, 7, 15), date(2000, 7, 15), date(2020, 7, 15), date(2026, 7, 15),
            ])
    }

    @Test func leapDayFallsBackToTheTwentyEighth() {
        let points = ClimateRequestPlan.points(today: date(2028, 2, 29), years: [2023, 2024, 2020, 1900])
        #expect(points.map(\.date) == [date(2020, 2, 29), date(2023, 2, 28), date(2024, 2, 29), date(2028, 2, 29)])
        #expect(ClimateRequestPlan.sameDay(as: date(2028, 2, 29), in: 2100) == date(2100, 2, 28))
        #expect(ClimateRequestPlan.sameDay(as: date(2028, 2, 29), in: 2000) == date(2000, 2, 29))
    }

    @Test func onlyTheCurrentYearWhenNoPastYearQualifies() {
        let points = ClimateRequestPlan.points(today: date(2026, 1, 1), years: [])
        #expect(points == [ClimatePoint(year: 2026, date: date(2026, 1, 1), source: .forecast)])
        #expect(ClimateRequestPlan.archiveQuery(points: points, latitude: 1, longitude: 2, timeZone: "UTC") == nil)
    }

    @Test func archiveQueryUsesCommaLists() throws {
        let points = ClimateRequestPlan.points(today: date(2026, 7, 15), years: [1980, 2000])
        let query = try #require(
            ClimateRequestPlan.archiveQuery(
                points: points, latitude: 52.52, longitude: 13.41, timeZone: "Europe/Berlin"))
        #expect(query.path == "/archive")
        #expect(
            query.parameters == [
                QueryParameter("latitude", "52.52"), QueryParameter("longitude", "13.41"),
                QueryParameter("start_date", "1980-07-15,2000-07-15"),
                QueryParameter("end_date", "1980-07-15,2000-07-15"),
                QueryParameter("daily", "temperature_2m_max"), QueryParameter("timezone", "Europe/Berlin"),
            ])
    }

    @Test func forecastQueryIsTodayOnly() {
        let query = ClimateRequestPlan.forecastQuery(
            today: date(2026, 12, 1), latitude: 1.87, longitude: -157.4, timeZone: "Pacific/Kiritimati")
        #expect(query.path == "/forecast")
        #expect(
            query.parameters == [
                QueryParameter("latitude", "1.87"), QueryParameter("longitude", "-157.4"),
                QueryParameter("start_date", "2026-12-01"), QueryParameter("end_date", "2026-12-01"),
                QueryParameter("daily", "temperature_2m_max"), QueryParameter("timezone", "Pacific/Kiritimati"),
            ])
    }

    @Test(arguments: [
        (52.52, "52.52"), (0.0, "0"), (-0.00001, "-0.00001"), (-0.0000001, "0"), (-122.419416, "-122.419416"),
        (90.0, "90"), (13.4199981, "13.419998"),
    ])
    func coordinatesHaveNoExponent(_ value: Double, _ text: String) {
        #expect(FixedPoint.coordinate(value) == text)
    }

    /// "Today" is the location's date: at 12:00 UTC on 30 November it is already 1 December on Kiritimati.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/share/zoneinfo/Pacific/Kiritimati")))
    func todayComesFromTheLocationsZone() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: "/usr/share/zoneinfo/Pacific/Kiritimati"))
        let zone = try ZoneRules(tzif: [UInt8](data))
        let noonUTC: Int64 = 1_796_040_000  // 2026-11-30T12:00:00Z
        let today = zone.localDate(atUnixTime: noonUTC)
        #expect(ZoneRules.utc.localDate(atUnixTime: noonUTC) == date(2026, 11, 30))
        let points = ClimateRequestPlan.points(today: today, years: [1980])
        #expect(points.map(\.date) == [date(1980, 12, 1), date(2026, 12, 1)])
    }
}
