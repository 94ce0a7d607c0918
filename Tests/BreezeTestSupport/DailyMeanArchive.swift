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

/// Generates Open-Meteo archive responses for `daily=temperature_2m_mean` over decades, in the
/// server's own compact format (API-FACTS §2.3, fixtures/open-meteo): the header keys in the
/// server's order, `daily_units`, then `daily` with one `time` entry per day of the range,
/// temperatures printed with one decimal and `null` for a day without data.
///
/// Every year's values are chosen so that its exact annual mean over the days with a value is
/// the one asked for (in hundredths of °C, halves away from zero), with a seasonal swing that
/// sums to zero on top: a test states the means it wants and checks what the agent made of them.
public struct DailyMeanArchive: Sendable {
    public enum TimeFormat: Sendable {
        case iso8601
        case unixtime
    }

    public var firstYear: Int
    public var lastYear: Int
    /// The annual mean of each year, hundredths of °C.
    public var meanHundredths: @Sendable (Int) -> Int
    /// Days at the end of a year whose value is `null` (the archive's lag, a gap in the data).
    public var nullDays: [Int: Int]
    /// Years left out of `time` altogether (a server would not do this; a decoder must cope).
    public var absentYears: Set<Int>
    /// Peak of the seasonal swing around the mean, tenths of °C.
    public var seasonalAmplitudeTenths: Int
    public var timeFormat: TimeFormat
    public var latitude: String
    public var longitude: String
    public var timezone: String
    public var utcOffsetSeconds: Int
    public var timezoneAbbreviation: String

    public init(
        firstYear: Int, lastYear: Int, meanHundredths: @escaping @Sendable (Int) -> Int,
        nullDays: [Int: Int] = [:], absentYears: Set<Int> = [], seasonalAmplitudeTenths: Int = 90,
        timeFormat: TimeFormat = .iso8601, latitude: String = "52.52", longitude: String = "13.419998",
        timezone: String = "Europe/Berlin", utcOffsetSeconds: Int = 3600, timezoneAbbreviation: String = "GMT+1"
    ) {
        self.firstYear = firstYear
        self.lastYear = lastYear
        self.meanHundredths = meanHundredths
        self.nullDays = nullDays
        self.absentYears = absentYears
        self.seasonalAmplitudeTenths = seasonalAmplitudeTenths
        self.timeFormat = timeFormat
        self.latitude = latitude
        self.longitude = longitude
        self.timezone = timezone
        self.utcOffsetSeconds = utcOffsetSeconds
        self.timezoneAbbreviation = timezoneAbbreviation
    }

    /// A warming climate: `base` hundredths in `baseYear`, rising `perDecade` hundredths every
    /// ten years (integer arithmetic, so the means are known exactly: `base + perDecade·(y − baseYear) / 10`,
    /// truncated toward zero).
    public static func warming(base: Int = 950, baseYear: Int = 1980, perDecade: Int = 30) -> @Sendable (Int) -> Int {
        { year in base + perDecade * (year - baseYear) / 10 }
    }

    public static func daysIn(year: Int) -> Int { isLeap(year) ? 366 : 365 }

    public static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    /// The daily values of `year` in tenths of °C, nil for a `null` day.
    public func dailyTenths(year: Int) -> [Int?] {
        let days = Self.daysIn(year: year)
        let nulls = min(days, nullDays[year] ?? 0)
        let valued = days - nulls
        guard valued > 0 else { return Array(repeating: nil, count: days) }
        // The exact sum whose mean rounds to the requested hundredths: round(m · valued / 10).
        let sum = Self.roundedDivision(meanHundredths(year) * valued, 10)
        let base = Self.floorDivision(sum, valued)
        let extra = sum - base * valued  // this many days get one tenth more
        let half = valued / 2
        var out: [Int?] = []
        out.reserveCapacity(days)
        for day in 0..<valued {
            var swing = 0
            if day < 2 * half {
                // Cold first half, warm second half, paired day by day so the swing sums to zero.
                let i = day % half
                let w = seasonalAmplitudeTenths * 2 * min(i, half - i) / max(half, 1)
                swing = day < half ? -w : w
            }
            out.append(base + (day < extra ? 1 : 0) + swing)
        }
        out += Array(repeating: nil, count: nulls)
        return out
    }

    /// The full response body.
    public func body() -> String {
        var times: [String] = []
        var values: [String] = []
        if firstYear <= lastYear {
            for year in firstYear...lastYear where !absentYears.contains(year) {
                let daily = dailyTenths(year: year)
                var month = 1
                var day = 1
                for value in daily {
                    switch timeFormat {
                    case .iso8601: times.append("\"\(Self.pad(year, 4))-\(Self.pad(month, 2))-\(Self.pad(day, 2))\"")
                    case .unixtime:
                        times.append(String(Self.daysSinceEpoch(year, month, day) * 86_400 - utcOffsetSeconds))
                    }
                    values.append(value.map(Self.oneDecimal) ?? "null")
                    day += 1
                    if day > Self.daysIn(month: month, year: year) {
                        day = 1
                        month += 1
                    }
                }
            }
        }
        let timeUnit = timeFormat == .iso8601 ? "iso8601" : "unixtime"
        return "{\"latitude\":\(latitude),\"longitude\":\(longitude),\"generationtime_ms\":41.87595844268799,"
            + "\"utc_offset_seconds\":\(utcOffsetSeconds),\"timezone\":\"\(timezone)\","
            + "\"timezone_abbreviation\":\"\(timezoneAbbreviation)\",\"elevation\":38.0,"
            + "\"daily_units\":{\"time\":\"\(timeUnit)\",\"temperature_2m_mean\":\"°C\"},"
            + "\"daily\":{\"time\":[\(times.joined(separator: ","))],"
            + "\"temperature_2m_mean\":[\(values.joined(separator: ","))]}}"
    }

    /// The body for a warming-stripes request (`daily=temperature_2m_mean`,
    /// `start_date=<Y1>-01-01`, `end_date=<Y2>-12-31`) with this archive's settings over the
    /// years asked for; nil for any other request (the caller answers those).
    public func body(for request: LoopbackHTTPServer.Request) -> String? {
        guard request.queryValue("daily") == "temperature_2m_mean" else { return nil }
        guard let start = request.queryValue("start_date"), let end = request.queryValue("end_date"),
            start.hasSuffix("-01-01"), end.hasSuffix("-12-31"), let first = Int(start.prefix(4)),
            let last = Int(end.prefix(4))
        else {
            return #"{"error":true,"reason":"test server: the stripes ask for whole years"}"#
        }
        var archive = self
        archive.firstYear = first
        archive.lastYear = last
        return archive.body()
    }

    /// ``body(for:)`` as the loopback server's answer (200, JSON), nil for other requests.
    public func answer(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Action? {
        body(for: request).map {
            .respond(status: 200, headers: [("Content-Type", "application/json; charset=utf-8")], text: $0)
        }
    }

    /// Answers stripes requests for the test servers that stand in for the whole archive:
    /// 9.50 °C in 1980, 0.30 °C warmer a decade.
    public static let standIn = DailyMeanArchive(
        firstYear: 1980, lastYear: 1980, meanHundredths: DailyMeanArchive.warming())

    /// `20.0`, `-0.4`: one decimal, as the server prints temperatures.
    public static func oneDecimal(_ tenths: Int) -> String {
        (tenths < 0 ? "-" : "") + "\(tenths.magnitude / 10).\(tenths.magnitude % 10)"
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 (Howard Hinnant's days-from-civil).
    static func daysSinceEpoch(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        return era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    static func roundedDivision(_ n: Int, _ d: Int) -> Int {
        let q = n / d
        let r = n % d
        return 2 * r.magnitude >= d.magnitude ? q + (n < 0 ? -1 : 1) : q
    }

    static func floorDivision(_ n: Int, _ d: Int) -> Int {
        let q = n / d
        return n % d < 0 ? q - 1 : q
    }
}
