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

import FoundationEssentials

/// Why the warming stripes could not be made from an archive response.
public enum WarmingStripesError: Error, Equatable, CustomStringConvertible {
    /// The server's own `{"error": true, "reason": …}` body.
    case api(reason: String)
    /// Not JSON, or JSON of another shape (truncated streams end up here).
    case malformed(String)
    /// No `daily.temperature_2m_mean` series.
    case missingVariable
    /// Units other than °C: the agent always requests Celsius, so this is someone else's response.
    case unsupportedUnit(String)
    case invalidDate(String)
    /// A date not after the one before it: a repeated day would be counted twice.
    case datesOutOfOrder(String)
    case lengthMismatch(times: Int, values: Int)
    case implausibleValue(Double)
    /// More days than ``StripesDecoder/maximumDays``.
    case tooManyDays(Int)
    /// No year of the range had enough values.
    case noCompleteYear(firstYear: Int, lastYear: Int)

    public var description: String {
        switch self {
        case .api(let reason): return "Open-Meteo error: \(reason)"
        case .malformed(let why): return "malformed Open-Meteo archive response: \(why)"
        case .missingVariable: return "Open-Meteo archive response has no daily temperature_2m_mean"
        case .unsupportedUnit(let unit):
            return "Open-Meteo archive response is in \(unit), expected °C (the agent requests Celsius)"
        case .invalidDate(let text): return "Open-Meteo archive response has an invalid date \"\(text)\""
        case .datesOutOfOrder(let text):
            return "Open-Meteo archive response has the date \(text) out of order (dates must increase)"
        case .lengthMismatch(let times, let values):
            return "Open-Meteo archive response has \(times) dates but \(values) temperatures"
        case .implausibleValue(let value):
            return "Open-Meteo archive response has an implausible temperature \(value)"
        case .tooManyDays(let count):
            return "Open-Meteo archive response has \(count) days, more than \(StripesDecoder.maximumDays)"
        case .noCompleteYear(let first, let last):
            return
                "no year from \(first) to \(last) has \(WarmingStripes.minimumDays) daily means in the Open-Meteo archive"
        }
    }
}

/// Decodes the archive response for `daily=temperature_2m_mean` (API-FACTS §2.3), on the
/// shared Open-Meteo parts (`OpenMeteoTime`, `OpenMeteoErrorBody`, `OpenMeteoKey`).
///
/// One date range gives one JSON object; a top-level array (several ranges) is accepted too and
/// its elements concatenated. `daily.time` may be ISO dates or Unix seconds; the error body is
/// recognized in any key order. Temperatures become integer tenths: the server prints one
/// decimal, so `round(x × 10)` of the parsed double is exact.
public enum StripesDecoder {
    /// The variable we request; with several `models` the server suffixes it (`_archive_best_match`).
    static let variable = "temperature_2m_mean"
    /// At most this many days (about 160 years: the archive starts in 1940).
    public static let maximumDays = 60_000

    /// The daily series through the shared Open-Meteo daily decoder, then the stripes' own
    /// rules: a bounded count and strictly increasing dates (a repeated day would count twice).
    public static func decode(_ body: [UInt8]) throws(WarmingStripesError) -> [ClimateObservation] {
        let out: [ClimateObservation]
        do {
            out = try OpenMeteoDailyDecoder.decode(body, variable: variable)
        } catch {
            throw WarmingStripesError(error)
        }
        if out.count > maximumDays { throw .tooManyDays(out.count) }
        for (previous, next) in zip(out, out.dropFirst()) where next.date <= previous.date {
            throw .datesOutOfOrder(next.date.description)
        }
        return out
    }
}

extension WarmingStripesError {
    /// The same failure in the stripes' words.
    init(_ error: ClimateDecodeError) {
        switch error {
        case .api(let reason): self = .api(reason: reason)
        case .malformed(let why): self = .malformed(why)
        case .missingVariable: self = .missingVariable
        case .unsupportedUnit(let unit): self = .unsupportedUnit(unit)
        case .invalidDate(let text): self = .invalidDate(text)
        case .lengthMismatch(let times, let values): self = .lengthMismatch(times: times, values: values)
        case .implausibleValue(let value): self = .implausibleValue(value)
        }
    }
}
