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

import BreezeCore

/// The rate limits on commands (docs/operations.md, Limits "Rate limits"), as a value: a child of
/// ``DaemonState`` with a deadline and no clock of its own.
///
/// - `unit/set` is applied at most once per ``unitInterval`` per location. One inside the
///   interval is held; later ones replace it (the last word wins) and it is applied when the
///   interval is up. A flood of 4,000 commands over 20 locations once rebuilt and re-sent the
///   locations' trees 4,000 times (85,004 broker messages, issue 27).
/// - A `refresh` re-publishes the location's whole tree (a tree another client cleared comes
///   back with one command), at most once per ``republishInterval`` per location.
/// - A retained command is still cleared each time (it must not stay on the broker), but its
///   warning is logged once per window (the shorter refresh cooldown); the next line says how
///   many went unlogged.
package struct CommandLimits: Sendable {
    /// At most one `unit/set` per location per this long.
    static let unitInterval: DaemonDuration = .seconds(10)

    struct UnitSlot: Sendable, Equatable {
        /// When a unit change was last applied.
        var appliedAt: DaemonInstant?
        /// The last word of the commands held since then.
        var pending: TemperatureUnit?
        /// Commands held since the last application.
        var held = 0
    }

    /// A `refresh` re-publishes its location's whole tree at most once per this long.
    static let republishInterval: DaemonDuration = .seconds(60)

    private(set) var units: [UnitSlot]
    /// When each location's tree was last re-published for a `refresh`.
    private(set) var republishedAt: [DaemonInstant?]
    /// When the retained-command warning was last logged, and how many came since.
    private(set) var retainedLoggedAt: DaemonInstant?
    private(set) var retainedUnlogged = 0

    init(locations: Int) {
        units = Array(repeating: UnitSlot(), count: locations)
        republishedAt = Array(repeating: nil, count: locations)
    }

    /// Whether a `refresh` of location `index` at `now` re-publishes its whole tree (docs/operations.md, Limits "Its
    /// own tree, kept"): at most once per ``republishInterval``, so a flood of refreshes does
    /// not send thousands of trees.
    mutating func mayRepublish(_ index: Int, now: DaemonInstant) -> Bool {
        if let at = republishedAt[index], now < at + Self.republishInterval { return false }
        republishedAt[index] = now
        return true
    }

    /// The earliest time a held `unit/set` is due.
    var nextDeadline: DaemonInstant? {
        units.compactMap { slot in
            guard slot.pending != nil, let at = slot.appliedAt else { return nil }
            return at + Self.unitInterval
        }.min()
    }

    /// What to do with a `unit/set` that would change location `index`'s unit.
    enum UnitDecision: Equatable {
        /// Apply it now.
        case apply
        /// Held until `until`; `firstHeld` when it is the first of this interval (one log line).
        case held(until: DaemonInstant, firstHeld: Bool)
    }

    /// A `unit/set` for location `index` at `now` (the caller has checked it is a valid unit).
    mutating func unitSet(_ index: Int, _ unit: TemperatureUnit, now: DaemonInstant) -> UnitDecision {
        if let at = units[index].appliedAt, now < at + Self.unitInterval {
            units[index].pending = unit
            units[index].held += 1
            return .held(until: at + Self.unitInterval, firstHeld: units[index].held == 1)
        }
        units[index].appliedAt = now
        units[index].pending = nil
        units[index].held = 0
        return .apply
    }

    /// The held `unit/set`s whose interval is up: location index, the last word, and how many
    /// commands were held. Each counts as applied now.
    mutating func dueUnits(now: DaemonInstant) -> [(index: Int, unit: TemperatureUnit, held: Int)] {
        var due: [(index: Int, unit: TemperatureUnit, held: Int)] = []
        for index in units.indices {
            guard let unit = units[index].pending, let at = units[index].appliedAt,
                now >= at + Self.unitInterval
            else { continue }
            due.append((index, unit, units[index].held))
            units[index] = UnitSlot(appliedAt: now, pending: nil, held: 0)
        }
        return due
    }

    /// A retained command at `now`: the number of retained commands not logged since the last
    /// line when this one is to be logged (a line per `window`), nil when it is not.
    mutating func retainedCommand(now: DaemonInstant, window: DaemonDuration) -> Int? {
        if let at = retainedLoggedAt, now < at + window {
            retainedUnlogged += 1
            return nil
        }
        let unlogged = retainedUnlogged
        retainedLoggedAt = now
        retainedUnlogged = 0
        return unlogged
    }
}
