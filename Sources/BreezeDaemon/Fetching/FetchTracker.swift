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

import BreezeConfig

/// The fetches asked for and not reported back yet, and the stuck-fetch watchdog (issue 30): the
/// ``FetchPlanner``'s `fetches`, with its own actions. Kept apart from the schedules because a
/// fetch in flight is not due again, whatever its schedule says.
///
/// Its deadline is the earliest of the fetches in flight as the parent's wake last found it:
/// ``FetchPlanner/nextDeadline(now:busy:)`` reads every location's schedules and these
/// deadlines in place in one pass after every event (a 1,000-location cycle), so the tracker
/// does not keep a sorted structure.
package struct FetchTracker: Sendable {
    enum Action: Sendable, Equatable {
        /// Cancel the fetch of `key` and apply it as a failure with `message`; it must not
        /// report back (the retry may be in flight when it would).
        case abandon(FetchKey, message: String)
    }

    /// How long a fetch may be in flight before the watchdog declares it stuck: the longest
    /// fetch is two requests of curl's 30 s total timeout each, and a request may first wait
    /// for one of `http.max_concurrent` slots behind others. A fetch still unanswered then was
    /// lost on the way (issue 30: an HTTP driver that slept with queued requests left fetches
    /// in flight for an hour, and nothing retried them).
    static let stuckLimit = FetchSchedule.inFlightLimit

    private(set) var inFlight = FetchesInFlight()
    /// The earliest deadline of a fetch in flight, as the last wake found it (`distantFuture`: none).
    private(set) var nextDeadline: DaemonInstant = .distantFuture

    var isIdle: Bool { inFlight.isEmpty }

    /// The fetch of `key` was asked for at `now`.
    mutating func started(_ key: FetchKey, now: DaemonInstant) {
        inFlight.insert(key, deadline: now + Self.stuckLimit)
    }

    /// The fetch of `key` reported back, or was abandoned.
    mutating func finished(_ key: FetchKey) { inFlight.remove(key) }

    /// The parent's wake found `deadline` the earliest of the fetches in flight.
    mutating func woke(earliestDeadline deadline: DaemonInstant) { nextDeadline = deadline }

    /// The watchdog: every fetch in flight past its deadline, in location and source order.
    /// Cheap when nothing is due: the wake found the earliest deadline. They stay in flight
    /// until the parent has applied each (``finished(_:)``).
    mutating func abandonStuck(now: DaemonInstant) -> [Action] {
        guard !inFlight.isEmpty, now >= nextDeadline else { return [] }
        var actions: [Action] = []
        for index in 0..<inFlight.locationCount {
            for kind in SourceKind.allCases {
                let key = FetchKey(location: index, kind: kind)
                let deadline = inFlight.deadline(key)
                guard now >= deadline else { continue }
                let waited = now - deadline + Self.stuckLimit
                actions.append(.abandon(key, message: "stuck: no answer after \(waited) s, cancelled"))
            }
        }
        nextDeadline = .distantFuture
        return actions
    }
}

/// One source of one location: what a schedule, a fetch in flight and a completion are keyed by.
package struct FetchKey: Hashable, Sendable {
    /// The location's index in the config.
    let location: Int
    let kind: SourceKind
}

/// The fetches in flight: one bit per source of each location, so the checks made for every
/// location after every event are an array read, not a hash (a `Set<FetchKey>` was 6–8 % of a
/// 1,000-location refresh cycle in perf), and each one's deadline, by which it has answered or
/// is declared stuck (the watchdog, ``FetchTracker/abandonStuck(now:)``).
package struct FetchesInFlight: Sendable {
    private var bits: [UInt8] = []
    /// ``kinds`` per location, in ``SourceKind`` order; meaningful only where the bit is set.
    private var deadlines: [DaemonInstant] = []
    /// Sources per location (at most 8: one bit each in a `UInt8`).
    private static let kinds = SourceKind.allCases.count
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    private static func mask(_ kind: SourceKind) -> UInt8 { 1 << kind.slot }

    private static func slot(_ key: FetchKey) -> Int { key.location * Self.kinds + key.kind.slot }

    func contains(_ key: FetchKey) -> Bool {
        key.location >= 0 && key.location < bits.count && bits[key.location] & Self.mask(key.kind) != 0
    }

    /// When `key`, in flight, is declared stuck; `distantFuture` when it is not in flight.
    func deadline(_ key: FetchKey) -> DaemonInstant {
        contains(key) ? deadlines[Self.slot(key)] : .distantFuture
    }

    mutating func insert(_ key: FetchKey, deadline: DaemonInstant) {
        guard key.location >= 0 else { return }
        if key.location >= bits.count {
            bits += repeatElement(0, count: key.location + 1 - bits.count)
            deadlines += repeatElement(.distantFuture, count: bits.count * Self.kinds - deadlines.count)
        }
        deadlines[Self.slot(key)] = deadline
        guard bits[key.location] & Self.mask(key.kind) == 0 else { return }
        bits[key.location] |= Self.mask(key.kind)
        count += 1
    }

    /// Past how many locations no fetch has been in flight (the watchdog scans below it).
    var locationCount: Int { bits.count }

    mutating func remove(_ key: FetchKey) {
        guard contains(key) else { return }
        bits[key.location] &= ~Self.mask(key.kind)
        count -= 1
    }
}
