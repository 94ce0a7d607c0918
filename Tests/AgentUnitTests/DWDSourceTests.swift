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
import BreezeConfig
import BreezeCore
import Foundation
import Testing

/// The DWD source's configuration (docs/reference.md, "DWD"): `pollen.sources`, the shorthand,
/// `locations[].dwd_region` and what `check-config` says of it.
@Suite("DWD: pollen.sources, dwd_region, check-config")
struct DWDConfigTests {
    static let three = """
        locations:
          - {id: berlin, latitude: 52.52, longitude: 13.405, timezone: Europe/Berlin}
          - {id: rostock, latitude: 54.09, longitude: 12.13, timezone: Europe/Berlin}
          - {id: munich, latitude: 48.137, longitude: 11.575, timezone: Europe/Berlin}
          - {id: boston, latitude: 42.36, longitude: -71.06, timezone: America/New_York}
        """

    @Test("auto: the DWD for the German locations, each region from its coordinates, named by check-config")
    func regionsFromCoordinates() throws {
        let config = try ConfigSandbox().load(Self.three)
        #expect(config.pollen.dwd)
        #expect(config.pollen.source == .auto)
        #expect(config.locations.map(\.dwdRegion) == [50, 20, 121, nil])
        #expect(config.locations.allSatisfy { !$0.dwdRegionGiven })
        let printed = renderEffective(config)
        #expect(printed.contains("# dwd_region: 50  Brandenburg und Berlin (nearest to the coordinates)"))
        #expect(printed.contains("# dwd_region: 20  Mecklenburg-Vorpommern (nearest to the coordinates)"))
        #expect(printed.contains("# dwd_region: 121  Bayern: Allgäu/Oberbayern/Bay. Wald"))
        #expect(printed.contains("# dwd_region: none (outside Germany: no DWD pollen)"))
        #expect(printed.contains("dwd: \"https://opendata.dwd.de\""))
        #expect(
            renderOpenMeteoBudget(config).contains(
                "# DWD pollen (key-free): 1 request per new document for 3 location(s) in Germany"))
    }

    @Test("dwd_region overrides the coordinates: 20 and 50 are the regions without partregions")
    func override() throws {
        let config = try ConfigSandbox().load(
            """
            locations:
              - {id: a, latitude: 52.52, longitude: 13.405, timezone: Europe/Berlin, dwd_region: 20}
              - {id: b, latitude: 54.09, longitude: 12.13, timezone: Europe/Berlin, dwd_region: 50}
              - {id: c, latitude: 42.36, longitude: -71.06, timezone: America/New_York, dwd_region: 112}
            """)
        #expect(config.locations.map(\.dwdRegion) == [20, 50, 112])
        #expect(config.locations.allSatisfy { $0.dwdRegionGiven })
        #expect(renderEffective(config).contains("dwd_region: 20  # Mecklenburg-Vorpommern\n"))
    }

    @Test("bad values name the file, the line and the key")
    func errors() throws {
        let sandbox = try ConfigSandbox()
        let file = sandbox.root.appendingPathComponent("config.yaml").path
        let region = try #require(
            sandbox.failure(
                """
                locations:
                  - {id: a, latitude: 52.52, longitude: 13.405, timezone: Europe/Berlin, dwd_region: 10}
                """))
        #expect(
            region.description.hasPrefix("\(file):2: locations[0].dwd_region: expected a DWD region: one of 11, 12, 20")
        )
        #expect(region.description.hasSuffix("got \"10\""))
        let word = try #require(
            sandbox.failure(
                """
                locations:
                  - {id: a, latitude: 52.52, longitude: 13.405, timezone: Europe/Berlin, dwd_region: berlin}
                """))
        #expect(word.keyPath == "locations[0].dwd_region")
        let unknown = try #require(sandbox.failure(oneLocation + "\npollen:\n  sources: [open-meteo, dvd]\n"))
        #expect(
            unknown.description
                == "\(file):4: pollen.sources: expected a list of one or more of \"google\", \"open-meteo\", \"dwd\" (in order), got \"dvd\""
        )
        let twice = try #require(sandbox.failure(oneLocation + "\npollen:\n  sources: [dwd, dwd]\n"))
        #expect(twice.description == "\(file):4: pollen.sources: \"dwd\" is listed twice")
        let both = try #require(sandbox.failure(oneLocation + "\npollen:\n  source: auto\n  sources: [dwd]\n"))
        #expect(both.keyPath == "pollen.sources")
        #expect(both.message.contains("not both"))
        let scalar = try #require(sandbox.failure(oneLocation + "\npollen:\n  sources: dwd\n"))
        #expect(scalar.keyPath == "pollen.sources")
        let url = try #require(sandbox.failure(oneLocation + "\nendpoints:\n  dwd: ftp://x\n"))
        #expect(url.keyPath == "endpoints.dwd")
    }

    @Test("sources: the ordered list, the shorthand, and what check-config prints loads back the same")
    func sources() throws {
        let sandbox = try ConfigSandbox()
        func load(_ pollen: String) throws -> PollenSettings {
            try sandbox.load(oneLocation + "\npollen:\n  \(pollen)\n").pollen
        }
        let list = try load("sources: [open-meteo, dwd]")
        #expect((list.source, list.dwd, list.dwdFirst) == (.openMeteo, true, false))
        let first = try load("sources: [dwd, open-meteo]")
        #expect((first.source, first.dwd, first.dwdFirst) == (.openMeteo, true, true))
        let alone = try load("source: dwd")
        #expect((alone.source, alone.dwd) == (.dwd, true))
        let google = try load("source: google\n  api_key: k-0123456789")
        #expect((google.source, google.dwd) == (.google, false))
        let openMeteo = try load("source: open-meteo")
        #expect(!openMeteo.dwd)
        for pollen in ["sources: [open-meteo, dwd]", "sources: [dwd, open-meteo]", "source: dwd", "source: auto"] {
            let config = try sandbox.load(oneLocation + "\npollen:\n  \(pollen)\n")
            let again = try sandbox.load(renderEffective(config))
            #expect(again.pollen.sourceList == config.pollen.sourceList, "\(pollen)")
            #expect(again.pollen.dwdFirst == config.pollen.dwdFirst, "\(pollen)")
        }
    }
}

/// The DWD source in the daemon: one request for every German location, its items in the
/// pollen topics, a 304 keeping the document, one log line for a location outside Germany.
@Suite("DWD: one shared fetch, its items in the pollen tree, 304")
struct DWDDaemonTests {
    typealias T = DaemonStateTests

    /// A document issued on t0's Berlin date (2026-06-15 11:00 CEST = 09:00 UTC).
    static let body = Array(
        """
        {"last_update":"2026-06-15 11:00 Uhr","next_update":"2026-06-16 11:00 Uhr","content":[\
        {"region_id":50,"region_name":"Brandenburg und Berlin","partregion_id":-1,"partregion_name":"",\
        "Pollen":{"Hasel":{"today":"1-2","tomorrow":"2","dayafter_to":"-1"},"Roggen":{"today":"0-1","tomorrow":"1","dayafter_to":"1"}}},\
        {"region_id":120,"region_name":"Bayern","partregion_id":121,"partregion_name":"Allgäu/Oberbayern/Bay. Wald",\
        "Pollen":{"Hasel":{"today":"3","tomorrow":"2-3","dayafter_to":"2"}}}]}
        """.utf8)

    static func config() throws -> AgentConfig {
        try T.config(
            "climate: {enabled: false}", pollen: "sources: [dwd]",
            locations: """
                locations:
                  - {id: berlin, latitude: 52.52, longitude: 13.405, timezone: UTC}
                  - {id: munich, latitude: 48.137, longitude: 11.575, timezone: UTC}
                  - {id: paris, latitude: 48.85, longitude: 2.35, timezone: UTC}
                """, dwd: true)
    }

    static func requests(_ actions: [DaemonAction]) -> [FetchRequest] {
        actions.compactMap { if case .fetch(_, let request) = $0 { request } else { nil } }
    }

    static func pollenTree(_ actions: [DaemonAction], _ id: String) -> TopicTree? {
        T.scopes(actions).first { $0.prefix == "breeze/\(id)/pollen" }?.tree ?? nil
    }

    @Test("one request serves every German location; each gets its region's items; Paris one log line")
    func oneRequestForAll() throws {
        let config = try Self.config()
        var (state, actions) = T.started(config)
        #expect(T.fetches(actions) == [FetchKey(location: 0, kind: .dwd)])
        let request = try #require(Self.requests(actions).first)
        let get = try #require(request.gets(in: config).first)
        #expect(get.url == "https://opendata.dwd.de/climate_environment/health/alerts/s31fg.json")
        #expect(get.headers.isEmpty)
        #expect(
            T.logs(actions, .info).filter { $0.hasPrefix("dwd[") } == [
                "dwd[berlin]: DWD region 50, Brandenburg und Berlin",
                "dwd[munich]: DWD region 121, Bayern: Allgäu/Oberbayern/Bay. Wald",
                "dwd[paris]: outside Germany (no DWD region): no DWD pollen for this location",
            ])
        // A document without Munich's region: one warning naming it, Berlin's items as before.
        let withoutMunich = Array(
            String(decoding: Self.body, as: UTF8.self).replacingOccurrences(of: "121", with: "122").utf8)
        var other = T.machine(config)
        _ = other.start(at: T.at(T.t0))
        let otherRequest = try #require(Self.requests(other.handle(.tick, at: T.at(T.t0 + 6))).first)
        let partial = otherRequest.interpret([FetchedResponse(status: 200, body: withoutMunich)], in: config)
        let partialActions = other.handle(.fetched(FetchKey(location: 0, kind: .dwd), partial), at: T.at(T.t0 + 7))
        #expect(
            T.logs(partialActions, .warning) == [
                "dwd: the document has no region 121 (munich): no DWD pollen there until one does"
            ])
        #expect(Self.pollenTree(partialActions, "berlin")?["breeze/berlin/pollen/hazel/value"] == "2")
        let fetched = request.interpret([FetchedResponse(status: 200, body: Self.body)], in: config)
        actions = state.handle(.fetched(FetchKey(location: 0, kind: .dwd), fetched), at: T.at(T.t0 + 7))
        let berlin = try #require(Self.pollenTree(actions, "berlin"))
        let munich = try #require(Self.pollenTree(actions, "munich"))
        #expect(berlin["breeze/berlin/pollen/hazel/value"] == "2")
        #expect(berlin["breeze/berlin/pollen/hazel/d1/value"] == "3")
        #expect(berlin["breeze/berlin/pollen/rye/level"] == "Low")
        #expect(try #require(berlin["breeze/berlin/pollen/hazel"]).contains(#""dwd_index":"1-2""#))
        #expect(munich["breeze/munich/pollen/hazel/value"] == "4")
        #expect(munich["breeze/munich/pollen/hazel/level"] == "High")
        // Paris: no DWD region, so with `sources: [dwd]` its pollen tree is empty.
        #expect(Self.pollenTree(actions, "paris")?["breeze/paris/pollen/hazel/value"] == nil)
        // The next ask is conditional; a 304 keeps the document and its topics.
        let next = state.schedule(FetchKey(location: 0, kind: .dwd)).nextDue.unixSeconds
        #expect(next == T.t0 - 3600 + 86_400)  // next_update: 2026-06-16 09:00 UTC
        let tick = state.handle(.tick, at: T.at(next))
        actions = tick
        let again = try #require(Self.requests(actions).first)
        let conditional = try #require(again.gets(in: config).first)
        #expect(conditional.headers.map(\.name) == ["If-Modified-Since"])
        #expect(conditional.headers.first?.value == "Mon, 15 Jun 2026 10:00:06 GMT")
        let notModified = again.interpret([FetchedResponse(status: 304, body: [])], in: config)
        actions = state.handle(.fetched(FetchKey(location: 0, kind: .dwd), notModified), at: T.at(next + 1))
        #expect(T.logs(actions, .warning).isEmpty)
        #expect(state.schedule(FetchKey(location: 0, kind: .dwd)).nextDue.unixSeconds == next + 1 + 15 * 60)
        // Rebuilt at the tick (a new Berlin day) or after the 304, whichever changed it last.
        let kept = try #require(Self.pollenTree(actions, "munich") ?? Self.pollenTree(tick, "munich"))
        #expect(kept["breeze/munich/pollen/hazel/value"] == "4")  // the document's tomorrow, now today
    }

    @Test("the server's Last-Modified and ETag are sent back, and kept in the stored response")
    func validators() throws {
        let config = try Self.config()
        var (state, actions) = T.started(config)
        let request = try #require(Self.requests(actions).first)
        let answer = FetchedResponse(
            status: 200, body: Self.body, lastModified: "Mon, 15 Jun 2026 09:01:00 GMT", etag: #"W/"abc""#)
        actions = state.handle(
            .fetched(FetchKey(location: 0, kind: .dwd), request.interpret([answer], in: config)), at: T.at(T.t0 + 7))
        let stored = actions.compactMap { action -> StoredResponse? in
            if case .store(.response(let response, _, "dwd")) = action { response } else { nil }
        }
        #expect(stored.first?.context == ["last_modified": "Mon, 15 Jun 2026 09:01:00 GMT", "etag": #"W/"abc""#])
        let next = state.schedule(FetchKey(location: 0, kind: .dwd)).nextDue.unixSeconds
        let again = try #require(Self.requests(state.handle(.tick, at: T.at(next))).first)
        let headers = try #require(again.gets(in: config).first).headers
        #expect(headers.map(\.name) == ["If-None-Match", "If-Modified-Since"])
        #expect(headers.map(\.value) == [#"W/"abc""#, "Mon, 15 Jun 2026 09:01:00 GMT"])
        // A value that could not go back into a header is not kept.
        #expect(FetchedResponse(status: 200, body: [], etag: "a\u{7}b").etag == nil)
        #expect(
            FetchedResponse(status: 200, body: [], lastModified: String(repeating: "x", count: 201)).lastModified == nil
        )
    }

    @Test("the region is named once a run: a failed fetch's retries do not name it again")
    func regionNamedOnce() throws {
        let config = try Self.config()
        var (state, actions) = T.started(config)
        let key = FetchKey(location: 0, kind: .dwd)
        var named = T.logs(actions, .info).filter { $0.hasPrefix("dwd[berlin]: DWD region") }
        var requests = Self.requests(actions)
        var now = T.t0 + 7
        for _ in 0..<3 {
            let request = try #require(requests.first)
            actions = state.handle(
                .fetched(key, request.interpret([FetchedResponse(status: 503, body: [])], in: config)), at: T.at(now))
            named += T.logs(actions, .info).filter { $0.hasPrefix("dwd[berlin]: DWD region") }
            now = max(now + 1, state.schedule(key).nextDue.unixSeconds)
            actions = state.handle(.tick, at: T.at(now))
            named += T.logs(actions, .info).filter { $0.hasPrefix("dwd[berlin]: DWD region") }
            requests = Self.requests(actions)
        }
        #expect(requests.count == 1, "the third retry was asked")
        #expect(named == ["dwd[berlin]: DWD region 50, Brandenburg und Berlin"])
    }

    @Test("Google and the DWD: each item's sources and the consensus, the higher level, agree and spread")
    func consensus() throws {
        let config = try T.config(
            "climate: {enabled: false}", pollen: "api_key: test-key-123456",
            locations: "locations:\n  - {id: berlin, latitude: 52.52, longitude: 13.405, timezone: UTC}", dwd: true)
        var (state, actions) = T.started(config)
        let dwdKey = FetchKey(location: 0, kind: .dwd)
        #expect(Set(T.fetches(actions)) == [T.pollenKey, dwdKey])
        let dwdRequest = try #require(
            actions.compactMap { if case .fetch(dwdKey, let request) = $0 { request } else { nil } }.first)
        _ = state.handle(.fetched(T.pollenKey, T.pollenOK(T.t0 + 6)), at: T.at(T.t0 + 7))
        actions = state.handle(
            .fetched(dwdKey, dwdRequest.interpret([FetchedResponse(status: 200, body: Self.body)], in: config)),
            at: T.at(T.t0 + 8))
        let tree = try #require(Self.pollenTree(actions, "berlin"))
        let base = "breeze/berlin/pollen"
        // The first source (Google) gives grass its topics; the DWD adds hazel.
        #expect(tree["\(base)/grass/value"] == "4")
        #expect(try #require(tree["\(base)/grass"]).contains(#""source":"google""#))
        #expect(tree["\(base)/hazel/value"] == "2")
        // grass: Google 4 (High), the DWD's rye "0-1" (1, Low): High, not agreed, 3 apart.
        #expect(
            tree["\(base)/grass/consensus"]
                == ##"{"level":"High","value":4,"color":"#ff3b30","agree":false,"spread":3,"count":2,"of":2}"##)
        #expect(tree["\(base)/grass/consensus/level"] == "High")
        let sources = try #require(tree["\(base)/grass/sources"])
        #expect(sources.hasPrefix(#"{"google":{"value":4,"level":"High","#))
        #expect(sources.contains(#""dwd":{"value":1,"level":"Low","#))
        #expect(sources.contains(#""dwd_index":null"#))  // a type has no DWD index of its own
        // tree: Google 0, the DWD's hazel "1-2" (2): Moderate.
        #expect(tree["\(base)/tree/consensus/level"] == "Moderate")
        // weed: neither knows: Unknown, nothing disagrees, 0 of 2.
        #expect(
            tree["\(base)/weed/consensus"]
                == ##"{"level":"Unknown","value":null,"color":"#8e8e93","agree":true,"spread":null,"count":0,"of":2}"##)
        // An item one source carries has no consensus.
        #expect(tree["\(base)/hazel/consensus"] == nil)
        #expect(tree["\(base)/hazel/sources"] == nil)
    }
}
