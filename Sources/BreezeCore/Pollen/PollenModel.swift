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

/// Where a pollen report came from; travels with the data because the two sources' 0–5 values
/// are not the same scale (Google's UPI vs our grains/m³ table, POLLEN-KEYFREE.md §2.3).
public enum PollenSource: String, Sendable, Hashable {
    case google
    case openMeteo = "open-meteo"
    /// Germany's Deutscher Wetterdienst (``DWDPollen``): daily, key-free, German regions only.
    case dwd

    /// The `attribution` text the source's licence requires (docs/reference.md, Pollen levels and colors; docs/reference.md, Key-free pollen thresholds); `year` is the
    /// Copernicus notice's year (the location's current year).
    public func attribution(year: Int) -> String {
        switch self {
        case .google:
            return "Includes pollen data from Google"
        case .openMeteo:
            return "Pollen data by Open-Meteo.com (CC BY 4.0, https://open-meteo.com/). "
                + "Contains modified Copernicus Atmosphere Monitoring Service information \(year). "
                + "Neither the European Commission nor ECMWF is responsible for any use that may be made "
                + "of the information it contains."
        case .dwd:
            return DWDPollen.attribution
        }
    }

    /// The source's name as people know it (`Google`, `Open-Meteo`, `DWD`).
    public var displayName: String {
        switch self {
        case .google: return "Google"
        case .openMeteo: return "Open-Meteo"
        case .dwd: return "DWD"
        }
    }

    /// How many days (today included) the source can serve at most: Google 5, CAMS Europe 4.
    public var maximumDays: Int {
        switch self {
        case .google: return 5
        case .openMeteo: return 4
        case .dwd: return 3
        }
    }
}

/// The seed's level for a 0–5 value (docs/reference.md, Pollen levels and colors table), not Google's own categories.
public enum PollenLevel: String, Sendable, Hashable, CaseIterable {
    case none = "None"
    case low = "Low"
    case moderate = "Moderate"
    case high = "High"
    case veryHigh = "Very High"
    case unknown = "Unknown"

    /// The level of a normalised value (0…5); nil (no index) is Unknown.
    ///
    /// Values outside 0…5 never reach here from the decoders (they clamp or mark malformed), but
    /// the mapping is total anyway: above 5 is Very High, below 0 Unknown.
    public init(value: Int?) {
        guard let value, value >= 0 else {
            self = .unknown
            return
        }
        switch value {
        case 0: self = .none
        case 1: self = .low
        case 2, 3: self = .moderate
        case 4: self = .high
        default: self = .veryHigh
        }
    }

    /// The text published on `…/level` topics.
    public var label: String { rawValue }
}

/// The six level colors; users override them with `pollen.colors` (docs/reference.md, Configuration).
public struct PollenPalette: Sendable, Hashable {
    public var none: HexColor
    public var low: HexColor
    public var moderate: HexColor
    public var high: HexColor
    public var veryHigh: HexColor
    public var unknown: HexColor

    public init(
        none: HexColor = PollenPalette.standard.none,
        low: HexColor = PollenPalette.standard.low,
        moderate: HexColor = PollenPalette.standard.moderate,
        high: HexColor = PollenPalette.standard.high,
        veryHigh: HexColor = PollenPalette.standard.veryHigh,
        unknown: HexColor = PollenPalette.standard.unknown
    ) {
        self.none = none
        self.low = low
        self.moderate = moderate
        self.high = high
        self.veryHigh = veryHigh
        self.unknown = unknown
    }

    private init(
        standardNone: HexColor, low: HexColor, moderate: HexColor, high: HexColor, veryHigh: HexColor,
        unknown: HexColor
    ) {
        self.none = standardNone
        self.low = low
        self.moderate = moderate
        self.high = high
        self.veryHigh = veryHigh
        self.unknown = unknown
    }

    /// The docs/reference.md, Pollen levels and colors table (the iOS app's system colors).
    public static let standard = PollenPalette(
        standardNone: HexColor(red: 0x34, green: 0xc7, blue: 0x59),
        low: HexColor(red: 0x34, green: 0xc7, blue: 0x59),
        moderate: HexColor(red: 0xff, green: 0x95, blue: 0x00),
        high: HexColor(red: 0xff, green: 0x3b, blue: 0x30),
        veryHigh: HexColor(red: 0x8e, green: 0x00, blue: 0x00),
        unknown: HexColor(red: 0x8e, green: 0x8e, blue: 0x93)
    )

    public func color(for level: PollenLevel) -> HexColor {
        switch level {
        case .none: return none
        case .low: return low
        case .moderate: return moderate
        case .high: return high
        case .veryHigh: return veryHigh
        case .unknown: return unknown
        }
    }
}

/// A measured concentration for one local day, in integer tenths of grains/m³ (CAMS gives one
/// decimal), so the mean and its rounding are exact.
public struct GrainsPerCubicMetre: Sendable, Hashable {
    /// The mean over the day's non-null hours, rounded half up to tenths.
    public var meanTenths: Int
    /// The highest hourly value of the day.
    public var maxTenths: Int

    public init(meanTenths: Int, maxTenths: Int) {
        self.meanTenths = meanTenths
        self.maxTenths = maxTenths
    }
}

/// One pollen type (GRASS, TREE, WEED) or plant on one day, independent of the source.
///
/// Fields a source does not provide are nil (published as JSON `null`).
public struct PollenItem: Sendable, Hashable {
    /// The source's code (`GRASS`, `BIRCH`, `JAPANESE_CEDAR`, …): an open string.
    public var code: String
    /// Localized display name.
    public var name: String
    public var isPlant: Bool
    /// The type the item belongs to: its own code for a type, the plant's type for a plant.
    public var category: String?
    public var inSeason: Bool?
    /// The normalised 0–5 value; nil = no index (Unknown), including malformed input.
    public var value: Int?
    /// The source sent a value that is not an integer 0…5 or above (logged, published Unknown).
    public var isMalformed: Bool
    public var indexCategory: String?
    public var indexDescription: String?
    public var indexColor: HexColor?
    public var imageURL: String?
    public var imageCloseupURL: String?
    public var family: String?
    public var season: String?
    public var appearance: String?
    public var crossReaction: String?
    public var healthRecommendations: [String]?
    public var grainsPerCubicMetre: GrainsPerCubicMetre?
    /// The source of this item when the report merges several (a DWD item in an Open-Meteo
    /// report); nil: the report's own source.
    public var source: PollenSource?
    /// The DWD region the item was read for (its `dwd_region` key); nil for other sources.
    public var dwdRegion: Int?

    public init(
        code: String, name: String, isPlant: Bool, category: String? = nil, inSeason: Bool? = nil,
        value: Int? = nil, isMalformed: Bool = false, indexCategory: String? = nil,
        indexDescription: String? = nil, indexColor: HexColor? = nil, imageURL: String? = nil,
        imageCloseupURL: String? = nil, family: String? = nil, season: String? = nil, appearance: String? = nil,
        crossReaction: String? = nil, healthRecommendations: [String]? = nil,
        grainsPerCubicMetre: GrainsPerCubicMetre? = nil
    ) {
        self.code = code
        self.name = name
        self.isPlant = isPlant
        self.category = category
        self.inSeason = inSeason
        self.value = value
        self.isMalformed = isMalformed
        self.indexCategory = indexCategory
        self.indexDescription = indexDescription
        self.indexColor = indexColor
        self.imageURL = imageURL
        self.imageCloseupURL = imageCloseupURL
        self.family = family
        self.season = season
        self.appearance = appearance
        self.crossReaction = crossReaction
        self.healthRecommendations = healthRecommendations
        self.grainsPerCubicMetre = grainsPerCubicMetre
    }

    public var level: PollenLevel { PollenLevel(value: value) }

    /// The same item with every per-day measurement removed (value, season flag, Google's index
    /// text, grains): what is served for a day the data may no longer speak for.
    public var withoutDayData: PollenItem {
        var copy = self
        copy.value = nil
        copy.isMalformed = false
        copy.inSeason = nil
        copy.indexCategory = nil
        copy.indexDescription = nil
        copy.indexColor = nil
        copy.healthRecommendations = nil
        copy.grainsPerCubicMetre = nil
        return copy
    }

    /// Whether the item carries descriptive detail (picture, family, …) worth borrowing for a
    /// day that lacks it.
    var hasDescription: Bool {
        imageURL != nil || imageCloseupURL != nil || family != nil || season != nil || appearance != nil
            || crossReaction != nil
    }
}

/// The items a source reported for one date.
public struct PollenDay: Sendable, Hashable {
    public var date: CivilDate
    public var items: [PollenItem]

    public init(date: CivilDate, items: [PollenItem]) {
        self.date = date
        self.items = items
    }
}

/// A decoded response in source-independent form: every date the source sent, in its order.
public struct PollenReport: Sendable, Hashable {
    public var source: PollenSource
    /// ISO 3166-1 alpha-2 region (Google only; absent for disputed territories).
    public var region: String?
    public var days: [PollenDay]
    /// Things worth one log line each (clamped or malformed values, skipped entries).
    public var warnings: [String]
    /// The hourly values behind the days (Open-Meteo only; docs/reference.md, The hour to air out). Google has none.
    public var hourly: PollenHourly?

    public init(
        source: PollenSource, region: String? = nil, days: [PollenDay], warnings: [String] = [],
        hourly: PollenHourly? = nil
    ) {
        self.source = source
        self.region = region
        self.days = days
        self.warnings = warnings
        self.hourly = hourly
    }

    /// The report without the days (and hours) before the local date `date` in `zone`: what a
    /// season call (``PollenSeason/query(latitude:longitude:timezone:)``, 92 past days) keeps
    /// for the pollen topics once its season is taken, so the past days are not held twice.
    public func dropping(before date: CivilDate, zone: ZoneRules) -> PollenReport {
        var report = self
        report.days = days.filter { $0.date >= date }
        report.hourly = hourly.map { hourly in
            PollenHourly(hours: hourly.hours.filter { zone.localDate(atUnixTime: $0.instant) >= date })
        }
        return report
    }

    /// Most distinct items (types and plants) a report keeps (docs/operations.md, Limits): a response listing
    /// 20,000 plant codes once became 320,000 retained topics and 400 MB of agent memory.
    public static let maximumItems = 64

    /// The report with at most `limit` distinct item codes, the first ones met in day order
    /// (Google lists the three types first); the rest are dropped with one warning naming
    /// how many.
    public func limitingItems(to limit: Int = maximumItems) -> PollenReport {
        var kept: Set<String> = []
        var dropped: Set<String> = []
        var limited = self
        for (index, day) in days.enumerated() {
            let items = day.items.filter { item in
                if kept.contains(item.code) { return true }
                if kept.count < limit, !dropped.contains(item.code) {
                    kept.insert(item.code)
                    return true
                }
                dropped.insert(item.code)
                return false
            }
            // A filtered array keeps the capacity it grew to (up to twice its items), and a
            // location holds its report until the next fetch: the day's own array stays when
            // nothing was dropped from it.
            if items.count != day.items.count { limited.days[index].items = items }
        }
        if !dropped.isEmpty {
            limited.warnings.append(
                "pollen: the response lists \(kept.count + dropped.count) items; the first \(limit) are published, \(dropped.count) dropped (at most \(limit) per response)"
            )
        }
        return limited
    }
}

/// What a pollen HTTP exchange means for the runtime, whatever the source.
public enum PollenOutcome: Sendable, Hashable {
    /// Usable data.
    case report(PollenReport)
    /// The source has no pollen for this place (docs/reference.md, Pollen levels and colors "conditional display": clear the topics).
    case unsupportedLocation(message: String)
    /// Google refused the key (400 key invalid/expired, or 403): report once, do not retry in a loop.
    case keyRejected(message: String)
    /// Anything else (HTTP error, quota, invalid JSON): keep the last good data and retry later.
    case failed(message: String)
}

/// Maps a raw 0–5 index as sent by a source to the published value (docs/reference.md, Pollen levels and colors).
enum PollenValueRule {
    /// A value from the source: an integer 0…5 is kept, above 5 clamped to 5, anything else
    /// (negative, fractional, text) malformed. Returns the value and a warning when one is due.
    static func normalise(_ raw: RawIndexValue, code: String, date: CivilDate?) -> (
        value: Int?, malformed: Bool,
        warning: String?
    ) {
        let at = date.map { " on \($0)" } ?? ""
        switch raw {
        case .integer(let v) where v >= 0 && v <= 5:
            return (v, false, nil)
        case .integer(let v) where v > 5:
            return (5, false, "pollen \(code)\(at): value \(v) above 5, clamped to 5")
        case .integer(let v):
            return (nil, true, "pollen \(code)\(at): malformed value \(v) (negative), published as Unknown")
        case .fraction(let text):
            return (nil, true, "pollen \(code)\(at): malformed value \(text) (not an integer), published as Unknown")
        case .text(let text):
            return (nil, true, "pollen \(code)\(at): malformed value \"\(text)\" (not a number), published as Unknown")
        case .other:
            return (nil, true, "pollen \(code)\(at): malformed value (not a number), published as Unknown")
        }
    }
}

/// A Universal Pollen Index value as it appeared on the wire, before validation.
enum RawIndexValue: Sendable, Hashable {
    case integer(Int)
    /// A number that is not an integer, kept as text for the log line.
    case fraction(String)
    case text(String)
    case other
}

extension PollenReport {
    /// This report with the items of `other` (a second source) it does not carry, matched by
    /// code: on each of this report's dates the other's item of that date, else the item
    /// without its day's data (Unknown). Each added item names its source; this report's items
    /// stay as they are (the first source that carries an item gives its topics).
    public func merging(_ other: PollenReport) -> PollenReport {
        var merged = self
        let own = Set(days.flatMap { $0.items.map(\.code) })
        var added: [PollenItem] = []
        var seen: Set<String> = []
        for item in other.days.flatMap(\.items) where !own.contains(item.code) && seen.insert(item.code).inserted {
            added.append(item)
        }
        for index in merged.days.indices {
            let day = other.days.first { $0.date == merged.days[index].date }
            for template in added {
                var item = day?.items.first { $0.code == template.code } ?? template.withoutDayData
                item.source = item.source ?? other.source
                merged.days[index].items.append(item)
            }
        }
        merged.warnings += other.warnings
        // The hourly values stay Open-Meteo's whichever source comes first.
        merged.hourly = hourly ?? other.hourly
        return merged
    }
}
