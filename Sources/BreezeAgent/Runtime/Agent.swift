import BreezeCore
import BreezeMQTT
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The agent: owns the per-location state, runs the fetches, and keeps the broker's retained
/// tree equal to what the state says (SPEC §3, §5).
///
/// One task owns all state: `run` handles its events (MQTT, commands, signals, timer, finished
/// fetches) one at a time; fetches run in child tasks and report back as events, so a slow API
/// never delays a command or a shutdown. `once` and `print` use the same pieces in sequence.
final class Agent {
    let config: AgentConfig
    let log: Log
    let store: StateStore
    let pollenFetcher: PollenFetcher
    let climateFetcher: ClimateFetcher
    /// `--demo`: bundled responses, prefix `breeze-demo`, no discovery.
    let demo: Bool
    var locations: [LocationRuntime]
    var calls: [String: StateStore.CallCount]
    var diagnostics = DiagnosticsCounters()
    let started = Timestamp.monotonicSeconds()

    var prefix: String { config.mqtt.topicPrefix }
    var discoveryEnabled: Bool { config.homeAssistant.discovery && !demo }

    init(config: AgentConfig, log: Log, store: StateStore, http: any HTTPFetching, demo: Bool, now: Int64)
        throws(ZoneInfoError)
    {
        self.config = config
        self.log = log
        self.store = store
        self.demo = demo
        self.pollenFetcher = PollenFetcher(http: http, endpoints: config.endpoints, settings: config.pollen)
        self.climateFetcher = ClimateFetcher(http: http, endpoints: config.endpoints, years: config.climate.years)
        let units = store.units()
        var locations: [LocationRuntime] = []
        for location in config.locations {
            let zone = try ZoneInfoLoader.load(location.timezone)
            let unit = units[location.id].flatMap { TemperatureUnit(command: $0) } ?? config.climate.unit
            locations.append(LocationRuntime(config: location, zone: zone, settings: config, unit: unit))
        }
        self.locations = locations
        self.calls = store.callCounts()
    }

    // MARK: stored responses (restarts spend no quota)

    /// Loads the last good responses; a source whose stored data is still within its schedule
    /// is not fetched again until it ages out (SPEC §5).
    func restoreStoredResponses(now: Int64) {
        for index in locations.indices {
            let id = locations[index].config.id
            if config.pollen.enabled {
                let source = pollenFetcher.source(googleRejected: false)
                if let stored = store.response(location: id, source: "pollen-\(source.rawValue)") {
                    let response = FetchedResponse(status: 200, body: Array(stored.body.utf8))
                    if case .report(let report, _, _) = PollenFetcher.interpret(
                        response, source: source, fetchedAt: stored.fetchedAt)
                    {
                        locations[index].pollen = .report(report, fetchedAt: stored.fetchedAt)
                        locations[index].pollenSchedule.freshUntil(
                            fetchedAt: stored.fetchedAt, jitter: .random(in: 0..<1))
                        log.info(
                            "pollen[\(id)]: restored data fetched \(UTCTimestamp.rfc3339(unixSeconds: stored.fetchedAt))"
                        )
                    } else {
                        log.warning("pollen[\(id)]: stored response is not usable; ignoring it")
                    }
                }
            }
            if config.climate.enabled, let stored = store.response(location: id, source: "climate"),
                let bodies = try? JSONDecoderShim.decode(ClimateBodies.self, stored.body),
                let date = CivilDate(iso: bodies.date)
            {
                let result = ClimateFetcher.compute(
                    bodies, today: date, years: config.climate.years, fetchedAt: stored.fetchedAt, log: log,
                    location: id)
                if case .trend(let trend, _, _) = result {
                    locations[index].climate = .init(trend: trend, fetchedAt: stored.fetchedAt)
                    if date == locations[index].today(at: now) {
                        locations[index].climateSchedule.due(at: locations[index].nextMidnight(after: now))
                    } else {
                        locations[index].climateStale = true
                    }
                    log.info("climate[\(id)]: restored data for \(date)")
                }
            }
        }
    }

    // MARK: fetching

    enum Kind: String, Sendable { case pollen, climate }

    enum Completed: Sendable {
        case pollen(index: Int, PollenFetchResult)
        case climate(index: Int, ClimateFetchResult)
    }

    /// Whether a Google call is allowed for the location today (`pollen.max_calls_per_day`).
    func googleCallAllowed(_ index: Int, now: Int64) -> Bool {
        let key = "\(locations[index].config.id).google"
        let today = locations[index].today(at: now).description
        guard let count = calls[key], count.date == today else { return true }
        return count.calls < config.pollen.maxCallsPerDay
    }

    func countCall(_ index: Int, source: String, now: Int64) {
        let key = "\(locations[index].config.id).\(source)"
        let today = locations[index].today(at: now).description
        var count = calls[key] ?? .init(date: today, calls: 0)
        if count.date != today { count = .init(date: today, calls: 0) }
        count.calls += 1
        calls[key] = count
        store.saveCallCounts(calls)
    }

    func callsToday(_ index: Int, source: String, now: Int64) -> Int {
        let key = "\(locations[index].config.id).\(source)"
        guard let count = calls[key], count.date == locations[index].today(at: now).description else { return 0 }
        return count.calls
    }

    /// Prepares a pollen fetch: picks the source, applies the daily cap. nil when capped.
    func pollenJob(_ index: Int, now: Int64) -> (@Sendable () async -> Completed)? {
        let source = pollenFetcher.source(googleRejected: locations[index].googleRejected)
        let id = locations[index].config.id
        if source == .google && !demo {
            guard googleCallAllowed(index, now: now) else {
                let warning = "cap"
                if locations[index].pollenWarned != warning {
                    log.warning(
                        "pollen[\(id)]: daily Google call cap reached (pollen.max_calls_per_day = \(config.pollen.maxCallsPerDay)); next call after local midnight"
                    )
                    locations[index].pollenWarned = warning
                }
                locations[index].pollenSchedule.due(at: locations[index].nextMidnight(after: now))
                return nil
            }
        }
        countCall(index, source: source == .google ? "google" : "open_meteo", now: now)
        locations[index].pollenSchedule.started(at: now)
        let fetcher = pollenFetcher
        let location = locations[index].config
        return { .pollen(index: index, await fetcher.fetch(location, source: source, now: now)) }
    }

    func climateJob(_ index: Int, now: Int64) -> @Sendable () async -> Completed {
        let fetcher = climateFetcher
        let location = locations[index].config
        let today = locations[index].today(at: now)
        let log = self.log
        countCall(index, source: "open_meteo", now: now)
        locations[index].climateSchedule.started(at: now)
        return { .climate(index: index, await fetcher.fetch(location, today: today, now: now, log: log)) }
    }

    /// Applies a finished fetch to the state (and the store); returns true when it succeeded.
    @discardableResult
    func apply(_ completed: Completed, now: Int64) -> Bool {
        switch completed {
        case .pollen(let index, let result): return applyPollen(index, result, now: now)
        case .climate(let index, let result): return applyClimate(index, result, now: now)
        }
    }

    private func applyPollen(_ index: Int, _ result: PollenFetchResult, now: Int64) -> Bool {
        let id = locations[index].config.id
        switch result {
        case .report(let report, let body, let fetchedAt):
            locations[index].pollen = .report(report, fetchedAt: fetchedAt)
            locations[index].pollenStale = false
            locations[index].pollenWarned = nil
            locations[index].pollenSchedule.succeeded(at: now, jitter: .random(in: 0..<1))
            for warning in report.warnings { log.warning("pollen[\(id)]: \(warning)") }
            store.saveResponse(
                .init(fetchedAt: fetchedAt, body: String(decoding: body, as: UTF8.self)), location: id,
                source: "pollen-\(report.source.rawValue)")
            diagnostics.success(Self.diagnosticsKey(report.source), at: now)
            log.info("pollen[\(id)]: fetched from \(report.source.rawValue) (\(report.days.count) days)")
            return true
        case .unsupported(let unsupportedSource, let message):
            locations[index].pollen = .unsupported(message: message)
            locations[index].pollenStale = false
            locations[index].pollenSchedule.succeeded(at: now, jitter: .random(in: 0..<1))
            store.removeResponse(location: id, source: "pollen-\(unsupportedSource.rawValue)")
            diagnostics.success(Self.diagnosticsKey(unsupportedSource), at: now)
            if locations[index].pollenWarned != "unsupported" {
                if unsupportedSource == .openMeteo {
                    log.warning(
                        "pollen[\(id)]: no key-free pollen here (\(message)); Open-Meteo covers Europe only — set pollen.api_key for Google pollen; climate keeps running"
                    )
                } else {
                    log.warning(
                        "pollen[\(id)]: Google has no pollen for this location (\(message)); pollen topics cleared")
                }
                locations[index].pollenWarned = "unsupported"
            }
            return true
        case .keyRejected(let message):
            diagnostics.failure(Self.diagnosticsKey(.google), at: now, message: message)
            if config.pollen.source == .auto {
                locations[index].googleRejected = true
                locations[index].pollenSchedule.due(at: now)
                log.error("pollen[\(id)]: Google rejected the API key (\(message)); using key-free Open-Meteo instead")
            } else {
                locations[index].pollenSchedule.keyRejected(at: now)
                locations[index].pollenStale = locations[index].pollen != nil
                log.error(
                    "pollen[\(id)]: Google rejected the API key (\(message)); not retrying for 24 h — fix pollen.api_key"
                )
            }
            return false
        case .failed(let failedSource, let message, let retryAfter):
            locations[index].pollenStale = locations[index].pollen != nil
            let delay = locations[index].pollenSchedule.failed(
                at: now, retryAfter: retryAfter, jitter: .random(in: 0..<1))
            diagnostics.failure(Self.diagnosticsKey(failedSource), at: now, message: message)
            log.warning("pollen[\(id)]: fetch from \(failedSource.rawValue) failed: \(message); retry in \(delay) s")
            return false
        }
    }

    private func applyClimate(_ index: Int, _ result: ClimateFetchResult, now: Int64) -> Bool {
        let id = locations[index].config.id
        switch result {
        case .trend(let trend, let bodies, let fetchedAt):
            locations[index].climate = .init(trend: trend, fetchedAt: fetchedAt)
            locations[index].climateStale = false
            locations[index].climateSchedule.due(
                at: locations[index].nextMidnight(after: now) + Int64.random(in: 0..<300))
            if let json = try? JSONEncoderShim.encode(bodies) {
                store.saveResponse(.init(fetchedAt: fetchedAt, body: json), location: id, source: "climate")
            }
            diagnostics.success("open_meteo_climate", at: now)
            log.info("climate[\(id)]: fetched \(trend.points.count) years for \(trend.date)")
            return true
        case .failed(let message, let retryAfter):
            locations[index].climateStale = locations[index].climate != nil
            let delay = locations[index].climateSchedule.failed(
                at: now, retryAfter: retryAfter, jitter: .random(in: 0..<1))
            diagnostics.failure("open_meteo_climate", at: now, message: message)
            log.warning("climate[\(id)]: fetch failed: \(message); retry in \(delay) s")
            return false
        }
    }

    /// The source names of `<p>/diagnostics` (`fetches`, `last_success`, `last_error`).
    static func diagnosticsKey(_ source: PollenSource) -> String {
        source == .google ? "google_pollen" : "open_meteo_pollen"
    }

    // MARK: the wanted tree

    /// Sets every scope of every location on the publisher from the current state.
    ///
    /// `only` and `kind` narrow it to what one completed fetch changed: building the trees is
    /// the bulk of a cycle's CPU (the discovery payload above all), and rebuilding every
    /// location after each of N fetches made a cycle cost O(N²) (bench/RESULTS.md). Time-driven
    /// changes (staleness edges, midnight) still come from the full update on every tick.
    func updateScopes(_ publisher: RetainedPublisher, now: Int64, only: Int? = nil, kind: Kind? = nil) {
        for index in locations.indices where only == nil || only == index {
            let location = locations[index]
            if kind != .climate {
                publisher.set(
                    scope: location.pollenScope(prefix: prefix),
                    location.pollenTree(prefix: prefix, settings: config.pollen, now: now))
            }
            if kind != .pollen {
                publisher.set(
                    scope: location.climateScope(prefix: prefix),
                    location.climateTree(prefix: prefix, enabled: config.climate.enabled))
            }
            // The device config lists the pollen items; climate's part of it depends on config only.
            if discoveryEnabled, kind != .climate {
                let scope = DiscoveryNaming.configTopic(
                    discoveryPrefix: config.homeAssistant.prefix, topicPrefix: prefix, locationID: location.config.id)
                publisher.set(scope: scope, discoveryTree(location, now: now))
            }
        }
    }

    /// The location's device config; nil while pollen is not known yet (so a restart does not
    /// briefly remove the pollen entities).
    func discoveryTree(_ location: LocationRuntime, now: Int64) -> TopicTree? {
        guard let items = location.pollenItems(settings: config.pollen, now: now) else { return nil }
        let input = DiscoveryInput(
            topicPrefix: prefix, discoveryPrefix: config.homeAssistant.prefix, agentVersion: BreezeVersion.string,
            qos: config.mqtt.qos, location: .init(id: location.config.id, name: location.config.name),
            pollenAvailable: !items.isEmpty, pollenItems: items, climateEnabled: config.climate.enabled)
        let message = HomeAssistantDiscovery.deviceConfig(for: input)
        var tree = TopicTree()
        tree.set(message.topic, message.payload)
        return tree
    }

    /// All wanted topics, for `print`: scopes in location order.
    func printableTree(now: Int64) -> TopicTree {
        var tree = TopicTree()
        for location in locations {
            if let t = location.pollenTree(prefix: prefix, settings: config.pollen, now: now) { tree.merge(t) }
            if let t = location.climateTree(prefix: prefix, enabled: config.climate.enabled) { tree.merge(t) }
            if discoveryEnabled, let t = discoveryTree(location, now: now) { tree.merge(t) }
        }
        return tree
    }

    func diagnosticsJSON(now: Int64, reconnects: Int) -> String {
        let perLocation = locations.indices.map { index in
            AgentDiagnostics.LocationCalls(
                locationID: locations[index].config.id, google: callsToday(index, source: "google", now: now),
                openMeteo: callsToday(index, source: "open_meteo", now: now))
        }
        return AgentDiagnostics(
            uptimeSeconds: Int(Timestamp.monotonicSeconds() - started), sources: diagnostics.statuses,
            apiCallsToday: perLocation, reconnects: reconnects
        ).json.serialized
    }
}

/// Fetch counters per source for `<p>/diagnostics`.
struct DiagnosticsCounters {
    private(set) var bySource: [String: AgentDiagnostics.SourceStatus] = [:]

    mutating func success(_ source: String, at now: Int64) {
        var status = bySource[source] ?? .init(source: source)
        status.fetchesOK += 1
        status.lastSuccess = UTCTimestamp.rfc3339(unixSeconds: now)
        bySource[source] = status
    }

    mutating func failure(_ source: String, at now: Int64, message: String) {
        var status = bySource[source] ?? .init(source: source)
        status.fetchesFailed += 1
        status.lastError = (UTCTimestamp.rfc3339(unixSeconds: now), message)
        bySource[source] = status
    }

    var statuses: [AgentDiagnostics.SourceStatus] { bySource.keys.sorted().map { bySource[$0]! } }
}
