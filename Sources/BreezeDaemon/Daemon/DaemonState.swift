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

package import BreezeConfig
package import BreezeCore

/// The daemon's decisions as a value: events in, actions out, no I/O (docs/reference.md, Topics; docs/operations.md, Faults).
///
/// It routes and maps: each event goes to the child that decides it, and the child's actions
/// become the daemon's. One task owns the value and performs the actions (the agent's loop), so
/// no decision waits on I/O and a test drives it with events and a fake clock; its one
/// wake(now:) is the minimum of the children's deadlines. Randomness (jitter, the
/// re-announce delay) comes from a seeded generator in the value, so a test sees the same
/// decisions every run. `once` and `print` run on the same value with a OneShot child.
package struct DaemonState {
    /// Largest payload of any message the agent subscribes to (commands, births, device status,
    /// and a shard's own retained topics it watches at a handover, whose discovery configs run to
    /// tens of kilobytes) that is copied at all; larger ones arrive as their size only (docs/operations.md, Limits:
    /// five 100 MB `refresh` payloads once peaked at 315 MB).
    package static let maximumIncomingPayload = 1 << 20

    package let config: AgentConfig
    /// What the state feeds: the retained sinks, the device outputs, the images.
    package var outputs: DaemonOutputs
    /// What is known of each location: its sources' data (the sources' rules change it).
    package var locations: [LocationRuntime]
    /// Calls per location and day, Open-Meteo's weighted calls and pacing, the fetch counters.
    package var calls: CallLedger
    /// When each source of each location is fetched, and the fetches in flight.
    package var planner: FetchPlanner
    /// The connection, Home Assistant's births and the diagnostics cadence.
    package private(set) var presence: Presence
    /// The state's own marks between events: the wake asked for, the last event's time,
    /// whether it is stopping.
    private var marks = Marks()
    package var random: SplitMix64
    /// Locations this shard published and no longer owns (docs/operations.md, Many locations).
    var handover = ShardHandover()
    /// `refresh`, `unit/set` and retained commands, with their rate limits (docs/operations.md, Limits).
    var commands: Commands
    /// Whole trees a `refresh` asked for, sent a batch per settled watch of the outcomes.
    var republishing = RepublishQueue()
    /// The announcement, a second instance on one identity, the tree kept.
    package var identity: IdentityGuard
    /// `once` and `print`: their phases; nil for the daemon. Set, every event goes to it.
    var oneShot: OneShot?

    private struct Marks {
        /// The wake last asked for: a completion handled at or after it also does the tick's
        /// work (due fetches, locations whose content edge came, time edges), so no edge is
        /// skipped when completions keep re-arming the timer.
        var wakeAt = DaemonInstant(unixSeconds: 0)
        /// The time of the last event: a clock stepped back (NTP, a hub's RTC) makes every
        /// location's stored content edge suspect, so all are rebuilt at once.
        var lastEventAt = DaemonInstant.distantPast
        /// When the publisher's held-back clears are due (``DaemonEvent/clearsHeld(until:)``).
        var clearsAt: DaemonInstant?
        var stopping = false
    }

    /// The wake last asked for.
    var wakeAt: DaemonInstant { marks.wakeAt }
    /// The sinks' configuration and mode.
    package var context: SinkContext { outputs.scopes.context }
    /// `--demo`: no Google call counting or cap (the responses are bundled), no discovery.
    package var demo: Bool { context.demo }
    package var layout: TopicLayout { context.layout }

    package init(
        config: AgentConfig, locations: [LocationRuntime], storedCalls: [String: CallCount], demo: Bool, seed: UInt64
    ) {
        self.config = config
        let layout = config.topicLayout
        let context = SinkContext(config: config, demo: demo)
        self.outputs = DaemonOutputs(
            scopes: ScopeBuilder(context: context, locations: locations.count),
            devices: DeviceCommandState(sinks: Sinks.devices(for: config)),
            images: ImagePipeline(config: config, locations: locations, layout: layout))
        self.presence = Presence(
            broker: "\(config.mqtt.host):\(config.mqtt.port)", discoveryEnabled: context.discoveryEnabled)
        self.locations = locations
        self.planner = FetchPlanner(locations: locations.count, settings: config)
        self.calls = CallLedger(stored: storedCalls, perMinuteOverride: config.endpointsMaxCallsPerMinute)
        self.random = SplitMix64(seed: seed)
        self.commands = Commands(locations: locations.count, config: config)
        var instance = SplitMix64(seed: seed ^ 0x9e37_79b9_7f4a_7c15)
        self.identity = IdentityGuard(
            topic: layout.agent.name, clientID: config.mqtt.clientID,
            instance: String(instance.next(), radix: 16), started: DaemonInstant(unixSeconds: 0))
    }

    /// Host name and process id for the `<p>/agent/…` announcement (the loop knows them).
    package mutating func identify(host: String, pid: Int, started: DaemonInstant) {
        identity.identify(host: host, pid: pid, started: started)
    }

    package func enabled(_ kind: SourceKind) -> Bool { planner.enabled[kind] }

    // MARK: events

    /// Starting the daemon: spreads the first fetches over a few seconds
    /// (``FetchPlanner/start(now:random:)``) and sets every scope.
    package mutating func start(at time: DaemonTime) -> [DaemonAction] {
        let stretched = stretchOpenMeteoIntervals()
        planner.start(now: time.now, random: &random)
        _ = presence.handle(.started, now: time.now, random: &random)
        return demoGuarded(stretched + scopeActions(now: time.now), at: time)
    }

    /// An event, and what the state decides on it (with `--demo`, nothing leaves for a real
    /// device: ``demoGuarded(_:at:)``).
    package mutating func handle(_ event: DaemonEvent, at time: DaemonTime) -> [DaemonAction] {
        demoGuarded(decide(event, at: time), at: time)
    }

    /// `--demo` (``DemoGuard``): what would reach a real device or access point becomes a log
    /// line, and an upload counts as accepted at once, as the access point would answer.
    mutating func demoGuarded(_ actions: [DaemonAction], at time: DaemonTime) -> [DaemonAction] {
        guard demo else { return actions }
        let guarded = DemoGuard.filter(actions, layout: layout)
        return guarded.uploads.reduce(guarded.actions) { actions, index in
            actions + handle(.uploaded(index, .status(200)), at: time)
        }
    }

    private mutating func decide(_ event: DaemonEvent, at time: DaemonTime) -> [DaemonAction] {
        guard !marks.stopping else { return [] }
        let now = time.now
        if now < marks.lastEventAt { outputs.scopes.clockSteppedBack() }
        marks.lastEventAt = now
        outputs.images.observe(time)
        // Answered alike in every mode, before the one-shot routing: the stored responses read
        // back at start, the MQTT version the broker took, the outcomes of a watch.
        if case .restored(let index, let responses) = event { return restore(index, responses, now: now) }
        if case .brokerProtocol(let version) = event { return protocolFallback(version) }
        if case .outcomesSettled(let outcomes) = event {
            presence.outcomesSettled()
            return [.reportOutcomes(outcomes, pendingIsLost: false)] + watched(releaseRepublishes(now: now))
        }
        if oneShot != nil { return handleOneShot(event, at: time) }
        var actions: [DaemonAction] = []
        switch event {
        case .tick:
            // This tick's flush sends the held-back clears that are due; the loop reports any left.
            if let at = marks.clearsAt, at <= now { marks.clearsAt = nil }
            actions += abandonStuckFetches(now: now) + startDueFetches(now: now)
            actions += scopeActions(now: now, edgesOnly: true) + timeEdges(at: time)
            actions += [.flush(persist: true), wake(now: now)]
        case .fetched(let key, let outcome):
            if let at = marks.clearsAt, at <= now { marks.clearsAt = nil }  // flushed below
            actions += complete(key, outcome, now: now)
            if now >= wakeAt {
                // The tick's work, edges included, so the wake below moves past this time: the
                // tick itself may wait behind many queued completions.
                actions += abandonStuckFetches(now: now)
                actions += scopeActions(now: now, edgesOnly: true) + timeEdges(at: time)
            }
            // The published set (and the call counts) are saved once the last fetch in flight is done.
            actions.append(.flush(persist: planner.fetches.isIdle))
            if planner.fetches.isIdle { actions += callCountStore(now: now, force: true) }
            actions.append(wake(now: now))
        case .mqtt(.connected):
            // Subscribed first (in the announce), then announced: the broker delivers another
            // instance's retained announcement before this one replaces it.
            actions += perform(presence.handle(.connected, now: now, random: &random), at: time)
            actions += perform(identity.handle(.connected, now: now), at: time)
            actions.append(wake(now: now))
        case .mqtt(.disconnected(let reason)):
            handover.disconnected()
            // The reconnect re-publishes everything; a batch sent meanwhile would only wait in
            // libmosquitto's offline queue (the watch settles at once, its publishes lost).
            republishing.removeAll()
            actions += perform(presence.handle(.disconnected(reason: reason), now: now, random: &random), at: time)
            actions += perform(identity.handle(.disconnected, now: now), at: time)
        case .mqtt(.message(let message)):
            actions += handleMessage(message, at: time)
        case .clearsHeld(let until):
            // The tick at or after it flushes them (every tick flushes).
            marks.clearsAt = until
            actions.append(wake(now: now))
        case .signal(.hangup):
            actions.append(
                .log(
                    .warning, "SIGHUP: reloading the configuration is not supported; restart the agent to apply changes"
                ))
        case .signal(let signal):
            marks.stopping = true
            actions += callCountStore(now: now, force: true)
            actions.append(.log(.info, "signal \(signal.name): shutting down"))
            actions.append(.stop(exitCode: ExitCode.success))
        case .rendered(let key, let outcome):
            actions += applyRendered(key, outcome, now: now)
        case .renderPhase(let key, let phase):
            actions += applyRenderPhase(key, phase)
        case .uploaded(let index, let outcome):
            actions += applyUploaded(index, outcome, now: now)
        case .prepared, .flushed, .outcomes, .restored, .brokerProtocol, .outcomesSettled:
            break  // one-shot only; restored, brokerProtocol and outcomesSettled above
        }
        if !marks.stopping { actions += imageActions(after: event, now: now) + releaseRepublishes(now: now) }
        return watched(actions)
    }

    /// `actions` and, when they flush and no watch runs, the one watch of the outcomes: it takes
    /// the outcomes of every publish before it settles (1,000 locations once kept thousands of
    /// 30 s waiters), and its settling releases the next batch of queued re-publishes.
    private mutating func watched(_ actions: [DaemonAction]) -> [DaemonAction] {
        guard actions.contains(where: { if case .flush = $0 { true } else { false } }), presence.watchOutcomes()
        else { return actions }
        return actions + [.watchOutcomes(timeout: Self.outcomeWatch)]
    }

    /// The next batch of queued whole-tree re-publishes, when no watch runs (the broker took
    /// everything before): each location's scopes set again (the publisher dropped the flushed
    /// trees), re-sent, and flushed, which drops them again and starts the watch. The last
    /// batch's flush saves the published set, and with it the loop hands freed memory back.
    private mutating func releaseRepublishes(now: DaemonInstant) -> [DaemonAction] {
        guard presence.isConnected, !presence.watchingOutcomes, !republishing.isEmpty else { return [] }
        var actions: [DaemonAction] = []
        for index in republishing.next() {
            for action in scopeActions(now: now, only: index) {
                actions.append(action)
                if case .setScope(let scope) = action { actions.append(.republish(scope: scope.prefix)) }
            }
        }
        return actions + [.flush(persist: republishing.isEmpty)]
    }

    /// How long a watch of the broker's outcomes waits at most.
    static let outcomeWatch: DaemonDuration = .seconds(30)

    /// The broker accepted another MQTT version than the configured one (it refused MQTT 5):
    /// a warning, since `mqtt.protocol` chooses.
    private func protocolFallback(_ version: MQTTProtocolVersion) -> [DaemonAction] {
        guard version != config.mqtt.protocolVersion else { return [] }
        return [
            .log(
                .warning, "mqtt: the broker refused MQTT 5; fell back to MQTT \(version) (set mqtt.protocol to choose)")
        ]
    }

    /// A message on a subscribed topic, to the child it belongs to: a device's status, a watched
    /// topic of a handover, another instance's announcement or our availability, a Home
    /// Assistant birth, or a command.
    private mutating func handleMessage(_ message: MQTTMessage, at time: DaemonTime) -> [DaemonAction] {
        let now = time.now
        if let actions = outputs.devices.handle(message, qos: config.mqtt.qos, now: now) {
            // A send held by the per-device limit is due later: the wake covers it.
            return perform(actions) + (outputs.devices.nextDeadline == nil ? [] : [wake(now: now)])
        }
        if handover.observe(topic: message.topic, payload: message.payload) { return [] }
        if message.topic == identity.topic {
            return perform(
                identity.handle(.announcement(message.payload, retained: message.retain), now: now),
                at: time)
        }
        if message.topic == layout.status.name {
            return perform(identity.handle(.availability(message.payload), now: now), at: time)
        }
        if message.topic == layout.homeAssistantBirth.name {
            let online = message.payload.elementsEqual(DiscoveryNaming.birthOnlinePayload.utf8)
            let actions = perform(presence.handle(.birth(online: online), now: now, random: &random), at: time)
            // A re-discovery asked for is a deadline of the one wake.
            return actions.isEmpty ? [] : actions + [wake(now: now)]
        }
        let decided = commands.handle(message, layout: layout, locations: locations, now: now) ?? []
        return perform(decided, now: now)
    }

    // MARK: the wake

    /// The next time the loop must wake: the earliest deadline of any child (a due fetch, or for
    /// one in flight its watchdog; a content edge; the next diagnostics; a held command).
    mutating func wake(now: DaemonInstant) -> DaemonAction {
        let deadlines: [DaemonInstant?] = [
            presence.nextDeadline, handover.nextDeadline, outputs.images.nextDeadline, commands.nextDeadline,
            outputs.devices.nextDeadline, identity.nextDeadline,
            outputs.scopes.nextDeadline(now: now),
            planner.nextDeadline(now: now),
        ]
        var wake = deadlines.compactMap(\.self).min() ?? .distantFuture
        if let clearsAt = marks.clearsAt { wake = min(wake, max(clearsAt, now)) }
        marks.wakeAt = wake
        return .wake(at: wake)
    }

    /// What is due at a time edge besides the scopes: shard handover decisions,
    /// `<p>/diagnostics`, held `unit/set` commands and device sends, the identity's checks.
    private mutating func timeEdges(at time: DaemonTime) -> [DaemonAction] {
        let now = time.now
        var actions = perform(handover.tick(now: now))
        actions += perform(presence.handle(.tick, now: now, random: &random), at: time)
        actions += perform(commands.due(now: now), now: now)
        actions += perform(outputs.devices.due(now: now, qos: config.mqtt.qos))
        actions += perform(identity.handle(.tick, now: now), at: time)
        return actions
    }
}
