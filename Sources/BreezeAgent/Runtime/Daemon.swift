import BreezeCore
import BreezeMQTT

#if canImport(Glibc)
    import Glibc
#endif

/// `run`: the daemon's event loop (SPEC §3 scheduling and commands, §5 faults).
///
/// Every event is handled by this one task in arrival order. Fetches run as child tasks and
/// come back as `.completed`; a timer task wakes the loop at the next due time (a fetch, local
/// midnight, a freshness edge, diagnostics), so an idle agent sleeps instead of polling.
extension Agent {
    enum Event: Sendable {
        case mqtt(MQTTEvent)
        case signal(Int32)
        case tick
        /// A granted `refresh`: start the due fetches; nothing to publish until they complete.
        case fetchNow
        case completed(Agent.Kind, Agent.Completed)
        case rediscover
    }

    /// How often `<p>/diagnostics` is published (not retained).
    static let diagnosticsInterval: Int64 = 300
    /// Longest accepted command payload; anything larger is garbage for these commands.
    static let maximumCommandBytes = 64

    func run(client: MQTTClient) async -> Int32 {
        let publisher = RetainedPublisher(
            transport: MQTTTransport(client: client, qos: config.mqtt.qos, log: log), store: store)
        let (events, continuation) = AsyncStream<Event>.makeStream()
        let forwarder = Task {
            for await event in client.events { continuation.yield(.mqtt(event)) }
        }
        let signals = SignalWatcher([SIGTERM, SIGINT, SIGHUP]) { continuation.yield(.signal($0)) }

        var now = Timestamp.nowUnixSeconds()
        restoreStoredResponses(now: now)
        for index in locations.indices {
            // A small random delay before the first fetches, so that many hubs restarted
            // together (a power cut) do not hit the APIs in the same second.
            for kind in [Kind.pollen, .climate] {
                let jitter = Int64.random(in: 0...5)
                if kind == .pollen, locations[index].pollenSchedule.nextDue == 0 {
                    locations[index].pollenSchedule.due(at: now + jitter)
                }
                if kind == .climate, locations[index].climateSchedule.nextDue == 0 {
                    locations[index].climateSchedule.due(at: now + jitter)
                }
            }
        }
        updateScopes(publisher, now: now)

        do {
            try client.start()
        } catch {
            log.error("mqtt: \(error)")
            return Invocation.ExitCode.unavailable
        }
        log.info(
            "breeze-agent \(BreezeVersion.string) running: \(locations.count) location(s), broker \(config.mqtt.host):\(config.mqtt.port), prefix \(prefix)"
        )

        var timer: Task<Void, Never>?
        /// When the timer was last set to fire: a completion handled at or after it also does
        /// the tick's full update, so no time edge is skipped when completions keep re-arming it.
        var timerWake: Int64 = 0
        var fetches: [String: Task<Void, Never>] = [:]
        var connectedBefore = false
        var reconnects = 0
        var nextDiagnostics = now + 60
        let statusTopic = Availability.topic(prefix: prefix)
        let haStatusTopic = DiscoveryNaming.birthTopic(discoveryPrefix: config.homeAssistant.prefix)

        func scheduleTimer() {
            timer?.cancel()
            var wake = nextDiagnostics
            for location in locations {
                wake = min(
                    wake,
                    // A source with a fetch in flight is not waited for: its completion wakes the loop.
                    location.nextWake(
                        after: now,
                        pollenEnabled: config.pollen.enabled && fetches["pollen/\(location.config.id)"] == nil,
                        climateEnabled: config.climate.enabled && fetches["climate/\(location.config.id)"] == nil))
            }
            timerWake = wake
            let delay = max(0, wake - Timestamp.nowUnixSeconds())
            timer = Task {
                try? await Task.sleep(for: .seconds(delay))
                if !Task.isCancelled { continuation.yield(.tick) }
            }
        }

        func startDueFetches() {
            for index in locations.indices {
                let id = locations[index].config.id
                if config.pollen.enabled, fetches["pollen/\(id)"] == nil,
                    locations[index].pollenSchedule.isDue(at: now),
                    let job = pollenJob(index, now: now)
                {
                    fetches["pollen/\(id)"] = Task { continuation.yield(.completed(.pollen, await job())) }
                }
                if config.climate.enabled, fetches["climate/\(id)"] == nil,
                    locations[index].climateSchedule.isDue(at: now)
                {
                    let job = climateJob(index, now: now)
                    fetches["climate/\(id)"] = Task { continuation.yield(.completed(.climate, await job())) }
                }
            }
        }

        func handleCommand(_ message: MQTTMessage) {
            if message.topic == haStatusTopic {
                guard discoveryEnabled, message.payloadString == DiscoveryNaming.birthOnlinePayload else { return }
                var generator = SystemRandomNumberGenerator()
                let delay = DiscoveryNaming.reannounceDelay(using: &generator)
                log.info("Home Assistant is online: re-sending discovery in \(delay)")
                Task {
                    try? await Task.sleep(for: delay)
                    continuation.yield(.rediscover)
                }
                return
            }
            guard message.topic.hasPrefix(prefix + "/") else { return }
            let parts = message.topic.dropFirst(prefix.count + 1).split(
                separator: "/", omittingEmptySubsequences: false)
            guard parts.count >= 2, let index = locations.firstIndex(where: { $0.config.id == parts[0] }) else {
                return
            }
            let command = parts.dropFirst().joined(separator: "/")
            guard command == "refresh" || command == "climate/unit/set" else { return }
            if message.retain {
                guard !message.payload.isEmpty else { return }
                log.warning(
                    "command: ignoring retained message on \(message.topic) (commands must not be retained); clearing it"
                )
                _ = MQTTTransport(client: client, qos: config.mqtt.qos, log: log).send(
                    topic: message.topic, payload: "", retain: true)
                return
            }
            // An empty payload is the echo of clearing a retained command, not a command.
            guard !message.payload.isEmpty else { return }
            guard message.payload.count <= Self.maximumCommandBytes else {
                log.warning(
                    "command: ignoring \(message.payload.count)-byte payload on \(message.topic) (at most \(Self.maximumCommandBytes))"
                )
                return
            }
            let id = locations[index].config.id
            if command == "refresh" {
                let pollen = config.pollen.enabled && locations[index].pollenSchedule.refresh(at: now)
                let climate = config.climate.enabled && locations[index].climateSchedule.refresh(at: now)
                log.info(
                    "command: refresh \(id): pollen \(pollen ? "now" : "skipped (cooldown)"), climate \(climate ? "now" : "skipped (cooldown)")"
                )
                if pollen || climate { continuation.yield(.fetchNow) }
                return
            }
            let text = String(decoding: message.payload, as: UTF8.self)
            guard String(validating: message.payload, as: UTF8.self) != nil, let unit = TemperatureUnit(command: text)
            else {
                log.warning(
                    "command: refused unit \(quotedForLog(text)) on \(message.topic); expected celsius, fahrenheit, C, F, °C or °F"
                )
                return
            }
            guard unit != locations[index].unit else { return }
            locations[index].unit = unit
            store.saveUnit(unit.symbol, for: id)
            log.info("command: climate unit of \(id) is now \(unit.symbol)")
            updateScopes(publisher, now: now)
            publisher.flush()
        }

        continuation.yield(.tick)
        var exitCode = Invocation.ExitCode.success
        loop: for await event in events {
            now = Timestamp.nowUnixSeconds()
            switch event {
            case .tick:
                startDueFetches()
                updateScopes(publisher, now: now)
                publisher.flush()
                if now >= nextDiagnostics {
                    // Not retained: skipped while disconnected, but always rescheduled, or the
                    // timer would keep firing at a time already past.
                    if client.isConnected {
                        try? client.publish(
                            AgentDiagnostics.topic(prefix: prefix), diagnosticsJSON(now: now, reconnects: reconnects),
                            qos: 0, retain: false)
                    }
                    nextDiagnostics = now + Self.diagnosticsInterval
                }
                scheduleTimer()
            case .fetchNow:
                startDueFetches()
                scheduleTimer()
            case .completed(let kind, let completed):
                let index: Int
                switch completed {
                case .pollen(let i, _), .climate(let i, _): index = i
                }
                fetches["\(kind.rawValue)/\(locations[index].config.id)"] = nil
                apply(completed, now: now)
                // `auto` falls back to Open-Meteo at once when Google rejects the key: start it now.
                startDueFetches()
                if now >= timerWake {
                    updateScopes(publisher, now: now)
                } else {
                    updateScopes(publisher, now: now, only: index, kind: kind)
                }
                // Saved once the last fetch in flight is done, not after each of them.
                publisher.flush(persist: fetches.isEmpty)
                scheduleTimer()
            case .mqtt(.connected):
                if connectedBefore { reconnects += 1 }
                connectedBefore = true
                log.info("mqtt: connected to \(config.mqtt.host):\(config.mqtt.port)")
                for location in locations {
                    try? client.subscribe("\(prefix)/\(location.config.id)/refresh", qos: 1)
                    try? client.subscribe("\(prefix)/\(location.config.id)/climate/unit/set", qos: 1)
                }
                if discoveryEnabled { try? client.subscribe(haStatusTopic, qos: 1) }
                try? client.publish(statusTopic, Availability.online, qos: config.mqtt.qos, retain: true)
                // The broker may have lost its retained store: publish the whole tree again.
                let sent = publisher.republishAll()
                log.debug("mqtt: republished \(sent) retained topics")
            case .mqtt(.disconnected(let reason)):
                log.warning("mqtt: disconnected (\(reason)); reconnecting with backoff")
            case .mqtt(.message(let message)):
                handleCommand(message)
            case .rediscover:
                for location in locations {
                    publisher.republish(
                        scope: DiscoveryNaming.configTopic(
                            discoveryPrefix: config.homeAssistant.prefix, topicPrefix: prefix,
                            locationID: location.config.id))
                }
            case .signal(SIGHUP):
                log.warning("SIGHUP: reloading the configuration is not supported; restart the agent to apply changes")
            case .signal(let number):
                log.info("signal \(number == SIGTERM ? "SIGTERM" : "SIGINT"): shutting down")
                exitCode = Invocation.ExitCode.success
                break loop
            }
        }

        timer?.cancel()
        publisher.persist()
        for task in fetches.values { task.cancel() }
        forwarder.cancel()
        if client.isConnected {
            try? client.publish(statusTopic, Availability.offline, qos: max(1, config.mqtt.qos), retain: true)
            _ = await client.waitForAcknowledgements(timeout: .milliseconds(1500))
        }
        await client.stop()
        _ = signals
        log.info("stopped")
        return exitCode
    }
}
