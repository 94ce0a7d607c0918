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

    public static func decode(_ body: [UInt8]) throws(WarmingStripesError) -> [ClimateObservation] {
        let top: TopLevel
        do {
            top = try JSONDecoder().decode(TopLevel.self, from: Data(body))
        } catch let error as WarmingStripesError {
            throw error
        } catch let DecodingError.dataCorrupted(context) {
            throw .malformed(context.debugDescription)
        } catch {
            throw .malformed(String(describing: error))
        }
        for document in top.documents {
            if case .failure(let reason) = document { throw .api(reason: reason) }
        }
        var out: [ClimateObservation] = []
        for document in top.documents {
            guard case .success(let daily) = document else { continue }
            out += try daily.observations()
            if out.count > maximumDays { throw .tooManyDays(out.count) }
        }
        for (previous, next) in zip(out, out.dropFirst()) where next.date <= previous.date {
            throw .datesOutOfOrder(next.date.description)
        }
        return out
    }

    private struct TopLevel: Decodable {
        var documents: [Document]

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            do {
                documents = try container.decode([Document].self)
            } catch DecodingError.typeMismatch {
                documents = [try container.decode(Document.self)]
            }
        }
    }

    private typealias Key = OpenMeteoKey

    private struct Daily {
        var utcOffset: Int64
        var times: [OpenMeteoTime]
        var values: [Double?]

        func observations() throws(WarmingStripesError) -> [ClimateObservation] {
            if times.count > StripesDecoder.maximumDays { throw .tooManyDays(times.count) }
            var dates: [CivilDate] = []
            dates.reserveCapacity(times.count)
            for time in times {
                // A daily ISO stamp is a bare date; a daily Unix stamp is local midnight.
                let date: CivilDate?
                switch time {
                case .iso(let text): date = CivilDate(iso: text)
                case .unix(let seconds):
                    date = OpenMeteoTime.localDate(unixSeconds: seconds, utcOffsetSeconds: utcOffset)
                }
                guard let date else { throw .invalidDate(time.description) }
                dates.append(date)
            }
            guard dates.count == values.count else { throw .lengthMismatch(times: dates.count, values: values.count) }
            var out: [ClimateObservation] = []
            out.reserveCapacity(dates.count)
            for (date, value) in zip(dates, values) {
                guard let value else {
                    out.append(ClimateObservation(date: date, tenthsCelsius: nil))
                    continue
                }
                guard value.isFinite, abs(value) < 1000 else { throw .implausibleValue(value) }
                out.append(ClimateObservation(date: date, tenthsCelsius: Int((value * 10).rounded())))
            }
            return out
        }
    }

    private enum Document: Decodable {
        case success(Daily)
        case failure(String)

        init(from decoder: any Decoder) throws {
            let root = try decoder.container(keyedBy: Key.self)
            if let envelope = try? OpenMeteoErrorBody(from: decoder), envelope.error {
                self = .failure(envelope.reason ?? "(no reason given)")
                return
            }
            guard root.contains(Key("daily")) else { throw WarmingStripesError.missingVariable }
            let daily = try root.nestedContainer(keyedBy: Key.self, forKey: Key("daily"))
            let names = daily.allKeys.map(\.stringValue)
            let name =
                names.first { $0 == StripesDecoder.variable }
                ?? names.sorted().first { $0.hasPrefix(StripesDecoder.variable + "_") && $0.hasSuffix("best_match") }
            guard let name else { throw WarmingStripesError.missingVariable }
            if root.contains(Key("daily_units")) {
                let units = try root.nestedContainer(keyedBy: Key.self, forKey: Key("daily_units"))
                if let unit = try units.decodeIfPresent(String.self, forKey: Key(name)), unit != "°C" {
                    throw WarmingStripesError.unsupportedUnit(unit)
                }
            }
            let times = try OpenMeteoTime.series(in: daily, forKey: Key("time"))
            let values = try daily.decode([Double?].self, forKey: Key(name))
            let offset = try root.decodeIfPresent(Int64.self, forKey: Key("utc_offset_seconds")) ?? 0
            self = .success(Daily(utcOffset: offset, times: times, values: values))
        }
    }
}
