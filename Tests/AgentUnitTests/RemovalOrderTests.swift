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
import BreezeTestSupport
import Testing

/// SPEC §3 removal order: when entities go away, Home Assistant gets the new (or empty) device
/// config first and the state topics are cleared no sooner than the delay later, so it never
/// renders a template on an empty payload.
@Suite("Removal order: discovery first, state clears later")
struct RemovalOrderTests {
    static func tree(_ pairs: [(String, String)]) -> TopicTree {
        var t = TopicTree()
        for (k, v) in pairs { t.set(k, v) }
        return t
    }

    static func publisher(_ transport: RecordingTransport, delay: Duration) -> RetainedPublisher {
        RetainedPublisher(
            transport: transport, store: nil, clearDelay: delay, clearsAtOnce: { $0.hasPrefix("homeassistant/") })
    }

    @Test func statesAreClearedAfterTheDelayDiscoveryAtOnce() async throws {
        let transport = RecordingTransport()
        let publisher = Self.publisher(transport, delay: .milliseconds(300))
        publisher.set(scope: "b/home/pollen", Self.tree([("b/home/pollen", "{}"), ("b/home/pollen/oak/level", "Low")]))
        publisher.set(
            scope: "homeassistant/device/b_home/config", Self.tree([("homeassistant/device/b_home/config", "{oak}")]))
        let t0 = ContinuousClock.now
        publisher.flush(at: t0)
        _ = transport.take()
        #expect(publisher.nextClearDue == nil)

        // Pollen becomes unavailable: the config loses its components, the state topics go.
        publisher.set(scope: "b/home/pollen", TopicTree())
        publisher.set(
            scope: "homeassistant/device/b_home/config", Self.tree([("homeassistant/device/b_home/config", "{}")]))
        let changed = t0 + .seconds(1)
        publisher.flush(at: changed)
        #expect(transport.take() == ["homeassistant/device/b_home/config={}"])
        let due = try #require(publisher.nextClearDue)
        #expect(due - changed == .milliseconds(300))
        // A flush before the time sends nothing more.
        publisher.flush(at: due - .milliseconds(1))
        #expect(transport.take().isEmpty)
        publisher.flush(at: due)
        #expect(transport.take() == ["b/home/pollen=", "b/home/pollen/oak/level="])
        #expect(publisher.nextClearDue == nil)
        #expect(publisher.published.keys.sorted() == ["homeassistant/device/b_home/config"])
    }

    @Test func aTopicWantedAgainIsNotClearedLater() async throws {
        let transport = RecordingTransport()
        let publisher = Self.publisher(transport, delay: .milliseconds(200))
        let full = Self.tree([("b/home/pollen", "{}"), ("b/home/pollen/oak/level", "Low")])
        let t0 = ContinuousClock.now
        publisher.set(scope: "b/home/pollen", full)
        publisher.flush(at: t0)
        publisher.set(scope: "b/home/pollen", Self.tree([("b/home/pollen", "{}")]))
        publisher.flush(at: t0)
        #expect(publisher.nextClearDue == t0 + .milliseconds(200))
        // Back with the same payload before the clear is due: nothing is sent, nothing cleared.
        publisher.set(scope: "b/home/pollen", full)
        _ = transport.take()
        publisher.flush(at: t0 + .milliseconds(100))
        #expect(publisher.nextClearDue == nil)
        publisher.flush(at: t0 + .milliseconds(250))
        #expect(transport.take().isEmpty)
        #expect(publisher.published["b/home/pollen/oak/level"] == PayloadDigest(payload: "Low"))
    }

    @Test func topicsUnderNoScopeFollowTheSameOrder() async throws {
        // A location removed from the config: its device config is emptied at once, its state later.
        let transport = RecordingTransport()
        let store = StateStore(directory: temporaryDirectory(), log: Log(sink: { _ in }))
        let first = RetainedPublisher(
            transport: transport, store: store, clearDelay: .zero, clearsAtOnce: { $0.hasPrefix("homeassistant/") })
        first.set(scope: "b/gone/pollen", Self.tree([("b/gone/pollen", "{}")]))
        first.set(
            scope: "homeassistant/device/b_gone/config", Self.tree([("homeassistant/device/b_gone/config", "{}")]))
        first.flush(at: .now)
        _ = transport.take()

        let restarted = RetainedPublisher(
            transport: transport, store: store, clearDelay: .milliseconds(200),
            clearsAtOnce: { $0.hasPrefix("homeassistant/") })
        restarted.set(scope: "b/home/pollen", Self.tree([("b/home/pollen", "{}")]))
        let t0 = ContinuousClock.now
        restarted.flush(at: t0)
        #expect(transport.take() == ["b/home/pollen={}", "homeassistant/device/b_gone/config="])
        restarted.flush(at: t0 + .milliseconds(199))
        #expect(transport.take().isEmpty)
        restarted.flush(at: try #require(restarted.nextClearDue))
        #expect(transport.take() == ["b/gone/pollen="])
    }

    /// The held-back clears are a deadline of the state's one wake: reported after a flush,
    /// woken for, flushed by the tick at their time.
    @Test func theStateMachineWakesForHeldBackClearsAndFlushesThem() throws {
        var (state, _) = DaemonStateTests.started(try DaemonStateTests.config())
        let t = DaemonStateTests.t0 + 20
        let held = state.handle(.clearsHeld(until: DaemonInstant(unixSeconds: t + 3)), at: DaemonStateTests.at(t))
        #expect(held.count == 1)
        guard case .wake(let at) = held.first else {
            Issue.record("no wake: \(held)")
            return
        }
        #expect(at.unixSeconds == t + 3)
        let tick = state.handle(.tick, at: DaemonStateTests.at(t + 3))
        #expect(tick.contains { if case .flush(persist: true) = $0 { true } else { false } })
        // Flushed: the wake no longer waits for them.
        guard case .wake(let next)? = tick.last(where: { if case .wake = $0 { true } else { false } }) else {
            Issue.record("no wake after the tick")
            return
        }
        #expect(next.unixSeconds > t + 3)
    }
}
