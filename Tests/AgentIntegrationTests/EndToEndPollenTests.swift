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
import BreezeTestSupport
import Foundation
import Testing

/// `once` in-process against a real broker and a loopback "Google": what the broker holds after.
@Suite("End to end: pollen (once)")
struct EndToEndPollenTests {
    static let zone = "Europe/Berlin"
    static let key = "e2e-secret-key-\(shortID())"

    /// A config with a Google key and climate off (climate has its own suite).
    static func googleConfig(_ upstream: FakeAPIs, climate: Bool = false) -> String {
        """
        homeassistant: {discovery: false}
        locations:
          - {id: home, name: Home, latitude: 52.52, longitude: 13.405, timezone: \(zone)}
        pollen: {api_key: \(key), days: 5, language: es}
        climate: {enabled: \(climate), years: [2000, 2010]}
        \(upstream.endpointsYAML)
        """
    }

    static func google(_ body: [UInt8]) -> @Sendable (LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Action {
        { _ in .respond(status: 200, headers: [("Content-Type", "application/json")], body: body) }
    }

    @Test("Google: key in the header only, the whole SPEC §3 pollen tree retained")
    func googleTree() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let sandbox = try AgentSandbox()
            let prefix = "e2e-g-\(shortID())"
            let body = try googleBody(zone: Self.zone)
            let upstream = sandbox.apis
            upstream.set(.init(google: Self.google(body)))
            try sandbox.writeConfig(port: port, prefix: prefix, Self.googleConfig(upstream))
            let before = Int(Date().timeIntervalSince1970)

            #expect(await runAgent("once", sandbox) == 0)
            let after = Int(Date().timeIntervalSince1970)

            // The request: key in X-Goog-Api-Key, nowhere in the URL.
            let request = try #require(upstream.googleRequests.first)
            #expect(upstream.googleRequests.count == 1)
            #expect(request.header("X-Goog-Api-Key") == Self.key)
            #expect(!request.target.contains(Self.key))
            #expect(request.queryValue("key") == nil)
            #expect(request.queryValue("location.latitude") == "52.52")
            #expect(request.queryValue("days") == "5")
            #expect(request.queryValue("languageCode") == "es")

            let tree = try await BrokerView.snapshot(port: port, ["\(prefix)/#"])
            let base = "\(prefix)/home/pollen"
            let fixture = try fixtureJSON(spanishFiveDays)
            let days = try #require(fixture["dailyInfo"] as? [[String: Any]])
            let today = Day.today(in: Self.zone)

            // Scalars of every item, today and d1…d4, from the fixture through SPEC §1's table.
            let todayValues = googleValues(days[0])
            #expect(todayValues.count == 14)
            for (code, value) in todayValues {
                let id = code.lowercased()
                let want = expectedLevel(value)
                #expect(tree["\(base)/\(id)/value"] == want.value, "\(id)")
                #expect(tree["\(base)/\(id)/level"] == want.level, "\(id)")
                #expect(tree["\(base)/\(id)/color"] == want.color, "\(id)")
                for n in 1...4 {
                    let dayValue = googleValues(days[n]).first { $0.code == code }?.value
                    let wantDay = expectedLevel(dayValue)
                    #expect(tree["\(base)/\(id)/d\(n)/value"] == wantDay.value, "\(id) d\(n)")
                    #expect(tree["\(base)/\(id)/d\(n)/level"] == wantDay.level, "\(id) d\(n)")
                    #expect(tree["\(base)/\(id)/d\(n)/color"] == wantDay.color, "\(id) d\(n)")
                }
                #expect(tree["\(base)/\(id)/d5/value"] == nil)
            }
            // Spot checks that the mapping above is not vacuous: the fixture has GRASS 3, WEED none, PINE 1 → none.
            #expect(tree["\(base)/grass/value"] == "3")
            #expect(tree["\(base)/grass/level"] == "Moderate")
            #expect(tree["\(base)/weed/value"] == "None")
            #expect(tree["\(base)/weed/level"] == "Unknown")
            #expect(tree["\(base)/pine/value"] == "1")
            #expect(tree["\(base)/pine/d1/value"] == "None")
            #expect(tree["\(base)/grass/d4/level"] == "Unknown")

            // Summary JSON.
            let summary = try #require(parseJSON(tree[base]) as? [String: Any])
            #expect(summary["date"] as? String == today.description)
            #expect(summary["region"] as? String == "ES")
            #expect(summary["source"] as? String == "google")
            #expect(summary["stale"] as? Bool == false)
            #expect(summary["attribution"] as? String == "Includes pollen data from Google")
            #expect((summary["items"] as? [Any])?.count == 14)
            let summaryDays = try #require(summary["days"] as? [[String: Any]])
            #expect(summaryDays.map { $0["date"] as? String } == (0..<5).map { today.adding($0).description })
            let max = try #require(summary["max"] as? [String: Any])
            #expect(max["id"] as? String == "grass")
            #expect(max["value"] as? Int == 3)
            #expect(max["level"] as? String == "Moderate")
            #expect(max["color"] as? String == "#ff9500")

            // updated_at: RFC 3339 UTC of this fetch, same in the JSON and the scalar.
            let updatedAt = try #require(tree["\(base)/updated_at"])
            #expect(summary["updated_at"] as? String == updatedAt)
            let parsed = try #require(ISO8601DateFormatter().date(from: updatedAt), "\(updatedAt)")
            #expect(updatedAt.hasSuffix("Z"))
            // The fetch's own time: within the run (a fixed bound failed at 71 s on a loaded machine).
            #expect((before...after).contains(Int(parsed.timeIntervalSince1970)), "\(updatedAt)")
            #expect(tree["\(base)/stale"] == "false")

            // max topics.
            let maxJSON = try #require(parseJSON(tree["\(base)/max"]) as? [String: Any])
            #expect(maxJSON["id"] as? String == "grass")
            #expect(maxJSON["name"] as? String == "Gramíneas")
            #expect(tree["\(base)/max/value"] == "3")
            #expect(tree["\(base)/max/level"] == "Moderate")
            #expect(tree["\(base)/max/color"] == "#ff9500")

            // Per-item JSON: a type and a plant, with every §1 field from the fixture.
            let grass = try #require(parseJSON(tree["\(base)/grass"]) as? [String: Any])
            #expect(grass["id"] as? String == "grass")
            #expect(grass["name"] as? String == "Gramíneas")
            #expect(grass["category"] as? String == "GRASS")
            #expect(grass["is_plant"] as? Bool == false)
            #expect(grass["in_season"] as? Bool == true)
            #expect(grass["value"] as? Int == 3)
            #expect(grass["color"] as? String == "#ff9500")
            #expect(grass["color_rgb"] as? [Int] == [255, 149, 0])
            #expect(grass["index_category"] as? String == "Moderado")
            #expect(grass["index_color"] as? String == "#ffff00")
            #expect((grass["health_recommendations"] as? [String])?.count == 5)
            #expect(grass["image_url"] is NSNull)
            let forecast = try #require(grass["forecast"] as? [[String: Any]])
            #expect(forecast.map { $0["date"] as? String } == (1..<5).map { today.adding($0).description })
            #expect(forecast.last?["level"] as? String == "Unknown")
            #expect(forecast.last?["value"] is NSNull)

            let pine = try #require(parseJSON(tree["\(base)/pine"]) as? [String: Any])
            #expect(pine["category"] as? String == "TREE")
            #expect(pine["is_plant"] as? Bool == true)
            #expect(pine["in_season"] as? Bool == false)
            #expect(pine["image_url"] as? String == "https://storage.googleapis.com/pollen-pictures/pine_full.jpg")
            #expect(
                pine["image_closeup_url"] as? String
                    == "https://storage.googleapis.com/pollen-pictures/pine_closeup.jpg")
            #expect(pine["family"] as? String == "Pináceas (familia del pino)")
            #expect(pine["season"] as? String == "Primavera")
            #expect(
                pine["appearance"] as? String
                    == "Las hojas tienen forma de aguja y son de color verde. Corteza de color marrón rojizo o gris.")
            #expect(pine["cross_reaction"] as? String == "Polen de pícea, falso abeto y abeto.")
            #expect(pine["index_color"] as? String == "#009e3a")
            #expect(pine["health_recommendations"] is NSNull)

            // Everything the run published is retained: a fresh subscriber saw it all.
            // (and the compact `<p>/<loc>/display` JSON of SPEC §8 beside the pollen tree).
            #expect(tree.keys.allSatisfy { $0.hasPrefix("\(prefix)/home/pollen") || $0 == "\(prefix)/home/display" })
            // Summary, then per item its JSON, 3 scalars, trend and 4 days × 3; max JSON + 3 + trend;
            // peak JSON + 3; updated_at, stale; display.
            let perItem: Int = 1 + 3 + 1 + 4 * 3
            let expectedCount: Int = 1 + 14 * perItem + 5 + 4 + 2 + 1
            #expect(tree.count == expectedCount)
        }
    }

    @Test("Unknown codes and empty days; a plant gone from the response is cleared across runs")
    func plantGoneIsCleared() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let sandbox = try AgentSandbox()
            let prefix = "e2e-gone-\(shortID())"
            // Run 1: first entry is yesterday (day 0 is the fixture's second entry), plus a new code.
            let first = try googleBody(zone: Self.zone, offset: -1) { days in
                var plants = days[1]["plantInfo"] as! [[String: Any]]
                plants.append([
                    "code": "FUTURE_PLANT", "displayName": "Future plant",
                    "indexInfo": ["code": "UPI", "value": 4, "category": "Alto"],
                ])
                days[1]["plantInfo"] = plants
            }
            let upstream = sandbox.apis
            upstream.set(.init(google: Self.google(first)))
            try sandbox.writeConfig(port: port, prefix: prefix, Self.googleConfig(upstream))
            #expect(await runAgent("once", sandbox) == 0)

            let base = "\(prefix)/home/pollen"
            let one = try await BrokerView.snapshot(port: port, ["\(prefix)/#"])
            // Day matching: today is entry 1, where PINE has no index (entry 0 had 1).
            #expect(one["\(base)/pine/value"] == "None")
            #expect(one["\(base)/pine/level"] == "Unknown")
            #expect(one["\(base)/pine/color"] == "#8e8e93")
            // The unknown future code is published like any other.
            #expect(one["\(base)/future_plant/value"] == "4")
            #expect(one["\(base)/future_plant/level"] == "High")
            #expect(one["\(base)/future_plant/color"] == "#ff3b30")
            #expect(one["\(base)/future_plant/d1/value"] == "None")
            // d3 is the fixture's empty last entry; d4 is a date the response lacks.
            #expect(one["\(base)/grass/d2/value"] == "3")
            #expect(one["\(base)/grass/d3/value"] == "None")
            #expect(one["\(base)/grass/d3/level"] == "Unknown")
            #expect(one["\(base)/grass/d4/value"] == "None")
            #expect(one["\(base)/grass/d4/color"] == "#8e8e93")
            let summary = try #require(parseJSON(one[base]) as? [String: Any])
            #expect(summary["date"] as? String == Day.today(in: Self.zone).description)

            // Run 2 (same state_dir): PINE and the future plant gone.
            let second = try googleBody(zone: Self.zone) { days in
                for index in days.indices {
                    days[index]["plantInfo"] = (days[index]["plantInfo"] as! [[String: Any]]).filter {
                        $0["code"] as? String != "PINE"
                    }
                }
            }
            upstream.update { $0.google = Self.google(second) }
            #expect(await runAgent("once", sandbox) == 0)

            let two = try await BrokerView.snapshot(port: port, ["\(prefix)/#"])
            #expect(two.keys.filter { $0.hasPrefix("\(base)/pine") }.sorted() == [])
            #expect(two.keys.filter { $0.hasPrefix("\(base)/future_plant") }.sorted() == [])
            #expect(two["\(base)/birch/value"] == "1")
            #expect(two["\(base)/grass/value"] == "3")
            let items = try #require((parseJSON(two[base]) as? [String: Any])?["items"] as? [[String: Any]])
            #expect(!items.contains { $0["id"] as? String == "pine" })
            #expect(items.count == 13)
        }
    }

    @Test("Unsupported location after a good run clears the pollen subtree; climate stays; exit 0")
    func unsupportedClears() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let sandbox = try AgentSandbox()
            let prefix = "e2e-unsup-\(shortID())"
            let body = try googleBody(zone: Self.zone)
            let upstream = sandbox.apis
            upstream.set(
                .init(
                    google: Self.google(body), celsius: [2000: 20.0, 2010: 21.0, Day.today(in: Self.zone).year: 22.5]))
            try sandbox.writeConfig(port: port, prefix: prefix, Self.googleConfig(upstream, climate: true))
            #expect(await runAgent("once", sandbox) == 0)
            let one = try await BrokerView.snapshot(port: port, ["\(prefix)/#"])
            #expect(one["\(prefix)/home/pollen/grass/value"] == "3")
            #expect(one["\(prefix)/home/climate/current"] != nil)

            upstream.update {
                $0.google = { _ in
                    .respond(
                        status: 400,
                        text:
                            #"{"error":{"code":400,"message":"Information is unavailable for this location. Please try a different location.","status":"INVALID_ARGUMENT"}}"#
                    )
                }
            }
            #expect(await runAgent("once", sandbox) == 0)
            let two = try await BrokerView.snapshot(port: port, ["\(prefix)/#"])
            #expect(two.keys.filter { $0.hasPrefix("\(prefix)/home/pollen") }.sorted() == [])
            #expect(two["\(prefix)/home/climate/current"] == one["\(prefix)/home/climate/current"])
            #expect(two["\(prefix)/home/climate"] != nil)
        }
    }

    @Test("HTTP 500 after a good run: nothing cleared, stale true, updated_at unchanged, exit 0")
    func failedFetchKeepsData() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let sandbox = try AgentSandbox()
            let prefix = "e2e-fail-\(shortID())"
            let body = try googleBody(zone: Self.zone)
            let upstream = sandbox.apis
            upstream.set(.init(google: Self.google(body)))
            try sandbox.writeConfig(port: port, prefix: prefix, Self.googleConfig(upstream))
            #expect(await runAgent("once", sandbox) == 0)
            let one = try await BrokerView.snapshot(port: port, ["\(prefix)/#"])
            let updatedAt = try #require(one["\(prefix)/home/pollen/updated_at"])

            // Let the clock pass a second so a new fetch would show in updated_at (a wait for
            // time itself, to the next whole second, not for an event).
            let now = Date().timeIntervalSince1970
            try await Task.sleep(for: .seconds(now.rounded(.down) + 1.01 - now))
            upstream.update { $0.google = { _ in .respond(status: 500, text: "internal error") } }
            #expect(await runAgent("once", sandbox) == 0)
            #expect(upstream.googleRequests.count == 2)

            let two = try await BrokerView.snapshot(port: port, ["\(prefix)/#"])
            #expect(two["\(prefix)/home/pollen/stale"] == "true")
            #expect(two["\(prefix)/home/pollen/updated_at"] == updatedAt)
            let summary = try #require(parseJSON(two["\(prefix)/home/pollen"]) as? [String: Any])
            #expect(summary["stale"] as? Bool == true)
            #expect(summary["updated_at"] as? String == updatedAt)
            // Nothing cleared: the same topics, the same values apart from the stale markers.
            #expect(Set(two.keys) == Set(one.keys))
            // Scalars are unchanged apart from the stale flag (the JSON documents carry `stale` too).
            for (topic, payload) in one where !topic.hasSuffix("/stale") && !(parseJSON(payload) is [String: Any]) {
                #expect(two[topic] == payload, "\(topic)")
            }
        }
    }

    @Test("DNS failure after a good run: nothing cleared, stale true, updated_at unchanged, logged")
    func dnsFailureKeepsData() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let sandbox = try AgentSandbox()
            let prefix = "e2e-dns-\(shortID())"
            let upstream = sandbox.apis
            upstream.set(.init(google: Self.google(try googleBody(zone: Self.zone))))
            try sandbox.writeConfig(port: port, prefix: prefix, Self.googleConfig(upstream))
            #expect(await runAgent("once", sandbox) == 0)
            let one = try await BrokerView.snapshot(port: port, ["\(prefix)/#"])
            let updatedAt = try #require(one["\(prefix)/home/pollen/updated_at"])

            // The same config, but the pollen API's host name does not resolve (.invalid is
            // reserved: no resolver answers it). The child's log is read for the reason. https://,
            // since a key to plain http:// off loopback is refused at config time (SPEC §12).
            let unresolvable = Self.googleConfig(upstream).replacingOccurrences(
                of: upstream.server.url("/google"), with: "https://breeze-no-such-host.invalid/google")
            try sandbox.writeConfig(port: port, prefix: prefix, unresolvable)
            let run = try await AgentProcess.run(
                ["once", "--config", sandbox.configPath], logDirectory: sandbox.directory)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr.contains("fetch from google failed") && run.stderr.contains("resolve"), "\(run.stderr)")
            #expect(!run.stderr.contains(Self.key))

            let two = try await BrokerView.snapshot(port: port, ["\(prefix)/#"])
            #expect(two["\(prefix)/home/pollen/stale"] == "true")
            #expect(two["\(prefix)/home/pollen/updated_at"] == updatedAt)
            #expect(Set(two.keys) == Set(one.keys))
        }
    }

    @Test("The daily Google call cap holds across runs: no call past pollen.max_calls_per_day")
    func dailyCallCap() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let sandbox = try AgentSandbox()
            let prefix = "e2e-cap-\(shortID())"
            let upstream = sandbox.apis
            upstream.set(.init(google: Self.google(try googleBody(zone: Self.zone))))
            let config = Self.googleConfig(upstream).replacingOccurrences(
                of: "pollen: {api_key: \(Self.key),", with: "pollen: {max_calls_per_day: 2, api_key: \(Self.key),")
            try sandbox.writeConfig(port: port, prefix: prefix, config)
            #expect(await runAgent("once", sandbox) == 0)
            #expect(await runAgent("once", sandbox) == 0)
            #expect(upstream.googleRequests.count == 2)
            // The third run of the (local) day is refused before any request; the stored data
            // is published instead, so `once` still succeeds. A new process: the count is on disk.
            let run = try await AgentProcess.run(
                ["once", "--config", sandbox.configPath], logDirectory: sandbox.directory)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(upstream.googleRequests.count == 2)
            #expect(run.stderr.contains("daily Google call cap reached"), "\(run.stderr)")
            let calls = try String(contentsOfFile: sandbox.stateDir + "/calls.json", encoding: .utf8)
            #expect(calls.contains("\"calls\":2"), "\(calls)")
            let tree = try await BrokerView.snapshot(port: port, ["\(prefix)/#"])
            #expect(tree["\(prefix)/home/pollen/grass/value"] != nil)
        }
    }

    @Test("HTTP 500 with nothing stored: once exits 69")
    func failedFetchWithoutData() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let sandbox = try AgentSandbox()
            let prefix = "e2e-fail0-\(shortID())"
            let upstream = sandbox.apis
            upstream.set(.init(google: { _ in .respond(status: 500, text: "internal error") }))
            try sandbox.writeConfig(port: port, prefix: prefix, Self.googleConfig(upstream))
            #expect(await runAgent("once", sandbox) == 69)
            #expect(upstream.googleRequests.count == 1)
            let tree = try await BrokerView.snapshot(port: port, ["\(prefix)/#"])
            #expect(tree.keys.filter { $0.contains("/pollen") }.isEmpty)
        }
    }
}
