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

/// The daemon's decisions as a value: events in, actions out, no I/O (SPEC §3, §5).
///
/// One task owns it and performs the actions (``Agent/run(client:signals:policy:)``); `once` and
/// `print` run on the same loop and state, their phases decided by the ``OneShot`` child
/// (``oneShot``). Tests drive it with events and a fake clock.
/// Randomness (jitter, the re-announce delay) comes from a seeded generator in the value, so a
/// test sees the same decisions every run.
///
/// Parts of it are child machines with their own actions, which it maps to its own, and their
/// own deadlines, whose minimum its one ``wake(now:)`` takes: ``Presence`` (the connection,
/// births, diagnostics), ``CallLedger`` (counts, the Google cap, Open-Meteo pacing),
/// ``DeviceCommandState`` (device outputs), ``ShardHandover``, ``ImagePipeline`` (images and
/// uploads), ``FetchPlanner`` (every location's schedules: the start spread, which fetches are
/// due, `refresh`, the due times; and its ``FetchTracker``, the fetches in flight and the
/// stuck-fetch watchdog, whose deadline the same pass over the schedules finds);
/// ``CommandIntent`` routes a command message. What a due fetch asks for, what its outcome and
/// a stored response do, are each source's rules (``SourceRules``: ``PollenRules``,
/// ``ClimateRules``, ``StripesRules``, ``AirRules``), routed by ``begin(_:now:)``,
/// ``apply(_:_:now:)`` and ``DaemonEvent/restored(location:_:)``, with one failure path
/// (``applyFailure(_:_:now:)``). The pacing (``pace(_:now:)``) and the sinks' views are still
/// its own.
package struct DaemonState {
    /// Largest payload of any message the agent subscribes to (commands, births, device status,
    /// and a shard's own retained topics it watches at a handover, whose discovery configs run to
    /// tens of kilobytes) that is copied at all; larger ones arrive as their size only (SPEC §12:
    /// five 100 MB `refresh` payloads once peaked at 315 MB).
    package static let maximumIncomingPayload = 1 << 20

    let config: AgentConfig
    /// What the state feeds: the retained sinks and their context, the device outputs'
    /// commands and the images (DaemonOutputs.swift).
    package var outputs: DaemonOutputs
    package var locations: [LocationRuntime]
    /// Calls per location and day, Open-Meteo's weighted calls and pacing, when the counts are
    /// saved, and every source's fetch counters (CallLedger.swift).
    var calls: CallLedger
    /// When each source of each location is fetched: the schedules, the start spread, due
    /// fetches, `refresh`, and the fetches in flight with their watchdog (FetchPlanner.swift).
    var planner: FetchPlanner
    /// The connection, Home Assistant's births and the diagnostics cadence (Presence.swift).
    private(set) var presence: Presence
    /// The state's own marks between events: the wake asked for, the last event's time,
    /// whether it is stopping.
    private var marks = Marks()
    var random: SplitMix64
    /// Locations this shard published and no longer owns (SPEC §11).
    var handover = ShardHandover()
    /// `unit/set` and retained-command rate limits (SPEC §16, CommandLimits.swift).
    var commandLimits = CommandLimits(locations: 0)
    /// The announcement, a second instance on one identity, the tree kept (IdentityGuard.swift).
    var identity: IdentityGuard
    /// `once` and `print`: their phases (OneShot.swift); nil for the daemon. Set, every event
    /// goes to it (DaemonState+OneShot.swift).
    var oneShot: OneShot?

    /// What ``marks`` holds.
    private struct Marks {
        /// The wake last asked for: a completion handled at or after it also does the tick's
        /// work (due fetches, locations whose content edge came, time edges), so no edge is
        /// skipped when completions keep re-arming the timer.
        var wakeAt: Int64 = 0
        /// The time of the last event: a clock stepped back (NTP, a hub's RTC) makes every
        /// location's stored content edge suspect, so all are rebuilt at once.
        var lastEventAt: Int64 = .min
        var stopping = false
    }

    /// The wake last asked for (``Marks/wakeAt``).
    var wakeAt: Int64 { marks.wakeAt }
    /// The sinks' configuration and mode.
    package var context: SinkContext { outputs.context }
    /// `--demo`: no Google call counting or cap (the responses are bundled), no discovery.
    package var demo: Bool { outputs.context.demo }

    package var layout: TopicLayout { context.layout }

    package init(
        config: AgentConfig, locations: [LocationRuntime], storedCalls: [String: CallCount], demo: Bool,
        seed: UInt64
    ) {
        self.config = config
        let layout = config.topicLayout
        let context = SinkContext(config: config, demo: demo)
        self.outputs = DaemonOutputs(
            context: context, sinks: Sinks.all(for: context),
            devices: DeviceCommandState(sinks: Sinks.devices(for: config)),
            images: ImagePipeline(config: config, locations: locations, layout: layout))
        self.presence = Presence(
            broker: "\(config.mqtt.host):\(config.mqtt.port)", discoveryEnabled: context.discoveryEnabled)
        self.locations = locations
        self.planner = FetchPlanner(locations: locations.count, settings: config)
        self.calls = CallLedger(stored: storedCalls, perMinuteOverride: config.endpointsMaxCallsPerMinute)
        self.random = SplitMix64(seed: seed)
        self.commandLimits = CommandLimits(locations: locations.count)
        var instance = SplitMix64(seed: seed ^ 0x9e37_79b9_7f4a_7c15)
        self.identity = IdentityGuard(
            topic: layout.agent, clientID: config.mqtt.clientID,
            instance: String(instance.next(), radix: 16), started: 0)
    }

    /// Host name and process id for the `<p>/agent/…` announcement (the loop knows them).
    package mutating func identify(host: String, pid: Int, started: Int64) {
        identity.identify(host: host, pid: pid, started: started)
    }

    func enabled(_ kind: SourceKind) -> Bool { planner.enabled[kind] }

    // MARK: events

    /// Starting the daemon: spreads the first fetches over a few seconds
    /// (``FetchPlanner/start(now:random:)``) and sets every scope.
    package mutating func start(at time: DaemonTime) -> [DaemonAction] {
        let stretched = stretchOpenMeteoIntervals()
        planner.start(now: time.now, random: &random)
        _ = presence.handle(.started, now: time.now, random: &random)
        return stretched + scopeActions(now: time.now)
    }

    package mutating func handle(_ event: DaemonEvent, at time: DaemonTime) -> [DaemonAction] {
        guard !marks.stopping else { return [] }
        let now = time.now
        if now < marks.lastEventAt {
            // The stored edges were worked out from a later time: at the new time the next
            // midnight or hour may be far earlier than they say.
            for index in locations.indices { locations[index].rebuildAt = .min }
        }
        marks.lastEventAt = now
        // Answered alike in every mode, before the one-shot routing: the stored responses read
        // back at start, the MQTT version the broker took, the outcomes of a watch.
        if case .restored(let index, let responses) = event { return restore(index, responses, now: now) }
        if case .brokerProtocol(let version) = event { return protocolFallback(version) }
        if case .outcomesSettled(let outcomes) = event {
            presence.outcomesSettled()
            return [.reportOutcomes(outcomes, pendingIsLost: false)]
        }
        if oneShot != nil { return handleOneShot(event, at: time) }
        var actions: [DaemonAction] = []
        switch event {
        case .tick:
            actions += abandonStuckFetches(now: now)
            actions += startDueFetches(now: now)
            actions += scopeActions(now: now, edgesOnly: true)
            actions += timeEdges(at: time)
            actions.append(.flush(persist: true))
            actions.append(wake(now: now))
        case .fetched(let key, let outcome):
            actions += complete(key, outcome, now: now)
            if now >= wakeAt {
                // The tick's work, edges included, so the wake below moves past this time: the
                // tick itself may wait behind many queued completions.
                actions += abandonStuckFetches(now: now)
                actions += scopeActions(now: now, edgesOnly: true)
                actions += timeEdges(at: time)
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
            actions += perform(presence.handle(.disconnected(reason: reason), now: now, random: &random), at: time)
            actions += perform(identity.handle(.disconnected, now: now), at: time)
        case .mqtt(.message(let message)):
            actions += handleMessage(message, at: time)
        case .clearsDue:
            actions.append(.flush(persist: true))
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
        case .uploaded(let index, let outcome):
            actions += applyUploaded(index, outcome, now: now)
        case .prepared, .flushed, .outcomes, .restored, .brokerProtocol, .outcomesSettled:
            break  // one-shot only; restored, brokerProtocol and outcomesSettled above
        }
        if !marks.stopping { actions += imageActions(after: event, now: now) }
        // One watch of the outcomes at a time: it takes the outcomes of every publish before it
        // settles (1,000 locations once kept thousands of 30 s waiters).
        if actions.contains(where: { if case .flush = $0 { true } else { false } }), presence.watchOutcomes() {
            actions.append(.watchOutcomes(timeout: Self.outcomeWatch))
        }
        return actions
    }

    /// How long a watch of the broker's outcomes waits at most.
    static let outcomeWatch: Duration = .seconds(30)

    /// The broker accepted another MQTT version than the configured one (it refused MQTT 5):
    /// a warning, since `mqtt.protocol` chooses.
    private func protocolFallback(_ version: MQTTProtocolVersion) -> [DaemonAction] {
        guard version != config.mqtt.protocolVersion else { return [] }
        return [
            .log(
                .warning, "mqtt: the broker refused MQTT 5; fell back to MQTT \(version) (set mqtt.protocol to choose)")
        ]
    }

    /// Maps the presence child's actions to the daemon's.
    private mutating func perform(_ presenceActions: [Presence.Action], at time: DaemonTime) -> [DaemonAction] {
        var actions: [DaemonAction] = []
        for action in presenceActions {
            switch action {
            case .log(let level, let text):
                actions.append(.log(level, text))
            case .announce:
                actions += announce(now: time.now)
            case .publishDiagnostics:
                actions.append(
                    .publish(
                        .init(topic: layout.diagnostics, payload: diagnosticsJSON(at: time), qos: 0, retain: false))
                )
            case .republishDiscovery:
                for location in locations {
                    actions.append(.republish(scope: layout.location(location.config.id).deviceConfig))
                }
            }
        }
        return actions
    }

    /// Maps the identity child's actions to the daemon's.
    private mutating func perform(_ identityActions: [IdentityGuard.Action], at time: DaemonTime) -> [DaemonAction] {
        var actions: [DaemonAction] = []
        for action in identityActions {
            switch action {
            case .announce(let payload):
                actions.append(
                    .publish(.init(topic: identity.topic, payload: payload, qos: config.mqtt.qos, retain: true)))
            case .reassertOnline:
                actions.append(
                    .publish(
                        .init(topic: layout.status, payload: Availability.online, qos: config.mqtt.qos, retain: true)))
            case .reconnectDelay(let seconds):
                actions.append(.reconnectDelay(seconds: seconds))
            case .releaseRemoved(let scopes):
                actions += [.handover(.release(scopes: scopes)), .flush(persist: true)]
            case .publishDiagnostics:
                actions += perform([Presence.Action.publishDiagnostics], at: time)
            case .log(let level, let text):
                actions.append(.log(level, text))
            }
        }
        return actions
    }

    /// Maps the device outputs' actions to the daemon's.
    private func perform(_ deviceActions: [DeviceCommandState.Action]) -> [DaemonAction] {
        deviceActions.map { action in
            switch action {
            case .send(let message): .publish(message)
            case .log(let level, let text): .log(level, text)
            }
        }
    }

    /// `once` and `print`: every device's known commands, whatever its availability
    /// (``DeviceCommandState/sendAll(qos:)``).
    mutating func sendAllDeviceCommands() -> [DaemonAction] { perform(outputs.devices.sendAll(qos: config.mqtt.qos)) }

    /// Connected: subscribe, say `online`, and publish the whole tree again.
    private mutating func announce(now: Int64) -> [DaemonAction] {
        var topics = locations.flatMap { layout.location($0.config.id).commandTopics }
        // Another instance on this identity, and someone else's `offline` on ours (SPEC §16).
        topics += [layout.agent, layout.status]
        if context.discoveryEnabled { topics.append(layout.homeAssistantBirth) }
        // Devices are unknown until their retained status arrives with the subscription.
        outputs.devices.brokerConnected()
        topics += outputs.devices.availabilityTopics
        var actions: [DaemonAction] = [
            .subscribe(topics),
            .publish(.init(topic: layout.status, payload: Availability.online, qos: config.mqtt.qos, retain: true)),
        ]
        let handing = handoverConnected(now: now)
        if !handing.isEmpty { actions += handing + [wake(now: now)] }
        // The broker may have lost its retained store: publish the whole tree again. The
        // publisher forgets trees once flushed (memory per location), so every scope is
        // set again first.
        actions += scopeActions(now: now)
        actions.append(.republishAll)
        return actions
    }

    private mutating func handleMessage(_ message: MQTTMessage, at time: DaemonTime) -> [DaemonAction] {
        let now = time.now
        if let actions = outputs.devices.handle(message, qos: config.mqtt.qos, now: now) {
            // A send held by the per-device limit is due later: the wake covers it.
            return perform(actions) + (outputs.devices.nextDeadline == nil ? [] : [wake(now: now)])
        }
        if handover.observe(topic: message.topic, payload: message.payload) { return [] }
        if message.topic == identity.topic {
            return perform(
                identity.handle(.announcement(message.payload, retained: message.retain), now: now), at: time)
        }
        if message.topic == layout.status {
            return perform(identity.handle(.availability(message.payload), now: now), at: time)
        }
        if message.topic == layout.homeAssistantBirth {
            let online = message.payload.elementsEqual(DiscoveryNaming.birthOnlinePayload.utf8)
            let actions = perform(presence.handle(.birth(online: online), now: now, random: &random), at: time)
            // A re-discovery asked for is a deadline of the one wake.
            return actions.isEmpty ? [] : actions + [wake(now: now)]
        }
        let ids = locations.lazy.map(\.config.id)
        guard let intent = CommandIntent.route(message, layout: layout, locations: ids) else { return [] }
        switch intent {
        case .ignore:
            return []
        case .refuse(let warning):
            return [.log(.warning, warning)]
        case .clearRetained(let warning):
            // Cleared every time; logged once per refresh-cooldown window (SPEC §16).
            let clear = DaemonAction.publish(
                .init(topic: message.topic, payload: "", qos: config.mqtt.qos, retain: true))
            let window = min(
                config.pollen.refreshCooldown.components.seconds, config.climate.refreshCooldown.components.seconds)
            guard let unlogged = commandLimits.retainedCommand(now: now, window: window) else { return [clear] }
            return [
                .log(
                    .warning,
                    warning + (unlogged > 0 ? " (\(unlogged) more retained commands since the last such line)" : "")),
                clear,
            ]
        case .refresh(let id):
            return refresh(locations.firstIndex { $0.config.id == id }!, id: id, now: now)
        case .setUnit(let id, let unit):
            let index = locations.firstIndex { $0.config.id == id }!
            // The unit already shown, with nothing held: nothing to do, no interval started.
            guard unit != locations[index].unit || commandLimits.units[index].pending != nil else { return [] }
            switch commandLimits.unitSet(index, unit, now: now) {
            case .held(let until, let firstHeld):
                guard firstHeld else { return [] }
                return [
                    .log(
                        .info,
                        "command: unit/set on \(id) again within \(CommandLimits.unitInterval) s; the last one is applied in \(until - now) s"
                    ), wake(now: now),
                ]
            case .apply:
                return applyUnit(index, unit, now: now, note: "")
            }
        }
    }

    /// Shows location `index`'s climate in `unit` when it differs from the one shown.
    private mutating func applyUnit(_ index: Int, _ unit: TemperatureUnit, now: Int64, note: String) -> [DaemonAction] {
        guard unit != locations[index].unit else { return note.isEmpty ? [] : [.log(.info, note)] }
        let id = locations[index].config.id
        locations[index].unit = unit
        return [
            .store(.unit(unit.symbol, location: id)),
            .log(.info, "command: climate unit of \(id) is now \(unit.symbol)" + (note.isEmpty ? "" : " (\(note))")),
        ] + scopeActions(now: now, only: index) + [.flush(persist: true)]
    }

    /// The held `unit/set`s whose interval is up (``CommandLimits/dueUnits(now:)``).
    private mutating func applyHeldUnits(now: Int64) -> [DaemonAction] {
        commandLimits.dueUnits(now: now).flatMap { due in
            applyUnit(
                due.index, due.unit, now: now,
                note: "the last of \(due.held) unit/set commands held for \(CommandLimits.unitInterval) s")
        }
    }

    /// A `refresh` command (``FetchPlanner/refresh(_:id:now:)``): what it made due starts now.
    private mutating func refresh(_ index: Int, id: String, now: Int64) -> [DaemonAction] {
        var actions: [DaemonAction] = []
        let planned = planner.refresh(index, id: id, now: now)
        for case .log(let level, let text) in planned { actions.append(.log(level, text)) }
        // The whole tree again, not only what changes (SPEC §16): another client may have
        // cleared it. At most once a minute per location.
        if commandLimits.mayRepublish(index, now: now) {
            for action in scopeActions(now: now, only: index) {
                actions.append(action)
                if case .setScope(let scope) = action { actions.append(.republish(scope: scope.prefix)) }
            }
        }
        for case .startDue(let location) in planned {
            actions += startDueFetches(now: now, changed: location)
            actions.append(wake(now: now))
        }
        return actions
    }

    // MARK: fetching

    /// Asks for every due fetch of an enabled source that is not already in flight. After an
    /// event that changed only the schedules of location `changed`, and before the wake time,
    /// only that location can have come due: others come due with time, which the wake covers
    /// (scanning every location after each of a cycle's N events made it O(N²)).
    private mutating func startDueFetches(now: Int64, changed: Int? = nil) -> [DaemonAction] {
        var actions: [DaemonAction] = []
        let wasIdle = planner.fetches.isIdle
        let scanned = changed.flatMap { now < wakeAt ? $0..<($0 + 1) : nil } ?? locations.indices
        // Each key is paced and begun in order: a key's pacing counts against the next one's.
        for key in planner.due(now: now, in: scanned) {
            actions += startFetch(key, now: now).actions
        }
        // A batch starting from idle saves the counts at once; a batch joining fetches in flight
        // leaves them to the interval or to the end of the batch.
        actions += callCountStore(now: now, force: wasIdle)
        return actions
    }

    /// How a due fetch was started (``startFetch(_:now:)``).
    enum FetchStart: Equatable {
        /// Open-Meteo's pacing moved it on (its schedule says when).
        case deferred
        /// A request is in flight.
        case started
        /// No request was needed (the Google cap, stripes not due).
        case notNeeded
    }

    /// Paces a due fetch (``pace(_:now:)``) and, when it may go now, begins it
    /// (``begin(_:now:)``) and asks the loop to run it.
    mutating func startFetch(_ key: FetchKey, now: Int64) -> (actions: [DaemonAction], start: FetchStart) {
        if let deferred = pace(key, now: now) { return (deferred, .deferred) }
        let (request, notes) = begin(key, now: now)
        guard let request else { return (notes, .notNeeded) }
        planner.fetches.started(key, now: now)
        return (notes + [.fetch(key, request)], .started)
    }

    /// A finished fetch (or one the watchdog gave up on): applied, the location's due fetches
    /// started (`auto` falls back to Open-Meteo at once when Google rejects the key) and the
    /// sinks it feeds rebuilt.
    private mutating func complete(_ key: FetchKey, _ outcome: FetchOutcome, now: Int64) -> [DaemonAction] {
        planner.fetches.finished(key)
        var actions = apply(key, outcome, now: now)
        actions += startDueFetches(now: now, changed: key.location)
        actions += scopeActions(now: now, only: key.location, kind: key.kind)
        return actions
    }

    /// The watchdog's stuck fetches (``FetchTracker/abandonStuck(now:)``): each is logged as
    /// stuck, counted (`fetches.<source>.stuck` in `<p>/diagnostics`, `breeze_fetches_stuck_total`
    /// in `/metrics`), cancelled, and applied as a failed fetch, so its data turns stale and it
    /// is retried on the failure backoff like any other failure.
    mutating func abandonStuckFetches(now: Int64) -> [DaemonAction] {
        var actions: [DaemonAction] = []
        for case .abandon(let key, let message) in planner.fetches.abandonStuck(now: now) {
            let source = config.pollen.source(googleRejected: locations[key.location].googleRejected)
            calls.outcomes.stuck(key.kind == .pollen ? source.diagnosticsKey : key.kind.traits.diagnosticsKey)
            actions.append(.abandonFetch(key))
            actions += complete(
                key, .failure(key.kind, message: message, pollenSource: source, fetchedAt: now), now: now)
        }
        return actions
    }

    func schedule(_ key: FetchKey) -> FetchSchedule { planner[key] }

    /// This installation's day in the 10–31 January refetch window for a location: stable across
    /// restarts (the MQTT client id defaults to `breeze-agent-<hostname>`), different per hub.
    func stripesSpread(_ index: Int) -> Int {
        StripesRequest.spread(seed: config.mqtt.clientID + "/" + locations[index].config.id)
    }

    /// Whether the location has usable data of a kind (fresh or stored).
    func hasData(_ key: FetchKey) -> Bool { locations[key.location].slots.status(key.kind).hasData }

    // MARK: what the sinks hold

    /// Every sink's scopes for every location; after a fetch (`only`, `kind`), only the sinks
    /// that fetch feeds for its location; on a wake (`edgesOnly`), only the locations whose
    /// content edge (``LocationRuntime/nextContentEdge(after:)``: midnight, freshness, the
    /// hour) has come. Rebuilding everything after each of N fetches, or on each of the wakes
    /// that start the first fetches, made a cycle and a cold start O(N²) (bench/RESULTS.md).
    /// A location whose edge has come is rebuilt whole whatever was asked, so no sink skips it.
    mutating func scopeActions(
        now: Int64, only: Int? = nil, kind: SourceKind? = nil, edgesOnly: Bool = false
    ) -> [DaemonAction] {
        var actions: [DaemonAction] = []
        for index in locations.indices where only == nil || only == index {
            let edgeCame = locations[index].rebuildAt <= now
            if edgesOnly && !edgeCame { continue }
            let kind = edgeCame ? nil : kind
            locations[index].rebuildAt = locations[index].nextContentEdge(after: now)
            let (snapshot, warnings) = self.snapshot(index, now: now)
            actions += warnings
            // Sinks not rebuilt now count with their size at their last build.
            var counts = locations[index].topicCounts
            var over: [String] = []
            for sink in outputs.sinks where kind.map({ sink.inputs.contains($0) }) ?? true {
                for var scope in sink.contents(of: snapshot, context: context) {
                    counts[scope.prefix] = 0
                    let budget = Self.maximumTopicsPerLocation - counts.values.reduce(0, +)
                    if let count = scope.tree?.count, count > budget {
                        over.append(scope.prefix)
                        scope = SinkScope(prefix: scope.prefix, tree: nil)
                    } else {
                        counts[scope.prefix] = scope.tree?.count ?? 0
                    }
                    actions.append(.setScope(scope))
                }
            }
            locations[index].topicCounts = counts
            if over.isEmpty {
                if kind == nil { locations[index].topicLimitLogged = [] }
            } else if over != locations[index].topicLimitLogged {
                locations[index].topicLimitLogged = over
                do {
                    actions.append(
                        .log(
                            .error,
                            "\(locations[index].config.id): more than \(Self.maximumTopicsPerLocation) topics; not updating \(over.joined(separator: ", ")) (what is published there stays)"
                        ))
                }
            }
            actions += perform(outputs.devices.update(snapshot, context: context, kind: kind, now: now))
        }
        actions += imageScopes()
        return actions
    }

    /// Most retained topics one location may hold (SPEC §12); a scope that would pass it keeps
    /// what is published there, with an error logged once.
    static let maximumTopicsPerLocation = 2_000

    /// The location as the sinks see it at `now`; logs the selection's warnings once per change.
    private mutating func snapshot(_ index: Int, now: Int64) -> (LocationSnapshot, [DaemonAction]) {
        let pollen = locations[index].pollenView(settings: config.pollen, now: now)
        var actions: [DaemonAction] = []
        if case .selected(let selection, _) = pollen, selection.warnings != locations[index].loggedSelectionWarnings {
            let id = locations[index].config.id
            actions = selection.warnings.map { .log(.warning, "pollen[\(id)]: \($0)") }
            locations[index].loggedSelectionWarnings = selection.warnings
        }
        let location = locations[index]
        return (
            LocationSnapshot(
                location: location, topics: layout.location(location.config.id), pollen: pollen, now: now),
            actions
        )
    }

    /// Every wanted topic, for `print`: locations in config order, sinks in order.
    mutating func printableTree(now: Int64) -> TopicTree {
        var tree = TopicTree()
        for action in scopeActions(now: now) {
            if case .setScope(let scope) = action, let scoped = scope.tree { tree.merge(scoped) }
        }
        return tree
    }

    // MARK: timer and diagnostics

    /// The next time the loop must wake: a due fetch (for one in flight, its watchdog deadline:
    /// its completion wakes the loop before), local midnight, a freshness edge, the next
    /// diagnostics.
    mutating func wake(now: Int64) -> DaemonAction {
        var wake = min(
            presence.nextDeadline, handover.nextDeadline ?? .max, outputs.images.nextDeadline ?? .max,
            commandLimits.nextDeadline ?? .max, outputs.devices.nextDeadline ?? .max, identity.nextDeadline ?? .max)
        // Called after every event, for every location: only stored times are read, in place.
        // Calling a method on an element copied the whole location (retains and releases: 5–8 %
        // of a 1,000-location cycle in perf), and working out the edges from the time zone each
        // time cost as much again; the content edge is the one found at the last build.
        locations.withUnsafeBufferPointer { all in
            // A passed edge is due now (the content only changes with a build).
            for index in all.indices { wake = min(wake, max(all[index].rebuildAt, now)) }
        }
        wake = min(wake, planner.nextDeadline(now: now))
        marks.wakeAt = wake
        return .wake(at: wake)
    }

    /// What is due at a time edge besides the scopes: shard handover decisions,
    /// `<p>/diagnostics` every ``Presence/diagnosticsInterval``, held `unit/set` commands and
    /// device sends (SPEC §16 rate limits), and the identity child's re-announce and checks.
    private mutating func timeEdges(at time: DaemonTime) -> [DaemonAction] {
        decideHandover(now: time.now) + perform(presence.handle(.tick, now: time.now, random: &random), at: time)
            + applyHeldUnits(now: time.now) + perform(outputs.devices.due(now: time.now, qos: config.mqtt.qos))
            + perform(identity.handle(.tick, now: time.now), at: time)
    }

    func diagnosticsJSON(at time: DaemonTime) -> String {
        let perLocation = locations.indices.map { index in
            AgentDiagnostics.LocationCalls(
                locationID: locations[index].config.id, google: callsToday(index, .google, now: time.now),
                openMeteo: callsToday(index, .openMeteo, now: time.now))
        }
        var payload = AgentDiagnostics(
            uptimeSeconds: time.uptimeSeconds, sources: calls.outcomes.statuses, apiCallsToday: perLocation,
            reconnects: presence.reconnects)
        payload.openMeteoCallsToday = calls.openMeteo.today(now: time.now)
        payload.imagesFailing = outputs.images.failing
        payload.identityConflict = identity.diagnostics
        return payload.json.serialized
    }
}
