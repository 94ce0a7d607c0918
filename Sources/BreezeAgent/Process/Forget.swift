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
import BreezeMQTT
import Synchronization

/// Which retained topics `forget` clears, in which order: a value computed from the
/// configuration and the published set, so the order (discovery first) is tested without a
/// broker.
///
/// Home Assistant removes a device when its config topic is cleared; clearing the state topics
/// first would leave its entities "unavailable" for the moment in between, and a consumer that
/// reads the tree while it empties could see half a location. So the device configs go first,
/// the state topics no sooner than ``ForgetCommand/clearDelay`` later, and the agent's own
/// availability last, once no location is left on the broker.
struct ForgetPlan: Equatable {
    /// Home Assistant device configs (`<dp>/device/…/config`).
    var discovery: [String] = []
    /// Everything else the locations retained: their `<p>/<loc>/…` tree and device outputs.
    var state: [String] = []
    /// The agent's own topics (`<p>/status`, `<p>/agent/…`), only when no location is left.
    var agent: [String] = []
    /// The published-set groups whose files go once the broker has taken the clears.
    var groups: [String] = []
    /// Locations with no published set in `state_dir`: their topics are found on the broker.
    var unrecorded: [String] = []

    var total: Int { discovery.count + state.count + agent.count }

    /// - Parameters:
    ///   - locations: the ids to forget.
    ///   - all: every location id the agent could have published (configured and recorded);
    ///     when none of them is left after this, the agent's own topics go too.
    ///   - published: the published set, group by group (``StateStore/publishedGroups()``).
    static func make(
        locations: [String], all: Set<String>, published: [String: PublishedGroup], layout: TopicLayout
    ) -> ForgetPlan {
        let grouping = PublishedGrouping(layout: layout)
        var plan = ForgetPlan()
        var topics = Set<String>()
        for id in locations {
            let group = grouping.group(of: layout.location(id).base.appending("-").name)
            if let recorded = published[group], !recorded.isEmpty {
                topics.formUnion(recorded.digests.filter { !$0.value.isEmpty }.keys)
                plan.groups.append(group)
            } else {
                plan.unrecorded.append(id)
            }
        }
        let remaining = all.subtracting(locations).filter { id in
            let group = grouping.group(of: layout.location(id).base.appending("-").name)
            return published[group].map { !$0.isEmpty } ?? false
        }
        if remaining.isEmpty {
            let own = [layout.status, layout.agent]
            for name in Set(own.map { grouping.group(of: $0.name) }) {
                guard let recorded = published[name] else { continue }
                topics.formUnion(recorded.digests.filter { !$0.value.isEmpty }.keys)
                plan.groups.append(name)
            }
            plan.agent = [layout.status.name]
        }
        for topic in topics.sorted() {
            if layout.isDeviceConfig(topic) {
                plan.discovery.append(topic)
            } else if layout.locationLevel(of: topic).map({ TopicLayout.reservedLevels.contains($0) }) ?? false {
                if !plan.agent.contains(topic) { plan.agent.append(topic) }
            } else {
                plan.state.append(topic)
            }
        }
        plan.agent.sort()
        plan.groups.sort()
        return plan
    }

    /// Adds topics found retained on the broker for an unrecorded location.
    mutating func add(found topics: some Sequence<String>, layout: TopicLayout) {
        for topic in topics {
            if layout.isDeviceConfig(topic) {
                if !discovery.contains(topic) { discovery.append(topic) }
            } else if !state.contains(topic) {
                state.append(topic)
            }
        }
        discovery.sort()
        state.sort()
    }
}

/// `breeze-agent forget [--location ID]`: clears what the agent retained on the broker for the
/// configured locations (or one), so that leaving the project leaves no "unavailable" Home
/// Assistant device and no stale `breeze/#` tree behind (docs/reference.md, "forget").
struct ForgetCommand {
    /// docs/reference.md, Topics's removal order: state topics no sooner than this after the device configs.
    static let clearDelay: Duration = .seconds(3)
    /// How long a location without a published set is listened to for its retained topics:
    /// until this much quiet after the subscription, at most ``scanLimit``.
    static let scanQuiet: Duration = .seconds(1)
    static let scanLimit: Duration = .seconds(10)
    static let connectTimeout: Duration = .seconds(10)
    static let ackTimeout: Duration = .seconds(30)

    let config: AgentConfig
    let store: StateStore
    let broker: any BrokerConnection
    /// Where the lines the user reads go (stdout in the binary).
    let say: @Sendable (String) -> Void
    /// Errors and warnings (stderr in the binary).
    let complain: @Sendable (String) -> Void
    /// Waits; the tests pass one that returns at once.
    let sleep: @Sendable (Duration) async -> Void

    /// Runs the whole removal; the process exit code.
    func run(location: String?) async -> Int32 {
        let layout = config.topicLayout
        let published = store.publishedGroups()
        let configured = config.locations.map(\.id)
        let grouping = PublishedGrouping(layout: layout)
        let recordedIDs = configured.filter {
            published[grouping.group(of: layout.location($0).base.appending("-").name)] != nil
        }
        let targets: [String]
        if let location {
            guard configured.contains(location) else {
                complain(
                    "breeze-agent: forget: no location \(location) in \(config.sourceFile) (it has \(configured.joined(separator: ", ")))"
                )
                return ExitCode.usage
            }
            targets = [location]
        } else {
            targets = configured
        }
        var plan = ForgetPlan.make(
            locations: targets, all: Set(configured).union(recordedIDs), published: published, layout: layout)

        do {
            try broker.start()
        } catch {
            complain("breeze-agent: forget: cannot connect to \(config.mqtt.host):\(config.mqtt.port): \(error)")
            return ExitCode.unavailable
        }
        let inbox = EventInbox()
        let consumer = Task { [broker] in
            for await event in broker.events { inbox.append(event) }
        }
        defer { consumer.cancel() }
        guard await inbox.next(within: Self.connectTimeout, where: { $0 == .connected }) != nil else {
            let reason = broker.lastError.map { ": \($0)" } ?? ""
            complain(
                "breeze-agent: forget: the broker at \(config.mqtt.host):\(config.mqtt.port) is unreachable\(reason)")
            await broker.stop()
            return ExitCode.unavailable
        }

        // The daemon itself would publish everything again.
        if await retained(layout.status.name, inbox: inbox) == Availability.online {
            complain(
                "warning: \(layout.status) says online: stop the running agent first "
                    + "(systemctl stop breeze-agent, docker stop, or stop the add-on), or it publishes everything again"
            )
        }
        for id in plan.unrecorded {
            let found = await scan(id, layout: layout, inbox: inbox)
            say("\(id): no published set in \(config.stateDir); found \(found.count) retained topics on the broker")
            plan.add(found: found, layout: layout)
        }

        var cleared = 0
        for (step, topics) in [plan.discovery, plan.state, plan.agent].enumerated() where !topics.isEmpty {
            if step > 0, cleared > 0 { await sleep(Self.clearDelay) }
            for topic in topics {
                do {
                    try broker.publish(topic, [], qos: max(1, config.mqtt.qos), retain: true)
                } catch {
                    complain("breeze-agent: forget: \(topic): \(error)")
                    await broker.stop()
                    return ExitCode.unavailable
                }
            }
            let outcomes = await broker.waitForOutcomes(timeout: Self.ackTimeout)
            let refused = Set(outcomes.refused.map(\.topic)).union(outcomes.lost)
            for topic in topics {
                if refused.contains(topic) {
                    complain("not cleared (the broker refused it): \(topic)")
                } else {
                    say("cleared \(topic)")
                    cleared += 1
                }
            }
            guard refused.isEmpty else {
                complain("breeze-agent: forget: \(refused.count) topics were not cleared; the published set is kept")
                await broker.stop()
                return ExitCode.unavailable
            }
        }
        await broker.stop()
        for group in plan.groups { _ = store.savePublished(PublishedGroup(), as: group) }
        let what = location.map { "location \($0)" } ?? "\(targets.count) location\(targets.count == 1 ? "" : "s")"
        say("forget: \(cleared) retained topic\(cleared == 1 ? "" : "s") cleared for \(what)")
        return ExitCode.success
    }

    /// The retained payload of `topic` now, or nil when there is none (within ``scanQuiet``).
    private func retained(_ topic: String, inbox: EventInbox) async -> String? {
        guard (try? broker.subscribe(topic, qos: 1)) != nil else { return nil }
        defer { try? broker.unsubscribe(topic) }
        let event = await inbox.next(within: Self.scanQuiet) {
            if case .message(let message) = $0 { return message.topic == topic && message.retain }
            return false
        }
        guard case .message(let message) = event else { return nil }
        return String(decoding: message.payload, as: UTF8.self)
    }

    /// Every retained topic under `<p>/<loc>/` and the location's device config, as the broker
    /// hands them over right after the subscription.
    private func scan(_ id: String, layout: TopicLayout, inbox: EventInbox) async -> [String] {
        let topics = layout.location(id)
        let patterns = [topics.base.name + "/#", topics.deviceConfig.name]
        for pattern in patterns { try? broker.subscribe(pattern, qos: 1) }
        defer { for pattern in patterns { try? broker.unsubscribe(pattern) } }
        var found = Set<String>()
        let start = ContinuousClock.now
        while ContinuousClock.now - start < Self.scanLimit {
            let event = await inbox.next(within: Self.scanQuiet) {
                if case .message(let message) = $0 { return message.retain && !message.payload.isEmpty }
                return false
            }
            guard case .message(let message) = event else { break }
            if Topic.isDescendant(message.topic, of: topics.base.name) || message.topic == topics.deviceConfig.name {
                found.insert(message.topic)
            }
        }
        return found.sorted()
    }
}

/// The broker's events as they arrive, for a command that waits for one with a deadline: one
/// task consumes the stream (an `AsyncStream` whose waiting `next()` is cancelled ends for
/// good), and the command looks at what came, every 20 ms, until its deadline.
private final class EventInbox: Sendable {
    private let events = Mutex<[MQTTEvent]>([])

    func append(_ event: MQTTEvent) { events.withLock { $0.append(event) } }

    /// The first event that `matches` within `timeout`, dropping the events before it; nil when
    /// none came in time.
    func next(within timeout: Duration, where matches: (MQTTEvent) -> Bool) async -> MQTTEvent? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let found: MQTTEvent? = events.withLock { pending in
                guard let index = pending.firstIndex(where: matches) else {
                    pending.removeAll()
                    return nil
                }
                let event = pending[index]
                pending.removeFirst(index + 1)
                return event
            }
            if let found { return found }
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}
