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

/// The configured daily load on Open-Meteo's public API in its own accounting (weighted calls,
/// API-FACTS §2.7): what `check-config` prints and docs/operations.md explains, per source and day.
///
/// Only Open-Meteo sources count (Google pollen is billed per request and capped by
/// `pollen.max_calls_per_day`). The figures are the steady state with every fetch succeeding;
/// a failed request also costs one call, and retries add to it.
public struct OpenMeteoBudget: Sendable, Equatable {
    /// One source's share for all locations.
    public struct Line: Sendable, Equatable {
        /// `pollen`, `air`, `climate` or `stripes` (the keys diagnostics use).
        public var source: String
        /// HTTP requests per day.
        public var requests: Int
        /// Weighted calls per day.
        public var weight: OpenMeteoCallWeight
        /// What the line assumes, for humans (`24 × 1.00 per location`).
        public var note: String

        public init(source: String, requests: Int, weight: OpenMeteoCallWeight, note: String) {
            self.source = source
            self.requests = requests
            self.weight = weight
            self.note = note
        }
    }

    /// Open-Meteo's free-tier daily limit (fewer than 10,000 calls per day).
    public static let dailyLimit = OpenMeteoCallWeight.calls(10_000)

    /// The per-location inputs, mirroring the config.
    public struct Plan: Sendable, Equatable {
        public var locations: Int
        /// `pollen.interval` in seconds when pollen comes from Open-Meteo, else nil.
        public var pollenInterval: Int?
        /// `air.interval` in seconds when air is enabled, else nil.
        public var airInterval: Int?
        /// The number of past years the climate archive request asks for, when climate is enabled.
        public var climateArchiveYears: Int?
        /// The stripes archive range (first and last day), when stripes are enabled: fetched on
        /// one day a year, shown as that day's extra load.
        public var stripesRange: (first: CivilDate, last: CivilDate)?
        /// Whether the day's first pollen call carries the season (docs/reference.md, The hour to air out, `past_days=92`);
        /// off only when a fleet's stretched load would still pass the daily limit.
        public var pollenSeason: Bool

        public init(
            locations: Int, pollenInterval: Int? = nil, airInterval: Int? = nil, climateArchiveYears: Int? = nil,
            stripesRange: (first: CivilDate, last: CivilDate)? = nil, pollenSeason: Bool = true
        ) {
            self.pollenSeason = pollenSeason
            self.locations = locations
            self.pollenInterval = pollenInterval
            self.airInterval = airInterval
            self.climateArchiveYears = climateArchiveYears
            self.stripesRange = stripesRange
        }

        public static func == (a: Plan, b: Plan) -> Bool {
            a.locations == b.locations && a.pollenInterval == b.pollenInterval && a.airInterval == b.airInterval
                && a.pollenSeason == b.pollenSeason
                && a.climateArchiveYears == b.climateArchiveYears
                && a.stripesRange?.first == b.stripesRange?.first && a.stripesRange?.last == b.stripesRange?.last
        }
    }

    /// Lines for the enabled sources, in the order pollen, air, climate, stripes.
    public var lines: [Line]

    public init(lines: [Line]) { self.lines = lines }

    /// Weighted calls on an ordinary day (stripes excluded: they run on one day a year).
    public var dailyTotal: OpenMeteoCallWeight {
        lines.filter { $0.source != "stripes" }.reduce(.zero) { $0 + $1.weight }
    }

    /// The day the stripes are refetched: the ordinary day plus the stripes request.
    public var peakTotal: OpenMeteoCallWeight { lines.reduce(.zero) { $0 + $1.weight } }

    /// Whether an ordinary day stays under the free tier's daily limit.
    public var withinDailyLimit: Bool { dailyTotal < Self.dailyLimit }

    /// The weight of Open-Meteo's pollen request (six species over four days).
    public static let pollenRequest = OpenMeteoCallWeight.request(
        variables: OpenMeteoPollen.plants.count, days: OpenMeteoPollen.forecastDays)

    /// Computes the lines of `plan`.
    public static func plan(_ plan: Plan) -> OpenMeteoBudget {
        let n = Swift.max(0, plan.locations)
        var lines: [Line] = []
        func periodic(_ source: String, interval: Int, weight: OpenMeteoCallWeight, midnight: Bool = false) {
            var perDay = OpenMeteoCallWeight.fetchesPerDay(intervalSeconds: interval)
            // Air also fetches right after local midnight (its data is one day): one more, unless
            // the interval is a day or more (then that fetch is the day's only one).
            if midnight && interval < 86_400 { perDay += 1 }
            let (requests, overflow) = perDay.multipliedReportingOverflow(by: n)
            lines.append(
                Line(
                    source: source, requests: overflow ? Int.max : requests, weight: weight * perDay * n,
                    note: "\(perDay) × \(weight) per location"))
        }
        if let interval = plan.pollenInterval, !plan.pollenSeason {
            periodic("pollen", interval: interval, weight: pollenRequest)
        } else if let interval = plan.pollenInterval {
            // The day's first call is the season call (docs/reference.md, The hour to air out, `past_days=92`): it weighs
            // ``PollenSeason/callWeight`` in place of a plain call's.
            let perDay = OpenMeteoCallWeight.fetchesPerDay(intervalSeconds: interval)
            let perLocation = pollenRequest * Swift.max(0, perDay - 1) + PollenSeason.callWeight
            let (requests, overflow) = perDay.multipliedReportingOverflow(by: n)
            lines.append(
                Line(
                    source: "pollen", requests: overflow ? Int.max : requests, weight: perLocation * n,
                    note:
                        "\(perDay) per location: 1 × \(PollenSeason.callWeight) with the season (past_days=\(PollenSeason.pastDays)) + \(perDay - 1) × \(pollenRequest)"
                ))
        }
        if let interval = plan.airInterval {
            periodic("air", interval: interval, weight: AirQualityRequest.weight, midnight: true)
        }
        if let years = plan.climateArchiveYears {
            // Once per local date: one archive request with a one-day range per past year (each
            // range at least one call) and one forecast request for today.
            let archive = OpenMeteoCallWeight.request(
                variables: 1, rangesOfDays: Array(repeating: 1, count: Swift.max(0, years)))
            let perLocation = archive + .calls(1)
            let (requests, overflow) = n.multipliedReportingOverflow(by: years > 0 ? 2 : 1)
            lines.append(
                Line(
                    source: "climate", requests: overflow ? Int.max : requests, weight: perLocation * n,
                    note: "\(years) archive range(s) + 1 forecast per location"))
        }
        if let range = plan.stripesRange {
            let days = OpenMeteoCallWeight.days(from: range.first, through: range.last)
            let weight = OpenMeteoCallWeight.request(variables: 1, days: days)
            lines.append(
                Line(
                    source: "stripes", requests: n, weight: weight * n,
                    note: "once a year: \(days) days × 1 variable = \(weight) per location"))
        }
        return OpenMeteoBudget(lines: lines)
    }
}
