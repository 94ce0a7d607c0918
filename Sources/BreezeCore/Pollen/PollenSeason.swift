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

/// Today against the recent season (SPEC §20): the daily means of the last 92 days of the
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

    /// Days in the window, today included (SPEC §20: "the last 92 daily means").
    public static let windowDays = 92

    /// `past_days` of the daily call (the 92 days before today; today comes as the forecast day).
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

    /// Query parameters of the daily call: the pollen query with `past_days=92` and
    /// `forecast_days=1` (92 past days and today).
    public static func query(latitude: Double, longitude: Double, timezone: String) -> [QueryParameter] {
        OpenMeteoPollen.query(latitude: latitude, longitude: longitude, timezone: timezone).map { parameter in
            parameter.name == "forecast_days" ? QueryParameter("forecast_days", "1") : parameter
        } + [QueryParameter("past_days", String(pastDays))]
    }

    /// The call's weight (API-FACTS §2.7): six variables over 93 days, 6/10 × 93/14 ≈ 3.99 calls.
    public static let callWeight = OpenMeteoCallWeight.request(
        variables: OpenMeteoPollen.plants.count, days: pastDays + 1)

    /// What an HTTP exchange means: the pollen source's reading (errors, unsupported location),
    /// with a report's days kept as the season.
    public static func interpret(httpStatus: Int, body: some Collection<UInt8>) -> PollenSeasonOutcome {
        switch OpenMeteoPollen.interpret(httpStatus: httpStatus, body: body) {
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
