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
///
/// What was published is remembered as a ``PayloadDigest`` per topic (16 bytes, not the
/// payload), grouped by location (``PublishedGrouping``) and persisted one file per group, only
/// the groups that changed. Payloads are kept whole only for Home Assistant device configs
/// (``PublishedGrouping/keepsPayload(_:)``). So topics kept under an unknown scope whose payloads
/// the publisher no longer has (published by an earlier run; or, with `dropsFlushedTrees`, by a
/// tree already dropped) are only kept — not re-sent, not cleared — until the scope has data
/// again. With `dropsFlushedTrees` (the daemon) a scope's tree is dropped once flushed and the
/// owner sets every scope again before ``republishAll(at:)``.
public final class RetainedPublisher: Sendable {
    /// One scope: its tree's payloads by topic (the tree's topic order is not needed here and
    /// not kept), or nil (keep what is published) with the payloads it had before, if any.
    private struct Scope {
        var tree: [String: String]?
        /// The last tree of a scope now `nil` in this run: what it published, to re-send.
        var last: [String: String]?
        /// Flushed and its tree dropped (``dropsFlushedTrees``): what is published under it is
        /// what it wants, until it is set again.
        var settled = false
    }

    /// What one scope wants: payloads it knows, and kept topics known only by their digest.
    private struct Wanted {
        var payloads: [String: String] = [:]
        var keptUnknown: Set<String> = []
    }

    private struct State {
        let grouping: PublishedGrouping
        /// Group → what the agent believes the broker holds there.
        var published: [String: PublishedGroup] = [:]
        var scopes: [String: Scope] = [:]
        /// Scopes set since the last flush: a flush compares only their topics, so its cost
        /// follows what changed, not the size of the whole tree (1,000 locations: 280,000 topics).
        var dirty: Set<String> = []
        /// A scope appeared or none was flushed yet: the next flush compares everything, which
        /// also clears published topics that belong to no scope.
        var needsFullPass = true
        /// Groups changed since they were last saved.
        var unsaved: Set<String> = []
        /// Clears held back until their time (see ``clearDelay``), by topic.
        var pendingClears: [String: ContinuousClock.Instant] = [:]
        /// Topics the broker refused: not published, and left out of flushes until the next
        /// ``republishAll(at:)`` (a reconnect), so a refusal is not repeated at every fetch.
        var refused: Set<String> = []
        /// Scopes whose published topics are neither re-sent nor cleared (a shard's locations
        /// moved to another shard, until ``ShardHandover`` decides; SPEC §11).
        var held: Set<String> = []

        func digest(_ topic: String) -> PayloadDigest? {
            published[grouping.group(of: topic)]?.digests[topic]
        }

        /// Records `topic` as published with `payload` (nil: no longer on the broker).
        mutating func record(_ topic: String, _ payload: String?, digest: PayloadDigest? = nil) {
            let group = grouping.group(of: topic)
            if let payload {
                published[group, default: PublishedGroup()].digests[topic] = digest ?? PayloadDigest(payload: payload)
                if grouping.keepsPayload(topic) { published[group]!.payloads[topic] = payload }
            } else {
                guard published[group]?.digests.removeValue(forKey: topic) != nil else { return }
                published[group]!.payloads[topic] = nil
            }
            unsaved.insert(group)
        }

        /// Re-keys a recorded topic with `topic`'s own string (the wanted tree's), dropping the
        /// set's older copy of the same name (and of a payload kept whole).
        mutating func rename(_ topic: String, _ payload: String) {
            let group = grouping.group(of: topic)
            guard let digest = published[group]?.digests.removeValue(forKey: topic) else { return }
            published[group]!.digests[topic] = digest
            if published[group]!.payloads[topic] != nil { published[group]!.payloads[topic] = payload }
        }

        /// Whether `topic` lies in a settled scope (its innermost one).
        func isSettled(_ topic: String) -> Bool {
            guard let scope = innermostScope(of: topic) else { return false }
            return scopes[scope]!.settled
        }

        /// The contents of the unsaved groups (an empty one: its file is removed), now marked saved.
        mutating func takeUnsaved() -> [(String, PublishedGroup)] {
            let groups = unsaved.sorted().map { ($0, published[$0] ?? PublishedGroup()) }
            for (name, group) in groups where group.isEmpty { published[name] = nil }
            unsaved = []
            return groups
        }

        /// The published topics that may lie under `scope`, group by group.
        func publishedGroups(under scope: String) -> [PublishedGroup] {
            if let group = grouping.group(covering: scope) { return published[group].map { [$0] } ?? [] }
            return Array(published.values)
        }

        /// The longest registered scope that `topic` belongs to (itself, or a prefix ending at a `/`).
        func innermostScope(of topic: String) -> String? {
            if scopes[topic] != nil { return topic }
            var end = topic.utf8.endIndex
            while let slash = topic.utf8[..<end].lastIndex(of: UInt8(ascii: "/")) {
                let prefix = String(topic[..<slash])
                if scopes[prefix] != nil { return prefix }
                end = slash
            }
            return nil
        }
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
    /// Drop a scope's tree once it is flushed (the daemon: it sets every scope again before
    /// ``republishAll(at:)``); payloads kept whole stay. The trees were the largest part of the
    /// memory per location (their payloads, tables and topic names).
    private let dropsFlushedTrees: Bool

    /// - Parameter dropsFlushedTrees: forget a scope's tree once it is flushed; the owner then
    ///   sets every scope again before ``republishAll(at:)``, which re-sends only what is set.
    /// - Parameter grouping: which file of `state_dir/published/` each topic is kept in (the
    ///   agent's ``TopicLayout``); the default groups by the second topic level.
    public init(
        transport: any RetainedTransport, store: StateStore?, grouping: PublishedGrouping = PublishedGrouping(),
        clearDelay: Duration = .zero,
        clearsAtOnce: @escaping @Sendable (String) -> Bool = { _ in true },
        binary: @escaping @Sendable (_ topic: String, _ reference: String) -> [UInt8]? = { _, _ in nil },
        dropsFlushedTrees: Bool = false
    ) {
        self.dropsFlushedTrees = dropsFlushedTrees
        self.transport = transport
        self.store = store
        self.clearDelay = clearDelay
        self.clearsAtOnce = clearsAtOnce
        self.binary = binary
        var state = State(grouping: grouping)
        if let store { Self.load(into: &state, from: store) }
        self.state = Mutex(state)
    }

    /// Reads the per-group files (a topic filed under another group than the grouping gives now
    /// moves there), then migrates an older agent's `published.json`: its topics join the set
    /// (a topic already in a group file keeps that digest), every changed group is saved and
    /// the old file removed once all saves worked.
    private static func load(into state: inout State, from store: StateStore) {
        for (name, group) in store.publishedGroups() {
            for (topic, digest) in group.digests {
                let home = state.grouping.group(of: topic)
                if home != name {
                    state.unsaved.insert(name)
                    state.unsaved.insert(home)
                }
                state.published[home, default: PublishedGroup()].digests[topic] = digest
                if let payload = group.payloads[topic], state.grouping.keepsPayload(topic) {
                    state.published[home]!.payloads[topic] = payload
                }
            }
        }
        let legacy = store.legacyPublishedTopics()
        for (topic, payload) in legacy ?? [:] where state.digest(topic) == nil { state.record(topic, payload) }
        guard !state.unsaved.isEmpty || legacy != nil else { return }
        var saved = true
        for (name, group) in state.takeUnsaved() where !store.savePublished(group, as: name) { saved = false }
        if legacy != nil && saved { store.removeLegacyPublished() }
    }

    /// When the earliest held-back clear is due; nil when none is waiting. The owner arms a
    /// timer for it and flushes again at (or after) that time (the daemon's `clearsDue` event):
    /// the publisher itself reads no clock, the time of every flush is its argument.
    public var nextClearDue: ContinuousClock.Instant? { state.withLock { $0.pendingClears.values.min() } }

    /// Sets what a scope should hold; `nil` keeps what is published under it.
    public func set(scope: String, _ tree: TopicTree?) {
        state.withLock { state in
            let previous = state.scopes.updateValue(Scope(tree: tree?.payloads), forKey: scope)
            if let previous {
                // Unknown again: keep the last tree this run had, to re-send after a reconnect.
                if tree == nil { state.scopes[scope]!.last = previous.tree ?? previous.last }
            } else {
                state.needsFullPass = true
            }
            state.dirty.insert(scope)
        }
    }

    /// Publishes what changed since the last flush; returns how many messages were sent.
    ///
    /// `persist: false` leaves saving to a later ``persist()``: the daemon flushes after every
    /// completed fetch and saves once per batch. Losing an unsaved set in a crash only means
    /// some topics are sent again after the restart.
    /// - Parameter now: the time of the flush (the owner's clock): a clear held back by
    ///   `clearDelay` is due `clearDelay` after the flush that decided it, and sent by the
    ///   first flush at or after that.
    @discardableResult
    public func flush(persist: Bool = true, at now: ContinuousClock.Instant) -> Int {
        publish(everything: false, persist: persist, now: now)
    }

    /// Saves the groups of the published set a flush left unsaved (only those: one file each).
    public func persist() {
        save(state.withLock { $0.takeUnsaved() })
    }

    private func save(_ groups: [(String, PublishedGroup)]) {
        guard let store else { return }
        for (name, group) in groups { store.savePublished(group, as: name) }
    }

    /// Forgets publishes the broker did not take: `refused` ones (kept out of flushes until the
    /// next ``republishAll(at:)``) and `lost` ones (in flight when the connection ended; sent again
    /// by the republish after the reconnect). Neither stays in the persisted published set.
    public func notPublished(refused: [String], lost: [String]) {
        guard !refused.isEmpty || !lost.isEmpty else { return }
        let groups = state.withLock { state in
            for topic in refused {
                state.record(topic, nil)
                state.refused.insert(topic)
            }
            for topic in lost { state.record(topic, nil) }
            return state.takeUnsaved()
        }
        save(groups)
    }

    /// Topics left out of flushes because the broker refused them.
    public var refusedTopics: Set<String> { state.withLock { $0.refused } }

    /// Publishes every wanted topic again (after a reconnect the broker may have lost them);
    /// `now` as for ``flush(persist:at:)``.
    @discardableResult
    public func republishAll(at now: ContinuousClock.Instant) -> Int {
        publish(everything: true, persist: true, now: now)
    }

    /// Publishes the wanted topics under one scope again (e.g. discovery after Home Assistant restarts).
    @discardableResult
    public func republish(scope: String) -> Int {
        let topics = state.withLock { state in
            Self.wanted(in: state, scopes: [scope])[scope]?.payloads ?? [:]
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
            for topic in topics { state.record(topic, nil) }
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

    /// The retained topics as the agent believes the broker holds them, with their digests.
    public var published: [String: PayloadDigest] {
        state.withLock { state in
            state.published.values.reduce(into: [:]) { all, group in all.merge(group.digests) { $1 } }
        }
    }

    /// How many retained topics the agent believes the broker holds.
    public var publishedCount: Int { state.withLock { $0.published.values.reduce(0) { $0 + $1.digests.count } } }

    /// The digest of what was last published on one topic (nil: nothing).
    public func publishedDigest(_ topic: String) -> PayloadDigest? { state.withLock { $0.digest(topic) } }

    /// What was last published on a topic whose payload is kept whole (a Home Assistant device
    /// config, ``PublishedGrouping/keepsPayload(_:)``); nil for any other topic.
    public func publishedPayload(_ topic: String) -> String? {
        state.withLock { $0.published[$0.grouping.group(of: topic)]?.payloads[topic] }
    }

    /// Everything the agent wants on the broker now (kept scopes included), by digest.
    public var wanted: [String: PayloadDigest] {
        state.withLock { state in
            var all: [String: PayloadDigest] = [:]
            for wanted in Self.wanted(in: state, scopes: state.scopes.keys).values {
                for (topic, payload) in wanted.payloads { all[topic] = PayloadDigest(payload: payload) }
                for topic in wanted.keptUnknown { all[topic] = state.digest(topic) }
            }
            for group in state.published.values {
                for (topic, digest) in group.digests
                where state.pendingClears[topic] == nil && state.isSettled(topic) {
                    all[topic] = digest
                }
            }
            return all
        }
    }

    /// What each of `scopes` wants: its tree, or for a kept scope what is published under it
    /// (the payloads of its last tree where they are what was published, else only kept).
    private static func wanted(in state: State, scopes: some Sequence<String>) -> [String: Wanted] {
        var result: [String: Wanted] = [:]
        for scope in scopes {
            guard let entry = state.scopes[scope] else { continue }
            if let tree = entry.tree {
                result[scope] = Wanted(payloads: tree)
                continue
            }
            var wanted = Wanted()
            if entry.settled {
                // What is published is what it wants; only payloads kept whole can be re-sent
                // (a device config, after a Home Assistant birth). Its other topics are not
                // listed: full passes skip every topic of a settled scope.
                for group in state.publishedGroups(under: scope) {
                    for (topic, payload) in group.payloads
                    where belongs(topic, to: scope) && state.pendingClears[topic] == nil
                        && state.innermostScope(of: topic) == scope
                    {
                        wanted.payloads[topic] = payload
                    }
                }
                result[scope] = wanted
                continue
            }
            for group in state.publishedGroups(under: scope) {
                for (topic, digest) in group.digests where belongs(topic, to: scope) {
                    // A topic is kept by the innermost scope that contains it: under a kept
                    // `<p>/<loc>/climate`, the topics of its own `…/climate/stripes` scope are
                    // that scope's to publish or clear, not climate's to keep.
                    guard state.innermostScope(of: topic) == scope else { continue }
                    if let payload = entry.last?[topic], PayloadDigest(payload: payload) == digest {
                        wanted.payloads[topic] = payload
                    } else {
                        wanted.keptUnknown.insert(topic)
                    }
                }
            }
            result[scope] = wanted
        }
        return result
    }

    static func belongs(_ topic: String, to scope: String) -> Bool {
        topic == scope || (topic.hasPrefix(scope) && topic.utf8.dropFirst(scope.utf8.count).first == UInt8(ascii: "/"))
    }

    /// What one flush sends: decided under the lock, sent after it, its results recorded under
    /// the lock again.
    private struct Plan {
        /// The scopes compared, and whether every published topic was (a full pass).
        var scopes: [String]
        var full: Bool
        /// Wanted topics whose payload differs from what was published, in topic order.
        var deliveries: [(topic: String, payload: String, digest: PayloadDigest)] = []
        /// Topics to clear now, in topic order.
        var clears: [String] = []
    }

    /// A flush: the lock decides (``plan(_:everything:now:)``), the sends happen after it, and the
    /// lock records what they came to (``record(_:_:cleared:failed:in:dropsFlushedTrees:)``). Sending
    /// never happens under the lock: a send enters the broker client, which takes its own.
    ///
    /// Two flushes never overlap: the scopes are set and flushed by one owner at a time (the
    /// daemon's loop, `once`'s steps). What may run beside a flush is ``notPublished(refused:lost:)``
    /// (the outcomes of earlier publishes) and the readers; a topic it forgets between the
    /// decision and the record concerns an earlier publish, and this flush's send is recorded.
    private func publish(everything: Bool, persist: Bool, now: ContinuousClock.Instant) -> Int {
        let plan = state.withLock { Self.plan(&$0, everything: everything, now: now, rules: self) }
        let delivered = plan.deliveries.map { deliver($0.topic, $0.payload) }
        var cleared: [String] = []
        var failed = delivered.contains(.failed)
        for topic in plan.clears {
            if transport.send(topic: topic, payload: "", retain: true) {
                cleared.append(topic)
            } else {
                failed = true
            }
        }
        let (count, groups) = state.withLock { state in
            Self.record(
                plan, delivered, cleared: cleared, failed: failed, in: &state, dropsFlushedTrees: dropsFlushedTrees)
            return (
                delivered.count { $0 == .sent } + cleared.count, persist ? state.takeUnsaved() : []
            )
        }
        save(groups)
        return count
    }

    /// Decides a flush: the wanted topics to send, the clears due now, and the clears to hold
    /// back (kept in the state with their due time, `now` + `clearDelay`).
    private static func plan(
        _ state: inout State, everything: Bool, now: ContinuousClock.Instant, rules: RetainedPublisher
    ) -> Plan {
        let full = everything || state.needsFullPass
        let byScope = Self.wanted(in: state, scopes: full ? Set(state.scopes.keys) : state.dirty)
        var plan = Plan(scopes: Array(byScope.keys), full: full)
        var wanted: [String: String] = [:]
        var kept: Set<String> = []
        for scoped in byScope.values {
            wanted.merge(scoped.payloads) { _, new in new }
            kept.formUnion(scoped.keptUnknown)
        }
        let order = wanted.keys.sorted()
        // A topic wanted again is no longer to be cleared, whether or not its payload changed.
        if !state.pendingClears.isEmpty {
            for topic in order { state.pendingClears[topic] = nil }
            for topic in kept { state.pendingClears[topic] = nil }
        }
        if everything { state.refused = [] }
        for topic in order {
            let payload = wanted[topic]!
            let digest = PayloadDigest(payload: payload)
            let current = state.digest(topic)
            if !everything && (current == digest || state.refused.contains(topic)) {
                // Unchanged: the set keeps this tree's copy of the topic name, so the
                // name of a topic is held once, not once per tree it has been in.
                if current == digest { state.rename(topic, payload) }
                continue
            }
            plan.deliveries.append((topic, payload, digest))
        }
        // Topics to clear: on a full pass any published topic not wanted (topics under no
        // scope included); otherwise the published topics under a changed scope (found in
        // its location's group, not by scanning every topic) that it no longer wants.
        var gone: [String] = []
        let held = state.held
        func isHeld(_ topic: String) -> Bool { !held.isEmpty && held.contains { Self.belongs(topic, to: $0) } }
        if full {
            for group in state.published.values {
                for topic in group.digests.keys
                where wanted[topic] == nil && !kept.contains(topic) && !isHeld(topic)
                    && (!rules.dropsFlushedTrees || !state.isSettled(topic))
                {
                    gone.append(topic)
                }
            }
        } else {
            for scope in byScope.keys {
                for group in state.publishedGroups(under: scope) {
                    for topic in group.digests.keys
                    where Self.belongs(topic, to: scope) && wanted[topic] == nil && !kept.contains(topic)
                        && state.innermostScope(of: topic) == scope && !isHeld(topic)
                    {
                        gone.append(topic)
                    }
                }
            }
        }
        var clearing: [String] = []
        for topic in gone {
            if rules.clearDelay == .zero || rules.clearsAtOnce(topic) {
                clearing.append(topic)
            } else if state.pendingClears[topic] == nil {
                state.pendingClears[topic] = now + rules.clearDelay
            }
        }
        for (topic, due) in state.pendingClears where due <= now { clearing.append(topic) }
        plan.clears = Set(clearing).sorted()
        return plan
    }

    /// Records what a flush's sends came to. What could not be sent (not connected) is compared
    /// again at the next flush.
    private static func record(
        _ plan: Plan, _ delivered: [Delivery], cleared: [String], failed: Bool, in state: inout State,
        dropsFlushedTrees: Bool
    ) {
        for (delivery, result) in zip(plan.deliveries, delivered) {
            switch result {
            case .sent:
                state.record(delivery.topic, delivery.payload, digest: delivery.digest)
            case .failed:
                break
            case .unavailable:
                // An image kept from an earlier run whose bytes this run has not rendered
                // yet: not re-sent, and no longer counted as on the broker, so the render
                // publishes it even if its bytes come out the same.
                state.record(delivery.topic, nil)
            }
        }
        for topic in cleared {
            state.record(topic, nil)
            state.pendingClears[topic] = nil
        }
        if failed {
            state.needsFullPass = state.needsFullPass || plan.full
        } else {
            state.dirty = []
            state.needsFullPass = false
            if dropsFlushedTrees {
                for scope in plan.scopes where state.scopes[scope]?.tree != nil {
                    state.scopes[scope] = Scope(settled: true)
                }
            }
        }
    }
}
