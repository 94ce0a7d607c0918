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

internal import FoundationEssentials

/// Germany's official pollen forecast, the Deutscher Wetterdienst's Pollenflug-Gefahrenindex
/// (docs/reference.md, "DWD"): one JSON document for the whole country (`s31fg.json`), the eight
/// species of each of its 27 regions for today, tomorrow and the day after, as index strings.
public enum DWDPollen {
    /// `{endpoints.dwd}/climate_environment/health/alerts/s31fg.json`.
    public static let path = "/climate_environment/health/alerts/s31fg.json"
    /// The DWD's terms ask for the source to be named.
    public static let attribution = "Pollenflug-Gefahrenindex: Deutscher Wetterdienst (DWD), https://opendata.dwd.de"
    /// The document's times are German civil time.
    public static let zoneName = "Europe/Berlin"
    /// A real document is about 16 KB; anything longer is not one (docs/operations.md, "Limits").
    public static let maximumBodyBytes = 256 * 1024
    /// A real document has 27 rows of 8 species.
    public static let maximumRows = 64
    public static let maximumSpecies = 16
    /// How long a document is used at all: after this it is stale and its days Unknown.
    public static let freshSeconds: Int64 = 48 * 3600

    /// A DWD species, published under the plant code the other sources use.
    public struct Species: Sendable, Hashable {
        /// The document's key (ASCII: `Graeser`, `Beifuss`).
        public var key: String
        public var code: String
        public var name: String
        public var category: String
        /// The lower-case key of the card's `dwd` adapter (`hasel`, `graeser`, …).
        public var cardKey: String { key.lowercased() }
        /// The German name as the DWD writes it in its legend (`Gräser`, `Beifuß`).
        public var germanName: String {
            switch key {
            case "Graeser": return "Gr\u{00E4}ser"
            case "Beifuss": return "Beifu\u{00DF}"
            default: return key
            }
        }
    }

    /// The eight species, trees first.
    public static let species: [Species] = [
        Species(key: "Hasel", code: "HAZEL", name: "Hazel", category: "TREE"),
        Species(key: "Erle", code: "ALDER", name: "Alder", category: "TREE"),
        Species(key: "Esche", code: "ASH", name: "Ash", category: "TREE"),
        Species(key: "Birke", code: "BIRCH", name: "Birch", category: "TREE"),
        Species(key: "Graeser", code: "GRAMINALES", name: "Grasses", category: "GRASS"),
        Species(key: "Roggen", code: "RYE", name: "Rye", category: "GRASS"),
        Species(key: "Beifuss", code: "MUGWORT", name: "Mugwort", category: "WEED"),
        Species(key: "Ambrosia", code: "RAGWEED", name: "Ragweed", category: "WEED"),
    ]

    /// One index string of the document.
    public struct Index: Sendable, Hashable {
        /// As sent (`"0-1"`), or nil when the day is missing.
        public var text: String?
        /// 0…3 in half steps (`"1-2"` is 1.5); nil for no data (`"-1"`, missing, anything else).
        public var dwdValue: Double?
        /// The agent's 0–5 value: 0, 1, 1, 2, 3, 4, 4 for `0`, `0-1`, `1`, `1-2`, `2`, `2-3`, `3`.
        public var value: Int?
        /// The DWD's own words (`geringe bis mittlere Belastung`), nil for no data.
        public var description: String?

        public init(_ text: String?) {
            self.text = text
            switch text {
            case "0": (dwdValue, value, description) = (0, 0, "keine Belastung")
            case "0-1": (dwdValue, value, description) = (0.5, 1, "keine bis geringe Belastung")
            case "1": (dwdValue, value, description) = (1, 1, "geringe Belastung")
            case "1-2": (dwdValue, value, description) = (1.5, 2, "geringe bis mittlere Belastung")
            case "2": (dwdValue, value, description) = (2, 3, "mittlere Belastung")
            case "2-3": (dwdValue, value, description) = (2.5, 4, "mittlere bis hohe Belastung")
            case "3": (dwdValue, value, description) = (3, 4, "hohe Belastung")
            default: (dwdValue, value, description) = (nil, nil, nil)
            }
        }

        /// `dwd_value` as published: `0`, `0.5`, … `3`, or nil.
        public var dwdValueText: String? {
            guard let dwdValue else { return nil }
            let halves = Int(dwdValue * 2)
            return halves % 2 == 0 ? String(halves / 2) : "\(halves / 2).5"
        }
    }

    /// One row of the document: a region (or a partregion) and its species' three days.
    public struct Row: Sendable, Hashable {
        public var regionID: Int
        public var regionName: String
        public var partregionID: Int
        public var partregionName: String
        /// Species key → [today, tomorrow, the day after].
        public var days: [String: [Index]]

        /// The key a location names (`dwd_region`): the partregion, or the region where the
        /// document has no partregion (Mecklenburg-Vorpommern 20, Brandenburg und Berlin 50).
        public var key: Int { partregionID == -1 ? regionID : partregionID }
        /// The partregion's name, else the region's.
        public var name: String { partregionName.isEmpty ? regionName : "\(regionName): \(partregionName)" }
    }

    /// The decoded document.
    public struct Document: Sendable, Hashable {
        /// `last_update` as Unix time (the forecast's issue: its `today` is this Berlin date).
        public var lastUpdate: Int64
        /// `next_update` as Unix time; nil when missing or unreadable.
        public var nextUpdate: Int64?
        public var rows: [Row]

        public func row(key: Int) -> Row? { rows.first { $0.key == key } }
    }

    /// Why a body is not a usable document.
    public struct DecodeError: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    private struct Wire: Decodable {
        struct Content: Decodable {
            var region_id: Int
            var region_name: String?
            var partregion_id: Int?
            var partregion_name: String?
            var Pollen: [String: [String: String]]?
        }
        var last_update: String
        var next_update: String?
        var content: [Content]
    }

    /// Decodes `body`; `berlin` are Europe/Berlin's rules (the document's times are local).
    public static func decode(_ body: [UInt8], berlin: ZoneRules) throws(DecodeError) -> Document {
        guard body.count <= maximumBodyBytes else {
            throw DecodeError(description: "the DWD document is \(body.count) bytes, more than \(maximumBodyBytes)")
        }
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: Data(body))
        } catch {
            throw DecodeError(description: "not a DWD pollen document: \(error)")
        }
        guard let lastUpdate = unixTime(ofBerlin: wire.last_update, berlin: berlin) else {
            throw DecodeError(description: "last_update \"\(wire.last_update.prefix(40))\" is not YYYY-MM-DD HH:MM Uhr")
        }
        guard !wire.content.isEmpty, wire.content.count <= maximumRows else {
            throw DecodeError(
                description: "the DWD document has \(wire.content.count) regions (1 to \(maximumRows) expected)")
        }
        var rows: [Row] = []
        for item in wire.content {
            let pollen = item.Pollen ?? [:]
            guard pollen.count <= maximumSpecies else {
                throw DecodeError(
                    description: "region \(item.region_id) has \(pollen.count) species (at most \(maximumSpecies))")
            }
            var days: [String: [Index]] = [:]
            for (key, byDay) in pollen {
                days[key] = ["today", "tomorrow", "dayafter_to"].map { Index(byDay[$0]) }
            }
            rows.append(
                Row(
                    regionID: item.region_id, regionName: item.region_name ?? "",
                    partregionID: item.partregion_id ?? -1, partregionName: item.partregion_name ?? "", days: days))
        }
        return Document(
            lastUpdate: lastUpdate, nextUpdate: wire.next_update.flatMap { unixTime(ofBerlin: $0, berlin: berlin) },
            rows: rows)
    }

    /// `"2026-09-29 11:00 Uhr"` in German civil time as Unix time.
    static func unixTime(ofBerlin text: String, berlin: ZoneRules) -> Int64? {
        let parts = text.split(separator: " ")
        guard parts.count == 3, parts[2] == "Uhr", let date = CivilDate(iso: String(parts[0])) else { return nil }
        let clock = parts[1].split(separator: ":")
        guard clock.count == 2, clock[0].count == 2, clock[1].count == 2, let hour = Int(clock[0]),
            let minute = Int(clock[1]), (0..<24).contains(hour), (0..<60).contains(minute)
        else { return nil }
        let local = Int64(date.daysSinceEpoch) * 86_400 + Int64(hour * 3600 + minute * 60)
        // The offset in force at that local time: taken at the guess, then checked once more
        // (the document's 11:00 never falls in a DST gap; this settles the day of a change).
        let first = local - Int64(berlin.utcOffset(atUnixTime: local))
        return local - Int64(berlin.utcOffset(atUnixTime: first))
    }

    /// The report of one region as seen at `now`: the document's `today` is the Berlin date of
    /// `last_update`; on a later Berlin date its days shift (tomorrow becomes today), and after
    /// ``freshSeconds`` every day is Unknown. Each plant's three days and the three types, the
    /// highest of their known members (Unknown when none is known).
    public static func report(_ document: Document, key: Int, now: Int64, berlin: ZoneRules) -> PollenReport? {
        guard let row = document.row(key: key) else { return nil }
        let issued = berlin.localDate(atUnixTime: document.lastUpdate)
        let today = berlin.localDate(atUnixTime: now)
        let shift = today.daysSinceEpoch - issued.daysSinceEpoch
        let fresh = now - document.lastUpdate <= freshSeconds
        var warnings: [String] = []
        var days: [PollenDay] = []
        for offset in 0..<3 {
            let index = offset + max(0, shift)
            var items: [PollenItem] = []
            var plants: [PollenItem] = []
            for species in species {
                let sent = row.days[species.key]
                let dwd = fresh && index < 3 ? (sent?[index] ?? Index(nil)) : Index(nil)
                if let text = dwd.text, dwd.value == nil, text != "-1" {
                    warnings.append(
                        "dwd: region \(key) \(species.key) day \(index): unknown index \"\(text.prefix(8))\"")
                }
                plants.append(
                    PollenItem(
                        code: species.code, name: species.name, isPlant: true, category: species.category,
                        value: dwd.value, indexCategory: dwd.text, indexDescription: dwd.description))
                plants[plants.count - 1].source = .dwd
                plants[plants.count - 1].dwdRegion = key
            }
            for type in ["TREE", "GRASS", "WEED"] {
                let values = plants.filter { $0.category == type }.compactMap(\.value)
                items.append(
                    PollenItem(
                        code: type, name: typeNames[type] ?? type, isPlant: false, category: type,
                        value: values.max()))
                items[items.count - 1].source = .dwd
                items[items.count - 1].dwdRegion = key
            }
            items += plants
            days.append(PollenDay(date: today.adding(days: offset), items: items))
        }
        return PollenReport(source: .dwd, region: nil, days: days, warnings: warnings)
    }

    static let typeNames = ["TREE": "Tree", "GRASS": "Grass", "WEED": "Weed"]

    /// The re-ask cadence (docs/reference.md, "DWD"): every 15 minutes while the document is
    /// not yet replaced, at most ``maximumRequestsPerDay``.
    public static let reaskSeconds: Int64 = 15 * 60
    public static let maximumRequestsPerDay = 30

    /// When to ask again after a fetch at `now` that brought `document` (`changed`: its
    /// `last_update` differs from the one held before): at its `next_update` when that is
    /// ahead, else in 15 minutes (the new document is late). Without `next_update`, in 15
    /// minutes while unchanged, else 6 hours.
    public static func nextAsk(after now: Int64, document: Document, changed: Bool) -> Int64 {
        if let next = document.nextUpdate, next > now { return next }
        if document.nextUpdate == nil && changed { return now + 6 * 3600 }
        return now + reaskSeconds
    }

    /// An HTTP date (IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`) for `If-Modified-Since`.
    public static func httpDate(unixSeconds: Int64) -> String {
        let days = Int((unixSeconds >= 0 ? unixSeconds : unixSeconds - 86_399) / 86_400)
        let date = CivilDate(daysSinceEpoch: days)
        let second = Int(unixSeconds - Int64(days) * 86_400)
        let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : String(n) }
        let weekday = weekdays[((days % 7) + 7) % 7]
        return "\(weekday), \(two(date.day)) \(months[date.month - 1]) \(date.year) "
            + "\(two(second / 3600)):\(two(second / 60 % 60)):\(two(second % 60)) GMT"
    }
}
