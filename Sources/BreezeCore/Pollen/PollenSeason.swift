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

/// Today against the recent season (docs/reference.md, The hour to air out): the daily means of the last 92 days of the
/// key-free source, from one `past_days=92` call a day, turned into `percentile` and
/// `season_start` per type and plant.
///
/// Definitions (docs/operations.md "Today against the recent season"; pinned in
/// `PollenSeasonTests`):
/// - The **window** is the ``windowDays`` local dates ending with today (today − 91 … today).
///   A day's mean is the published daily mean in tenths of grains/m³ (the same number as the
///   `grains` of the daily item: the mean of the day's non-null hours, half up, at least
///   ``OpenMeteoPollen/minimumHours`` hours); a day without one is left out.
/// - A **type**'s daily mean is the **sum** of its plants' means (TREE = alder + birch + olive,
///   WEED = mugwort + ragweed, GRASS = grass): the grains of that type in the air, one scale;
///   a day counts when at least one of its plants has a mean.
/// - **percentile**: among the window's *pollen days* (mean > 0, i.e. at least 0.1 grains/m³
///   published), the share whose mean is ≤ today's, in whole percent rounded half up
///   (`100 × count / pollenDays`). `off_season` when the window has days with a mean but none
///   above 0; `insufficient` when it has 1–13 pollen days; empty (Unknown) when today has no
///   mean. Today is one of the window's days, so a pollen day today counts itself.
/// - **season_start**: a day is *in season* when its mean is at or above the plant's onset
///   threshold (``onsetGrains``, EAACI: Pfaar et al. 2017, Allergy 72:713–722), compared on the
///   published tenths (`meanTenths ≥ 10 × threshold`). For a type, a day is in season when any
///   of its plants is at or above its own threshold. `season_start` is the first date of the
///   unbroken run of in-season days that ends today; a day below the threshold or without a
///   mean breaks the run; empty when today is not in season. A run reaching the window's first
///   day starts there (the call sees no further back).
public struct PollenSeason: Sendable, Hashable {
    /// Daily means in tenths of grains/m³, per local date and plant code (`BIRCH`, …).
    public var means: [CivilDate: [String: Int]]

    public init(means: [CivilDate: [String: Int]]) { self.means = means }

    /// Days in the window, today included (docs/reference.md, The hour to air out: "the last 92 daily means").
    public static let windowDays = 92

    /// `past_days` of the daily call (the 92 days before today; today comes with the forecast days).
    public static let pastDays = 92

    /// Fewer pollen days than this in the window give `insufficient`.
    public static let minimumPollenDays = 14

    /// EAACI onset thresholds in whole grains/m³ (daily mean) per plant code: the start of the
    /// pollen season as defined in "Defining pollen exposure times for clinical trials of
    /// allergen immunotherapy for pollen-induced rhinoconjunctivitis – an EAACI position paper",
    /// Pfaar et al., Allergy 2017;72:713–722: 10 for birch, alder, olive and mugwort (the
    /// position paper's tree and mugwort rule), 3 for grass and ragweed.
    public static let onsetGrains: [String: Int] = [
        "ALDER": 10, "BIRCH": 10, "OLIVE": 10, "MUGWORT": 10, "GRAMINALES": 3, "RAGWEED": 3,
    ]

    /// The season of a decoded `past_days` report: each plant's published daily mean per date.
    public init(report: PollenReport) {
        var means: [CivilDate: [String: Int]] = [:]
        for day in report.days {
            var plants: [String: Int] = [:]
            for item in day.items where item.isPlant {
                if let grains = item.grainsPerCubicMetre { plants[item.code] = grains.meanTenths }
            }
            if !plants.isEmpty { means[day.date] = plants }
        }
        self.means = means
    }

    /// Query parameters of the day's season call: the pollen query itself (`forecast_days=4`,
    /// so the same call serves the pollen topics) plus `past_days=92`. It is the location's
    /// first pollen call of each local day, so the season costs no call of its own.
    public static func query(latitude: Double, longitude: Double, timezone: String) -> [QueryParameter] {
        OpenMeteoPollen.query(latitude: latitude, longitude: longitude, timezone: timezone)
            + [QueryParameter("past_days", String(pastDays))]
    }

    /// The season call's weight (API-FACTS §2.7): six variables over 96 days (92 past, today
    /// and three forecast days), 6/10 × 96/14 ≈ 4.11 calls, in place of the plain pollen
    /// call's 1.71.
    public static let callWeight = OpenMeteoCallWeight.request(
        variables: OpenMeteoPollen.plants.count, days: pastDays + OpenMeteoPollen.forecastDays)

    /// What an HTTP exchange means: the pollen source's reading (errors, unsupported location,
    /// the body's bounds and offset: ``OpenMeteoPollen/interpret(httpStatus:body:fallbackUTCOffset:)``),
    /// with a report's days kept as the season.
    public static func interpret(httpStatus: Int, body: some Collection<UInt8>, fallbackUTCOffset: Int? = nil)
        -> PollenSeasonOutcome
    {
        switch OpenMeteoPollen.interpret(httpStatus: httpStatus, body: body, fallbackUTCOffset: fallbackUTCOffset) {
        case .report(let report): return .season(PollenSeason(report: report), warnings: report.warnings)
        case .unsupportedLocation(let message): return .unsupportedLocation(message: message)
        case .keyRejected(let message), .failed(let message): return .failed(message: message)
        }
    }

    // MARK: per item

    /// The mean (tenths) of an item id on a date: a plant's own, a type's sum of its plants'
    /// (nil when none of them has one); nil for an id the key-free source does not carry.
    public func mean(of itemID: String, on date: CivilDate) -> Int? {
        guard let day = means[date] else { return nil }
        let values = PollenHourly.plants(of: itemID).compactMap { day[$0.code] }
        return values.isEmpty ? nil : values.reduce(0, +)
    }

    /// The window's dates, oldest first.
    public static func window(endingOn today: CivilDate) -> [CivilDate] {
        (0..<windowDays).map { today.adding(days: $0 - (windowDays - 1)) }
    }

    /// `percentile` of an item on `today`.
    public func percentile(of itemID: String, today: CivilDate) -> PollenPercentile {
        guard let todayMean = mean(of: itemID, on: today) else { return .unknown }
        let means = Self.window(endingOn: today).compactMap { mean(of: itemID, on: $0) }
        let pollenDays = means.filter { $0 > 0 }
        if pollenDays.isEmpty { return .offSeason }
        if pollenDays.count < Self.minimumPollenDays { return .insufficient(pollenDays: pollenDays.count) }
        let atOrBelow = pollenDays.filter { $0 <= todayMean }.count
        return .percent(FixedPoint.roundedDivision(100 * atOrBelow, pollenDays.count))
    }

    /// Whether an item is in season on a date (see the type's rule above); false without data.
    public func isInSeason(_ itemID: String, on date: CivilDate) -> Bool {
        guard let day = means[date] else { return false }
        return PollenHourly.plants(of: itemID).contains { plant in
            guard let tenths = day[plant.code], let onset = Self.onsetGrains[plant.code] else { return false }
            return tenths >= 10 * onset
        }
    }

    /// `season_start` of an item on `today`: the first date of the in-season run ending today.
    public func seasonStart(of itemID: String, today: CivilDate) -> CivilDate? {
        var start: CivilDate?
        for date in Self.window(endingOn: today).reversed() {
            guard isInSeason(itemID, on: date) else { break }
            start = date
        }
        return start
    }
}

/// Where each item the key-free source carries stands on one day against its season: what
/// the season topics publish, worked out once per season call and kept in place of the 92
/// days of means (a fleet of key-free locations keeps nine small values each).
public struct PollenSeasonStanding: Sendable, Hashable {
    public struct Item: Sendable, Hashable {
        public var percentile: PollenPercentile
        public var seasonStart: CivilDate?

        public init(percentile: PollenPercentile, seasonStart: CivilDate?) {
            self.percentile = percentile
            self.seasonStart = seasonStart
        }
    }

    /// The local date the standing is for: the day of the season call.
    public var today: CivilDate
    /// Per upper-case code (`TREE`, `BIRCH`, …: the three types and six plants).
    public var items: [String: Item]

    public init(today: CivilDate, items: [String: Item]) {
        self.today = today
        self.items = items
    }

    /// The standing of an item id (a topic id such as `tree` or `birch`); nil for an id the
    /// key-free source does not carry.
    public func item(_ itemID: String) -> Item? { items[itemID.uppercased()] }
}

extension PollenSeason {
    /// The codes the key-free source carries: the three types and the six plants.
    public static let carriedCodes: [String] =
        ["GRASS", "TREE", "WEED"] + OpenMeteoPollen.plants.map(\.code)

    /// Every carried item's `percentile` and `season_start` on `today`.
    public func standing(today: CivilDate) -> PollenSeasonStanding {
        var items: [String: PollenSeasonStanding.Item] = [:]
        for code in Self.carriedCodes {
            items[code] = .init(
                percentile: percentile(of: code, today: today), seasonStart: seasonStart(of: code, today: today))
        }
        return PollenSeasonStanding(today: today, items: items)
    }
}

/// `<p>/<loc>/pollen/<id>/percentile`.
public enum PollenPercentile: Sendable, Hashable {
    /// 0–100.
    case percent(Int)
    /// Every day of the window with a mean was 0.
    case offSeason
    /// 1–13 pollen days in the window.
    case insufficient(pollenDays: Int)
    /// Today has no mean.
    case unknown

    /// The retained payload: `73`, `off_season`, `insufficient`, or empty.
    public var payload: String {
        switch self {
        case .percent(let n): String(n)
        case .offSeason: "off_season"
        case .insufficient: "insufficient"
        case .unknown: ""
        }
    }
}

/// What one season call gave.
public enum PollenSeasonOutcome: Sendable, Hashable {
    case season(PollenSeason, warnings: [String])
    /// No pollen here (the season topics are cleared, as the pollen topics are).
    case unsupportedLocation(message: String)
    /// Keep the last good season, stale; retry later.
    case failed(message: String)
}
