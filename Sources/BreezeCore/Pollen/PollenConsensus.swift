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
