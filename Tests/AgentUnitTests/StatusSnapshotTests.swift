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

@testable import BreezeAgent
@testable import BreezeDaemon
@testable import BreezeConfig
import BreezeCore
import BreezeServe
import Foundation
import Testing

/// `GET /` and `GET /api/state.json` from the daemon's state (SPEC §13): the same payloads as
/// the broker, the page built from the same selection.
@Suite("Status endpoints from the daemon's state")
struct StatusSnapshotTests {
    typealias T = DaemonStateTests
    typealias A = DaemonAirTests

    /// Pollen, climate, air and a profile, all fetched once; the location named `<script>…`.
    static func fedState() throws -> (DaemonState, [DaemonAction]) {
        let config = try T.config(
            """
            air: {enabled: true, interval: 1h}
            profiles:
              - {id: anna, name: Anna, allergens: [grass, tree], alert_level: High}
            """,
            locations: """
                locations:
                  - {id: home, name: "<script>alert(1)</script>", latitude: 52.52, longitude: 13.405, timezone: UTC}
                """)
        var (state, _) = T.started(config)
        let now = T.t0 + 7
        var actions: [DaemonAction] = []
        actions += state.handle(.fetched(T.pollenKey, T.pollenOK(now)), at: T.at(now))
        actions += state.handle(.fetched(T.climateKey, try T.climateOK(now)), at: T.at(now))
        actions += state.handle(.fetched(A.airKey, A.airOK(now)), at: T.at(now))
        return (state, actions)
    }

    /// What the HTTP server would hand the status endpoints at `now`.
    static func snapshot(_ state: DaemonState, at now: Int64) -> StatusSnapshot {
        StatusSnapshot(
            serve: state.serveSnapshot(at: T.at(now), publishedTopics: 0), config: state.config, demo: false)
    }

    /// The payload the broker got last on `topic`.
    static func published(_ actions: [DaemonAction], _ topic: String) -> String? {
        T.scopes(actions).compactMap { $0.tree?[topic] }.last
    }

    @Test func stateJSONCarriesTheBrokersPayloads() throws {
        let (state, actions) = try Self.fedState()
        let snapshot = Self.snapshot(state, at: T.t0 + 8)
        let text = snapshot.stateJSON
        // Valid JSON, and each payload byte for byte what the broker holds.
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(document["version"] as? String == BreezeVersion.string)
        #expect(document["mqtt_connected"] as? Bool == false)
        let locations = try #require(document["locations"] as? [[String: Any]])
        #expect(locations.count == 1)
        #expect(locations[0]["name"] as? String == "<script>alert(1)</script>")
        for topic in ["breeze/home/pollen", "breeze/home/climate", "breeze/home/air", "breeze/home/risk/anna"] {
            let payload = try #require(Self.published(actions, topic), "\(topic)")
            #expect(text.contains(payload), "\(topic)")
        }
        #expect(text.contains(#""pollen":{"date":"2026-06-15""#))
        #expect(text.contains(#""risk":{"anna":{"level":"High""#))
        // No stripes fetched yet: null, not a made-up document.
        #expect(text.contains(#""stripes":null"#))
        // The source status is the `<p>/diagnostics` document.
        let diagnostics = try #require(document["diagnostics"] as? [String: Any])
        let lastSuccess = try #require(diagnostics["last_success"] as? [String: Any])
        #expect(lastSuccess["google_pollen"] as? String == UTCTimestamp.rfc3339(unixSeconds: T.t0 + 7))
    }

    @Test func pageShowsTheSameLevelsAndEscapesTheName() throws {
        let (state, _) = try Self.fedState()
        let page = Self.snapshot(state, at: T.t0 + 8).page
        let location = try #require(page.locations.first)
        guard case .data(let pollen) = location.pollen else {
            Issue.record("pollen: \(location.pollen)")
            return
        }
        // The fixture's grass 4 is today's max: High, as `breeze/home/pollen/max/level` says.
        #expect(pollen.max.level == "High")
        #expect(pollen.max.label == "Grass")
        #expect(pollen.days.map(\.level) == ["High", "Very High", "Unknown", "Unknown", "Unknown"])
        guard case .data(let climate) = location.climate else {
            Issue.record("climate: \(location.climate)")
            return
        }
        #expect(climate.bars.map(\.year) == [1980, 2020, 2026])
        #expect(location.stripes == .waiting)
        #expect(location.risks.map(\.level.level) == ["High"])
        #expect(location.risks.map(\.alert) == [true])
        #expect(page.attributions.contains("Includes pollen data from Google"))
        #expect(page.attributions.contains(ClimateTopics.attribution))
        #expect(page.sources.map(\.key).contains("google_pollen"))

        let html = page.html
        #expect(html.contains("<h2>&lt;script&gt;alert(1)&lt;/script&gt;</h2>"))
        #expect(!html.contains("<script"))
    }

    @Test func responsesAndHeaders() throws {
        let (state, _) = try Self.fedState()
        let snapshot = Self.snapshot(state, at: T.t0 + 8)
        let csp = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'"
        let page = try #require(StatusEndpoints.response(path: "/", snapshot: snapshot))
        #expect(page.status == 200)
        #expect(page.header("Content-Type") == "text/html; charset=utf-8")
        #expect(page.header("Content-Security-Policy") == csp)
        #expect(String(decoding: page.body, as: UTF8.self).hasPrefix("<!DOCTYPE html>"))
        let json = try #require(StatusEndpoints.response(path: "/api/state.json", snapshot: snapshot))
        #expect(json.header("Content-Type") == "application/json; charset=utf-8")
        #expect(json.header("Content-Security-Policy") == csp)
        #expect(StatusEndpoints.response(path: "/api/other", snapshot: snapshot) == nil)

        // Registered in the agent's site: the allow list and the common headers apply.
        let site = HTTPSite(
            allow: [try CIDR(parsing: "127.0.0.1/32")],
            pages: StatusEndpoints.pages(config: state.config, demo: false))
        let serve = state.serveSnapshot(at: T.at(T.t0 + 8), publishedTopics: 0)
        func request(_ path: String, from peer: String) throws -> HTTPServerRequest {
            HTTPServerRequest(method: "GET", path: path, query: [], peer: IPAddress(peer))
        }
        let answered = site.respond(to: try request("/", from: "127.0.0.1"), snapshot: serve)
        #expect(answered.status == 200)
        #expect(answered.header("Content-Security-Policy") == csp)
        #expect(answered.header("X-Content-Type-Options") == "nosniff")
        #expect(site.respond(to: try request("/api/state.json", from: "127.0.0.1"), snapshot: serve).status == 200)
        #expect(site.respond(to: try request("/", from: "10.0.0.9"), snapshot: serve).status == 403)
    }

    /// SPEC §16: `/` and `/api/state.json` are built once per snapshot generation and served
    /// from that copy; a new generation builds them again; `?location=` is built per request.
    @Test func pagesAreBuiltOncePerSnapshotGeneration() throws {
        let lines = (0..<2).map { "  - {id: l\($0), latitude: 50.0, longitude: 10.0, timezone: UTC}" }
        let state = T.machine(try T.config(locations: "locations:\n" + lines.joined(separator: "\n")))
        let site = HTTPSite(
            allow: [try CIDR(parsing: "127.0.0.1/32")], pages: StatusEndpoints.pages(config: state.config, demo: false))
        func get(_ path: String, _ serve: ServeSnapshot, query: [(key: String, value: String?)] = []) -> String {
            String(
                decoding: site.respond(
                    to: HTTPServerRequest(method: "GET", path: path, query: query, peer: IPAddress("127.0.0.1")),
                    snapshot: serve
                ).body, as: UTF8.self)
        }
        var first = state.serveSnapshot(at: T.at(T.t0), publishedTopics: 0)
        first.generation = 1
        var later = state.serveSnapshot(at: T.at(T.t0 + 3600), publishedTopics: 0)
        later.generation = 1
        let stamp = { (serve: ServeSnapshot) in
            "\"generated_at\":\"\(UTCTimestamp.rfc3339(unixSeconds: serve.takenAt.unixSeconds))\""
        }
        for path in ["/", "/api/state.json"] {
            let built = get(path, first)
            // The same generation: the kept answer, although this snapshot would read otherwise.
            #expect(get(path, later) == built, "\(path)")
            later.generation = 2
            #expect(get(path, later) != built, "\(path)")
            later.generation = 1
        }
        later.generation = 2
        #expect(get("/api/state.json", later).contains(stamp(later)))
        // One location: per request, from the snapshot given.
        later.generation = 2
        var other = state.serveSnapshot(at: T.at(T.t0 + 7200), publishedTopics: 0)
        other.generation = 2
        #expect(get("/api/state.json", other, query: [("location", "l1")]).contains(stamp(other)))
        // Snapshots not handed over (no generation) are never kept.
        var loose = state.serveSnapshot(at: T.at(T.t0 + 60), publishedTopics: 0)
        loose.generation = nil
        #expect(get("/api/state.json", loose).contains(stamp(loose)))
    }

    @Test func aFleetCostsARequestAtMost250Locations() throws {
        let lines = (0..<260).map { "  - {id: l\($0), latitude: 50.0, longitude: 10.0, timezone: UTC}" }
        let state = T.machine(try T.config(locations: "locations:\n" + lines.joined(separator: "\n")))
        let page = Self.snapshot(state, at: T.t0).page
        #expect(page.locations.count == StatusPage.maximumModelledLocations)
        #expect(page.omittedLocations == 10)
        let html = page.html
        #expect(html.utf8.count <= StatusPage.maximumBytes)
        #expect(html.contains("· 260 locations ·"))
        #expect(html.contains("more locations are not shown"))
    }

    /// `?location=<id>` narrows the document to one location; an unknown id is a 404 naming it.
    @Test func stateJSONForOneLocation() throws {
        let lines = (0..<3).map { "  - {id: l\($0), latitude: 50.0, longitude: 10.0, timezone: UTC}" }
        let state = T.machine(try T.config(locations: "locations:\n" + lines.joined(separator: "\n")))
        let serve = state.serveSnapshot(at: T.at(T.t0), publishedTopics: 0)
        let site = HTTPSite(
            allow: [try CIDR(parsing: "127.0.0.1/32")], pages: StatusEndpoints.pages(config: state.config, demo: false))
        func get(_ query: [(key: String, value: String?)]) throws -> (Int, [String: Any]) {
            let response = site.respond(
                to: HTTPServerRequest(
                    method: "GET", path: "/api/state.json", query: query, peer: IPAddress("127.0.0.1")),
                snapshot: serve)
            let document = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            return (response.status, document)
        }
        let (status, one) = try get([("location", "l1")])
        #expect(status == 200)
        let ids = try #require(one["locations"] as? [[String: Any]]).map { $0["id"] as? String }
        #expect(ids == ["l1"])
        #expect((one["left_out"] as? [Any])?.isEmpty == true)
        let (all, every) = try get([])
        #expect(all == 200)
        #expect(try #require(every["locations"] as? [[String: Any]]).count == 3)
        let (missing, error) = try get([("location", "nowhere")])
        #expect(missing == 404)
        #expect(error["error"] as? String == #"no location "nowhere""#)
        #expect(try get([("location", nil)]).0 == 404)
    }

    /// The document is bounded: locations past the limit are named in `left_out`, in order, and
    /// every location is in exactly one of the two lists.
    @Test func stateJSONIsBoundedAndNamesWhatItLeavesOut() throws {
        let lines = (0..<40).map { "  - {id: l\($0), latitude: 50.0, longitude: 10.0, timezone: UTC}" }
        let state = T.machine(try T.config(locations: "locations:\n" + lines.joined(separator: "\n")))
        let snapshot = Self.snapshot(state, at: T.t0)
        let whole = try #require(snapshot.stateJSON(only: nil))
        let document = try #require(try JSONSerialization.jsonObject(with: Data(whole.utf8)) as? [String: Any])
        #expect(try #require(document["locations"] as? [[String: Any]]).count == 40)
        #expect((document["left_out"] as? [Any])?.isEmpty == true)

        let limit = 2_000
        let text = try #require(snapshot.stateJSON(only: nil, maximumBytes: limit))
        let bounded = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let shown = try #require(bounded["locations"] as? [[String: Any]]).compactMap { $0["id"] as? String }
        let leftOut = try #require(bounded["left_out"] as? [String])
        #expect(!shown.isEmpty && !leftOut.isEmpty)
        #expect(shown + leftOut == (0..<40).map { "l\($0)" })
        // The locations' part of the answer stays within the limit.
        let locationsPart = try JSONSerialization.data(withJSONObject: bounded["locations"]!)
        #expect(locationsPart.count <= limit)
        #expect(StatusSnapshot.maximumStateBytes == 1 << 20)
    }

    @Test func beforeAnyFetchEverythingWaits() throws {
        let state = T.machine(try T.config())
        let snapshot = Self.snapshot(state, at: T.t0)
        let location = try #require(snapshot.page.locations.first)
        #expect(location.pollen == .waiting)
        #expect(location.climate == .waiting)
        #expect(location.air == .off)
        #expect(snapshot.stateJSON.contains(#""pollen":null,"climate":null,"stripes":null,"air":null,"risk":{}"#))
    }
}
