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

/// The display unit of climate temperatures (`climate.unit`, changeable with `climate/unit/set`).
public enum TemperatureUnit: String, Sendable, Equatable, CaseIterable {
    case celsius
    case fahrenheit

    /// `°C` or `°F`, as published on `climate/unit` and appended to texts.
    public var symbol: String {
        switch self {
        case .celsius: return "°C"
        case .fahrenheit: return "°F"
        }
    }

    /// Parses a `climate/unit/set` command: `celsius | fahrenheit | C | F | °C | °F`, surrounding
    /// whitespace ignored, letters case-insensitive; anything else is nil (the command is ignored).
    public init?(command: String) {
        let trimmed = command.unicodeScalars.drop { $0.properties.isWhitespace }.reversed()
            .drop { $0.properties.isWhitespace }.reversed()
        let text = String(String.UnicodeScalarView(trimmed)).lowercased()
        switch text {
        case "celsius", "c", "°c": self = .celsius
        case "fahrenheit", "f", "°f": self = .fahrenheit
        default: return nil
        }
    }
}

/// The colors of the climate chart (the seed app's system colors).
public enum ClimateColors {
    public static let red = HexColor(red: 0xff, green: 0x3b, blue: 0x30)
    public static let orange = HexColor(red: 0xff, green: 0x95, blue: 0x00)
    public static let blue = HexColor(red: 0x00, green: 0x7a, blue: 0xff)
    public static let gray = HexColor(red: 0x8e, green: 0x8e, blue: 0x93)

    /// Point color by deviation from the baseline in tenths of °C: > 2.0 red, > 0.5 orange,
    /// < −0.5 blue, else gray (exactly 0.5 is gray, exactly 2.0 is orange).
    public static func deviation(tenthsCelsius d: Int) -> HexColor {
        if d > 20 { return red }
        if d > 5 { return orange }
        if d < -5 { return blue }
        return gray
    }

    /// Change color: red when warmer than the baseline, else blue (no change is blue, as the app).
    public static func change(tenthsCelsius change: Int) -> HexColor { change > 0 ? red : blue }
}

/// One year of the trend that has a value.
public struct ClimateTrendPoint: Sendable, Equatable {
    public var year: Int
    public var date: CivilDate
    public var source: ClimateSource
    public var tenthsCelsius: Int
    /// Point − baseline, tenths of °C.
    public var deviationTenths: Int
    public var color: HexColor
    /// `(t − min) / (max − min)` in thousandths, rounded half up; 500 when all values are equal.
    public var barThousandths: Int

    public init(
        year: Int, date: CivilDate, source: ClimateSource, tenthsCelsius: Int, deviationTenths: Int,
        color: HexColor, barThousandths: Int
    ) {
        self.year = year
        self.date = date
        self.source = source
        self.tenthsCelsius = tenthsCelsius
        self.deviationTenths = deviationTenths
        self.color = color
        self.barThousandths = barThousandths
    }
}

/// A series in which no year had a value: the runtime treats it as a failed fetch (docs/reference.md, Climate arithmetic; docs/operations.md, Faults).
public struct ClimateTrendError: Error, Equatable, CustomStringConvertible {
    /// Every year asked for (all of them came back null or missing).
    public var years: [Int]

    public init(years: [Int]) { self.years = years }

    public var description: String {
        "no climate value for any year (\(years.map(String.init).joined(separator: ", ")))"
    }
}

/// The computed climate trend of one location and day (docs/reference.md, Climate arithmetic), all in integer tenths of °C.
public struct ClimateTrend: Sendable, Equatable {
    /// Today's local date.
    public var date: CivilDate
    public var currentYear: Int
    /// The earliest year with a value.
    public var baselineYear: Int
    /// The years with a value, ascending.
    public var points: [ClimateTrendPoint]
    /// Current − baseline; nil unless both have values (and they are different years).
    public var changeTenths: Int?
    /// Years asked for whose value was null or absent, ascending: the runtime logs them.
    public var omittedYears: [Int]

    public init(
        date: CivilDate, currentYear: Int, baselineYear: Int, points: [ClimateTrendPoint], changeTenths: Int?,
        omittedYears: [Int]
    ) {
        self.date = date
        self.currentYear = currentYear
        self.baselineYear = baselineYear
        self.points = points
        self.changeTenths = changeTenths
        self.omittedYears = omittedYears
    }

    /// The current year's point when the forecast had a value.
    public var current: ClimateTrendPoint? { points.first { $0.year == currentYear } }

    /// The change color; gray when there is no change to color (see ``ClimateTopics``).
    public var changeColor: HexColor {
        changeTenths.map { ClimateColors.change(tenthsCelsius: $0) } ?? ClimateColors.gray
    }

    /// Matches each point with the observation for its date from its source and computes the trend.
    ///
    /// A date missing from the response counts like a null. When the current year is missing, or
    /// the baseline *is* the current year (no past year has a value), there is no change.
    public static func compute(
        today: CivilDate, points requested: [ClimatePoint], archive: [ClimateObservation],
        forecast: [ClimateObservation]
    ) throws(ClimateTrendError) -> ClimateTrend {
        func lookup(_ point: ClimatePoint) -> Int? {
            let observations = point.source == .archive ? archive : forecast
            return observations.first { $0.date == point.date }?.tenthsCelsius ?? nil
        }
        var valued: [(point: ClimatePoint, tenths: Int)] = []
        var omitted: [Int] = []
        for point in requested.sorted(by: { $0.year < $1.year }) {
            if let tenths = lookup(point) { valued.append((point, tenths)) } else { omitted.append(point.year) }
        }
        guard let baseline = valued.first else { throw ClimateTrendError(years: omitted) }
        let low = valued.map(\.tenths).min()!
        let high = valued.map(\.tenths).max()!
        let points = valued.map { entry in
            let deviation = entry.tenths - baseline.tenths
            let bar = high == low ? 500 : FixedPoint.roundedDivision(1000 * (entry.tenths - low), high - low)
            return ClimateTrendPoint(
                year: entry.point.year, date: entry.point.date, source: entry.point.source,
                tenthsCelsius: entry.tenths, deviationTenths: deviation,
                color: ClimateColors.deviation(tenthsCelsius: deviation), barThousandths: bar)
        }
        let current = valued.first { $0.point.year == today.year && $0.point.source == .forecast }
        let change: Int? =
            if let current, baseline.point.year != current.point.year { current.tenths - baseline.tenths } else { nil }
        return ClimateTrend(
            date: today, currentYear: today.year, baselineYear: baseline.point.year, points: points,
            changeTenths: change, omittedYears: omitted)
    }
}
