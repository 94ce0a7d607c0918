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
@testable import BreezeMQTT
import BreezeTestSupport
import Synchronization
import Testing

/// Timers a test moves by hand: ``advance(by:)`` runs every timer that falls due on the way, in
/// order of its time, on the test's thread, with ``now()`` at that timer's time.
final class ManualMQTTTimers: MQTTTimers {
    private struct Timer {
        let due: ContinuousClock.Instant
        let order: Int
        let body: @Sendable () -> Void
    }

    private struct Waiter {
        let matches: @Sendable (Duration) -> Bool
        let continuation: CheckedContinuation<Duration, Never>
    }

    private struct State {
        var now: ContinuousClock.Instant
        var timers: [Timer] = []
        var nextOrder = 0
        var waiters: [Waiter] = []
    }

    let origin: ContinuousClock.Instant
    private let state: Mutex<State>

    init() {
        let origin = ContinuousClock.now
        self.origin = origin
        state = Mutex(State(now: origin))
    }

    func now() -> ContinuousClock.Instant { state.withLock { $0.now } }

    func schedule(after delay: Duration, _ body: @escaping @Sendable () -> Void) {
        let (due, woken): (Duration, [Waiter]) = state.withLock { state in
            state.timers.append(Timer(due: state.now + delay, order: state.nextOrder, body: body))
            state.nextOrder += 1
            let due = origin.duration(to: state.now + delay)
            let woken = state.waiters.filter { $0.matches(due) }
            state.waiters.removeAll { $0.matches(due) }
            return (due, woken)
        }
        for waiter in woken { waiter.continuation.resume(returning: due) }
    }

    /// When the earliest armed timer whose time (since the start) `matches` fires, or else the
    /// next such one to be armed: "the client is waiting for its timers" as an event.
    func nextArmed(where matches: @escaping @Sendable (Duration) -> Bool) async -> Duration {
        await withCheckedContinuation { continuation in
            let armed: Duration? = state.withLock { state in
                if let due = state.timers.map({ origin.duration(to: $0.due) }).filter(matches).min() { return due }
                state.waiters.append(Waiter(matches: matches, continuation: continuation))
                return nil
            }
            if let armed { continuation.resume(returning: armed) }
        }
    }

    /// When the armed timers fire, as time since the start.
    var pending: [Duration] { state.withLock { state in state.timers.map { origin.duration(to: $0.due) }.sorted() } }

    /// Moves time on by `duration`, firing each timer due by then at its own time (a timer armed
    /// by one that fires is fired too when it falls due within the move).
    func advance(by duration: Duration) {
        let target = now() + duration
        while let timer = state.withLock({ state -> Timer? in
            let due = state.timers.indices.filter { state.timers[$0].due <= target }
            guard
                let first = due.min(by: {
                    (state.timers[$0].due, state.timers[$0].order) < (state.timers[$1].due, state.timers[$1].order)
                })
            else {
                state.now = target
                return nil
            }
            let timer = state.timers.remove(at: first)
            state.now = timer.due
            return timer
        }) {
            timer.body()
        }
    }
}

/// The client reads time only from its ``MQTTTimers``: with a test's, the connect timeout fires
/// when the test moves time to it, not before, and no real time passes for it.
@Suite("MQTT client on injected timers")
struct MQTTTimersTests {
    /// A started client on hand-moved timers whose connect to `stalled` is never answered.
    static func stalledClient(
        _ stalled: StalledListener, connectTimeout: Int
    ) throws -> (MQTTClient, ManualMQTTTimers) {
        let timers = ManualMQTTTimers()
        var configuration = MQTTConfiguration(
            host: "127.0.0.1", port: stalled.port, clientID: uniqueClientID("timers"))
        configuration.connectTimeout = connectTimeout
        configuration.keepalive = hangKeepalive
        let client = try MQTTClient(configuration, timers: timers)
        try client.start()
        return (client, timers)
    }

    @Test func aStalledConnectIsAbortedWhenTheTimersReachTheTimeout() async throws {
        let stalled = try StalledListener()
        let (client, timers) = try Self.stalledClient(stalled, connectTimeout: 3)
        // The connect (a SYN that is never answered) is under way; the watchdog's tick is the
        // one timer armed.
        #expect(client.lastError == nil)
        #expect(timers.pending == [.seconds(1)])
        // The first tick (1 s) starts timing the attempt; at 4 s it has run the 3 s.
        timers.advance(by: .seconds(3))
        #expect(client.lastError == nil, "aborted before the timeout: \(String(describing: client.lastError))")
        #expect(timers.pending == [.seconds(4)])
        timers.advance(by: .seconds(1))
        let reason = "no CONNACK within the connect timeout (3 s)"
        #expect(client.lastError?.message == reason)
        var events = client.events.makeAsyncIterator()
        #expect(await events.next() == .disconnected(reason: reason))
        await client.stop()
        _ = stalled
    }

    /// A wait for the broker (``MQTTClient/waitUntilConnected(timeout:)``, the outcomes' waits)
    /// ends when the timers pass its timeout: 30 s of theirs, no real waiting.
    @Test func aWaitForTheBrokerEndsWhenTheTimersPassItsTimeout() async throws {
        let stalled = try StalledListener()
        let (client, timers) = try Self.stalledClient(stalled, connectTimeout: 300)
        let started = ContinuousClock.now
        let waiting = Task { await client.waitUntilConnected(timeout: .seconds(30)) }
        #expect(await timers.nextArmed { $0 == .seconds(30) } == .seconds(30))
        timers.advance(by: .seconds(30))
        #expect(await waiting.value == false)
        // A wait on the wall clock would have taken the whole 30 s; on the timers it takes what
        // the machine needs to run the steps (0.1 s idle, 11.5 s once at a load of 20 on 2
        // cores, which failed the 10 s bound this had).
        #expect(ContinuousClock.now - started < .seconds(30))
        // The watchdog ticked along (once a second) without aborting the 300 s attempt.
        #expect(client.lastError == nil)
        await client.stop()
        _ = stalled
    }
}
