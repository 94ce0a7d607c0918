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

/// What is served for one location right now: the report's entries matched to the location's
/// local dates, with the freshness rules applied (docs/reference.md, Pollen levels and colors "Days are matched by date" and
/// "Freshness").
///
/// `days[0]` is today, `days[n]` is today + n; every day lists the same items in the same
/// order (types GRASS, TREE, WEED first, then plants in response order), so consumers can
/// index forecast values by item.
public struct PollenSelection: Sendable, Hashable {
    public var source: PollenSource
    public var region: String?
    public var today: CivilDate
    public var days: [PollenDay]
    /// The runtime's stale flag, or true once the fetch is 24 h old (forecast days are gone then).
    public var stale: Bool
    public var warnings: [String]
    /// The report's hourly values (Open-Meteo only, docs/reference.md, The hour to air out): the `now`, `peak_at` and
    /// `air_out` topics are read from them with the clock (``PollenHourlyView``).
    public var hourly: PollenHourly? = nil

    /// Forecast values are served while their fetch is younger than this (Google's terms).
    public static let forecastLifetime: Int64 = 24 * 3600
    /// Today's values are served (marked stale) while their fetch is younger than this.
    public static let todayLifetime: Int64 = 48 * 3600

    /// Matches `report` to the local dates starting at `today`.
    ///
    /// - `days`: the `pollen.days` setting; the selection has `min(days, source.maximumDays)`
    ///   days (at least today), so Open-Meteo never yields a `d4`.
    /// - Entries dated before `today` are dropped (a past date is never served); a date the
    ///   report lacks is all Unknown.
    /// - Freshness, from `fetchedAt` and `now` (Unix seconds): at 24 h and older every forecast
    ///   day is published as Unknown (kept, not omitted, so `…/dN` topics say Unknown instead
    ///   of keeping yesterday's retained values); at 48 h and older today is Unknown as well.
    ///   A fetch time in the future (clock step) counts as fresh.
    /// - Descriptive fields (picture, family, …) a day lacks are taken from another served
    ///   entry of the same item; measurements (value, index text, season flag) never are.
    public static func select(
        report: PollenReport, today: CivilDate, days: Int, fetchedAt: Int64, now: Int64, stale: Bool
    ) -> PollenSelection {
        var warnings: [String] = []
        let count = min(Swift.max(1, days), report.source.maximumDays)
        let age = Swift.max(0, now - fetchedAt)
        let served = report.days.filter { $0.date >= today }
        let byDate = Dictionary(served.map { ($0.date, $0) }, uniquingKeysWith: { first, _ in first })

        // The catalog: every item of the served entries (of all entries when only past dates
        // exist, so the topics still say Unknown), types first, then plants by first sighting.
        let catalogSource = served.isEmpty ? report.days : served
        var templates: [String: PollenItem] = [:]
        var typeOrder: [PollenItem] = []
        var plantOrder: [String] = []
        var usedIDs: Set<String> = []
        var idOfCode: [String: String] = [:]
        for day in catalogSource {
            for item in day.items {
                if let known = templates[item.code] {
                    if !known.hasDescription && item.hasDescription { templates[item.code] = item }
                    continue
                }
                if idOfCode[item.code] == nil {
                    let id = item.topicID
                    guard usedIDs.insert(id).inserted else {
                        warnings.append("pollen: \(item.code) maps to topic id \(id) already in use, skipped")
                        idOfCode[item.code] = ""
                        continue
                    }
                    idOfCode[item.code] = id
                }
                if idOfCode[item.code] == "" { continue }
                templates[item.code] = item
                if item.isPlant { plantOrder.append(item.code) } else { typeOrder.append(item) }
            }
        }
        let codes = GooglePollen.orderedTypes(typeOrder).map(\.code) + plantOrder

        var out: [PollenDay] = []
        for n in 0..<count {
            let date = today.adding(days: n)
            let fresh = n == 0 ? age < todayLifetime : age < forecastLifetime
            let entry = fresh ? byDate[date] : nil
            var items: [PollenItem] = []
            for code in codes {
                let template = templates[code]!
                let still = template.withoutDayData
                guard var item = entry?.items.first(where: { $0.code == code }) else {
                    items.append(still)
                    continue
                }
                item.category = item.category ?? still.category
                item.imageURL = item.imageURL ?? still.imageURL
                item.imageCloseupURL = item.imageCloseupURL ?? still.imageCloseupURL
                item.family = item.family ?? still.family
                item.season = item.season ?? still.season
                item.appearance = item.appearance ?? still.appearance
                item.crossReaction = item.crossReaction ?? still.crossReaction
                items.append(item)
            }
            out.append(PollenDay(date: date, items: items))
        }
        return PollenSelection(
            source: report.source, region: report.region, today: today, days: out,
            stale: stale || age >= forecastLifetime, warnings: warnings, hourly: report.hourly)
    }

    /// Today's items.
    public var items: [PollenItem] { days.first?.items ?? [] }

    /// The hourly view at `now` in `zone` (docs/reference.md, The hour to air out); nil without hourly data (Google).
    public func hourlyView(zone: ZoneRules, now: Int64, fetchedAt: Int64) -> PollenHourlyView? {
        hourly.map { PollenHourlyView(hourly: $0, zone: zone, now: now, fetchedAt: fetchedAt, stale: stale) }
    }

    /// The summary `max`: today's general type (GRASS, TREE, WEED) with the highest value,
    /// ties going to the earlier in that order; nil when none of them has an index.
    public var max: PollenItem? { days.first?.max }

    /// The day with the highest `max` over today and the forecast days that have one (the
    /// earliest on ties), with that day's `max` item (docs/reference.md, Max, trend and peak); nil when no day has one.
    public var peak: (date: CivilDate, item: PollenItem)? {
        var best: (date: CivilDate, item: PollenItem)?
        for day in days {
            guard let item = day.max, let value = item.value else { continue }
            if let current = best?.item.value, current >= value { continue }
            best = (day.date, item)
        }
        return best
    }
}

extension PollenDay {
    /// The day's general type (GRASS, TREE, WEED) with the highest value, ties going to the
    /// earlier in that order; nil when none of them has an index.
    public var max: PollenItem? {
        var best: PollenItem?
        for code in GooglePollen.typeCodes {
            guard let item = items.first(where: { !$0.isPlant && $0.code == code }), let value = item.value else {
                continue
            }
            if let current = best?.value, current >= value { continue }
            best = item
        }
        return best
    }
}

/// Tomorrow's value against today's (docs/reference.md, Max, trend and peak).
public enum PollenTrend: String, Sendable {
    case rising, falling, steady, unknown

    /// `unknown` when either day has no index.
    public init(today: Int?, tomorrow: Int?) {
        guard let today, let tomorrow else {
            self = .unknown
            return
        }
        self = tomorrow > today ? .rising : tomorrow < today ? .falling : .steady
    }
}

extension PollenItem {
    /// The item's topic segment: the code in lower case with anything outside `[a-z0-9_]`
    /// mapped to `_` (docs/reference.md, Topics). Ids that would collide with the fixed topics beside the items
    /// (`max`, `updated_at`, `stale`, `peak`, `air_out`) get a trailing `_`.
    public var topicID: String {
        var id = ""
        for scalar in code.lowercased().unicodeScalars {
            switch scalar {
            case "a"..."z", "0"..."9", "_": id.unicodeScalars.append(scalar)
            default: id += "_"
            }
        }
        if id.isEmpty { id = "_" }
        if ["max", "updated_at", "stale", "peak", "air_out"].contains(id) { id += "_" }
        return id
    }
}
