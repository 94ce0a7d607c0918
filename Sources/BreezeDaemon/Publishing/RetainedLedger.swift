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
package import BreezeCore

/// What the retained publisher knows and decides, as a value (no I/O, no clock, no lock): what
/// each scope wants, what the agent believes the broker holds (by digest, grouped by location),
/// which clears are held back and until when, and Home Assistant's removal entries for a device
/// config that drops components.
///
/// A flush is ``plan(everything:now:)`` (the sends to make, the clears due, the clears held
/// back), then the sends, then ``record(_:_:cleared:failed:)`` with what they came to.
/// ``RetainedPublisher`` keeps it and performs the sends (one owner, no lock); see there for the
/// scope rules.
package struct RetainedLedger: Sendable {
    /// One scope: its tree's payloads by topic (the tree's topic order is not needed here and
    /// not kept), or nil (keep what is published) with the payloads it had before, if any.
    struct Scope {
        var tree: [String: String]?
        /// The last tree of a scope now `nil` in this run: what it published, to re-send.
        var last: [String: String]?
        /// Flushed and its tree dropped (``dropsFlushedTrees``): what is published under it is
        /// what it wants, until it is set again.
        var settled = false
    }

    /// What one scope wants: payloads it knows, and kept topics known only by their digest.
    package struct Wanted {
        package var payloads: [String: String] = [:]
        var keptUnknown: Set<String> = []
    }

    /// How one wanted payload's send went.
    package enum Delivery: Sendable, Equatable {
        case sent, failed
        /// A ``BinaryPayload`` reference whose bytes are not at hand: nothing was sent.
        case unavailable
    }

    package let grouping: PublishedGrouping
    /// Group → what the agent believes the broker holds there.
    package var published: [String: PublishedGroup] = [:]
    var scopes: [String: Scope] = [:]
    /// Scopes set since the last flush: a flush compares only their topics, so its cost
    /// follows what changed, not the size of the whole tree (1,000 locations: 280,000 topics).
    var dirty: Set<String> = []
    /// A scope appeared or none was flushed yet: the next flush compares everything, which
    /// also clears published topics that belong to no scope.
    var needsFullPass = true
    /// Groups changed since they were last saved.
    package var unsaved: Set<String> = []
    /// Clears held back until their time (see ``clearDelay``), by topic.
    var pendingClears: [String: ContinuousClock.Instant] = [:]
    /// Topics the broker refused: not published, and left out of flushes until the next
    /// ``republishAll(at:)`` (a reconnect), so a refusal is not repeated at every fetch.
    package var refused: Set<String> = []
    /// Scopes whose published topics are neither re-sent nor cleared (a shard's locations
    /// moved to another shard, until ``ShardHandover`` decides; docs/operations.md, Many locations).
    var held: Set<String> = []

    package func digest(_ topic: String) -> PayloadDigest? {
        published[grouping.group(of: topic)]?.digests[topic]
    }

    /// Records `topic` as published with `payload` (nil: no longer on the broker).
    package mutating func record(_ topic: String, _ payload: String?, digest: PayloadDigest? = nil) {
        let group = grouping.group(of: topic)
        if let payload {
            published[group, default: PublishedGroup()].digests[topic] = digest ?? PayloadDigest(payload: payload)
            if grouping.keepsPayload(topic) { published[group]!.payloads[topic] = payload.compacted }
        } else {
            guard published[group]?.digests.removeValue(forKey: topic) != nil else { return }
            published[group]!.payloads[topic] = nil
        }
        unsaved.insert(group)
    }

    /// Re-keys a recorded topic with `topic`'s own string (the wanted tree's), dropping the
    /// set's older copy of the same name. A payload kept whole stays the set's own compact copy:
    /// re-copying an unchanged device config at every flush moved tens of kilobytes per
    /// location into a new block each cycle and left the old one as a hole in the heap.
    mutating func rename(_ topic: String) {
        let group = grouping.group(of: topic)
        guard let digest = published[group]?.digests.removeValue(forKey: topic) else { return }
        published[group]!.digests[topic] = digest
    }

    /// Whether `topic` lies in a settled scope (its innermost one).
    func isSettled(_ topic: String) -> Bool {
        guard let scope = innermostScope(of: topic) else { return false }
        return scopes[scope]!.settled
    }

    /// The contents of the unsaved groups (an empty one: its file is removed), now marked saved.
    package mutating func takeUnsaved() -> [(String, PublishedGroup)] {
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
        for ancestor in Topic.ancestors(of: topic) where scopes[String(ancestor)] != nil {
            return String(ancestor)
        }
        return nil
    }

    /// How long a clear waits after the flush that decided it; topics for which `clearsAtOnce`
    /// holds (Home Assistant device configs) are cleared or rewritten at once. So Home Assistant
    /// drops an entity before its state topic empties, and never renders a template on an
    /// empty payload (docs/reference.md, Topics removal order).
    let clearDelay: Duration
    let clearsAtOnce: @Sendable (String) -> Bool
    /// Drop a scope's tree once it is flushed (the daemon: it sets every scope again before a
    /// republish); payloads kept whole stay. The trees were the largest part of the memory per
    /// location (their payloads, tables and topic names).
    let dropsFlushedTrees: Bool
    /// The layout whose Home Assistant device configs (``TopicLayout/isDeviceConfig(_:)``) are
    /// scopes: a config set there that drops components of the one published names them for
    /// removal (``HomeAssistantDiscovery/addingRemovals(to:replacing:)``). Nil: no such scopes.
    let deviceConfigs: TopicLayout?

    package init(
        grouping: PublishedGrouping, clearDelay: Duration, clearsAtOnce: @escaping @Sendable (String) -> Bool,
        dropsFlushedTrees: Bool, deviceConfigs: TopicLayout?
    ) {
        self.grouping = grouping
        self.clearDelay = clearDelay
        self.clearsAtOnce = clearsAtOnce
        self.dropsFlushedTrees = dropsFlushedTrees
        self.deviceConfigs = deviceConfigs
    }

    // MARK: setting what is wanted

    /// Sets what a scope should hold; `nil` keeps what is published under it. A device config
    /// that drops components of the one published before names them for removal, as Home
    /// Assistant needs.
    package mutating func set(scope: String, _ tree: TopicTree?) {
        var tree = tree
        if deviceConfigs?.isDeviceConfig(scope) == true, let payload = tree?[scope] {
            var config = TopicTree()
            config.set(
                scope, HomeAssistantDiscovery.addingRemovals(to: payload, replacing: publishedPayload(scope)))
            tree = config
        }
        let previous = scopes.updateValue(Scope(tree: tree?.payloads), forKey: scope)
        if let previous {
            // Unknown again: keep the last tree this run had, to re-send after a reconnect.
            if tree == nil { scopes[scope]!.last = previous.tree ?? previous.last }
        } else {
            needsFullPass = true
        }
        dirty.insert(scope)
    }

    /// Forgets publishes the broker did not take (see ``RetainedPublisher/notPublished(refused:lost:)``).
    package mutating func notPublished(refused: [String], lost: [String]) {
        for topic in refused {
            record(topic, nil)
            self.refused.insert(topic)
        }
        for topic in lost { record(topic, nil) }
    }

    package mutating func hold(scopes: [String]) { held.formUnion(scopes) }

    package mutating func forget(topics: [String]) {
        for topic in topics { record(topic, nil) }
    }

    package mutating func release(scopes: [String]) {
        held.subtract(scopes)
        needsFullPass = true
    }

    // MARK: what it holds

    /// When the earliest held-back clear is due; nil when none is waiting.
    package var nextClearDue: ContinuousClock.Instant? { pendingClears.values.min() }

    /// When the earliest held-back clear not yet due at `now` is due; nil when none is. A clear
    /// due by then that is still held was not sent (not connected): the next flush sends it.
    package func nextClearDue(after now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        pendingClears.values.filter { $0 > now }.min()
    }

    package var publishedDigests: [String: PayloadDigest] {
        published.values.reduce(into: [:]) { all, group in all.merge(group.digests) { $1 } }
    }

    package var publishedCount: Int { published.values.reduce(0) { $0 + $1.digests.count } }

    /// What was last published on a topic whose payload is kept whole; nil for any other topic.
    package func publishedPayload(_ topic: String) -> String? { published[grouping.group(of: topic)]?.payloads[topic] }

    /// Everything wanted on the broker now (kept scopes included), by digest.
    package var wantedDigests: [String: PayloadDigest] {
        var all: [String: PayloadDigest] = [:]
        for scoped in wanted(scopes: scopes.keys).values {
            for (topic, payload) in scoped.payloads { all[topic] = PayloadDigest(payload: payload) }
            for topic in scoped.keptUnknown { all[topic] = digest(topic) }
        }
        for group in published.values {
            for (topic, digest) in group.digests where pendingClears[topic] == nil && isSettled(topic) {
                all[topic] = digest
            }
        }
        return all
    }

    /// What each of `scopes` wants: its tree, or for a kept scope what is published under it
    /// (the payloads of its last tree where they are what was published, else only kept).
    package func wanted(scopes: some Sequence<String>) -> [String: Wanted] {
        var result: [String: Wanted] = [:]
        for scope in scopes {
            guard let entry = self.scopes[scope] else { continue }
            if let tree = entry.tree {
                result[scope] = Wanted(payloads: tree)
                continue
            }
            var wanted = Wanted()
            if entry.settled {
                // What is published is what it wants; only payloads kept whole can be re-sent
                // (a device config, after a Home Assistant birth). Its other topics are not
                // listed: full passes skip every topic of a settled scope.
                for group in publishedGroups(under: scope) {
                    for (topic, payload) in group.payloads
                    where Topic.isAtOrBelow(topic, scope) && pendingClears[topic] == nil
                        && innermostScope(of: topic) == scope
                    {
                        wanted.payloads[topic] = payload
                    }
                }
                result[scope] = wanted
                continue
            }
            for group in publishedGroups(under: scope) {
                for (topic, digest) in group.digests where Topic.isAtOrBelow(topic, scope) {
                    // A topic is kept by the innermost scope that contains it: under a kept
                    // `<p>/<loc>/climate`, the topics of its own `…/climate/stripes` scope are
                    // that scope's to publish or clear, not climate's to keep.
                    guard innermostScope(of: topic) == scope else { continue }
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

    // MARK: a flush

    /// What one flush sends (``plan(everything:now:)``), decided before any send.
    package struct Plan {
        /// The scopes compared, and whether every published topic was (a full pass).
        var scopes: [String]
        var full: Bool
        /// Wanted topics whose payload differs from what was published, in topic order.
        package var deliveries: [(topic: String, payload: String, digest: PayloadDigest)] = []
        /// Topics to clear now, in topic order.
        package var clears: [String] = []
    }

    /// Decides a flush: the wanted topics to send, the clears due now, and the clears to hold
    /// back (kept in the state with their due time, `now` + `clearDelay`).
    package mutating func plan(everything: Bool, now: ContinuousClock.Instant) -> Plan {
        let full = everything || needsFullPass
        let byScope = wanted(scopes: full ? Set(scopes.keys) : dirty)
        var plan = Plan(scopes: Array(byScope.keys), full: full)
        var wantedPayloads: [String: String] = [:]
        var kept: Set<String> = []
        for scoped in byScope.values {
            wantedPayloads.merge(scoped.payloads) { _, new in new }
            kept.formUnion(scoped.keptUnknown)
        }
        let order = wantedPayloads.keys.sorted()
        // A topic wanted again is no longer to be cleared, whether or not its payload changed.
        if !pendingClears.isEmpty {
            for topic in order { pendingClears[topic] = nil }
            for topic in kept { pendingClears[topic] = nil }
        }
        if everything { refused = [] }
        for topic in order {
            let payload = wantedPayloads[topic]!
            let digest = PayloadDigest(payload: payload)
            let current = self.digest(topic)
            if !everything && (current == digest || refused.contains(topic)) {
                // Unchanged: the set keeps this tree's copy of the topic name, so the
                // name of a topic is held once, not once per tree it has been in.
                if current == digest { rename(topic) }
                continue
            }
            plan.deliveries.append((topic, payload, digest))
        }
        // Topics to clear: on a full pass any published topic not wanted (topics under no
        // scope included); otherwise the published topics under a changed scope (found in
        // its location's group, not by scanning every topic) that it no longer wants.
        var gone: [String] = []
        let heldScopes = held
        func isHeld(_ topic: String) -> Bool {
            !heldScopes.isEmpty && heldScopes.contains { Topic.isAtOrBelow(topic, $0) }
        }
        if full {
            for group in published.values {
                for topic in group.digests.keys
                where wantedPayloads[topic] == nil && !kept.contains(topic) && !isHeld(topic)
                    && (!dropsFlushedTrees || !isSettled(topic))
                {
                    gone.append(topic)
                }
            }
        } else {
            for scope in byScope.keys {
                for group in publishedGroups(under: scope) {
                    for topic in group.digests.keys
                    where Topic.isAtOrBelow(topic, scope) && wantedPayloads[topic] == nil
                        && !kept.contains(topic) && innermostScope(of: topic) == scope && !isHeld(topic)
                    {
                        gone.append(topic)
                    }
                }
            }
        }
        var clearing: [String] = []
        for topic in gone {
            if clearDelay == .zero || clearsAtOnce(topic) {
                clearing.append(topic)
            } else if pendingClears[topic] == nil {
                pendingClears[topic] = now + clearDelay
            }
        }
        for (topic, due) in pendingClears where due <= now { clearing.append(topic) }
        plan.clears = Set(clearing).sorted()
        return plan
    }

    /// Records what a flush's sends came to. What could not be sent (not connected) is compared
    /// again at the next flush.
    package mutating func record(_ plan: Plan, _ delivered: [Delivery], cleared: [String], failed: Bool) {
        for (delivery, result) in zip(plan.deliveries, delivered) {
            switch result {
            case .sent:
                record(delivery.topic, delivery.payload, digest: delivery.digest)
            case .failed:
                break
            case .unavailable:
                // An image kept from an earlier run whose bytes this run has not rendered
                // yet: not re-sent, and no longer counted as on the broker, so the render
                // publishes it even if its bytes come out the same.
                record(delivery.topic, nil)
            }
        }
        for topic in cleared {
            record(topic, nil)
            pendingClears[topic] = nil
        }
        if failed {
            needsFullPass = needsFullPass || plan.full
        } else {
            dirty = []
            needsFullPass = false
            if dropsFlushedTrees {
                for scope in plan.scopes where scopes[scope]?.tree != nil {
                    scopes[scope] = Scope(settled: true)
                }
            }
        }
    }
}

extension String {
    /// The same text in storage of its own size. A payload built by appending (a Home Assistant
    /// device config: tens of kilobytes of JSON) keeps the capacity it grew to, up to twice its
    /// bytes, and a payload kept whole stays as long as its topic is published.
    var compacted: String {
        let count = utf8.count
        return String(unsafeUninitializedCapacity: count) { buffer in
            buffer.initialize(fromContentsOf: utf8)
        }
    }
}
