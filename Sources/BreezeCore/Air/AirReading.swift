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

/// What is served for one location right now: the current local hour's values and today's UV
/// maximum (docs/reference.md, Air quality bands), picked from a report by the zone's real rules.
public struct AirReading: Sendable, Hashable {
    /// The location's local date at `now`.
    public var today: CivilDate
    /// Unix seconds of the matched hour's start; nil when the report has no entry for the current
    /// local hour (the stored data is from another day, or the body skipped that hour).
    public var hour: Int64?
    /// Tenths per metric (``AirMetric/uvIndexMax`` included); a missing metric is Unknown.
    public var tenths: [AirMetric: Int]

    public init(today: CivilDate, hour: Int64?, tenths: [AirMetric: Int]) {
        self.today = today
        self.hour = hour
        self.tenths = tenths
    }

    /// Picks the values for `now` (Unix seconds) in `zone`.
    ///
    /// - Current: the entry whose instant is the start of the local hour containing `now` — its
    ///   local time equals now floored to the hour. With a half-hour zone (India, Nepal) the local
    ///   hour starts at :30 or :45 UTC, which is how Open-Meteo lays its hours out there too. In
    ///   the repeated hour of a DST fall-back, "now floored" is the occurrence `now` is in.
    /// - `uv_index_max`: the largest non-null `uv_index` of the entries whose local date (by the
    ///   zone's rules at that instant) is today.
    public static func select(report: AirReport, zone: ZoneRules, now: Int64) -> AirReading {
        let hourStart = zone.localHourStart(containing: now)
        let today = zone.localDate(atUnixTime: now)

        var tenths: [AirMetric: Int] = [:]
        var hour: Int64?
        if let current = report.hours.first(where: { $0.instant == hourStart }) {
            hour = current.instant
            tenths = current.tenths
        }
        let uvToday = report.hours.filter { zone.localDate(atUnixTime: $0.instant) == today }
            .compactMap { $0.tenths[.uvIndex] }
        tenths[.uvIndexMax] = uvToday.max()
        return AirReading(today: today, hour: hour, tenths: tenths)
    }

    /// A metric's value in tenths, nil when Unknown.
    public func value(_ metric: AirMetric) -> Int? { tenths[metric] }
}

extension ZoneRules {
    /// The instant the local hour containing `now` starts: its local time is now floored to the
    /// hour (with a half-hour zone that is :30 or :45 UTC; in the repeated hour of a DST
    /// fall-back, the occurrence `now` is in). The air and the hourly pollen match entries on it.
    public func localHourStart(containing now: Int64) -> Int64 {
        let offset = Int64(utcOffset(atUnixTime: now))
        let local = now + offset
        return local - local.floorModulo(3_600) - offset
    }
}

extension Int64 {
    /// The non-negative remainder (`-1.floorModulo(3600)` is 3599).
    func floorModulo(_ d: Int64) -> Int64 {
        let r = self % d
        return r < 0 ? r + d : r
    }
}
