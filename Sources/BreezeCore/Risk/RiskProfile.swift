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

/// A person's pollen sensitivity (docs/reference.md, Personal risk): which items (types or plants, by topic id) they
/// react to and from which level on they want an alert.
public struct RiskProfile: Sendable, Hashable {
    /// Topic segment, `[a-z0-9_-]+` (validated by the config loader).
    public var id: String
    public var name: String
    /// Item topic ids (`birch`, `grass`, `graminales`, …) in the user's order; ties go to the
    /// earlier one.
    public var allergens: [String]
    /// Low, Moderate, High or Very High.
    public var alertLevel: PollenLevel

    public init(id: String, name: String, allergens: [String], alertLevel: PollenLevel) {
        self.id = id
        self.name = name
        self.allergens = allergens
        self.alertLevel = alertLevel
    }

    /// The levels `alert_level` may take (None and Unknown would make no sense as a threshold).
    public static let alertLevels: [PollenLevel] = [.low, .moderate, .high, .veryHigh]
}

/// One day of a profile's risk: the allergen with the highest value.
public struct RiskDay: Sendable, Hashable {
    public var date: CivilDate
    /// The driver's 0–5 value; nil when every allergen is Unknown that day.
    public var value: Int?
    /// The driving item's topic id; nil when Unknown.
    public var driver: String?
    /// The driving item's display name; nil when Unknown.
    public var driverName: String?

    public init(date: CivilDate, value: Int?, driver: String?, driverName: String?) {
        self.date = date
        self.value = value
        self.driver = driver
        self.driverName = driverName
    }

    public var level: PollenLevel { PollenLevel(value: value) }
}

/// A profile's risk at one location: today and every served forecast day (docs/reference.md, Personal risk).
public struct RiskAssessment: Sendable, Hashable {
    public var profile: RiskProfile
    /// `days[0]` is today, then the selection's forecast days in order.
    public var days: [RiskDay]

    public init(profile: RiskProfile, days: [RiskDay]) {
        self.profile = profile
        self.days = days
    }

    /// Evaluates `profile` on every day of `selection` (its freshness rules already applied:
    /// stale forecast days are Unknown and so is their risk).
    ///
    /// Per day: among the profile's allergens that the day lists with a value, the highest value
    /// wins; on a tie the allergen listed first in the profile wins. Unknown allergens are
    /// ignored; when all are Unknown (or none is listed) the day is Unknown.
    public static func evaluate(profile: RiskProfile, selection: PollenSelection) -> RiskAssessment {
        let days = selection.days.map { day -> RiskDay in
            var best: PollenItem?
            for allergen in profile.allergens {
                guard let item = day.items.first(where: { $0.topicID == allergen }), let value = item.value else {
                    continue
                }
                if let current = best?.value, current >= value { continue }
                best = item
            }
            return RiskDay(date: day.date, value: best?.value, driver: best?.topicID, driverName: best?.name)
        }
        return RiskAssessment(profile: profile, days: days)
    }

    /// Today's risk (Unknown when the selection has no day at all).
    public var today: RiskDay {
        days.first ?? RiskDay(date: CivilDate(daysSinceEpoch: 0), value: nil, driver: nil, driverName: nil)
    }

    /// Today's risk color (device outputs with `show: risk:<profile>` use it): the pollen palette's
    /// color of today's level, so `pollen.colors` applies.
    public func color(palette: PollenPalette = .standard) -> HexColor { palette.color(for: today.level) }

    /// Whether today's level reaches the profile's `alert_level`; false when Unknown.
    public var alert: Bool { RiskAssessment.reaches(today.level, profile.alertLevel) }

    /// Level order None < Low < Moderate < High < Very High; Unknown reaches nothing.
    public static func reaches(_ level: PollenLevel, _ threshold: PollenLevel) -> Bool {
        guard let have = rank(level), let needed = rank(threshold) else { return false }
        return have >= needed
    }

    static func rank(_ level: PollenLevel) -> Int? {
        switch level {
        case .none: return 0
        case .low: return 1
        case .moderate: return 2
        case .high: return 3
        case .veryHigh: return 4
        case .unknown: return nil
        }
    }
}
