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
import Testing

/// The fetches in flight and the stuck-fetch watchdog alone (issue 30), without a DaemonState:
/// a fetch is abandoned at its deadline and not before, in location and source order, with
/// how long it waited.
@Suite("FetchTracker: fetches in flight and the watchdog")
struct FetchTrackerTests {
    static let t0: DaemonInstant = 1_000_000
    static let pollen = FetchKey(location: 0, kind: .pollen)
    static let air = FetchKey(location: 2, kind: .air)

    @Test func aFetchIsInFlightUntilItFinishes() {
        var tracker = FetchTracker()
        #expect(tracker.isIdle)
        tracker.started(Self.pollen, now: Self.t0)
        #expect(!tracker.isIdle && tracker.inFlight.contains(Self.pollen))
        #expect(tracker.inFlight.deadline(Self.pollen) == Self.t0 + FetchTracker.stuckLimit)
        tracker.finished(Self.pollen)
        #expect(tracker.isIdle && tracker.inFlight.deadline(Self.pollen) == .distantFuture)
    }

    @Test func theWatchdogWaitsForTheDeadlineTheWakeFound() {
        var tracker = FetchTracker()
        tracker.started(Self.pollen, now: Self.t0)
        tracker.started(Self.air, now: Self.t0 + 10)
        // Before any wake nothing is checked: the wake finds the earliest deadline.
        #expect(tracker.abandonStuck(now: Self.t0 + 1_000).isEmpty)
        tracker.woke(earliestDeadline: Self.t0 + FetchTracker.stuckLimit)
        #expect(tracker.nextDeadline == Self.t0 + FetchTracker.stuckLimit)
        #expect(tracker.abandonStuck(now: Self.t0 + FetchTracker.stuckLimit - 1).isEmpty)
        let stuck = tracker.abandonStuck(now: Self.t0 + FetchTracker.stuckLimit + 20)
        #expect(
            stuck == [
                .abandon(Self.pollen, message: "stuck: no answer after 320 s, cancelled"),
                .abandon(Self.air, message: "stuck: no answer after 310 s, cancelled"),
            ])
        // Abandoned fetches stay in flight until the parent has applied them; the next check
        // waits for the next wake.
        #expect(tracker.inFlight.count == 2 && tracker.nextDeadline == .distantFuture)
        #expect(tracker.abandonStuck(now: Self.t0 + 10_000).isEmpty)
    }

    @Test func onlyFetchesPastTheirDeadlineAreAbandoned() {
        var tracker = FetchTracker()
        tracker.started(Self.pollen, now: Self.t0)
        tracker.started(Self.air, now: Self.t0 + 100)
        tracker.woke(earliestDeadline: Self.t0 + FetchTracker.stuckLimit)
        let stuck = tracker.abandonStuck(now: Self.t0 + FetchTracker.stuckLimit)
        #expect(stuck == [.abandon(Self.pollen, message: "stuck: no answer after 300 s, cancelled")])
    }
}
