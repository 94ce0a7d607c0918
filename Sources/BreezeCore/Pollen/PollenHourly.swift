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

/// The hourly pollen of the key-free source (docs/reference.md, The hour to air out): every hour of the Open-Meteo body placed
/// on the absolute time line, in integer tenths of grains/m³ per plant.
///
/// Open-Meteo writes ISO hours as UTC plus the zone's offset *at request time*, applied to the
/// whole range (API-FACTS §2.3), so an hour is stored as the instant it stands for (as
/// ``AirReport`` does) and matched against the zone's real rules: on a DST change day the
/// local hours come out right (23 or 25 of them), whatever the text said.
public struct PollenHourly: Sendable, Hashable {
    /// One hourly step.
    public struct Hour: Sendable, Hashable {
        /// Unix seconds of the hour's start.
        public var instant: Int64
        /// Tenths of grains/m³ per plant code (`BIRCH`, …); a null or implausible hour is missing.
        public var tenths: [String: Int]

        public init(instant: Int64, tenths: [String: Int]) {
            self.instant = instant
            self.tenths = tenths
        }
    }

    /// The hours in time order, each instant once (``OpenMeteoHours``: the first of a repeated
    /// hour is kept, whatever order the body lists them in).
    public var hours: [Hour]

    public init(hours: [Hour]) { self.hours = hours }

    /// At most this many hours are kept: the API's own ceiling (16 forecast + 93 past days),
    /// as for the air source; we ask for 96.
    public static let maximumHours = AirQualityDecoder.maximumHours

    /// The hour that starts at `instant`, if the body has it.
    public func hour(at instant: Int64) -> Hour? { hours.first { $0.instant == instant } }

    // MARK: values of one hour

    /// The 0–5 value of an item id (a type `grass`/`tree`/`weed`, or a plant `birch`, …) in one
    /// hour, on the docs/reference.md, Key-free pollen thresholds key-free thresholds applied to the hourly value: the tenths rounded
    /// half up to whole grains (as the daily mean is), then the plant's table. A type is the
    /// highest of its plants' values (TREE = alder, birch, olive; GRASS = grass; WEED = mugwort,
    /// ragweed), ignoring missing ones. Nil when the hour has no value for it, or the id is not
    /// one the hourly source carries.
    public static func value(of itemID: String, in hour: Hour) -> Int? {
        let members = plants(of: itemID)
        return members.compactMap { plant in
            hour.tenths[plant.code].map { plant.value(meanGrains: FixedPoint.roundedDivision($0, 10)) }
        }.max()
    }

    /// The plants behind an item id: the plant itself, or a type's members; empty for an id the
    /// hourly source does not carry (Google-only plants such as `oak`).
    public static func plants(of itemID: String) -> [OpenMeteoPollen.Plant] {
        let code = itemID.uppercased()
        if let plant = OpenMeteoPollen.plants.first(where: { $0.code == code }) { return [plant] }
        return OpenMeteoPollen.plants.filter { $0.category == code }
    }

    /// Whether the hourly source carries an item id (a type or one of its six plants).
    public static func carries(_ itemID: String) -> Bool { !plants(of: itemID).isEmpty }

    /// The start of the local hour that contains `now` (``ZoneRules/localHourStart(containing:)``).
    public static func hourStart(containing now: Int64, zone: ZoneRules) -> Int64 {
        zone.localHourStart(containing: now)
    }
}

/// The hourly view of one location at one moment (docs/reference.md, The hour to air out "now and the peak"): the current
/// local hour's value per item and today's highest hour.
///
/// Freshness as docs/reference.md, Pollen levels and colors: hours of today are served while their fetch is under 48 h old, hours of
/// a later local date while it is under 24 h old; an hour past that is treated as missing.
public struct PollenHourlyView: Sendable {
    public var hourly: PollenHourly
    public var zone: ZoneRules
    public var now: Int64
    public var fetchedAt: Int64
    /// The runtime's stale flag, or true once the fetch is 24 h old (as ``PollenSelection``).
    public var stale: Bool

    public init(hourly: PollenHourly, zone: ZoneRules, now: Int64, fetchedAt: Int64, stale: Bool) {
        self.hourly = hourly
        self.zone = zone
        self.now = now
        self.fetchedAt = fetchedAt
        self.stale = stale || Swift.max(0, now - fetchedAt) >= PollenSelection.forecastLifetime
    }

    /// The location's local date at ``now``.
    public var today: CivilDate { zone.localDate(atUnixTime: now) }

    /// Whether an hour may still be served (docs/reference.md, Pollen levels and colors freshness, by the hour's local date).
    public func isFresh(_ hour: PollenHourly.Hour) -> Bool {
        let age = Swift.max(0, now - fetchedAt)
        let date = zone.localDate(atUnixTime: hour.instant)
        if date < today { return false }
        return date == today ? age < PollenSelection.todayLifetime : age < PollenSelection.forecastLifetime
    }

    /// The current local hour, when the data has it and it is fresh.
    public var currentHour: PollenHourly.Hour? {
        guard let hour = hourly.hour(at: PollenHourly.hourStart(containing: now, zone: zone)), isFresh(hour) else {
            return nil
        }
        return hour
    }

    /// The 0–5 value of an item in the current hour; nil = Unknown.
    public func nowValue(of itemID: String) -> Int? { currentHour.flatMap { PollenHourly.value(of: itemID, in: $0) } }

    /// The start of today's highest hour of an item; nil when today has no such hour above zero
    /// (all zero, no data, or stale past 48 h).
    ///
    /// "Highest" for a plant is its grains/m³ (tenths); for a type, whose plants are on different
    /// scales, its hourly 0–5 value. Ties go to the earliest hour.
    public func peakAt(of itemID: String) -> Int64? {
        let members = PollenHourly.plants(of: itemID)
        guard !members.isEmpty else { return nil }
        let isPlant = members.count == 1 && members[0].code == itemID.uppercased()
        var best: (instant: Int64, score: Int)?
        for hour in hourly.hours where zone.localDate(atUnixTime: hour.instant) == today && isFresh(hour) {
            let score: Int?
            if isPlant {
                score = hour.tenths[members[0].code]
            } else {
                score = PollenHourly.value(of: itemID, in: hour)
            }
            guard let score, score > 0 else { continue }
            if let current = best, current.score > score || (current.score == score && current.instant <= hour.instant)
            {
                continue
            }
            best = (hour.instant, score)
        }
        return best?.instant
    }

    /// `peak_at`'s text: ISO 8601 local time with the zone's offset at that instant,
    /// `2026-04-15T14:00+02:00` (the offset keeps the repeated hour of a DST fall-back apart).
    public func localTimeText(_ instant: Int64) -> String {
        let offset = zone.utcOffset(atUnixTime: instant)
        let local = instant + Int64(offset)
        let date = CivilDate(daysSinceEpoch: Int((local - local.floorModulo(86_400)) / 86_400))
        let seconds = Int(local.floorModulo(86_400))
        let sign = offset < 0 ? "-" : "+"
        let magnitude = abs(offset)
        return "\(date)T\(Self.two(seconds / 3600)):\(Self.two(seconds % 3600 / 60))"
            + "\(sign)\(Self.two(magnitude / 3600)):\(Self.two(magnitude % 3600 / 60))"
    }

    private static func two(_ n: Int) -> String { n < 10 ? "0\(n)" : String(n) }
}
