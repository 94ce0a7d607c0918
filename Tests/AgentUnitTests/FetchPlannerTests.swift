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

@testable import BreezeAgent
@testable import BreezeDaemon
@testable import BreezeConfig
import BreezeCore
import Testing

/// ``FetchPlanner`` alone: the schedules of every location and source, the start spread, which
/// fetches are due, `refresh`, the backoff as the planner sees it, and its deadline.
@Suite("FetchPlanner: the start spread, due fetches, refresh, backoff, the deadline")
struct FetchPlannerTests {
    typealias T = DaemonStateTests
    static let t0 = DaemonInstant(unixSeconds: T.t0)

    /// Pollen (Google), climate and stripes on; air off unless `air`.
    static func planner(locations: Int, air: Bool = false) throws -> FetchPlanner {
        FetchPlanner(locations: locations, settings: try T.config(air ? "air: {enabled: true, interval: 1h}" : ""))
    }

    static func key(_ location: Int, _ kind: SourceKind) -> FetchKey { FetchKey(location: location, kind: kind) }

    @Test("the start spread: 5 s for a hub, 60 ms a location, at most 90 s; restored schedules stay")
    func startSpread() throws {
        #expect(FetchPlanner.firstFetchSpread(locations: 1) == 5)
        #expect(FetchPlanner.firstFetchSpread(locations: 83) == 5)
        #expect(FetchPlanner.firstFetchSpread(locations: 1000) == 60)
        #expect(FetchPlanner.firstFetchSpread(locations: 100_000) == 90)

        var planner = try Self.planner(locations: 1000)
        // A restored response set this one's next fetch already.
        planner.schedules[0].pollen.due(at: Self.t0 + 9_999)
        var random = SplitMix64(seed: 7)
        planner.start(now: Self.t0, random: &random)
        #expect(planner.schedules[0].pollen.nextDue == Self.t0 + 9_999)
        let dues = planner.schedules.dropFirst().map(\.pollen.nextDue) + planner.schedules.map(\.climate.nextDue)
        #expect(dues.allSatisfy { (Self.t0...Self.t0 + 60).contains($0) })
        // Spread, not bunched: every 10 s slice of the minute gets some.
        #expect(Set(dues.map { ($0 - Self.t0).seconds / 10 }).count == 7)
        // The same seed makes the same decisions.
        var again = try Self.planner(locations: 1000)
        again.schedules[0].pollen.due(at: Self.t0 + 9_999)
        var same = SplitMix64(seed: 7)
        again.start(now: Self.t0, random: &same)
        #expect(again.schedules == planner.schedules)
    }

    @Test("due: enabled sources only, not in flight, of the scanned locations, in location then source order")
    func due() throws {
        var planner = try Self.planner(locations: 2)
        let all = planner.due(now: Self.t0, in: 0..<2, busy: FetchesInFlight())
        #expect(
            all == [
                Self.key(0, .pollen), Self.key(0, .climate), Self.key(0, .stripes),
                Self.key(1, .pollen), Self.key(1, .climate), Self.key(1, .stripes),
            ])
        var busy = FetchesInFlight()
        busy.insert(Self.key(0, .climate), deadline: Self.t0 + 300)
        #expect(!planner.due(now: Self.t0, in: 0..<2, busy: busy).contains(Self.key(0, .climate)))
        #expect(planner.due(now: Self.t0, in: 1..<2, busy: busy).allSatisfy { $0.location == 1 })
        // A source is due from its time on, not before.
        planner.schedules[1].pollen.due(at: Self.t0 + 10)
        #expect(!planner.due(now: Self.t0 + 9, in: 1..<2, busy: busy).contains(Self.key(1, .pollen)))
        #expect(planner.due(now: Self.t0 + 10, in: 1..<2, busy: busy).contains(Self.key(1, .pollen)))
        // Air, off in this configuration, is never due; on, it is.
        #expect(!all.contains { $0.kind == .air })
        let withAir = try Self.planner(locations: 1, air: true)
        #expect(withAir.due(now: Self.t0, in: 0..<1, busy: FetchesInFlight()).contains(Self.key(0, .air)))
    }

    @Test("refresh: granted once per cooldown, air follows pollen, a refused flood logs once per window")
    func refresh() throws {
        var planner = try Self.planner(locations: 1, air: true)
        for kind in SourceKind.allCases { planner.schedules[0][kind].due(at: Self.t0 + 86_400) }

        #expect(
            planner.refresh(0, id: "home", now: Self.t0) == [
                .log(.info, "command: refresh home: pollen now, climate now"), .startDue(location: 0),
            ])
        #expect(planner.schedules[0].pollen.nextDue == Self.t0)
        #expect(planner.schedules[0].climate.nextDue == Self.t0)
        #expect(planner.schedules[0].air.nextDue == Self.t0)
        // Stripes are not refreshed (once a year; a refresh would weigh ≈ 120 calls).
        #expect(planner.schedules[0].stripes.nextDue == Self.t0 + 86_400)

        // Within both cooldowns: refused, logged once, then quiet for the window (15 min, pollen's).
        let refused = "command: refresh home: pollen skipped (cooldown), climate skipped (cooldown)"
        #expect(planner.refresh(0, id: "home", now: Self.t0 + 1) == [.log(.info, refused)])
        #expect(planner.refresh(0, id: "home", now: Self.t0 + 2).isEmpty)
        #expect(planner.refresh(0, id: "home", now: Self.t0 + 899).isEmpty)
        // Pollen's cooldown (15 min) has passed, climate's (1 h) has not.
        #expect(
            planner.refresh(0, id: "home", now: Self.t0 + 900) == [
                .log(.info, "command: refresh home: pollen now, climate skipped (cooldown)"),
                .startDue(location: 0),
            ])
        // Refused again, a window after the last refusal's line: one line, then quiet.
        #expect(planner.refresh(0, id: "home", now: Self.t0 + 901) == [.log(.info, refused)])
        #expect(planner.refresh(0, id: "home", now: Self.t0 + 902).isEmpty)
    }

    @Test("backoff: a failed source is due again after 60 s, then 120 s, and the deadline says so")
    func backoff() throws {
        var planner = try Self.planner(locations: 1)
        for kind in SourceKind.allCases { planner.schedules[0][kind].due(at: Self.t0 + 86_400) }
        let pollen = Self.key(0, .pollen)
        #expect(planner[pollen].failed(at: Self.t0, retryAfter: nil, jitter: 0) == 60)
        #expect(planner.due(now: Self.t0 + 59, in: 0..<1, busy: FetchesInFlight()).isEmpty)
        #expect(planner.due(now: Self.t0 + 60, in: 0..<1, busy: FetchesInFlight()) == [pollen])
        #expect(planner.nextDeadline(now: Self.t0 + 1, busy: FetchesInFlight()).wake == Self.t0 + 60)
        #expect(planner[pollen].failed(at: Self.t0 + 60, retryAfter: nil, jitter: 0) == 120)
        #expect(planner.nextDeadline(now: Self.t0 + 61, busy: FetchesInFlight()).wake == Self.t0 + 180)
        // A server's Retry-After longer than the step wins.
        #expect(planner[pollen].failed(at: Self.t0 + 180, retryAfter: 1000, jitter: 0) == 1000)
        #expect(planner.nextDeadline(now: Self.t0 + 181, busy: FetchesInFlight()).wake == Self.t0 + 1180)
    }

    @Test("the deadline: the earliest due enabled source, now when passed, a fetch in flight at its watchdog deadline")
    func nextDeadline() throws {
        var planner = try Self.planner(locations: 2)
        for index in 0..<2 {
            for kind in SourceKind.allCases { planner.schedules[index][kind].due(at: Self.t0 + 5_000) }
        }
        // Air is off: its schedule (due at 0 here) is not a deadline.
        planner.schedules[1].air.due(at: 0)
        var idle = FetchesInFlight()
        #expect(planner.nextDeadline(now: Self.t0, busy: idle) == (Self.t0 + 5_000, .distantFuture))
        planner.schedules[1].climate.due(at: Self.t0 + 40)
        #expect(planner.nextDeadline(now: Self.t0, busy: idle).wake == Self.t0 + 40)
        // Passed: due now, not in the past.
        #expect(planner.nextDeadline(now: Self.t0 + 100, busy: idle).wake == Self.t0 + 100)

        // In flight: its completion wakes the loop, or the watchdog at its deadline.
        planner.schedules[1].climate.started(at: Self.t0 + 100)
        idle.insert(Self.key(1, .climate), deadline: Self.t0 + 400)
        let (wake, stuckCheck) = planner.nextDeadline(now: Self.t0 + 100, busy: idle)
        #expect(wake == Self.t0 + 400)
        #expect(stuckCheck == Self.t0 + 400)
    }
}
