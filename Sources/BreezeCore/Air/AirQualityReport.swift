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

internal import FoundationEssentials

/// A decoded air-quality response: every hour the body lists, placed on the absolute time line.
///
/// Open-Meteo writes ISO hours as UTC plus the zone's offset **at request time**, applied to the
/// whole range (API-FACTS §2.3): on a DST-change day the local text of later hours is an hour off.
/// So each hour is stored as the instant it stands for (ISO text minus `utc_offset_seconds`, or the
/// Unix time as sent), and ``AirReading`` matches instants against the zone's real rules, never
/// positions or texts.
public struct AirReport: Sendable, Hashable {
    /// One hourly step.
    public struct Hour: Sendable, Hashable {
        /// Unix seconds of the hour's start.
        public var instant: Int64
        /// Value per hourly metric in tenths (the AQIs and UV as whole numbers × 10); a metric that
        /// is null, negative, absent or implausible for this hour is missing (published Unknown).
        public var tenths: [AirMetric: Int]

        public init(instant: Int64, tenths: [AirMetric: Int]) {
            self.instant = instant
            self.tenths = tenths
        }
    }

    public var hours: [Hour]
    /// Things worth one log line each (negative or implausible values, unreadable hours).
    public var warnings: [String]

    public init(hours: [Hour], warnings: [String] = []) {
        self.hours = hours
        self.warnings = warnings
    }
}

/// What an air-quality HTTP exchange means for the runtime.
public enum AirOutcome: Sendable, Hashable {
    /// Usable data (possibly all Unknown).
    case report(AirReport)
    /// HTTP error, error envelope, truncated or invalid JSON, no hourly block: keep the last good
    /// data, mark it stale and retry (docs/operations.md, Faults).
    case failed(message: String)
}

/// Decoding of `GET /air-quality?hourly=european_aqi,us_aqi,pm2_5,pm10,uv_index&…` (docs/reference.md, Air quality bands).
public enum AirQualityDecoder {
    /// At most this many hourly steps are read (16 forecast days plus 93 past days of hours is the
    /// API's own ceiling; we ask for 24). The rest is dropped with a warning.
    public static let maximumHours = 2_616

    /// Turns a status and body into an outcome. Only a complete, valid 200 body is a report.
    ///
    /// - Parameter fallbackUTCOffset: what places the hours when the body's `utc_offset_seconds`
    ///   is refused (``OpenMeteoAirQualityResponse/UTCOffset``): the location's own offset at the
    ///   fetch (`zone.utcOffset(atUnixTime: fetchedAt)`), which is what Open-Meteo writes
    ///   (API-FACTS §2.3). Without one such a body is refused.
    public static func interpret(httpStatus: Int, body: some Collection<UInt8>, fallbackUTCOffset: Int? = nil)
        -> AirOutcome
    {
        let data = Data(body)
        if let error = try? JSONDecoder().decode(OpenMeteoErrorBody.self, from: data), error.error {
            let reason = error.reason ?? ""
            return .failed(message: reason.isEmpty ? "HTTP \(httpStatus)" : "HTTP \(httpStatus): \(reason)")
        }
        guard httpStatus == 200 else { return .failed(message: "HTTP \(httpStatus)") }
        let response: OpenMeteoAirQualityResponse
        do {
            response = try JSONDecoder().decode(OpenMeteoAirQualityResponse.self, from: data)
        } catch {
            return .failed(message: "invalid Open-Meteo air-quality response: \(error)")
        }
        return report(from: response, fallbackUTCOffset: fallbackUTCOffset)
    }

    /// Places the hours on the time line (``OpenMeteoHours``) and converts the values; fails
    /// when the body has no hourly block, or an offset that is refused with no fallback.
    public static func report(from response: OpenMeteoAirQualityResponse, fallbackUTCOffset: Int? = nil)
        -> AirOutcome
    {
        // Air's reading of the shared decoder: no `hourly` block and a malformed one are alike.
        guard let times = response.times else {
            return .failed(message: "Open-Meteo air-quality response without hourly times")
        }
        var warnings: [String] = []
        let offset: Int
        switch OpenMeteoOffsetChoice(response.utcOffset, fallback: fallbackUTCOffset) {
        case .body(let seconds): offset = seconds
        case .fallback(let seconds, let warning):
            offset = seconds
            warnings.append("air: " + warning)
        case .refused(let message): return .failed(message: message)
        }
        let placed = OpenMeteoHours(times: times, utcOffsetSeconds: offset, limit: maximumHours)
        warnings += placed.unreadable.map { "air: unreadable hour \($0), skipped" }
        if let order = placed.orderWarning("air") { warnings.append(order) }
        var hours: [AirReport.Hour] = []
        hours.reserveCapacity(placed.hours.count)
        var rejected: [AirMetric: (negative: Int, implausible: Int)] = [:]
        for hour in placed.hours {
            var tenths: [AirMetric: Int] = [:]
            for metric in AirMetric.hourlyVariables {
                let series = response.series[metric.rawValue] ?? []
                guard hour.index < series.count, let value = series[hour.index], value.isFinite else { continue }
                guard value >= 0 else {
                    rejected[metric, default: (0, 0)].negative += 1
                    continue
                }
                guard value <= metric.plausibleMaximum else {
                    rejected[metric, default: (0, 0)].implausible += 1
                    continue
                }
                // One rounding of the API's own value: half up to a whole number (the indexes,
                // UV included: 2.49 is 2, Low) or to tenths (particulates). Never a rounded text
                // rounded again (issue 27: 2.49 → "2.5" → 3 read Moderate).
                tenths[metric] = metric.isWholeNumber ? Int(value.rounded()) * 10 : Int((value * 10).rounded())
            }
            hours.append(AirReport.Hour(instant: hour.instant, tenths: tenths))
        }
        for metric in AirMetric.hourlyVariables {
            guard let counts = rejected[metric] else { continue }
            warnings.append(outOfRangeWarning(metric, negative: counts.negative, implausible: counts.implausible))
        }
        if placed.dropped > 0 { warnings.append("air: \(placed.dropped) hour(s) beyond \(maximumHours) dropped") }
        return .report(AirReport(hours: hours, warnings: warnings))
    }

    /// The one line for a metric's values outside its range in one body.
    static func outOfRangeWarning(_ metric: AirMetric, negative: Int, implausible: Int) -> String {
        let name = metric.rawValue
        let maximum = Int(metric.plausibleMaximum)
        switch (negative, implausible) {
        case (_, 0): return "air: \(negative) negative \(name) value(s), published as Unknown"
        case (0, _):
            return "air: \(implausible) \(name) value(s) above \(maximum), the most a real atmosphere gives, "
                + "published as Unknown"
        default:
            return "air: \(negative + implausible) \(name) value(s) outside 0…\(maximum) (\(negative) negative), "
                + "published as Unknown"
        }
    }
}

/// What places a body's hours: its own `utc_offset_seconds`, the caller's fallback when the
/// body's is refused (one warning), or nothing (the body is refused with one message).
enum OpenMeteoOffsetChoice {
    case body(Int)
    case fallback(Int, warning: String)
    case refused(String)

    init(_ offset: OpenMeteoAirQualityResponse.UTCOffset, fallback: Int?) {
        switch offset {
        case .seconds(let seconds): self = .body(seconds)
        case .refused(let text):
            guard let fallback, fallback.magnitude <= OpenMeteoAirQualityResponse.UTCOffset.maximumSeconds else {
                self = .refused(offset.refusal ?? text)
                return
            }
            self = .fallback(
                fallback,
                warning: "utc_offset_seconds \(text) is not a whole number of seconds within "
                    + "±\(OpenMeteoAirQualityResponse.UTCOffset.maximumSeconds); the location's own offset at "
                    + "the fetch (\(fallback) s) places the hours instead")
        }
    }
}
