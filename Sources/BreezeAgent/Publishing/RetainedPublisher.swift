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
import BreezeDaemon

/// Where retained messages go: the MQTT client in production, a recorder in unit tests.
protocol RetainedTransport: Sendable {
    /// Queues one publish; false when it could not be queued (e.g. not connected).
    func send(topic: String, payload: String, retain: Bool) -> Bool
    /// Queues one publish of raw bytes (an image, docs/images.md); false as above.
    func send(topic: String, bytes: [UInt8], retain: Bool) -> Bool
}

/// Keeps the broker's retained topics equal to what the agent wants there, publishing only
/// the difference (docs/reference.md, Topics).
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
///
/// The decisions are a value, ``RetainedLedger``; the class performs them: sends, and saves to
/// the ``StateStore``. It has one owner, the daemon's loop (or `once`'s steps, a test), which
/// calls it between events: the broker's outcomes come back as events and reach it through
/// ``notPublished(refused:lost:)`` between flushes, never during one, so it needs no lock.
final class RetainedPublisher {
    private var state: RetainedLedger
    private let transport: any RetainedTransport
    private let store: StateStore?
    /// The bytes a ``BinaryPayload`` reference on a topic stands for (the ``ImageStore``); nil
    /// when they are not at hand (not rendered in this run).
    private let binary: @Sendable (_ topic: String, _ reference: String) -> [UInt8]?

    /// - Parameter dropsFlushedTrees: forget a scope's tree once it is flushed; the owner then
    ///   sets every scope again before ``republishAll(at:)``, which re-sends only what is set.
    /// - Parameter grouping: which file of `state_dir/published/` each topic is kept in (the
    ///   agent's ``TopicLayout``); the default groups by the second topic level.
    /// - Parameter clearDelay: how long a clear waits after the flush that decided it; topics
    ///   for which `clearsAtOnce` holds (Home Assistant device configs) are cleared or rewritten
    ///   at once. So Home Assistant drops an entity before its state topic empties, and never
    ///   renders a template on an empty payload (docs/reference.md, Topics removal order).
    /// - Parameter deviceConfigs: the layout whose Home Assistant device configs
    ///   (`<dp>/device/…/config`) are scopes: a config that drops components of the one
    ///   published names them for removal.
    init(
        transport: any RetainedTransport, store: StateStore?, grouping: PublishedGrouping = PublishedGrouping(),
        clearDelay: Duration = .zero,
        clearsAtOnce: @escaping @Sendable (String) -> Bool = { _ in true },
        binary: @escaping @Sendable (_ topic: String, _ reference: String) -> [UInt8]? = { _, _ in nil },
        dropsFlushedTrees: Bool = false, deviceConfigs: TopicLayout? = nil
    ) {
        self.transport = transport
        self.store = store
        self.binary = binary
        var ledger = RetainedLedger(
            grouping: grouping, clearDelay: clearDelay, clearsAtOnce: clearsAtOnce,
            dropsFlushedTrees: dropsFlushedTrees, deviceConfigs: deviceConfigs)
        if let store { Self.load(into: &ledger, from: store) }
        self.state = ledger
    }

    /// Reads the per-group files (a topic filed under another group than the grouping gives now
    /// moves there), then migrates an older agent's `published.json`: its topics join the set
    /// (a topic already in a group file keeps that digest), every changed group is saved and
    /// the old file removed once all saves worked.
    private static func load(into state: inout RetainedLedger, from store: StateStore) {
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
    var nextClearDue: ContinuousClock.Instant? { state.nextClearDue }

    /// When the earliest held-back clear not yet due at `now` is due (`once` waits for those
    /// only); nil when none is.
    func nextClearDue(after now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        state.nextClearDue(after: now)
    }

    /// Sets what a scope should hold; `nil` keeps what is published under it. A Home Assistant
    /// device config (of `deviceConfigs`' layout) that drops components of the one published before
    /// names them for removal (``RetainedLedger/set(scope:_:)``).
    func set(scope: String, _ tree: TopicTree?) {
        state.set(scope: scope, tree)
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
    func flush(persist: Bool = true, at now: ContinuousClock.Instant) -> Int {
        publish(everything: false, persist: persist, now: now)
    }

    /// Saves the groups of the published set a flush left unsaved (only those: one file each).
    func persist() {
        save(state.takeUnsaved())
    }

    private func save(_ groups: [(String, PublishedGroup)]) {
        guard let store else { return }
        for (name, group) in groups { store.savePublished(group, as: name) }
    }

    /// Forgets publishes the broker did not take: `refused` ones (kept out of flushes until the
    /// next ``republishAll(at:)``) and `lost` ones (in flight when the connection ended; sent again
    /// by the republish after the reconnect). Neither stays in the persisted published set.
    func notPublished(refused: [String], lost: [String]) {
        guard !refused.isEmpty || !lost.isEmpty else { return }
        state.notPublished(refused: refused, lost: lost)
        save(state.takeUnsaved())
    }

    #if BREEZE_TEST_HOOKS
        /// Topics left out of flushes because the broker refused them.
        var refusedTopics: Set<String> { state.refused }
    #endif

    /// Publishes every wanted topic again (after a reconnect the broker may have lost them);
    /// `now` as for ``flush(persist:at:)``.
    @discardableResult
    func republishAll(at now: ContinuousClock.Instant) -> Int {
        publish(everything: true, persist: true, now: now)
    }

    /// Publishes the wanted topics under one scope again (e.g. discovery after Home Assistant restarts).
    @discardableResult
    func republish(scope: String) -> Int {
        let topics = state.wanted(scopes: [scope])[scope]?.payloads ?? [:]
        var sent = 0
        for topic in topics.keys.sorted() where deliver(topic, topics[topic]!) == .sent {
            sent += 1
        }
        return sent
    }

    /// Sends a wanted payload: text as it is, a ``BinaryPayload`` reference as the bytes it
    /// stands for (`unavailable` when they are not at hand: nothing is sent).
    private func deliver(_ topic: String, _ payload: String) -> RetainedLedger.Delivery {
        guard BinaryPayload.isReference(payload) else {
            return transport.send(topic: topic, payload: payload, retain: true) ? .sent : .failed
        }
        guard let bytes = binary(topic, payload) else { return .unavailable }
        return transport.send(topic: topic, bytes: bytes, retain: true) ? .sent : .failed
    }

    /// Holds the published topics under `scopes`: not re-sent, not cleared, until released.
    func hold(scopes: [String]) {
        state.hold(scopes: scopes)
    }

    /// Drops topics from the published set without sending anything: the agent no longer
    /// answers for them (another shard re-published them, or the broker no longer holds them).
    func forget(topics: [String]) {
        state.forget(topics: topics)
    }

    /// Stops holding `scopes`: the next flush clears what is still published under them (and
    /// under no other scope).
    func release(scopes: [String]) {
        state.release(scopes: scopes)
    }

    /// The retained topics as the agent believes the broker holds them, with their digests.
    var published: [String: PayloadDigest] { state.publishedDigests }

    /// How many retained topics the agent believes the broker holds.
    var publishedCount: Int { state.publishedCount }

    #if BREEZE_TEST_HOOKS
        /// The digest of what was last published on one topic (nil: nothing).
        func publishedDigest(_ topic: String) -> PayloadDigest? { state.digest(topic) }
    #endif

    /// What was last published on a topic whose payload is kept whole (a Home Assistant device
    /// config, ``PublishedGrouping/keepsPayload(_:)``); nil for any other topic.
    func publishedPayload(_ topic: String) -> String? { state.publishedPayload(topic) }

    /// Everything the agent wants on the broker now (kept scopes included), by digest.
    var wanted: [String: PayloadDigest] { state.wantedDigests }

    /// A flush: the ledger decides (``RetainedLedger/plan(everything:now:)``), the sends happen,
    /// and the ledger records what they came to (``RetainedLedger/record(_:_:cleared:failed:)``).
    /// Nothing runs beside it (one owner): a refusal of this flush's own send (refused at once
    /// for its size, or by an MQTT 5 PUBACK) is reported later, as an event, and the
    /// ``notPublished(refused:lost:)`` it leads to takes the topic out of the published set.
    private func publish(everything: Bool, persist: Bool, now: ContinuousClock.Instant) -> Int {
        let plan = state.plan(everything: everything, now: now)
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
        state.record(plan, delivered, cleared: cleared, failed: failed)
        if persist { save(state.takeUnsaved()) }
        return delivered.count { $0 == .sent } + cleared.count
    }
}

extension RetainedPublisher {
    /// Performs a handover step that concerns the publisher; `unsubscribe` is the client's.
    func perform(_ step: HandoverStep) {
        switch step {
        case .hold(let scopes): hold(scopes: scopes)
        case .forget(let topics): forget(topics: topics)
        case .release(let scopes): release(scopes: scopes)
        case .unsubscribe: break
        }
    }
}
