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

/// Clearing the locations a shard no longer owns (docs/operations.md, Many locations), as a value the state machine owns.
///
/// When `shard.count` or the location list changes, a location can move to another shard.
/// Its old owner still has the location's topics in its persisted published set; clearing them
/// blindly would delete what the new owner may already have re-published. The rule:
///
/// 1. At start the old owner *holds* the location's scopes (`<p>/<loc>` and its discovery
///    config): it neither re-sends nor clears them (`RetainedPublisher.hold`).
/// 2. Once connected it subscribes to exactly the topics it published there (exact topics,
///    not a wildcard: RabbitMQ delivers retained messages to exact subscriptions only) and
///    watches what the broker holds for ``settle``.
/// 3. Per location: if any of those topics holds a payload other than the one this shard
///    published (compared by ``PayloadDigest``: the bytes' FNV-1a hash and count), the new
///    owner has re-published the location (its device config names its own status topic; its
///    trees carry its own fetch times): the old owner **forgets** the location's topics
///    without clearing any. Otherwise it **clears** the topics that still
///    hold exactly its payloads, and forgets the ones the broker no longer holds.
///
/// Mistakes go the safe way: a retained message that arrives late makes a topic look absent,
/// so it is forgotten, never cleared over someone else's data. What is left behind in that
/// case (and topics only the old owner produced, e.g. a plant no longer in season, when the
/// new owner got there first) stays retained until cleared by hand (docs/brokers.md).
/// Locations removed from the configuration altogether have no new owner; the publisher
/// clears those at once as before.
package struct ShardHandover {
    /// How long the broker's retained messages are watched after subscribing.
    static let settle: DaemonDuration = .seconds(3)

    /// One location this shard published and no longer owns.
    struct Released: Equatable {
        let id: String
        /// `<p>/<loc>` and the location's discovery config topic.
        let scopes: [String]
        /// What this shard published under those scopes: the digests of its payloads.
        let published: [String: PayloadDigest]
    }

    /// What happens to one released location.
    enum Decision: Equatable {
        /// The broker still holds only this shard's payloads: clear `clear`, forget `forget`.
        case clear(id: String, clear: [String], forget: [String])
        /// The new owner re-published the location: forget every topic, clear none.
        case takenOver(id: String, forget: [String])
    }

    private(set) var released: [Released]
    /// Topic → index in `released`.
    private let index: [String: Int]
    /// What the broker holds now, as seen since subscribing (an empty payload once cleared).
    private var seen: [String: PayloadDigest] = [:]
    /// When to decide: set at each connect, dropped at a disconnect.
    private(set) var decideAt: DaemonInstant?

    /// What the handover asks the daemon to do; ``DaemonState`` maps these to its own.
    enum Action: Sendable, Equatable {
        /// A step on the publisher (or, to unsubscribe, the broker client).
        case step(HandoverStep)
        /// Watch these exact topics (their retained messages arrive at once).
        case subscribe([String])
        case log(LogLevel, String)
    }

    /// The next time this child needs the loop: the decision, once connected.
    var nextDeadline: DaemonInstant? { decideAt }

    /// Nothing to hand over (no shard, or nothing published for other shards' locations).
    init() {
        released = []
        index = [:]
    }

    /// The locations of `config` the shard does not own that have topics in `published`.
    init(config: AgentConfig, layout: TopicLayout, published: [String: PayloadDigest]) {
        guard let shard = config.shard else {
            released = []
            index = [:]
            return
        }
        // One pass over the published set: `<p>/<loc>/…` by its location level, discovery
        // configs by their exact topic.
        var byBase: [String: String] = [:]
        var byDeviceConfig: [String: String] = [:]
        var order: [String] = []
        for location in config.locations where !shard.owns(location.id) {
            let topics = layout.location(location.id)
            byBase[location.id] = location.id
            byDeviceConfig[topics.deviceConfig.name] = location.id
            order.append(location.id)
        }
        var mine: [String: [String: PayloadDigest]] = [:]
        for (topic, payload) in published {
            var owner = byDeviceConfig[topic]
            if owner == nil, let level = layout.locationLevel(of: topic) { owner = byBase[String(level)] }
            if let owner { mine[owner, default: [:]][topic] = payload }
        }
        let released = order.compactMap { id -> Released? in
            guard let topics = mine[id] else { return nil }
            let location = layout.location(id)
            return Released(id: id, scopes: [location.base.name, location.deviceConfig.name], published: topics)
        }
        var index: [String: Int] = [:]
        for (position, location) in released.enumerated() {
            for topic in location.published.keys { index[topic] = position }
        }
        self.released = released
        self.index = index
    }

    var isEmpty: Bool { released.isEmpty }

    /// Every scope to hold until the decision.
    var scopes: [String] { released.flatMap(\.scopes) }

    /// Every topic to watch, sorted.
    var topics: [String] { index.keys.sorted() }

    /// Connected: watch the broker afresh from now on.
    mutating func connected(at now: DaemonInstant) {
        guard !isEmpty else { return }
        seen = [:]
        decideAt = now + Self.settle
    }

    /// Disconnected: what was seen may be incomplete; decide after the next connect.
    mutating func disconnected() { decideAt = nil }

    /// Records a message if it is on a watched topic; false for any other topic.
    mutating func observe(topic: String, payload: [UInt8]) -> Bool {
        guard index[topic] != nil else { return false }
        seen[topic] = PayloadDigest(bytes: payload)
        return true
    }

    /// The decisions once ``decideAt`` has passed (nil before); afterwards there is nothing left.
    mutating func decide(at now: DaemonInstant) -> [Decision]? {
        guard let at = decideAt, now >= at else { return nil }
        let decisions = released.map { location -> Decision in
            let topics = location.published.keys.sorted()
            let takenOver = topics.contains { topic in
                guard let held = seen[topic], !held.isEmpty else { return false }
                return held != location.published[topic]
            }
            if takenOver { return .takenOver(id: location.id, forget: topics) }
            let stillMine = topics.filter { seen[$0] != nil && seen[$0] == location.published[$0] }
            return .clear(id: location.id, clear: stillMine, forget: topics.filter { !stillMine.contains($0) })
        }
        released = []
        seen = [:]
        decideAt = nil
        return decisions
    }
}

/// A step of the handover the loop performs on the publisher (or, to unsubscribe, the client).
package enum HandoverStep: Sendable, Equatable {
    case hold(scopes: [String])
    case forget(topics: [String])
    case release(scopes: [String])
    case unsubscribe(topics: [String])
}

extension ShardHandover {
    /// At start: hold the scopes of the released locations (run and once).
    func begin() -> [Action] {
        guard !isEmpty else { return [] }
        let ids = released.map(\.id).joined(separator: ", ")
        return [
            .step(.hold(scopes: scopes)),
            .log(.info, "shard: no longer serving \(ids); checking the broker before clearing"),
        ]
    }

    /// Connected: watch the released topics (retained messages arrive at once); the decision
    /// comes ``settle`` later (``nextDeadline``).
    mutating func brokerConnected(now: DaemonInstant) -> [Action] {
        guard !isEmpty else { return [] }
        connected(at: now)
        return [.subscribe(topics)]
    }

    /// A time edge: the decisions once the settle time has passed, as steps and log lines (the
    /// loop then flushes: the released scopes are cleared of what is still published under them).
    mutating func tick(now: DaemonInstant) -> [Action] {
        // Read before the decision, which ends the watch.
        let (held, watched) = (scopes, topics)
        guard let decisions = decide(at: now) else { return [] }
        var actions: [Action] = []
        for decision in decisions {
            switch decision {
            case .clear(let id, let clear, let forget):
                if !forget.isEmpty { actions.append(.step(.forget(topics: forget))) }
                actions.append(
                    .log(
                        .info,
                        "shard: \(id) moved to another shard; clearing the \(clear.count) topic(s) of it this shard published"
                    ))
            case .takenOver(let id, let forget):
                actions.append(.step(.forget(topics: forget)))
                actions.append(
                    .log(.info, "shard: \(id) moved to another shard, which has re-published it; nothing to clear"))
            }
        }
        actions.append(.step(.release(scopes: held)))
        actions.append(.step(.unsubscribe(topics: watched)))
        return actions
    }
}
