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

public import BreezeCore
import Synchronization

/// Where retained messages go: the MQTT client in production, a recorder in unit tests.
public protocol RetainedTransport: Sendable {
    /// Queues one publish; false when it could not be queued (e.g. not connected).
    func send(topic: String, payload: String, retain: Bool) -> Bool
    /// Queues one publish of raw bytes (an image, SPEC §9.2); false as above.
    func send(topic: String, bytes: [UInt8], retain: Bool) -> Bool
}

/// Keeps the broker's retained topics equal to what the agent wants there, publishing only
/// the difference (SPEC §3).
///
/// The wanted state is split into *scopes*, each a topic prefix the agent owns
/// (`breeze/home/pollen`, `breeze/home/climate`, `homeassistant/device/breeze_home`). A scope
/// holds either a tree (its topics are exactly those) or `nil` — "not known yet" — in which
/// case whatever was published under it stays: a failed fetch never clears. Scopes may nest
/// (`…/climate/stripes` inside `…/climate`); a topic then belongs to the innermost one. Published topics
/// under no scope at all (a location removed from the config, say) are cleared with an empty
/// retained payload. What was published is persisted so that this holds across restarts.
public final class RetainedPublisher: Sendable {
    private struct State {
        var published: [String: String]
        var scopes: [String: TopicTree?] = [:]
        /// Scopes set since the last flush: a flush compares only their topics, so its cost
        /// follows what changed, not the size of the whole tree (100 locations: 25 000 topics).
        var dirty: Set<String> = []
        /// A scope appeared or none was flushed yet: the next flush compares everything, which
        /// also clears published topics that belong to no scope.
        var needsFullPass = true
        /// The topics each scope held at its last successful flush.
        var scopeTopics: [String: Set<String>] = [:]
        /// `published` changed since it was last saved.
        var unsaved = false
        /// Clears held back until their time (see ``clearDelay``), by topic.
        var pendingClears: [String: ContinuousClock.Instant] = [:]
        /// Topics the broker refused: not published, and left out of flushes until the next
        /// ``republishAll()`` (a reconnect), so a refusal is not repeated at every fetch.
        var refused: Set<String> = []
        /// Scopes whose published topics are neither re-sent nor cleared (a shard's locations
        /// moved to another shard, until ``ShardHandover`` decides; SPEC §11).
        var held: Set<String> = []
    }
    private let state: Mutex<State>
    private let transport: any RetainedTransport
    private let store: StateStore?
    /// How long a clear waits after the flush that decided it; topics for which `clearsAtOnce`
    /// holds (Home Assistant device configs) are cleared or rewritten at once. So Home Assistant
    /// drops an entity before its state topic empties, and never renders a template on an
    /// empty payload (SPEC §3 removal order).
    private let clearDelay: Duration
    private let clearsAtOnce: @Sendable (String) -> Bool
    /// The bytes a ``BinaryPayload`` reference on a topic stands for (the ``ImageStore``); nil
    /// when they are not at hand (not rendered in this run).
    private let binary: @Sendable (_ topic: String, _ reference: String) -> [UInt8]?

    public init(
        transport: any RetainedTransport, store: StateStore?, clearDelay: Duration = .zero,
        clearsAtOnce: @escaping @Sendable (String) -> Bool = { _ in true },
        binary: @escaping @Sendable (_ topic: String, _ reference: String) -> [UInt8]? = { _, _ in nil }
    ) {
        self.transport = transport
        self.store = store
        self.clearDelay = clearDelay
        self.clearsAtOnce = clearsAtOnce
        self.binary = binary
        self.state = Mutex(State(published: store?.publishedTopics() ?? [:]))
    }

    /// When the earliest held-back clear is due; nil when none is waiting. The owner flushes
    /// again at (or after) that time.
    public var nextClearDue: ContinuousClock.Instant? { state.withLock { $0.pendingClears.values.min() } }

    /// Sets what a scope should hold; `nil` keeps what is published under it.
    public func set(scope: String, _ tree: TopicTree?) {
        state.withLock { state in
            if state.scopes.updateValue(tree, forKey: scope) == nil { state.needsFullPass = true }
            state.dirty.insert(scope)
        }
    }

    /// Publishes what changed since the last flush; returns how many messages were sent.
    ///
    /// `persist: false` leaves saving the published set to a later ``persist()``: the daemon
    /// flushes after every completed fetch, and re-encoding the whole set (25 000 topics with 100
    /// locations) each time made a cycle O(N²). Losing an unsaved set in a crash only means some
    /// topics are sent again after the restart.
    @discardableResult
    public func flush(persist: Bool = true) -> Int { publish(everything: false, persist: persist) }

    /// Saves the published set if a flush left it unsaved.
    public func persist() {
        let snapshot: [String: String]? = state.withLock { state in
            guard state.unsaved else { return nil }
            state.unsaved = false
            return state.published
        }
        if let snapshot { store?.savePublishedTopics(snapshot) }
    }

    /// Forgets publishes the broker did not take: `refused` ones (kept out of flushes until the
    /// next ``republishAll()``) and `lost` ones (in flight when the connection ended; sent again
    /// by the republish after the reconnect). Neither stays in the persisted published set.
    public func notPublished(refused: [String], lost: [String]) {
        guard !refused.isEmpty || !lost.isEmpty else { return }
        let snapshot: [String: String] = state.withLock { state in
            for topic in refused {
                state.published[topic] = nil
                state.refused.insert(topic)
            }
            for topic in lost { state.published[topic] = nil }
            state.unsaved = false
            return state.published
        }
        store?.savePublishedTopics(snapshot)
    }

    /// Topics left out of flushes because the broker refused them.
    public var refusedTopics: Set<String> { state.withLock { $0.refused } }

    /// Publishes every wanted topic again (after a reconnect the broker may have lost them).
    @discardableResult
    public func republishAll() -> Int { publish(everything: true, persist: true) }

    /// Publishes the wanted topics under one scope again (e.g. discovery after Home Assistant restarts).
    @discardableResult
    public func republish(scope: String) -> Int {
        let topics = state.withLock { state in
            Self.wanted(in: state, scopes: [scope])[scope] ?? [:]
        }
        var sent = 0
        for topic in topics.keys.sorted() where deliver(topic, topics[topic]!) == .sent {
            sent += 1
        }
        return sent
    }

    private enum Delivery { case sent, failed, unavailable }

    /// Sends a wanted payload: text as it is, a ``BinaryPayload`` reference as the bytes it
    /// stands for (`unavailable` when they are not at hand: nothing is sent).
    private func deliver(_ topic: String, _ payload: String) -> Delivery {
        guard BinaryPayload.isReference(payload) else {
            return transport.send(topic: topic, payload: payload, retain: true) ? .sent : .failed
        }
        guard let bytes = binary(topic, payload) else { return .unavailable }
        return transport.send(topic: topic, bytes: bytes, retain: true) ? .sent : .failed
    }

    /// Holds the published topics under `scopes`: not re-sent, not cleared, until released.
    public func hold(scopes: [String]) {
        state.withLock { $0.held.formUnion(scopes) }
    }

    /// Drops topics from the published set without sending anything: the agent no longer
    /// answers for them (another shard re-published them, or the broker no longer holds them).
    public func forget(topics: [String]) {
        state.withLock { state in
            for topic in topics where state.published.removeValue(forKey: topic) != nil { state.unsaved = true }
        }
    }

    /// Stops holding `scopes`: the next flush clears what is still published under them (and
    /// under no other scope).
    public func release(scopes: [String]) {
        state.withLock { state in
            state.held.subtract(scopes)
            state.needsFullPass = true
        }
    }

    /// The retained topics as the agent believes the broker holds them.
    public var published: [String: String] { state.withLock { $0.published } }

    /// What was last published on one topic (nil: nothing).
    public func published(_ topic: String) -> String? { state.withLock { $0.published[topic] } }

    /// Everything the agent wants on the broker now (kept scopes included).
    public var wanted: [String: String] {
        state.withLock { Self.merged(Self.wanted(in: $0, scopes: $0.scopes.keys)) }
    }

    /// What each of `scopes` wants: its tree, or for a kept scope what is published under it.
    private static func wanted(in state: State, scopes: some Sequence<String>) -> [String: [String: String]] {
        var result: [String: [String: String]] = [:]
        var kept: [String] = []
        for scope in scopes {
            guard let entry = state.scopes[scope] else { continue }
            if let tree = entry {
                result[scope] = tree.payloads
            } else {
                kept.append(scope)
                result[scope] = [:]
            }
        }
        if !kept.isEmpty {
            let keptSet = Set(kept)
            for (topic, payload) in state.published {
                // A topic is kept by the innermost scope that contains it: under a kept
                // `<p>/<loc>/climate`, the topics of its own `…/climate/stripes` scope are that
                // scope's to publish or clear, not climate's to keep.
                if let scope = innermostScope(of: topic, in: state), keptSet.contains(scope) {
                    result[scope]![topic] = payload
                }
            }
        }
        return result
    }

    /// The longest registered scope that `topic` belongs to (itself, or a prefix ending at a `/`).
    private static func innermostScope(of topic: String, in state: State) -> String? {
        if state.scopes[topic] != nil { return topic }
        var end = topic.utf8.endIndex
        while let slash = topic.utf8[..<end].lastIndex(of: UInt8(ascii: "/")) {
            let prefix = String(topic[..<slash])
            if state.scopes[prefix] != nil { return prefix }
            end = slash
        }
        return nil
    }

    private static func merged(_ byScope: [String: [String: String]]) -> [String: String] {
        var wanted: [String: String] = [:]
        for topics in byScope.values { wanted.merge(topics) { _, new in new } }
        return wanted
    }

    static func belongs(_ topic: String, to scope: String) -> Bool {
        topic == scope || (topic.hasPrefix(scope) && topic.utf8.dropFirst(scope.utf8.count).first == UInt8(ascii: "/"))
    }

    private func publish(everything: Bool, persist: Bool) -> Int {
        // The lock is held across the sends so that two flushes cannot interleave their
        // diffs; a send only queues into libmosquitto and never blocks on the network.
        let (count, snapshot): (Int, [String: String]?) = state.withLock { state in
            let full = everything || state.needsFullPass
            let byScope = Self.wanted(in: state, scopes: full ? Set(state.scopes.keys) : state.dirty)
            let wanted = Self.merged(byScope)
            var sent = 0
            var failed = false
            let order = wanted.keys.sorted()
            // A topic wanted again is no longer to be cleared, whether or not its payload changed.
            if !state.pendingClears.isEmpty {
                for topic in order { state.pendingClears[topic] = nil }
            }
            if everything { state.refused = [] }
            for topic in order
            where everything || (state.published[topic] != wanted[topic] && !state.refused.contains(topic)) {
                switch deliver(topic, wanted[topic]!) {
                case .sent:
                    state.published[topic] = wanted[topic]
                    sent += 1
                case .failed:
                    failed = true
                case .unavailable:
                    // An image kept from an earlier run whose bytes this run has not rendered
                    // yet: not re-sent, and no longer counted as on the broker, so the render
                    // publishes it even if its bytes come out the same.
                    if state.published.removeValue(forKey: topic) != nil { state.unsaved = true }
                }
            }
            // Topics to clear: on a full pass any published topic not wanted (topics under no
            // scope included); otherwise those a changed scope had at its last flush and no
            // longer has — found from that scope's own list, not by scanning every topic.
            var gone: [String] = []
            if full {
                let held = state.held
                gone = state.published.keys.filter { topic in
                    wanted[topic] == nil && !held.contains(where: { Self.belongs(topic, to: $0) })
                }
            } else {
                for (scope, topics) in byScope {
                    for topic in state.scopeTopics[scope] ?? []
                    where topics[topic] == nil && wanted[topic] == nil && state.published[topic] != nil {
                        gone.append(topic)
                    }
                }
            }
            let now = ContinuousClock.now
            var clearing: [String] = []
            for topic in gone {
                if clearDelay == .zero || clearsAtOnce(topic) {
                    clearing.append(topic)
                } else if state.pendingClears[topic] == nil {
                    state.pendingClears[topic] = now + clearDelay
                }
            }
            for (topic, due) in state.pendingClears where due <= now { clearing.append(topic) }
            for topic in clearing.sorted() {
                if transport.send(topic: topic, payload: "", retain: true) {
                    state.published[topic] = nil
                    state.pendingClears[topic] = nil
                    sent += 1
                } else {
                    failed = true
                }
            }
            // What could not be sent (not connected) is compared again at the next flush.
            if failed {
                state.needsFullPass = state.needsFullPass || full
            } else {
                for (scope, topics) in byScope { state.scopeTopics[scope] = Set(topics.keys) }
                state.dirty = []
                state.needsFullPass = false
            }
            guard sent > 0 || state.unsaved else { return (sent, nil) }
            guard persist else {
                state.unsaved = true
                return (sent, nil)
            }
            state.unsaved = false
            return (sent, state.published)
        }
        if let snapshot { store?.savePublishedTopics(snapshot) }
        return count
    }
}
