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
import BreezeMQTT
import Testing

/// Locations a shard no longer owns (SPEC §11): held, watched on the broker, then cleared only
/// where nobody else has re-published them.
@Suite("Shard handover: clearing locations no longer owned")
struct ShardHandoverTests {
    /// home → shard 2, office → 1, garden → 0 (FNV-1a mod 4); this agent is shard 1.
    static func config(shard: String = "shard: {index: 1, count: 4}") throws -> AgentConfig {
        try ConfigLoader.load(
            text: """
                mqtt: {host: 127.0.0.1, topic_prefix: breeze}
                locations:
                  - {id: home, latitude: 52.52, longitude: 13.405, timezone: UTC}
                  - {id: office, latitude: 52.5, longitude: 13.4, timezone: UTC}
                  - {id: garden, latitude: 52.4, longitude: 13.3, timezone: UTC}
                \(shard)
                """, file: "test.yaml", environment: [:], currentYear: 2026, hostname: "hub")
    }

    static let homeConfig = "homeassistant/device/breeze_home/config"
    /// What shard 1 published when it owned home and garden (an earlier config), plus office
    /// (still its own) and a location since removed from the config (`gone`).
    static let published: [String: PayloadDigest] = [
        "breeze/home/pollen": "{\"a\":1}", "breeze/home/pollen/grass/value": "2", "breeze/home/climate": "{}",
        homeConfig: "{\"availability\":\"breeze/status/1\"}",
        "breeze/garden/pollen": "{\"g\":1}", "breeze/garden/pollen/grass/value": "3",
        "breeze/office/pollen": "{\"o\":1}",
        "breeze/gone/pollen": "{}",
    ].digests

    static func message(_ topic: String, _ payload: String) -> DaemonEvent {
        .mqtt(.message(MQTTMessage(topic: topic, payload: Array(payload.utf8), qos: 1, retain: true)))
    }

    @Test func onlyConfiguredLocationsOfOtherShardsAreReleased() throws {
        let handover = ShardHandover(
            config: try Self.config(), layout: try Self.config().topicLayout, published: Self.published)
        #expect(handover.released.map(\.id) == ["home", "garden"])
        #expect(handover.released[0].scopes == ["breeze/home", Self.homeConfig])
        #expect(handover.released[0].published.count == 4)
        #expect(handover.topics.count == 6)
        // Without a shard nothing is handed over (a removed location is cleared at once).
        let plain = try Self.config(shard: "")
        #expect(ShardHandover(config: plain, layout: plain.topicLayout, published: Self.published).isEmpty)
    }

    /// Feeds one broker message to the handover; true when it was one of its topics.
    static func see(_ handover: inout ShardHandover, _ topic: String, _ payload: String) -> Bool {
        handover.observe(topic: topic, payload: Array(payload.utf8))
    }

    @Test func decidesPerLocationAfterTheSettleTime() throws {
        let config = try Self.config()
        var handover = ShardHandover(config: config, layout: config.topicLayout, published: Self.published)
        #expect(handover.decide(at: 100) == nil)  // not connected yet
        handover.connected(at: 100)
        #expect(handover.decideAt == 103)
        // home: the new owner re-published (its device config names its own status topic) and
        // one scalar is identical to ours — it must not be cleared either.
        #expect(Self.see(&handover, Self.homeConfig, "{\"availability\":\"breeze/status/2\"}"))
        #expect(Self.see(&handover, "breeze/home/pollen/grass/value", "2"))
        // garden: still ours on the broker, except one topic already gone.
        #expect(Self.see(&handover, "breeze/garden/pollen", "{\"g\":1}"))
        #expect(!Self.see(&handover, "breeze/office/pollen", "x"))
        #expect(handover.decide(at: 102) == nil)
        let decisions = handover.decide(at: 103)
        #expect(
            decisions == [
                .takenOver(
                    id: "home",
                    forget: [
                        "breeze/home/climate", "breeze/home/pollen", "breeze/home/pollen/grass/value", Self.homeConfig,
                    ]),
                .clear(id: "garden", clear: ["breeze/garden/pollen"], forget: ["breeze/garden/pollen/grass/value"]),
            ])
        #expect(handover.isEmpty)
        #expect(handover.decide(at: 200) == nil)
    }

    @Test func aDisconnectPostponesTheDecisionAndForgetsWhatWasSeen() throws {
        let config = try Self.config()
        var handover = ShardHandover(config: config, layout: config.topicLayout, published: Self.published)
        handover.connected(at: 100)
        _ = handover.observe(topic: Self.homeConfig, payload: Array("{\"availability\":\"breeze/status/2\"}".utf8))
        handover.disconnected()
        #expect(handover.decide(at: 200) == nil)
        handover.connected(at: 300)
        // After the reconnect the broker shows nothing at all: nothing is cleared, all forgotten.
        let decisions = handover.decide(at: 303)
        #expect(
            decisions?.map { if case .clear(let id, let clear, _) = $0 { "\(id):\(clear.count)" } else { "x" } } == [
                "home:0", "garden:0",
            ])
    }

    @Test func thePublisherHoldsNeitherResendingNorClearingThenClearsWhatIsLeft() {
        let transport = RecordingTransport()
        let store = StateStore(directory: temporaryDirectory(), log: Log(level: .error))
        store.saveLegacyPublishedTopics([
            "b/mine/pollen": "1", "b/moved/pollen": "2", "b/moved/pollen/x": "3", "b/gone": "4",
        ])
        let publisher = RetainedPublisher(transport: transport, store: store)
        publisher.hold(scopes: ["b/moved"])
        var tree = TopicTree()
        tree.set("b/mine/pollen", "1")
        publisher.set(scope: "b/mine/pollen", tree)
        publisher.flush(at: .now)
        #expect(transport.take() == ["b/gone="])  // removed from the config: cleared at once
        publisher.republishAll(at: .now)
        #expect(transport.take() == ["b/mine/pollen=1"])  // held topics are not re-sent
        publisher.forget(topics: ["b/moved/pollen/x"])
        publisher.release(scopes: ["b/moved"])
        publisher.flush(at: .now)
        #expect(transport.take() == ["b/moved/pollen="])
        #expect(store.publishedDigests() == ["b/mine/pollen": "1"].digests)
    }

    @Test func theChildAloneHoldsWatchesAndDecidesAtItsDeadline() throws {
        let config = try Self.config()
        var handover = ShardHandover(config: config, layout: config.topicLayout, published: Self.published)
        #expect(
            handover.begin() == [
                .step(
                    .hold(scopes: [
                        "breeze/home", Self.homeConfig, "breeze/garden", "homeassistant/device/breeze_garden/config",
                    ])),
                .log(.info, "shard: no longer serving home, garden; checking the broker before clearing"),
            ])
        #expect(handover.nextDeadline == nil)
        #expect(handover.brokerConnected(now: 100) == [.subscribe(handover.topics)])
        #expect(handover.nextDeadline == DaemonInstant(unixSeconds: 100) + ShardHandover.settle)
        #expect(handover.tick(now: 102).isEmpty)
        // The new owner re-published home; garden still holds only this shard's payloads.
        _ = Self.see(&handover, Self.homeConfig, "{\"availability\":\"breeze/status/2\"}")
        _ = Self.see(&handover, "breeze/garden/pollen", "{\"g\":1}")
        let decided = handover.tick(now: 103)
        #expect(
            decided.contains(
                .log(.info, "shard: home moved to another shard, which has re-published it; nothing to clear")))
        #expect(
            decided.suffix(2) == [
                .step(
                    .release(scopes: [
                        "breeze/home", Self.homeConfig, "breeze/garden", "homeassistant/device/breeze_garden/config",
                    ])),
                .step(
                    .unsubscribe(
                        topics: Self.published.keys.filter { !$0.contains("office") && !$0.contains("gone") }.sorted())),
            ])
        #expect(handover.nextDeadline == nil)
    }

    @Test func theStateMachineHoldsWatchesAndDecidesOnItsTimer() throws {
        let config = try Self.config()
        var state = DaemonState(
            config: config,
            locations: config.ownedLocations.map {
                LocationRuntime(config: $0, zone: .utc, unit: $0.unit)
            }, storedCalls: [:], demo: false, seed: 42)
        #expect(state.locations.map(\.config.id) == ["office"])
        let t0 = DaemonStateTests.t0
        _ = state.start(at: DaemonStateTests.at(t0))
        let begun = state.beginHandover(published: Self.published)
        #expect(begun.contains { if case .handover(.hold(let scopes)) = $0 { scopes.count == 4 } else { false } })

        // The office fetches start — pollen, climate, stripes (in flight, so they do not set the wake).
        #expect(DaemonStateTests.fetches(state.handle(.tick, at: DaemonStateTests.at(t0 + 6))).count == 3)
        let connected = state.handle(.mqtt(.connected), at: DaemonStateTests.at(t0 + 7))
        let subscribed = connected.compactMap { if case .subscribe(let topics) = $0 { topics } else { nil } }
        #expect(subscribed.count == 2)
        #expect(subscribed.last?.count == 6)
        #expect(DaemonStateTests.published(connected).first?.topic == "breeze/status/1")
        #expect(DaemonStateTests.wake(connected) == t0 + 10)

        #expect(
            state.handle(Self.message("breeze/garden/pollen", "{\"g\":1}"), at: DaemonStateTests.at(t0 + 8)).isEmpty)
        let early = state.handle(.tick, at: DaemonStateTests.at(t0 + 9))
        #expect(!early.contains { if case .handover = $0 { true } else { false } })
        let due = state.handle(.tick, at: DaemonStateTests.at(t0 + 10))
        let steps = due.compactMap { if case .handover(let step) = $0 { step } else { nil } }
        #expect(
            steps.contains(
                .release(scopes: [
                    "breeze/home", Self.homeConfig, "breeze/garden", "homeassistant/device/breeze_garden/config",
                ])))
        #expect(steps.contains(.forget(topics: ["breeze/garden/pollen/grass/value"])))
        #expect(steps.last.map { if case .unsubscribe(let topics) = $0 { topics.count == 6 } else { false } } == true)
        #expect(
            DaemonStateTests.logs(due, .info).contains {
                $0.contains("garden moved to another shard; clearing the 1 topic")
            })
        // The diagnostics of a shard go to its own topic, and so does its announcement.
        let diagnostics = DaemonStateTests.published(state.handle(.tick, at: DaemonStateTests.at(t0 + 400)))
        #expect(diagnostics.map(\.topic) == ["breeze/diagnostics/1", "breeze/agent/1"])
    }
}
