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

private let today = date(2026, 7, 15)

/// A trend for today with the given archive values (year → tenths or nil) and forecast value.
private func trend(_ archive: [Int: Int?], current: Int?) throws(ClimateTrendError) -> ClimateTrend {
    let points = ClimateRequestPlan.points(today: today, years: Array(archive.keys))
    let observations = points.filter { $0.source == .archive }.map {
        ClimateObservation(date: $0.date, tenthsCelsius: archive[$0.year] ?? nil)
    }
    return try ClimateTrend.compute(
        today: today, points: points, archive: observations,
        forecast: [ClimateObservation(date: today, tenthsCelsius: current)])
}

@Suite struct ClimateTrendTests {
    @Test(arguments: [
        (0, "#8e8e93"), (5, "#8e8e93"), (6, "#ff9500"), (20, "#ff9500"), (21, "#ff3b30"),
        (-5, "#8e8e93"), (-6, "#007aff"), (-21, "#007aff"), (200, "#ff3b30"),
    ])
    func deviationColorEdges(_ deviation: Int, _ color: String) throws {
        #expect(ClimateColors.deviation(tenthsCelsius: deviation).description == color)
        // Through the whole computation, too: baseline 15.0 °C, current 15.0 + deviation.
        let t = try trend([1980: 150], current: 150 + deviation)
        #expect(t.current?.deviationTenths == deviation)
        #expect(t.current?.color.description == color)
        #expect(t.points.first?.color == ClimateColors.gray)
    }

    @Test func changeColor() throws {
        #expect(try trend([1980: 150], current: 151).changeColor == ClimateColors.red)
        #expect(try trend([1980: 150], current: 150).changeColor == ClimateColors.blue)
        #expect(try trend([1980: 150], current: 149).changeColor == ClimateColors.blue)
        #expect(try trend([1980: 150], current: nil).changeColor == ClimateColors.gray)
    }

    @Test func missingBaselineYearUsesTheNextEarliest() throws {
        let t = try trend([1980: nil, 1990: 120, 2000: 140], current: 150)
        #expect(t.baselineYear == 1990)
        #expect(t.changeTenths == 30)
        #expect(t.omittedYears == [1980])
        #expect(t.points.map(\.year) == [1990, 2000, 2026])
        #expect(t.points.map(\.deviationTenths) == [0, 20, 30])
    }

    @Test func missingCurrentYearHasNoChange() throws {
        let t = try trend([1980: 120, 2000: 140], current: nil)
        #expect(t.baselineYear == 1980)
        #expect(t.changeTenths == nil)
        #expect(t.current == nil)
        #expect(t.omittedYears == [2026])
    }

    @Test func onlyTheCurrentYearHasAValue() throws {
        let t = try trend([1980: nil], current: 150)
        #expect(t.baselineYear == 2026)
        #expect(t.changeTenths == nil)
        #expect(t.current?.barThousandths == 500)
    }

    @Test func allNullIsAFailure() {
        #expect(throws: ClimateTrendError(years: [1980, 2000, 2026])) {
            try trend([1980: nil, 2000: nil], current: nil)
        }
    }

    @Test func datesAbsentFromTheResponseCountAsMissing() throws {
        let points = ClimateRequestPlan.points(today: today, years: [1980, 2000])
        let t = try ClimateTrend.compute(
            today: today, points: points,
            archive: [
                ClimateObservation(date: date(1980, 7, 15), tenthsCelsius: 100),
                // 2000 answered for the wrong day: ignored.
                ClimateObservation(date: date(2000, 7, 16), tenthsCelsius: 300),
            ],
            forecast: [ClimateObservation(date: date(2026, 7, 15), tenthsCelsius: 110)])
        #expect(t.omittedYears == [2000])
        #expect(t.points.map(\.year) == [1980, 2026])
        // A forecast value never stands in for an archive year.
        let swapped = try ClimateTrend.compute(
            today: today, points: points, archive: [],
            forecast: [
                ClimateObservation(date: date(1980, 7, 15), tenthsCelsius: 1),
                ClimateObservation(date: date(2026, 7, 15), tenthsCelsius: 110),
            ])
        #expect(swapped.points.map(\.year) == [2026])
    }

    @Test func barsAreExactThousandthsRoundedHalfUp() throws {
        // min 100, max 108: (t − min) / 8 → 1/8 = 0.125, 3/8 = 0.375, 5/8 = 0.625 (exact), 1/3-like cases below.
        let t = try trend([1980: 100, 1990: 101, 2000: 103, 2010: 105], current: 108)
        #expect(t.points.map(\.barThousandths) == [0, 125, 375, 625, 1000])
        // Range 3: 1/3 = 0.333, 2/3 = 0.667.
        let thirds = try trend([1980: 0, 1990: 1, 2000: 2], current: 3)
        #expect(thirds.points.map(\.barThousandths) == [0, 333, 667, 1000])
        // Range 16: 1/16 = 0.0625 → 0.063 (half up), 3/16 = 0.1875 → 0.188.
        let sixteenths = try trend([1980: -16, 1990: -15, 2000: -13], current: 0)
        #expect(sixteenths.points.map(\.barThousandths) == [0, 63, 188, 1000])
    }

    @Test func equalValuesGiveHalfBarsAndGray() throws {
        let t = try trend([1980: 150, 2000: 150], current: 150)
        #expect(t.points.map(\.barThousandths) == [500, 500, 500])
        #expect(t.points.allSatisfy { $0.color == ClimateColors.gray })
        #expect(t.changeTenths == 0)
        #expect(t.changeColor == ClimateColors.blue)
    }

    @Test func leapDayPointsCarryTheDateUsed() throws {
        let leapToday = date(2028, 2, 29)
        let points = ClimateRequestPlan.points(today: leapToday, years: [2023, 2024])
        let t = try ClimateTrend.compute(
            today: leapToday, points: points,
            archive: [
                ClimateObservation(date: date(2023, 2, 28), tenthsCelsius: 50),
                ClimateObservation(date: date(2024, 2, 29), tenthsCelsius: 60),
            ],
            forecast: [ClimateObservation(date: leapToday, tenthsCelsius: 70)])
        #expect(t.points.map(\.date) == [date(2023, 2, 28), date(2024, 2, 29), leapToday])
        #expect(t.changeTenths == 20)
    }
}

@Suite struct TemperatureUnitTests {
    @Test(arguments: [
        ("celsius", TemperatureUnit.celsius), ("Celsius", .celsius), ("CELSIUS", .celsius), ("C", .celsius),
        ("c", .celsius), ("°C", .celsius), ("°c", .celsius), ("  celsius\n", .celsius), ("\t°C ", .celsius),
        ("fahrenheit", .fahrenheit), ("Fahrenheit", .fahrenheit), ("F", .fahrenheit), ("f", .fahrenheit),
        ("°F", .fahrenheit), (" °f ", .fahrenheit),
    ])
    func accepted(_ command: String, _ unit: TemperatureUnit) {
        #expect(TemperatureUnit(command: command) == unit)
    }

    @Test(arguments: ["", " ", "K", "kelvin", "° C", "CF", "cel", "celsius fahrenheit", "\"C\"", "ºC"])
    func rejected(_ command: String) {
        #expect(TemperatureUnit(command: command) == nil)
    }

    @Test func symbols() {
        #expect(TemperatureUnit.celsius.symbol == "°C")
        #expect(TemperatureUnit.fahrenheit.symbol == "°F")
    }
}
