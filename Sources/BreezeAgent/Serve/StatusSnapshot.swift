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
import BreezeServe
import Synchronization

/// What `GET /` and `GET /api/state.json` show (docs/http.md): the HTTP server's snapshot of the
/// daemon's state (``ServeSnapshot``, the one `/healthz` and `/metrics` read) with the run's
/// settings. A value: the server's thread renders it without touching the state machine.
struct StatusSnapshot: Sendable {
    let serve: ServeSnapshot
    let config: AgentConfig
    /// `--demo`: the page says the data is made up.
    let demo: Bool

    var now: DaemonInstant { serve.takenAt }

    /// The location as the broker's sinks see it now (the same freshness rules and selection).
    func sinkSnapshot(_ index: Int) -> LocationSnapshot {
        let location = serve.locations[index].runtime
        return LocationSnapshot(
            location: location, topics: config.topicLayout.location(location.config.id),
            pollen: location.pollenView(settings: config.pollen, now: now), now: now)
    }

    var sinkContext: SinkContext { SinkContext(config: config, demo: demo) }

    /// The `<p>/diagnostics` document's counters as the snapshot has them (no reconnect count).
    var sourcesJSON: JSONValue {
        var diagnostics = AgentDiagnostics(
            uptimeSeconds: serve.uptimeSeconds, sources: serve.fetches,
            apiCallsToday: serve.locations.map {
                .init(locationID: $0.id, google: $0.googleCallsToday, openMeteo: $0.openMeteoCallsToday)
            }, reconnects: 0)
        diagnostics.openMeteoCallsToday = serve.openMeteoCallsToday
        guard case .object(let members) = diagnostics.json else { return diagnostics.json }
        return .object(members.filter { $0.key != "reconnects" })
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
        let language = config.language
        var shown: [StatusLocation] = []
        for index in serve.locations.indices.prefix(StatusPage.maximumModelledLocations) {
            let location = serve.locations[index].runtime
            let today = location.today(at: now)

            let pollen: StatusSection<StatusPollen>
            var risks: [StatusRisk] = []
            switch location.pollenView(settings: config.pollen, now: now) {
            case _ where !config.pollen.enabled: pollen = .off
            case .unknown: pollen = .waiting
            case .unavailable:
                if case .unsupported(let message) = location.pollen {
                    pollen = .unavailable(language.text(.pageNoPollenBecause, ["reason": message]))
                } else {
                    pollen = .unavailable(language.text(.pageNoPollen))
                }
            case .selected(let selection, let fetchedAt):
                let view = selection.hourlyView(
                    zone: location.zone, now: now.unixSeconds, fetchedAt: fetchedAt.unixSeconds)
                var status = StatusPollen(
                    selection: selection, fetchedAt: fetchedAt.unixSeconds, palette: palette, view: view,
                    airOut: config.airOut, season: location.season, language: language)
                // docs/reference.md, "Several sources": the sources read, the DWD region, the consensus.
                let sources = location.pollenSourcesToday(settings: config.pollen, now: now)
                if !sources.isEmpty {
                    status.source = sources.map(\.source.displayName).joined(separator: " + ")
                    for source in sources { attribute(source.source.attribution(year: selection.today.year)) }
                }
                if location.dwdReport(settings: config.pollen, now: now) != nil,
                    let region = location.config.dwdRegion.flatMap(DWDRegions.region(key:))
                {
                    status.region = "\(region.key), \(region.name)"
                }
                status.consensus = StatusConsensus.rows(
                    PollenConsensusTopics.carried(sources), palette: palette, language: language)
                pollen = .data(status)
                attribute(selection.source.attribution(year: selection.today.year))
                risks = config.profiles.map {
                    StatusRisk(
                        assessment: RiskAssessment.evaluate(profile: $0, selection: selection), palette: palette,
                        view: view, airOut: config.airOut, language: language)
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
                            trend: data.trend, unit: location.unit, fetchedAt: data.fetchedAt.unixSeconds,
                            stale: location.stale.climate, language: language))
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
                let reading = AirReading.select(report: data.report, zone: location.zone, now: now.unixSeconds)
                air = .data(
                    StatusAir(
                        reading: reading, fetchedAt: data.fetchedAt.unixSeconds, stale: location.stale.air,
                        language: language))
                attribute(AirTopics.attribution(year: today.year))
            } else {
                air = .waiting
            }

            var shownLocation =
                StatusLocation(
                    id: location.config.id, name: location.config.name, pollen: pollen, climate: climate,
                    stripes: stripes, air: air, risks: risks, googleCallsToday: serve.locations[index].googleCallsToday,
                    openMeteoCallsToday: serve.locations[index].openMeteoCallsToday,
                    images: serve.locations[index].renderedImages.map {
                        StatusImage(id: $0.id, kind: $0.kind, width: $0.width, height: $0.height, format: $0.format)
                    })
            shownLocation.zone = location.zone
            shown.append(shownLocation)
        }
        var page = StatusPage(
            version: serve.version, generatedAt: UTCTimestamp.rfc3339(unixSeconds: now.unixSeconds),
            mqttConnected: serve.mqttConnected, demo: demo, locations: shown, sources: sources,
            attributions: attributions)
        page.omittedLocations = serve.locations.count - shown.count
        page.language = language
        page.zone = serve.locations.first?.runtime.zone
        return page
    }

    /// Every source this configuration uses (the snapshot lists them from the start), with its
    /// health: stale when any location's data from it is stale.
    var sources: [StatusSource] {
        func requests(_ source: String) -> Int {
            serve.openMeteoCallsToday.first { $0.source == source }?.requests ?? 0
        }
        return serve.fetches.map { status in
            let kind: SourceKind?
            let calls: Int
            switch status.source {
            case PollenSource.google.diagnosticsKey:
                kind = .pollen
                calls = serve.locations.reduce(0) { $0 + $1.googleCallsToday }
            default:
                kind = SourceKind.allCases.first { $0.traits.diagnosticsKey == status.source }
                calls = kind.map { requests($0.rawValue) } ?? 0
            }
            let stale = serve.locations.contains { location in
                location.sources.contains { $0.kind == kind && $0.state == .stale }
            }
            return StatusSource(
                key: status.source, lastSuccess: status.lastSuccess,
                lastError: status.lastError.map { $0.at + ": " + $0.message }, stale: stale, callsToday: calls)
        }
    }
}

// MARK: GET /api/state.json

extension StatusSnapshot {
    /// The most bytes the locations of one `/api/state.json` answer take (docs/operations.md):
    /// each answer is held until sent (libmicrohttpd copies it per connection), and up to 256
    /// connections may be waiting, so it is bounded. About 70 demo-sized locations (14 KB each) fit; the rest are
    /// named in `left_out` and read one by one with `?location=<id>`.
    static let maximumStateBytes = 1 << 20

    /// `{version, generated_at, demo, mqtt_connected, locations: [{id, name, sources, pollen,
    /// climate, stripes, air, risk: {<profile>: …}}], left_out: [<id>…], diagnostics}`: each
    /// location's payloads are the bytes the broker's sinks publish on `<p>/<loc>/pollen`,
    /// `…/climate`, `…/climate/stripes`, `…/air` and `…/risk/<profile>` (null when the sink
    /// holds nothing there now); `sources` says per source `fresh`, `stale`, `pending` or
    /// `unavailable` (as `/healthz`); `diagnostics` is the `<p>/diagnostics` document without
    /// its reconnect count. Locations past ``maximumStateBytes`` are not serialized: their ids
    /// are in `left_out`, in config order.
    var stateJSON: String { stateJSON(only: nil)! }

    /// The state document with every location (`only` nil) or just the location `only` (nil
    /// when there is no such location); `maximumBytes` is for tests.
    func stateJSON(only: String?, maximumBytes: Int = maximumStateBytes) -> String? {
        var indices = Array(serve.locations.indices)
        if let only {
            guard let index = indices.first(where: { serve.locations[$0].runtime.config.id == only }) else {
                return nil
            }
            indices = [index]
        }
        var locationsJSON: [String] = []
        var bytes = 0
        var leftOut: [JSONValue] = []
        for index in indices {
            guard leftOut.isEmpty else {
                leftOut.append(.string(serve.locations[index].runtime.config.id))
                continue
            }
            let json = locationJSON(index)
            if bytes + json.utf8.count + 1 > maximumBytes {
                leftOut.append(.string(serve.locations[index].runtime.config.id))
                continue
            }
            bytes += json.utf8.count + 1
            locationsJSON.append(json)
        }
        return RawJSON.object([
            ("version", JSONValue.string(serve.version).serialized),
            ("generated_at", JSONValue.string(UTCTimestamp.rfc3339(unixSeconds: now.unixSeconds)).serialized),
            ("demo", demo ? "true" : "false"),
            ("mqtt_connected", serve.mqttConnected ? "true" : "false"),
            ("locations", "[" + locationsJSON.joined(separator: ",") + "]"),
            ("left_out", JSONValue.array(leftOut).serialized),
            ("diagnostics", sourcesJSON.serialized),
        ]) + "\n"
    }

    /// One location of the state document.
    private func locationJSON(_ index: Int) -> String {
        let context = sinkContext
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
        let location = serve.locations[index].runtime.config
        let sources = JSONValue.object(
            serve.locations[index].sources.map { JSONMember($0.kind.rawValue, .string($0.state.rawValue)) })
        return RawJSON.object([
            ("id", JSONValue.string(location.id).serialized),
            ("name", JSONValue.string(location.name).serialized),
            ("sources", sources.serialized),
            ("pollen", payload(PollenTreeSink(), topics.pollen.name)),
            ("climate", payload(ClimateTreeSink(), topics.climate.name)),
            ("stripes", payload(StripesTreeSink(), topics.climateStripes.name)),
            ("air", config.air.enabled ? payload(AirTreeSink(), topics.air.name) : "null"),
            ("risk", RawJSON.object(risk)),
        ])
    }
}

/// Joins already serialized JSON documents (the broker's payloads) into one, unchanged.
enum RawJSON {
    static func object(_ members: [(key: String, json: String)]) -> String {
        "{" + members.map { JSONValue.string($0.key).serialized + ":" + $0.json }.joined(separator: ",") + "}"
    }
}

/// The HTTP side of the two status endpoints (docs/http.md), registered in the agent's site.
enum StatusEndpoints {
    static let pagePath = "/"
    static let statePath = "/api/state.json"
    static let stateContentType = "application/json; charset=utf-8"

    /// The page's CSP (no scripts, nothing from outside) on both answers; the site adds
    /// `nosniff` and `no-store` to every answer.
    static let headers: [(name: String, value: String)] = [
        ("Content-Security-Policy", StatusPage.contentSecurityPolicy)
    ]

    /// The answer for `path`, or nil for any other path. `location` (the `?location=<id>` of
    /// `/api/state.json`) narrows the state document to one location; an unknown one is 404.
    static func response(path: String, snapshot: StatusSnapshot, location: String? = nil) -> HTTPServerResponse? {
        switch path {
        case pagePath:
            return HTTPServerResponse(
                status: 200, contentType: StatusPage.contentType, text: snapshot.page.html, headers: headers)
        case statePath:
            guard let text = snapshot.stateJSON(only: location) else {
                let message = "no location " + doubleQuoted(location ?? "", maxScalars: 64)
                let body = JSONValue.object([JSONMember("error", .string(message))]).serialized + "\n"
                return HTTPServerResponse(status: 404, contentType: stateContentType, text: body, headers: headers)
            }
            return HTTPServerResponse(status: 200, contentType: stateContentType, text: text, headers: headers)
        default: return nil
        }
    }

    /// The site's page providers for this run's settings. `/` and the whole `/api/state.json`
    /// are built once per snapshot generation (docs/operations.md, Limits) and served from that copy; a
    /// `?location=` answer (one location) is built per request.
    static func pages(config: AgentConfig, demo: Bool) -> [String: PageProvider] {
        let built = BuiltAnswers()
        var pages: [String: PageProvider] = [:]
        for path in [pagePath, statePath] {
            pages[path] = { serve, request in
                // The last `location=` wins, as in most query parsers; without a value it names no location.
                let location =
                    path == statePath ? request.query.last(where: { $0.key == "location" }).map { $0.value ?? "" } : nil
                let build = {
                    response(
                        path: path, snapshot: StatusSnapshot(serve: serve, config: config, demo: demo),
                        location: location) ?? HTTPServerResponse(status: 404)
                }
                guard location == nil, let generation = serve.generation else { return build() }
                return built.answer(path, generation: generation, build: build)
            }
        }
        return pages
    }
}

/// The last answer built per path with the snapshot generation it was built from: while the
/// generation is the same, that answer is served again instead of being built per request.
final class BuiltAnswers: Sendable {
    private let answers = Mutex<[String: (generation: UInt64, response: HTTPServerResponse)]>([:])

    /// The answer kept for `path` if it was built from `generation`; otherwise `build()`'s,
    /// kept from now on. Building happens outside the lock.
    func answer(_ path: String, generation: UInt64, build: () -> HTTPServerResponse) -> HTTPServerResponse {
        if let kept = answers.withLock({ $0[path] }), kept.generation == generation { return kept.response }
        let response = build()
        answers.withLock { $0[path] = (generation, response) }
        return response
    }
}
