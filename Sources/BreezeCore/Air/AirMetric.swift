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

/// The air-quality metrics the agent publishes (docs/reference.md, Air quality bands), in publishing order. The raw value is
/// the topic segment (`<p>/<loc>/air/<metric>/…`) and, except `uv_index_max`, Open-Meteo's hourly
/// variable.
public enum AirMetric: String, Sendable, Hashable, CaseIterable {
    case europeanAQI = "european_aqi"
    case usAQI = "us_aqi"
    case pm2_5 = "pm2_5"
    case pm10 = "pm10"
    case uvIndex = "uv_index"
    /// Today's maximum of the hourly `uv_index` (computed by the agent, not an API variable).
    case uvIndexMax = "uv_index_max"

    /// The hourly variables asked for, in the order of docs/reference.md, Air quality bands's request.
    public static let hourlyVariables: [AirMetric] = [.europeanAQI, .usAQI, .pm2_5, .pm10, .uvIndex]

    /// Micrograms per cubic metre as Open-Meteo spells it (GREEK SMALL LETTER MU U+03BC, then
    /// SUPERSCRIPT THREE): the `unit` of the particulate values in the `air` JSON.
    public static let microgramsPerCubicMetre = "\u{03BC}g/m\u{00B3}"

    /// Whether the metric has a level and a color (the two indexes and UV) or is a value only
    /// (particulates, docs/reference.md, Air quality bands "value only").
    public var isBanded: Bool {
        switch self {
        case .pm2_5, .pm10: return false
        case .europeanAQI, .usAQI, .uvIndex, .uvIndexMax: return true
        }
    }

    /// Whether the published value is a whole number (the two AQIs, and UV: the WHO index is a
    /// whole number, the API's value rounded half up, the very number that is banded — docs/reference.md, Air quality bands,
    /// "UV is banded once") or has one decimal (particulates, as the API sends them).
    public var isWholeNumber: Bool {
        switch self {
        case .europeanAQI, .usAQI, .uvIndex, .uvIndexMax: return true
        case .pm2_5, .pm10: return false
        }
    }

    /// The largest value a real atmosphere gives (docs/operations.md "Plausible air values",
    /// where each is sourced); a value above it is treated as null (value `None`, level
    /// Unknown), with one warning per metric and body. Negative values are null too.
    ///
    /// The particulates' bounds come from the highest concentrations measured: PM10 20,000 µg/m³
    /// (about twice the 10,155 µg/m³ hourly reading of the Las Cruces dust storm of 18 March
    /// 2012), PM2.5 10,000 µg/m³ (about twice the 4–5 mg/m³ cited for London's 1952 smog). The
    /// indexes' bounds are what Open-Meteo's own formulas give for those concentrations: both
    /// extrapolate linearly past their top band (US AQI past 500, the EPA's "beyond the AQI";
    /// Open-Meteo really sends 702 and 1,008 for Indian cities), so the scale's end is not the
    /// bound — European AQI 10,000, US AQI 20,000. UV: 45, above the highest index ever measured
    /// (43.3, Licancabur, 2003); the high Andes reach the mid-20s routinely.
    public var plausibleMaximum: Double {
        switch self {
        case .europeanAQI: return 10_000
        case .usAQI: return 20_000
        case .pm2_5: return 10_000
        case .pm10: return 20_000
        case .uvIndex, .uvIndexMax: return 45
        }
    }

    /// English display name (Home Assistant entity names, logs).
    public var displayName: String {
        switch self {
        case .europeanAQI: return "European AQI"
        case .usAQI: return "US AQI"
        case .pm2_5: return "PM2.5"
        case .pm10: return "PM10"
        case .uvIndex: return "UV index"
        case .uvIndexMax: return "UV index today max"
        }
    }

    /// The display name in a language (Home Assistant entity names, the status page); English
    /// is ``displayName``.
    public func displayName(in language: Language) -> String {
        switch self {
        case .europeanAQI: return language.text(.airEuropeanAQI)
        case .usAQI: return language.text(.airUSAQI)
        case .pm2_5: return language.text(.airPM2_5)
        case .pm10: return language.text(.airPM10)
        case .uvIndex: return language.text(.airUVIndex)
        case .uvIndexMax: return language.text(.airUVIndexMax)
        }
    }

    /// The level and color of a value in tenths (docs/reference.md, Air quality bands table); nil for the value-only
    /// particulates. A nil or negative value is Unknown. The banded metrics are whole numbers
    /// (``isWholeNumber``): the decoder rounded the API's value once, so `tenths` is a multiple
    /// of ten and the division below is exact, never a second rounding.
    public func band(tenths: Int?) -> AirBand? {
        guard isBanded else { return nil }
        guard let tenths, tenths >= 0 else { return .unknown }
        switch self {
        case .europeanAQI: return AirBand.europeanAQI(FixedPoint.roundedDivision(tenths, 10))
        case .usAQI: return AirBand.usAQI(FixedPoint.roundedDivision(tenths, 10))
        case .uvIndex, .uvIndexMax: return AirBand.uvIndex(FixedPoint.roundedDivision(tenths, 10))
        case .pm2_5, .pm10: return nil
        }
    }
}

/// A level word and its color for one banded air metric (docs/reference.md, Air quality bands table).
public struct AirBand: Sendable, Hashable {
    public var level: String
    public var color: HexColor

    public init(level: String, color: HexColor) {
        self.level = level
        self.color = color
    }

    /// A null or negative value (the same gray as an Unknown pollen level).
    public static let unknown = AirBand(level: "Unknown", color: HexColor(red: 0x8e, green: 0x8e, blue: 0x93))

    /// European AQI (EEA bands): ≤20 Good … >100 Extremely poor; `value` is the whole index.
    public static func europeanAQI(_ value: Int) -> AirBand {
        switch value {
        case ..<0: return .unknown
        case ...20: return AirBand(level: "Good", color: HexColor(red: 0x50, green: 0xf0, blue: 0xe6))
        case ...40: return AirBand(level: "Fair", color: HexColor(red: 0x50, green: 0xcc, blue: 0xaa))
        case ...60: return AirBand(level: "Moderate", color: HexColor(red: 0xf0, green: 0xe6, blue: 0x41))
        case ...80: return AirBand(level: "Poor", color: HexColor(red: 0xff, green: 0x50, blue: 0x50))
        case ...100: return AirBand(level: "Very poor", color: HexColor(red: 0x96, green: 0x00, blue: 0x32))
        default: return AirBand(level: "Extremely poor", color: HexColor(red: 0x7d, green: 0x21, blue: 0x81))
        }
    }

    /// US EPA AQI: ≤50 Good … >300 Hazardous; `value` is the whole index.
    public static func usAQI(_ value: Int) -> AirBand {
        switch value {
        case ..<0: return .unknown
        case ...50: return AirBand(level: "Good", color: HexColor(red: 0x00, green: 0xe4, blue: 0x00))
        case ...100: return AirBand(level: "Moderate", color: HexColor(red: 0xff, green: 0xff, blue: 0x00))
        case ...150:
            return AirBand(
                level: "Unhealthy for sensitive groups", color: HexColor(red: 0xff, green: 0x7e, blue: 0x00))
        case ...200: return AirBand(level: "Unhealthy", color: HexColor(red: 0xff, green: 0x00, blue: 0x00))
        case ...300: return AirBand(level: "Very unhealthy", color: HexColor(red: 0x8f, green: 0x3f, blue: 0x97))
        default: return AirBand(level: "Hazardous", color: HexColor(red: 0x7e, green: 0x00, blue: 0x23))
        }
    }

    /// WHO UV index categories; `value` is the index already rounded half up to a whole number.
    public static func uvIndex(_ value: Int) -> AirBand {
        switch value {
        case ..<0: return .unknown
        case ...2: return AirBand(level: "Low", color: HexColor(red: 0x28, green: 0x95, blue: 0x00))
        case ...5: return AirBand(level: "Moderate", color: HexColor(red: 0xf7, green: 0xe4, blue: 0x00))
        case ...7: return AirBand(level: "High", color: HexColor(red: 0xf8, green: 0x59, blue: 0x00))
        case ...10: return AirBand(level: "Very high", color: HexColor(red: 0xd8, green: 0x00, blue: 0x1d))
        default: return AirBand(level: "Extreme", color: HexColor(red: 0x6b, green: 0x49, blue: 0xc8))
        }
    }

    /// Every level word a metric can publish, Unknown last (Home Assistant enum options, docs).
    public static func levels(of metric: AirMetric) -> [String] {
        switch metric {
        case .europeanAQI: return ["Good", "Fair", "Moderate", "Poor", "Very poor", "Extremely poor", "Unknown"]
        case .usAQI:
            return [
                "Good", "Moderate", "Unhealthy for sensitive groups", "Unhealthy", "Very unhealthy", "Hazardous",
                "Unknown",
            ]
        case .uvIndex, .uvIndexMax: return ["Low", "Moderate", "High", "Very high", "Extreme", "Unknown"]
        case .pm2_5, .pm10: return []
        }
    }
}
