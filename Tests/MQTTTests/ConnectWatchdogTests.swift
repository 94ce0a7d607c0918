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

@testable import BreezeMQTT
import Testing

/// The connect timeout's decisions, with time as the argument: no broker, no waiting.
@Suite("ConnectWatchdog: a stalled connect attempt is aborted after the timeout")
struct ConnectWatchdogTests {
    let t0 = ContinuousClock.now

    @Test func anAttemptOnTheSameSocketRunsOutAtTheTimeout() {
        var watchdog = ConnectWatchdog(timeout: .seconds(10))
        #expect(watchdog.tick(socket: 7, now: t0) == .started)
        #expect(watchdog.tick(socket: 7, now: t0 + .seconds(9)) == .waiting)
        #expect(watchdog.tick(socket: 7, now: t0 + .seconds(10)) == .abort)
        // Aborted: the same socket seen again is timed afresh.
        #expect(watchdog.attempt == nil)
        #expect(watchdog.tick(socket: 7, now: t0 + .seconds(11)) == .started)
        #expect(watchdog.attempt == .init(socket: 7, since: t0 + .seconds(11)))
    }

    @Test func aNewSocketOrNoneStartsTheTimingAgain() {
        var watchdog = ConnectWatchdog(timeout: .seconds(10))
        #expect(watchdog.tick(socket: 7, now: t0) == .started)
        // libmosquitto reconnected meanwhile: a new attempt, timed from now.
        #expect(watchdog.tick(socket: 8, now: t0 + .seconds(9)) == .started)
        #expect(watchdog.tick(socket: 8, now: t0 + .seconds(18)) == .waiting)
        // No socket (between attempts): nothing to time.
        #expect(watchdog.tick(socket: -1, now: t0 + .seconds(30)) == .idle)
        #expect(watchdog.attempt == nil)
        #expect(watchdog.tick(socket: 8, now: t0 + .seconds(31)) == .started)
    }

    @Test func aForgottenAttemptIsNotAborted() {
        var watchdog = ConnectWatchdog(timeout: .seconds(10))
        #expect(watchdog.tick(socket: 7, now: t0) == .started)
        watchdog.forget()
        #expect(watchdog.tick(socket: 7, now: t0 + .seconds(60)) == .started)
    }
}
