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

/// One day's maximum temperature as the API gave it; nil when the API printed `null`
/// (not yet available, or no data for that cell).
public struct ClimateObservation: Sendable, Equatable {
    public var date: CivilDate
    /// Integer tenths of a degree Celsius (`19.6` is 196).
    public var tenthsCelsius: Int?

    public init(date: CivilDate, tenthsCelsius: Int?) {
        self.date = date
        self.tenthsCelsius = tenthsCelsius
    }
}

/// Why an Open-Meteo daily response could not be used.
public enum ClimateDecodeError: Error, Equatable, CustomStringConvertible {
    /// The server's own `{"error": true, "reason": …}` body.
    case api(reason: String)
    /// Not JSON, or JSON of another shape (truncated streams end up here).
    case malformed(String)
    /// No `daily.temperature_2m_max` series.
    case missingVariable
    /// Units other than °C: the agent always requests Celsius, so this is someone else's response.
    case unsupportedUnit(String)
    case invalidDate(String)
    case lengthMismatch(times: Int, values: Int)
    case implausibleValue(Double)

    public var description: String {
        switch self {
        case .api(let reason): return "Open-Meteo error: \(reason)"
        case .malformed(let why): return "malformed Open-Meteo response: \(why)"
        case .missingVariable: return "Open-Meteo response has no daily temperature_2m_max"
        case .unsupportedUnit(let unit):
            return "Open-Meteo response is in \(unit), expected °C (the agent requests Celsius)"
        case .invalidDate(let text): return "Open-Meteo response has an invalid date \"\(text)\""
        case .lengthMismatch(let times, let values):
            return "Open-Meteo response has \(times) dates but \(values) temperatures"
        case .implausibleValue(let value): return "Open-Meteo response has an implausible temperature \(value)"
        }
    }
}

/// Decodes Open-Meteo archive and forecast responses with `daily=temperature_2m_max` (API-FACTS §2.3).
///
/// Accepts a single object or a top-level array (one element per date range of a comma-list
/// request, API-FACTS §2.4), `daily.time` as ISO dates or Unix seconds, and the error body in any
/// key order. Temperatures become integer tenths: the server prints one decimal, so
/// `round(x × 10)` of the parsed double is exact (19.6 → 196, −0.4 → −4).
public enum OpenMeteoDailyDecoder {
    /// The variable we request; with several `models` the server suffixes it (`_archive_best_match`).
    static let variable = "temperature_2m_max"

    public static func decode(_ body: [UInt8]) throws(ClimateDecodeError) -> [ClimateObservation] {
        try decode(body, variable: variable)
    }

    /// The series of one daily `variable` (the climate trend's `temperature_2m_max`, the warming
    /// stripes' `temperature_2m_mean`), in °C.
    static func decode(_ body: [UInt8], variable: String) throws(ClimateDecodeError) -> [ClimateObservation] {
        // The server's usual shape in one pass; anything else (and every error) the general way.
        if let observations = OpenMeteoDailyScan.decode(body, variable: variable) { return observations }
        return try decodeGenerally(body, variable: variable)
    }

    /// `JSONDecoder`: every accepted shape, every error.
    static func decodeGenerally(_ body: [UInt8], variable: String) throws(ClimateDecodeError)
        -> [ClimateObservation]
    {
        let top: TopLevel
        do {
            let decoder = JSONDecoder()
            decoder.userInfo[variableKey] = variable
            top = try decoder.decode(TopLevel.self, from: Data(body))
        } catch let error as ClimateDecodeError {
            throw error
        } catch let DecodingError.dataCorrupted(context) {
            throw .malformed(context.debugDescription)
        } catch {
            throw .malformed(String(describing: error))
        }
        // An error anywhere wins: a partial series must not look complete.
        for document in top.documents {
            if case .failure(let reason) = document { throw .api(reason: reason) }
        }
        var out: [ClimateObservation] = []
        for document in top.documents {
            guard case .success(let daily) = document else { continue }
            out += try daily.observations()
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
                // Not an array: the usual single object (errors inside it surface from this decode).
                documents = [try container.decode(Document.self)]
            }
        }
    }

    private typealias Key = OpenMeteoKey
    /// Where ``Document`` finds the variable it reads.
    private static let variableKey = CodingUserInfoKey(rawValue: "breeze.variable")!

    private struct Daily {
        var utcOffset: Int64
        var times: [OpenMeteoTime]
        var values: [Double?]

        func observations() throws(ClimateDecodeError) -> [ClimateObservation] {
            var dates: [CivilDate] = []
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
            guard root.contains(Key("daily")) else { throw ClimateDecodeError.missingVariable }
            let daily = try root.nestedContainer(keyedBy: Key.self, forKey: Key("daily"))
            let variable =
                decoder.userInfo[OpenMeteoDailyDecoder.variableKey] as? String ?? OpenMeteoDailyDecoder.variable
            let names = daily.allKeys.map(\.stringValue)
            let name =
                names.first { $0 == variable }
                ?? names.sorted().first { $0.hasPrefix(variable + "_") && $0.hasSuffix("best_match") }
            guard let name else { throw ClimateDecodeError.missingVariable }
            if root.contains(Key("daily_units")) {
                let units = try root.nestedContainer(keyedBy: Key.self, forKey: Key("daily_units"))
                if let unit = try units.decodeIfPresent(String.self, forKey: Key(name)), unit != "°C" {
                    throw ClimateDecodeError.unsupportedUnit(unit)
                }
            }
            let times = try OpenMeteoTime.series(in: daily, forKey: Key("time"))
            let values = try daily.decode([Double?].self, forKey: Key(name))
            let offset = try root.decodeIfPresent(Int64.self, forKey: Key("utc_offset_seconds")) ?? 0
            self = .success(Daily(utcOffset: offset, times: times, values: values))
        }
    }
}
