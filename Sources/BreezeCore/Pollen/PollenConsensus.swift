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

/// One item (a type or a plant) as several sources read it on one day, and the reading an
/// allergic person can act on: the highest of the known levels (docs/reference.md, "Several
/// sources").
///
/// The sources' 0–5 values are not one scale (Google's index, Open-Meteo's grains/m³ table, the
/// DWD's index), so the consensus does not average them: it takes the careful reading, says
/// whether the sources agree, and how far apart they are.
public struct PollenConsensus: Sendable, Hashable {
    /// One source's reading of the item.
    public struct Reading: Sendable, Hashable {
        public var source: PollenSource
        /// 0–5, nil when the source has no index for the day (Unknown).
        public var value: Int?
        public var updatedAt: Int64
        public var stale: Bool

        public init(source: PollenSource, value: Int?, updatedAt: Int64, stale: Bool) {
            self.source = source
            self.value = value
            self.updatedAt = updatedAt
            self.stale = stale
        }

        public var level: PollenLevel { PollenLevel(value: value) }
    }

    /// The readings, in the configured order of the sources.
    public var readings: [Reading]

    public init(readings: [Reading]) { self.readings = readings }

    /// The highest known value; nil (Unknown) when no source knows one.
    public var value: Int? { readings.compactMap(\.value).max() }
    public var level: PollenLevel { PollenLevel(value: value) }
    /// How many sources have a value, of how many read the item.
    public var count: Int { readings.filter { $0.value != nil }.count }
    public var of: Int { readings.count }
    /// Every known level is the same (true when fewer than two are known: nothing disagrees).
    public var agree: Bool { Set(readings.compactMap { $0.value.map(PollenLevel.init(value:)) }).count <= 1 }
    /// Highest minus lowest known value; nil when none is known.
    public var spread: Int? {
        let known = readings.compactMap(\.value)
        guard let high = known.max(), let low = known.min() else { return nil }
        return high - low
    }
}

/// Every source's reading and the consensus of the items two or more sources carry today
/// (docs/reference.md, "Several sources"):
///
/// ```
/// <p>/<loc>/pollen/<id>/sources          JSON {"<source>": {value, level, color, updated_at, stale, …}, …}
/// <p>/<loc>/pollen/<id>/consensus        JSON {level, value, color, agree, spread, count, of}
/// <p>/<loc>/pollen/<id>/consensus/level  None | Low | Moderate | High | Very High | Unknown
/// ```
public enum PollenConsensusTopics {
    /// One source's items for today, as its own selection gives them (its freshness applied).
    public struct SourceToday: Sendable {
        public var source: PollenSource
        public var items: [PollenItem]
        public var updatedAt: Int64
        public var stale: Bool

        public init(source: PollenSource, items: [PollenItem], updatedAt: Int64, stale: Bool) {
            self.source = source
            self.items = items
            self.updatedAt = updatedAt
            self.stale = stale
        }
    }

    /// One item two or more sources carry: each source's item and the consensus.
    public struct Carried: Sendable {
        public var id: String
        /// The item as each source gives it, in the configured order of the sources.
        public var readings: [(source: SourceToday, item: PollenItem)]
        public var consensus: PollenConsensus
    }

    /// The items two or more of `sources` carry, in the order they first appear; none with
    /// fewer than two sources. The topics and the status page both show these.
    public static func carried(_ sources: [SourceToday]) -> [Carried] {
        guard sources.count >= 2 else { return [] }
        var order: [String] = []
        var carried: [String: [(source: SourceToday, item: PollenItem)]] = [:]
        for source in sources {
            for item in source.items {
                let id = item.topicID
                if carried[id] == nil { order.append(id) }
                carried[id, default: []].append((source, item))
            }
        }
        return order.compactMap { id in
            guard let readings = carried[id], readings.count >= 2 else { return nil }
            return Carried(
                id: id, readings: readings,
                consensus: PollenConsensus(
                    readings: readings.map {
                        PollenConsensus.Reading(
                            source: $0.source.source, value: $0.item.value, updatedAt: $0.source.updatedAt,
                            stale: $0.source.stale)
                    }))
        }
    }

    /// The topics for `sources` in their configured order; none with fewer than two sources.
    public static func tree(
        topics: LocationTopics, sources: [SourceToday], palette: PollenPalette = .standard
    ) -> TopicTree {
        var tree = TopicTree()
        for carried in carried(sources) {
            let id = carried.id
            let readings = carried.readings
            let consensus = carried.consensus
            let perSource: [JSONMember] = readings.map { source, item in
                var members: [JSONMember] = [
                    JSONMember("value", item.value.map { .integer($0) } ?? .null),
                    JSONMember("level", .string(item.level.label)),
                    JSONMember("color", .string(palette.color(for: item.level).description)),
                    JSONMember("updated_at", .string(UTCTimestamp.rfc3339(unixSeconds: source.updatedAt))),
                    JSONMember("stale", .bool(source.stale)),
                ]
                if source.source == .dwd {
                    members.append(JSONMember("dwd_index", .optional(item.indexCategory)))
                    members.append(
                        JSONMember(
                            "dwd_value", DWDPollen.Index(item.indexCategory).dwdValueText.map(JSONValue.number) ?? .null
                        ))
                }
                return JSONMember(source.source.rawValue, .object(members))
            }
            let topic = topics.pollenConsensus(id)
            tree.set(topics.pollenSources(id), json: .object(perSource))
            tree.set(
                topic,
                json: .object([
                    JSONMember("level", .string(consensus.level.label)),
                    JSONMember("value", consensus.value.map { .integer($0) } ?? .null),
                    JSONMember("color", .string(palette.color(for: consensus.level).description)),
                    JSONMember("agree", .bool(consensus.agree)),
                    JSONMember("spread", consensus.spread.map { .integer($0) } ?? .null),
                    JSONMember("count", .integer(consensus.count)),
                    JSONMember("of", .integer(consensus.of)),
                ]))
            tree.set(ScalarTopics.level(topic), consensus.level.label)
        }
        return tree
    }
}
