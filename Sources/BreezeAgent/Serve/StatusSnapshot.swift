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

import BreezeCore

/// What `GET /` and `GET /api/state.json` show (SPEC §13), captured from the daemon's state at
/// one moment. A value: the HTTP server's threads render it without touching the state machine.
struct StatusSnapshot: Sendable {
    let config: AgentConfig
    let now: Int64
    let demo: Bool
    let mqttConnected: Bool
    let locations: [LocationRuntime]
    /// Per location (same order): Google and Open-Meteo calls of its local day.
    let callsToday: [(google: Int, openMeteo: Int)]
    /// The `<p>/diagnostics` counters: per source last success and last error.
    let diagnostics: AgentDiagnostics

    init(
        config: AgentConfig, now: Int64, demo: Bool, mqttConnected: Bool, locations: [LocationRuntime],
        callsToday: [(google: Int, openMeteo: Int)], diagnostics: AgentDiagnostics
    ) {
        self.config = config
        self.now = now
        self.demo = demo
        self.mqttConnected = mqttConnected
        self.locations = locations
        self.callsToday = callsToday
        self.diagnostics = diagnostics
    }

    /// The location as the broker's sinks see it now (the same freshness rules and selection).
    func sinkSnapshot(_ index: Int) -> LocationSnapshot {
        let location = locations[index]
        return LocationSnapshot(
            location: location, topics: config.topicLayout.location(location.config.id),
            pollen: location.pollenView(settings: config.pollen, now: now), now: now)
    }

    var sinkContext: SinkContext { SinkContext(config: config, layout: config.topicLayout, discoveryEnabled: false) }
}

extension DaemonState {
    /// The status endpoints' view of the state at `time`.
    func statusSnapshot(at time: DaemonTime) -> StatusSnapshot {
        var payload = AgentDiagnostics(
            uptimeSeconds: time.uptimeSeconds, sources: diagnostics.statuses,
            apiCallsToday: locations.indices.map {
                AgentDiagnostics.LocationCalls(
                    locationID: locations[$0].config.id, google: callsToday($0, .google, now: time.now),
                    openMeteo: callsToday($0, .openMeteo, now: time.now))
            }, reconnects: reconnects)
        payload.openMeteoCallsToday = openMeteoCalls.today(now: time.now)
        return StatusSnapshot(
            config: config, now: time.now, demo: demo, mqttConnected: connected, locations: locations,
            callsToday: payload.apiCallsToday.map { ($0.google, $0.openMeteo) }, diagnostics: payload)
    }
}

// MARK: GET /

extension StatusSnapshot {
    /// The page's model: the same selections, texts and colors as the broker's topics.
    var page: StatusPage {
        var attributions: [String] = []
        func attribute(_ text: String) {
            if !attributions.contains(text) { attributions.append(text) }
        }
        let palette = config.pollen.colors
        var shown: [StatusLocation] = []
        for index in locations.indices {
            let location = locations[index]
            let today = location.today(at: now)

            let pollen: StatusSection<StatusPollen>
            var risks: [StatusRisk] = []
            switch location.pollenView(settings: config.pollen, now: now) {
            case _ where !config.pollen.enabled: pollen = .off
            case .unknown: pollen = .waiting
            case .unavailable:
                if case .unsupported(let message) = location.pollen {
                    pollen = .unavailable("No pollen here: \(message)")
                } else {
                    pollen = .unavailable("No pollen here.")
                }
            case .selected(let selection, let fetchedAt):
                pollen = .data(StatusPollen(selection: selection, fetchedAt: fetchedAt, palette: palette))
                attribute(selection.source.attribution(year: selection.today.year))
                risks = config.profiles.map {
                    StatusRisk(assessment: RiskAssessment.evaluate(profile: $0, selection: selection), palette: palette)
                }
            }

            let climate: StatusSection<StatusClimate>
            let stripes: StatusSection<StatusStripes>
            if !config.climate.enabled {
                climate = .off
                stripes = .off
            } else {
                if let data = location.climate {
                    climate = .data(
                        StatusClimate(
                            trend: data.trend, unit: location.unit, fetchedAt: data.fetchedAt,
                            stale: location.climateStale))
                    attribute(ClimateTopics.attribution)
                } else {
                    climate = .waiting
                }
                if let data = location.stripes {
                    stripes = .data(StatusStripes(series: data.series))
                    attribute(ClimateTopics.attribution)
                } else {
                    stripes = .waiting
                }
            }

            let air: StatusSection<StatusAir>
            if !config.air.enabled {
                air = .off
            } else if let data = location.air {
                let reading = AirReading.select(report: data.report, zone: location.zone, now: now)
                air = .data(StatusAir(reading: reading, fetchedAt: data.fetchedAt, stale: location.airStale))
                attribute(AirTopics.attribution(year: today.year))
            } else {
                air = .waiting
            }

            let calls = index < callsToday.count ? callsToday[index] : (google: 0, openMeteo: 0)
            shown.append(
                StatusLocation(
                    id: location.config.id, name: location.config.name, pollen: pollen, climate: climate,
                    stripes: stripes, air: air, risks: risks, googleCallsToday: calls.google,
                    openMeteoCallsToday: calls.openMeteo))
        }
        return StatusPage(
            version: BreezeVersion.string, generatedAt: UTCTimestamp.rfc3339(unixSeconds: now),
            mqttConnected: mqttConnected, demo: demo, locations: shown, sources: sources, attributions: attributions)
    }

    /// Every source this configuration uses, and any other that has reported, with its health.
    var sources: [StatusSource] {
        var keys: [String] = []
        if config.pollen.enabled {
            if config.pollen.source != .openMeteo && !(config.pollen.source == .auto && config.pollen.apiKey == nil) {
                keys.append(PollenSource.google.diagnosticsKey)
            }
            if config.pollen.source != .google { keys.append(PollenSource.openMeteo.diagnosticsKey) }
        }
        if config.climate.enabled {
            keys += [DaemonState.climateDiagnosticsKey, DaemonState.stripesDiagnosticsKey]
        }
        if config.air.enabled { keys.append(DaemonState.airDiagnosticsKey) }
        for status in diagnostics.sources where !keys.contains(status.source) { keys.append(status.source) }

        let openMeteo = diagnostics.openMeteoCallsToday
        func requests(_ source: String) -> Int { openMeteo.first { $0.source == source }?.requests ?? 0 }
        return keys.map { key in
            let status = diagnostics.sources.first { $0.source == key }
            let stale: Bool
            let calls: Int
            switch key {
            case PollenSource.google.diagnosticsKey:
                stale = locations.contains { $0.pollenStale }
                calls = diagnostics.apiCallsToday.reduce(0) { $0 + $1.google }
            case PollenSource.openMeteo.diagnosticsKey:
                stale = locations.contains { $0.pollenStale }
                calls = requests("pollen")
            case DaemonState.climateDiagnosticsKey:
                stale = locations.contains { $0.climateStale }
                calls = requests("climate")
            case DaemonState.airDiagnosticsKey:
                stale = locations.contains { $0.airStale }
                calls = requests("air")
            case DaemonState.stripesDiagnosticsKey:
                stale = false
                calls = requests("stripes")
            default:
                stale = false
                calls = 0
            }
            return StatusSource(
                key: key, lastSuccess: status?.lastSuccess,
                lastError: status?.lastError.map { $0.at + ": " + $0.message }, stale: stale, callsToday: calls)
        }
    }
}

// MARK: GET /api/state.json

extension StatusSnapshot {
    /// `{version, generated_at, demo, mqtt_connected, locations: [{id, name, pollen, climate,
    /// stripes, air, risk: {<profile>: …}}], diagnostics}`: each location's payloads are the bytes
    /// the broker's sinks publish on `<p>/<loc>/pollen`, `…/climate`, `…/climate/stripes`,
    /// `…/air` and `…/risk/<profile>` (null when the sink holds nothing there now), and
    /// `diagnostics` is the `<p>/diagnostics` document — one spelling for both.
    var stateJSON: String {
        let context = sinkContext
        var locationsJSON: [String] = []
        for index in locations.indices {
            let snapshot = sinkSnapshot(index)
            let topics = snapshot.topics
            func payload(_ sink: any RetainedSink, _ topic: String) -> String {
                let trees = sink.contents(of: snapshot, context: context).compactMap(\.tree)
                for tree in trees {
                    if let text = tree[topic], !text.isEmpty { return text }
                }
                return "null"
            }
            var risk: [(String, String)] = []
            if !config.profiles.isEmpty {
                let trees = RiskTreeSink().contents(of: snapshot, context: context).compactMap(\.tree)
                for profile in config.profiles {
                    let text = trees.lazy.compactMap { $0[topics.riskProfile(profile.id)] }.first
                    risk.append((profile.id, text ?? "null"))
                }
            }
            let location = locations[index].config
            locationsJSON.append(
                RawJSON.object([
                    ("id", JSONValue.string(location.id).serialized),
                    ("name", JSONValue.string(location.name).serialized),
                    ("pollen", payload(PollenTreeSink(), topics.pollen)),
                    ("climate", payload(ClimateTreeSink(), topics.climate)),
                    ("stripes", payload(StripesTreeSink(), topics.climateStripes)),
                    ("air", config.air.enabled ? payload(AirTreeSink(), topics.air) : "null"),
                    ("risk", RawJSON.object(risk)),
                ]))
        }
        return RawJSON.object([
            ("version", JSONValue.string(BreezeVersion.string).serialized),
            ("generated_at", JSONValue.string(UTCTimestamp.rfc3339(unixSeconds: now)).serialized),
            ("demo", demo ? "true" : "false"),
            ("mqtt_connected", mqttConnected ? "true" : "false"),
            ("locations", "[" + locationsJSON.joined(separator: ",") + "]"),
            ("diagnostics", diagnostics.json.serialized),
        ]) + "\n"
    }
}

/// Joins already serialized JSON documents (the broker's payloads) into one, unchanged.
enum RawJSON {
    static func object(_ members: [(key: String, json: String)]) -> String {
        "{" + members.map { JSONValue.string($0.key).serialized + ":" + $0.json }.joined(separator: ",") + "}"
    }
}

/// The HTTP side of the two status endpoints (SPEC §13).
enum StatusEndpoints {
    static let pagePath = "/"
    static let statePath = "/api/state.json"
    static let stateContentType = "application/json; charset=utf-8"

    /// Headers both responses carry: the page's CSP (no scripts, nothing from outside) and no
    /// caching, since both change with every fetch.
    static let headers: [(name: String, value: String)] = [
        ("Content-Security-Policy", StatusPage.contentSecurityPolicy),
        ("X-Content-Type-Options", "nosniff"),
        ("Cache-Control", "no-store"),
    ]

    /// The body and content type of `path`, or nil for any other path.
    static func response(path: String, snapshot: StatusSnapshot) -> (contentType: String, body: String)? {
        switch path {
        case pagePath: return (StatusPage.contentType, snapshot.page.html)
        case statePath: return (stateContentType, snapshot.stateJSON)
        default: return nil
        }
    }
}
