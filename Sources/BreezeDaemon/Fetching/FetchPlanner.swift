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
import BreezeCore

/// When each source of each location is fetched (docs/reference.md, Topics scheduling; docs/operations.md, Faults (backoff) and Many locations (the start
/// spread): a child machine of ``DaemonState`` that owns every location's ``FetchSchedule``s,
/// one ``PerSource`` slot per source.
///
/// It knows *when*, never *what*: what a due fetch asks for and how its result moves the schedule
/// on are the source's rules' (``SourceRules``), and Open-Meteo's pacing is the ``CallLedger``'s,
/// so a new source changes nothing here.
package struct FetchPlanner: Sendable {
    enum Action: Sendable, Equatable {
        /// The schedules of location `index` changed (a `refresh`): start what is due there now.
        case startDue(location: Int)
        case log(LogLevel, String)
    }

    /// Per location (the daemon's order), per source.
    var schedules: [PerSource<FetchSchedule>]
    /// Which sources this configuration fetches at all.
    let enabled: PerSource<Bool>
    /// The fetches asked for and not reported back yet, and the watchdog (FetchTracker.swift):
    /// what is in flight is not due again.
    var fetches = FetchTracker()
    /// Per location: when a refused `refresh` was last logged (one line per cooldown window in a
    /// flood of them, docs/operations.md, Limits).
    private var refreshSkipLoggedAt: [DaemonInstant?]

    init(locations: Int, settings: AgentConfig) {
        schedules = Array(repeating: Self.schedules(settings), count: locations)
        enabled = PerSource { $0.rules.isEnabled(in: settings) }
        refreshSkipLoggedAt = Array(repeating: nil, count: locations)
    }

    /// A location's schedules before anything is known: everything ``FetchSchedule/unplaced``.
    static func schedules(_ settings: AgentConfig) -> PerSource<FetchSchedule> {
        PerSource { $0.rules.schedule(in: settings) }
    }

    subscript(key: FetchKey) -> FetchSchedule {
        get { schedules[key.location][key.kind] }
        set { schedules[key.location][key.kind] = newValue }
    }

    // MARK: the start spread

    /// First fetches after a start are spread over this many seconds: 5 s for a hub, growing
    /// with the locations (60 ms each) up to 90 s, so 1,000 locations do not all ask at once
    /// (many hubs restarted together by a power cut should not hit the APIs in the same second).
    static func firstFetchSpread(locations: Int) -> DaemonDuration {
        .seconds(min(max(5, Int64(locations) * 6 / 100), 90))
    }

    /// Starting: every source not scheduled yet (nothing restored for it) comes due at a random
    /// time within ``firstFetchSpread(locations:)``.
    mutating func start(now: DaemonInstant, random: inout SplitMix64) {
        let spread = Self.firstFetchSpread(locations: schedules.count)
        for index in schedules.indices {
            for kind in SourceKind.allCases where schedules[index][kind].nextDue == FetchSchedule.unplaced {
                schedules[index][kind].due(at: now + .seconds(Int64.random(in: 0...spread.seconds, using: &random)))
            }
        }
    }

    // MARK: due fetches

    /// The fetches of enabled sources due at `now` and not in flight, of the locations in
    /// `scanned`, in location then source order.
    func due(now: DaemonInstant, in scanned: Range<Int>, busy: FetchesInFlight) -> [FetchKey] {
        var keys: [FetchKey] = []
        for index in scanned {
            for kind in SourceKind.allCases where enabled[kind] && schedules[index][kind].isDue(at: now) {
                let key = FetchKey(location: index, kind: kind)
                if !busy.contains(key) { keys.append(key) }
            }
        }
        return keys
    }

    /// ``due(now:in:busy:)`` with the fetches in flight now.
    func due(now: DaemonInstant, in scanned: Range<Int>) -> [FetchKey] {
        due(now: now, in: scanned, busy: fetches.inFlight)
    }

    // MARK: refresh

    /// A `refresh` command for location `index`: each enabled source its rules let a `refresh`
    /// fetch (``SourceRules/refreshedByCommand``: all but the stripes) fetched now unless within
    /// its cooldown. Air follows too (its own schedule, pollen's cooldown) but is not part of the
    /// log line's pollen/climate verdict, which the fleet tooling greps.
    mutating func refresh(_ index: Int, id: String, now: DaemonInstant) -> [Action] {
        var refreshed = PerSource { _ in false }
        for kind in SourceKind.allCases where enabled[kind] && kind.rules.refreshedByCommand {
            refreshed[kind] = schedules[index][kind].refresh(at: now)
        }
        let (pollen, climate) = (refreshed.pollen, refreshed.climate)
        var actions: [Action] = []
        // A flood of refused refreshes (a stuck automation) logs one line per cooldown
        // window, not one per message (docs/operations.md, Limits).
        let window = min(schedules[index].pollen.refreshCooldown, schedules[index].climate.refreshCooldown)
        if pollen || climate || refreshSkipLoggedAt[index].map({ $0 + window <= now }) ?? true {
            actions.append(
                .log(
                    .info,
                    "command: refresh \(id): pollen \(pollen ? "now" : "skipped (cooldown)"), climate \(climate ? "now" : "skipped (cooldown)")"
                ))
            if !pollen && !climate { refreshSkipLoggedAt[index] = now }
        }
        if SourceKind.allCases.contains(where: { refreshed[$0] }) { actions.append(.startDue(location: index)) }
        return actions
    }

    // MARK: the deadline

    /// When the planner next has work: the earliest due time of an enabled source (a passed one
    /// is `now`); for a fetch in flight its watchdog deadline instead (its completion wakes the
    /// loop before), which is also returned alone as `stuckCheck` (``FetchTracker/woke(earliestDeadline:)``).
    ///
    /// Read after every event for every location: the schedules are read in place. Calling a
    /// method on an element copied it (retains and releases: 5–8 % of a 1,000-location cycle).
    func nextDeadline(now: DaemonInstant, busy: FetchesInFlight) -> (wake: DaemonInstant, stuckCheck: DaemonInstant) {
        var wake = DaemonInstant.distantFuture
        var stuckCheck = DaemonInstant.distantFuture
        let enabled = enabled
        func due(_ index: Int, _ kind: SourceKind, _ at: DaemonInstant) -> DaemonInstant {
            guard enabled[kind] else { return .distantFuture }
            let key = FetchKey(location: index, kind: kind)
            guard busy.contains(key) else { return max(at, now) }
            let deadline = busy.deadline(key)
            stuckCheck = min(stuckCheck, deadline)
            return max(deadline, now)
        }
        let kinds = SourceKind.allCases
        schedules.withUnsafeBufferPointer { all in
            for index in all.indices {
                for kind in kinds { wake = min(wake, due(index, kind, all[index][kind].nextDue)) }
            }
        }
        return (wake, stuckCheck)
    }

    /// ``nextDeadline(now:busy:)`` with the fetches in flight now; the watchdog is told its
    /// deadline (``FetchTracker/woke(earliestDeadline:)``).
    mutating func nextDeadline(now: DaemonInstant) -> DaemonInstant {
        let (wake, stuckCheck) = nextDeadline(now: now, busy: fetches.inFlight)
        fetches.woke(earliestDeadline: stuckCheck)
        return wake
    }
}
