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

/// The local hours of the day a window to air out may use (`air_out.hours`, `HH-HH`, default
/// `06-22`): hour-of-day `start` up to, not including, `end`. A range whose start is after its
/// end runs across midnight (`20-04` is 20:00 to 04:00); `00-24` is the whole day.
public struct DaytimeHours: Sendable, Hashable, CustomStringConvertible {
    /// 0…23.
    public let start: Int
    /// 1…24, not equal to `start`.
    public let end: Int

    /// Nil when `start` is outside 0…23, `end` outside 1…24, or they are equal.
    public init?(start: Int, end: Int) {
        guard (0...23).contains(start), (1...24).contains(end), start != end else { return nil }
        self.start = start
        self.end = end
    }

    /// `06-22`: two digits, a hyphen, two digits. Nil for anything else (or bounds as above).
    public init?(text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
            let start = Int(parts[0]), let end = Int(parts[1])
        else { return nil }
        self.init(start: start, end: end)
    }

    public static let standard = DaytimeHours(start: 6, end: 22)!

    /// Whether an hour of the day (0…23) lies in the range.
    public func contains(hour: Int) -> Bool {
        start < end ? (start..<end).contains(hour) : hour >= start || hour < end
    }

    /// How many hours of the day the range has (1…24).
    public var count: Int { start < end ? end - start : 24 - start + end }

    public var description: String {
        (start < 10 ? "0" : "") + String(start) + "-" + (end < 10 ? "0" : "") + String(end)
    }
}

/// `air_out:` (docs/reference.md, The hour to air out): the window's length in hours and the hours of the day it may use.
public struct AirOutSettings: Sendable, Hashable {
    /// 1…6 hours; 2 by default.
    public var window: Int
    public var hours: DaytimeHours

    public init(window: Int = 2, hours: DaytimeHours = .standard) {
        self.window = window
        self.hours = hours
    }

    public static let windowRange = 1...6
}

/// The best hours to air out at one location, for the location's pollen types or one profile's
/// allergens (docs/reference.md, The hour to air out "The hour to air out").
public struct AirOutAssessment: Sendable, Hashable {
    /// The chosen window: `window_h` consecutive hours.
    public struct Window: Sendable, Hashable {
        /// Unix seconds of the first hour's start.
        public var start: Int64
        /// Unix seconds the last hour ends (`start + window_h × 3600`: real hours, also across a
        /// DST change).
        public var end: Int64
        /// The highest hourly 0–5 value over the allergens and the window's hours.
        public var value: Int

        public var level: PollenLevel { PollenLevel(value: value) }
    }

    /// Nil when no window could be chosen; ``reason`` says why.
    public var window: Window?
    /// The item ids the window was chosen over (the ones the hourly source carries).
    public var allergens: [String]
    public var windowHours: Int
    /// `air_out/now`: the current hour is in the window, or every allergen is at most Low now.
    public var now: Bool
    public var stale: Bool
    /// Why there is no window (nil when there is one).
    public var reason: String?
    /// ``reason`` as values, for the summary in another language.
    var noWindow: NoWindow?

    /// Why no window was chosen.
    enum NoWindow: Sendable, Hashable {
        /// None of the allergens asked for (their ids, comma-separated) is in the hourly data.
        case noAllergens(String)
        /// No run of `hours` usable hours within the daytime `range` (`06-22`).
        case noHours(Int, String)
    }

    /// The location's own window: over its three pollen types.
    public static let locationAllergens = ["grass", "tree", "weed"]

    /// Chooses the window (docs/reference.md, The hour to air out), exactly:
    ///
    /// - candidate hours: the hourly steps whose start lies in the next 24 h — from the start of
    ///   the current local hour (included) to 24 h later (excluded) — whose local hour of the day
    ///   (by the zone's rules at that instant) is in `settings.hours`, which are fresh (docs/reference.md, Pollen levels and colors:
    ///   today's under 48 h, later days' under 24 h) and have a value for at least one allergen;
    /// - an hour's level is the highest level of the allergens that have a value in it;
    /// - a window is `settings.window` candidate hours that follow each other by exactly one
    ///   hour of real time (so across midnight when the range allows, and across a DST change);
    /// - the window whose highest level is lowest wins (levels compared, None < Low < Moderate <
    ///   High < Very High, not the 0–5 values); ties go to the earliest.
    ///
    /// Allergens the hourly source does not carry (Google-only plants) are left out; when none
    /// is left there is no window and ``reason`` says so.
    public static func assess(
        allergens requested: [String], view: PollenHourlyView, settings: AirOutSettings
    ) -> AirOutAssessment {
        let allergens = requested.filter(PollenHourly.carries)
        var result = AirOutAssessment(
            window: nil, allergens: allergens, windowHours: settings.window, now: false, stale: view.stale,
            reason: nil)
        guard !allergens.isEmpty else {
            let list = requested.joined(separator: ", ")
            result.reason = "none of the allergens (\(list)) is in the hourly data of Open-Meteo"
            result.noWindow = .noAllergens(list)
            return result
        }

        func highest(_ hour: PollenHourly.Hour) -> Int? {
            allergens.compactMap { PollenHourly.value(of: $0, in: hour) }.max()
        }
        let current = PollenHourly.hourStart(containing: view.now, zone: view.zone)
        let horizon = current + 24 * 3_600
        var candidates: [Int64: Int] = [:]
        for hour in view.hourly.hours where hour.instant >= current && hour.instant < horizon {
            guard view.isFresh(hour), settings.hours.contains(hour: localHour(of: hour.instant, zone: view.zone)),
                let value = highest(hour)
            else { continue }
            candidates[hour.instant] = value
        }

        var best: (start: Int64, rank: Int, value: Int)?
        for start in candidates.keys.sorted() {
            var value = 0
            var complete = true
            for step in 0..<settings.window {
                guard let hourValue = candidates[start + Int64(step) * 3_600] else {
                    complete = false
                    break
                }
                value = Swift.max(value, hourValue)
            }
            guard complete, let rank = RiskAssessment.rank(PollenLevel(value: value)) else { continue }
            if let chosen = best, chosen.rank <= rank { continue }
            best = (start, rank, value)
        }
        if let best {
            result.window = Window(
                start: best.start, end: best.start + Int64(settings.window) * 3_600, value: best.value)
        } else {
            result.reason =
                "no \(settings.window) consecutive hour(s) with pollen data within \(settings.hours) in the next 24 h"
            result.noWindow = .noHours(settings.window, settings.hours.description)
        }

        let inWindow = result.window.map { $0.start <= current && current < $0.end } ?? false
        let lowNow = view.currentHour.flatMap(highest).map { $0 <= 1 } ?? false
        result.now = inWindow || lowNow
        return result
    }

    /// The local hour of the day (0…23) at an instant.
    static func localHour(of instant: Int64, zone: ZoneRules) -> Int {
        let local = instant + Int64(zone.utcOffset(atUnixTime: instant))
        return Int(local.floorModulo(86_400) / 3_600)
    }

    /// The window in words for people (the status page): `15:00–17:00 today, Low`, with the
    /// local times of `view`'s zone and `tomorrow` or the date when it is not today; the reason
    /// when there is none.
    /// In another `language`: its words, clock and level word.
    public func summary(view: PollenHourlyView, language: Language = .english) -> String {
        guard let window else {
            switch noWindow {
            case .noAllergens(let list): return language.text(.airOutNoAllergens, ["list": list])
            case .noHours(let hours, let range):
                return language.text(.airOutNoHours, ["hours": String(hours), "range": range])
            case nil: return language.text(.airOutNoData)
            }
        }
        let date = view.zone.localDate(atUnixTime: window.start)
        let day =
            date == view.today
            ? language.text(.airOutToday)
            : date == view.today.adding(days: 1) ? language.text(.airOutTomorrow) : date.description
        return language.text(
            .airOutWindow,
            [
                "start": language.clock(window.start, zone: view.zone),
                "end": language.clock(window.end, zone: view.zone),
                "day": day, "level": language.levelWord(window.level.label),
            ])
    }

    /// `air_out/now`'s payload.
    public var nowPayload: String { now ? "ON" : "OFF" }

    /// The `…/air_out` document: `{start, end, level, value, allergens, window_h, stale, reason}`,
    /// times RFC 3339 UTC (docs/reference.md, Topics); `start`, `end` and `value` null and `level` Unknown when
    /// there is no window.
    public var json: JSONValue {
        let level = window?.level ?? .unknown
        return .object([
            "start": .optional(window.map { UTCTimestamp.rfc3339(unixSeconds: $0.start) }),
            "end": .optional(window.map { UTCTimestamp.rfc3339(unixSeconds: $0.end) }),
            "level": .string(level.label),
            "value": window.map { .integer($0.value) } ?? .null,
            "allergens": .array(allergens.map(JSONValue.string)),
            "window_h": .integer(windowHours),
            "stale": .bool(stale),
            "reason": .optional(reason),
        ])
    }
}
