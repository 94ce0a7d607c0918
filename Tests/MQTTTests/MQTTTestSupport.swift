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
import BreezeMQTT
import BreezeTestSupport
import Foundation
import Synchronization
import Testing

/// Collects a client's events so a test can wait for one (up to a deadline) without sleeping.
///
/// Events are taken, and waited for, on ``TimingExecutor``'s thread: their times are when the
/// client delivered them, even while the cooperative pool is busy with other tests.
final class EventRecorder: Sendable {
    private let recorded = Mutex<[(event: MQTTEvent, time: ContinuousClock.Instant)]>([])

    init(_ client: MQTTClient) {
        let stream = client.events
        Task(executorPreference: TimingExecutor.shared) { [self] in
            for await event in stream {
                recorded.withLock { $0.append((event, .now)) }
                TestEvents.shared.report()
            }
        }
    }

    var events: [MQTTEvent] { recorded.withLock { $0.map(\.event) } }

    /// When the first event matching `matches` arrived.
    func firstTime(where matches: (MQTTEvent) -> Bool) -> ContinuousClock.Instant? {
        recorded.withLock { $0.first { matches($0.event) }?.time }
    }

    func messages(on topic: String) -> [MQTTMessage] {
        events.compactMap { event in
            if case .message(let message) = event, message.topic == topic { return message }
            return nil
        }
    }

    var connectedCount: Int { events.filter { $0 == .connected }.count }

    /// Waits until `pick` finds something, looking again at each event any recorder (or other
    /// test source) takes; nil after `timeout` (the safety net).
    func waitFor<T>(timeout: Duration = .seconds(15), _ pick: ([MQTTEvent]) -> T?) async -> T? {
        await withTaskExecutorPreference(TimingExecutor.shared) {
            var found: T?
            _ = await TestEvents.shared.until(bound: timeout) {
                found = pick(events)
                return found != nil
            }
            return found
        }
    }

    /// The first message on `topic` with `payload`.
    func waitForMessage(on topic: String, payload: String, timeout: Duration = .seconds(15)) async -> MQTTMessage? {
        await waitFor(timeout: timeout) { events in
            events.lazy.compactMap { event -> MQTTMessage? in
                if case .message(let message) = event, message.topic == topic, message.payloadString == payload {
                    return message
                }
                return nil
            }.first
        }
    }
}

/// How long a prompt operation (`stop()`, giving up a stalled connect attempt) may take, measured
/// off the cooperative pool (``durationOffThePool(_:)``, the recorder's event times): the pool's
/// two threads are held for long stretches by synchronous tests in the parallel suite (a `stop()`
/// measured from the test took 93 s there), this thread is not. The tests using it set up a hang
/// that lasts far longer: a reconnect delay of 300 s, a keepalive of ``hangKeepalive``
/// (libmosquitto's own end of a stalled attempt), a join that never returns.
let promptBound: Duration = .seconds(10)

/// How long a test waits for an event before giving up: generous, since the wait itself proves
/// nothing about promptness (the event's time does).
let eventWait: Duration = .seconds(60)

/// The keepalive for tests that prove the connect timeout (or `stop()`) ends a stalled attempt:
/// without them libmosquitto would only end it at its keepalive check, 300 s later.
let hangKeepalive = 300

/// A topic no other test (or earlier run on a shared broker) uses.
func uniqueTopic(_ name: String = #function) -> String {
    let clean = name.filter { $0.isLetter || $0.isNumber }
    return "breeze-test/\(clean)/\(UUID().uuidString)"
}

func uniqueClientID(_ role: String) -> String {
    "breeze-test-\(role)-\(UUID().uuidString.prefix(8))"
}

/// A started client and its recorder; `ready` waits for the first connection.
func makeClient(
    port: Int, role: String, ready: Bool = true, _ adjust: (inout MQTTConfiguration) -> Void = { _ in }
) async throws -> (MQTTClient, EventRecorder) {
    var configuration = MQTTConfiguration(host: "127.0.0.1", port: port, clientID: uniqueClientID(role))
    adjust(&configuration)
    let client = try MQTTClient(configuration)
    let recorder = EventRecorder(client)
    try client.start()
    if ready {
        let connected = await client.waitUntilConnected(timeout: .seconds(15))
        try #require(connected, "client \(role) did not connect: \(String(describing: client.lastError))")
    }
    return (client, recorder)
}

/// Subscribes and returns once the subscription is active: the broker handles one connection's
/// packets in order, so our own probe coming back proves the SUBSCRIBE was processed.
func subscribeAndConfirm(_ client: MQTTClient, _ recorder: EventRecorder, _ topic: String, qos: Int = 2) async throws {
    try client.subscribe(topic, qos: qos)
    let probe = "probe-\(UUID().uuidString)"
    try client.publish(topic, probe, qos: 1)
    let echoed = await recorder.waitForMessage(on: topic, payload: probe)
    try #require(echoed != nil, "subscription to \(topic) never became active")
}
