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
import BreezeCore
import BreezeMQTT
import Synchronization

/// An in-memory broker for running the daemon loop in unit tests (``BrokerConnection``): it
/// keeps the retained store and every publish in order, goes down and comes back on request,
/// and lets a test await "the broker saw this" as an event, not by polling.
///
/// Not an integration test's broker: the integration suite runs the agent against a real
/// mosquitto. This one stands for the protocol the loop speaks, as mqtt-nio's tests stand a
/// testing channel in for the network.
final class InMemoryBroker: BrokerConnection {
    /// One publish as the broker received it.
    struct Message: Sendable, Equatable {
        let topic: String
        let payload: [UInt8]
        let qos: Int
        let retain: Bool

        var text: String { String(decoding: payload, as: UTF8.self) }
    }

    private struct Waiter {
        let from: Int
        let matches: @Sendable (Message) -> Bool
        let continuation: CheckedContinuation<Message, Never>
    }

    private struct State {
        var started = false
        var connected = false
        var retained: [String: [UInt8]] = [:]
        var received: [Message] = []
        var subscriptions: Set<String> = []
        var accepted = 0
        var waiters: [Waiter] = []
    }

    private let state = Mutex(State())
    let events: AsyncStream<MQTTEvent>
    private let continuation: AsyncStream<MQTTEvent>.Continuation

    /// - Parameter up: false makes a broker that never accepts the connection.
    init(up: Bool = true) {
        isUp = up
        (events, continuation) = AsyncStream<MQTTEvent>.makeStream()
    }

    var isConnected: Bool { state.withLock { $0.connected } }

    /// Nil while the broker is up; a broker made `down` says why it does not answer.
    var lastError: MosquittoError? {
        isUp ? nil : MosquittoError(kind: .library, code: 7, message: "The connection was lost.")
    }

    var protocolVersion: MQTTProtocolVersion { .v5 }

    /// False: ``start()`` never connects (a broker that does not answer).
    private let isUp: Bool

    /// Connects at once (the broker is up).
    func start() throws(MosquittoError) {
        guard isUp else { return }
        state.withLock {
            $0.started = true
            $0.connected = true
        }
        continuation.yield(.connected)
    }

    func publish(_ topic: String, _ payload: [UInt8], qos: Int, retain: Bool) throws(MosquittoError) {
        let message = Message(topic: topic, payload: payload, qos: qos, retain: retain)
        let ready: [(CheckedContinuation<Message, Never>, Message)]? = state.withLock { state in
            guard state.connected else { return nil }
            state.received.append(message)
            if retain { state.retained[topic] = payload.isEmpty ? nil : payload }
            if qos > 0 { state.accepted += 1 }
            let index = state.received.count - 1
            var ready: [(CheckedContinuation<Message, Never>, Message)] = []
            state.waiters.removeAll { waiter in
                guard waiter.from <= index, waiter.matches(message) else { return false }
                ready.append((waiter.continuation, message))
                return true
            }
            return ready
        }
        guard let ready else {
            throw MosquittoError(kind: .library, code: 4, message: "The client is not currently connected.")
        }
        for (waiter, message) in ready { waiter.resume(returning: message) }
    }

    func subscribe(_ pattern: String, qos: Int) throws(MosquittoError) {
        _ = state.withLock { $0.subscriptions.insert(pattern) }
    }

    func unsubscribe(_ pattern: String) throws(MosquittoError) {
        _ = state.withLock { $0.subscriptions.remove(pattern) }
    }

    /// Everything is acknowledged as it arrives: there is never anything to wait for.
    func waitForOutcomes(timeout: Duration) async -> PublishOutcomes {
        state.withLock { state in
            var outcomes = PublishOutcomes()
            outcomes.accepted = state.accepted
            state.accepted = 0
            return outcomes
        }
    }

    func waitForAcknowledgements(timeout: Duration) async -> Bool { true }

    func stop() async {
        state.withLock { $0.connected = false }
        continuation.finish()
    }

    // MARK: what a test does to the broker

    /// The connection drops (the broker restarted, the network went away): publishes fail until
    /// ``reconnect()``. With `losingRetained`, the broker comes back with an empty store.
    func dropConnection(reason: String, losingRetained: Bool) {
        state.withLock { state in
            state.connected = false
            if losingRetained { state.retained = [:] }
        }
        continuation.yield(.disconnected(reason: reason))
    }

    /// The connection is back (as libmosquitto's reconnect reports it).
    func reconnect() {
        state.withLock { $0.connected = true }
        continuation.yield(.connected)
    }

    /// A message from another client arrives on a topic the agent subscribed to.
    func deliver(topic: String, _ payload: String, retain: Bool = false) {
        continuation.yield(.message(MQTTMessage(topic: topic, string: payload, qos: 1, retain: retain)))
    }

    // MARK: what a test sees

    /// The broker's retained store: topic → payload text.
    var retained: [String: String] {
        state.withLock { $0.retained.mapValues { String(decoding: $0, as: UTF8.self) } }
    }

    var subscriptions: Set<String> { state.withLock { $0.subscriptions } }

    /// Every publish so far, in order.
    var received: [Message] { state.withLock { $0.received } }

    /// A position in ``received``: ``next(after:where:)`` looks only at what arrives from here on.
    var mark: Int { state.withLock { $0.received.count } }

    /// The first publish at or after `mark` that `matches`: returned at once when it has
    /// arrived, else as soon as it does (the test's time limit bounds the wait).
    func next(after mark: Int, where matches: @escaping @Sendable (Message) -> Bool) async -> Message {
        await withCheckedContinuation { continuation in
            let found: Message? = state.withLock { state in
                if mark < state.received.count, let hit = state.received[mark...].first(where: matches) { return hit }
                state.waiters.append(Waiter(from: mark, matches: matches, continuation: continuation))
                return nil
            }
            if let found { continuation.resume(returning: found) }
        }
    }
}

/// A ``DaemonClock`` that moves only when the test says: wall time starts at `start`, uptime at
/// zero, and every sleeper whose time has come wakes in ``advance(by:)``.
final class ManualDaemonClock: DaemonClock {
    private struct Sleeper {
        let deadline: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct SleepWaiter {
        let matches: @Sendable (Duration) -> Bool
        let continuation: CheckedContinuation<Duration, Never>
    }

    private struct State {
        var elapsed: Duration = .zero
        var sleepers: [Int: Sleeper] = [:]
        /// Sleeps cancelled before they were registered.
        var cancelled: Set<Int> = []
        var nextID = 0
        /// Tests waiting for a sleep to begin (``nextSleep(where:)``).
        var sleepWaiters: [SleepWaiter] = []
    }

    let start: Int64
    /// The monotonic instant standing for `start` (``instant()`` moves on from it with the clock).
    let origin = ContinuousClock.now
    private let state = Mutex(State())

    init(start: Int64) { self.start = start }

    var elapsed: Duration { state.withLock { $0.elapsed } }

    func now() -> DaemonTime {
        let seconds = state.withLock { $0.elapsed.components.seconds }
        return DaemonTime(now: DaemonInstant(unixSeconds: start + seconds), uptimeSeconds: Int(seconds))
    }

    func instant() -> ContinuousClock.Instant { origin + elapsed }

    func sleep(until at: DaemonInstant) async throws { try await sleep(untilElapsed: .seconds(at.unixSeconds - start)) }

    /// The deadline (time since `start`) of the earliest sleep waiting now whose deadline
    /// `matches`, or else of the next such one to begin: "the code under test is waiting for the
    /// clock" as an event.
    func nextSleep(where matches: @escaping @Sendable (Duration) -> Bool = { _ in true }) async -> Duration {
        await withCheckedContinuation { continuation in
            let waiting: Duration? = state.withLock { state in
                if let earliest = state.sleepers.values.map(\.deadline).filter(matches).min() { return earliest }
                state.sleepWaiters.append(SleepWaiter(matches: matches, continuation: continuation))
                return nil
            }
            if let waiting { continuation.resume(returning: waiting) }
        }
    }

    /// Moves the clock on to `elapsed` since `start` (no move when it is already there).
    func advance(to elapsed: Duration) {
        advance(by: max(.zero, elapsed - self.elapsed))
    }

    /// Moves the clock on and wakes every sleeper whose time has come.
    func advance(by duration: Duration) {
        let due: [CheckedContinuation<Void, any Error>] = state.withLock { state in
            state.elapsed += duration
            let elapsed = state.elapsed
            let ids = state.sleepers.filter { $0.value.deadline <= elapsed }.map(\.key)
            return ids.compactMap { state.sleepers.removeValue(forKey: $0)?.continuation }
        }
        for sleeper in due { sleeper.resume() }
    }

    private func sleep(untilElapsed deadline: Duration) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (immediate, waiters): (Result<Void, any Error>?, [SleepWaiter]) =
                    state.withLock { state in
                        if state.cancelled.remove(id) != nil { return (.failure(CancellationError()), []) }
                        if deadline <= state.elapsed { return (.success(()), []) }
                        state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                        let woken = state.sleepWaiters.filter { $0.matches(deadline) }
                        state.sleepWaiters.removeAll { $0.matches(deadline) }
                        return (nil, woken)
                    }
                for waiter in waiters { waiter.continuation.resume(returning: deadline) }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let sleeper = state.withLock { state in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                    state.cancelled.insert(id)
                    return Sleeper?.none
                }
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }
}
