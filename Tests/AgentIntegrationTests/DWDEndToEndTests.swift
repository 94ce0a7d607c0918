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
import BreezeCore
import BreezeMQTT
import BreezeTestSupport
import Foundation
import Testing

/// The DWD source through the real binary, a real mosquitto and the loopback APIs serving the
/// real `s31fg.json` (thorin-eifel/maps `tests/fixtures/dwd_s31fg.json` @52c863ef; its two
/// dates moved to today's Berlin date so the document is fresh): the hazel topics of a Berlin
/// location, and the next run's conditional GET answered 304 keeping the document.
@Suite("DWD end to end: the real document, one request, 304")
struct DWDEndToEndTests {
    /// The fixture with `last_update` today 00:05 and `next_update` tomorrow 11:00, Berlin time.
    static func document() throws -> [UInt8] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "Europe/Berlin"))
        let now = Date()
        let today = calendar.dateComponents([.year, .month, .day], from: now)
        let tomorrow = calendar.dateComponents(
            [.year, .month, .day], from: try #require(calendar.date(byAdding: .day, value: 1, to: now)))
        func text(_ c: DateComponents) -> String {
            String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0)
        }
        let url = repositoryRoot.appendingPathComponent("Tests/CoreTests/Fixtures/thorin-eifel-maps__dwd_s31fg.json")
        let real = try String(contentsOf: url, encoding: .utf8)
        #expect(real.contains(#""last_update":"2026-09-29 11:00 Uhr""#))
        let moved = real.replacingOccurrences(
            of: #""last_update":"2026-09-29 11:00 Uhr""#, with: #""last_update":"\#(text(today)) 00:05 Uhr""#
        ).replacingOccurrences(
            of: #""next_update":"2026-09-30 11:00 Uhr""#, with: #""next_update":"\#(text(tomorrow)) 11:00 Uhr""#)
        return Array(moved.utf8)
    }

    @Test("run: hazel topics for Berlin from one request for three locations; refresh asks again, 304 keeps the data")
    func hazelAndNotModified() async throws {
        let body = try Self.document()
        let sandbox = try AgentSandbox(
            routes: FakeAPIs.Routes(dwd: { request in
                request.header("If-None-Match") == #""s31fg-1""#
                    ? .respond(status: 304)
                    : .respond(
                        status: 200,
                        headers: [
                            ("Content-Type", "application/json"), ("Last-Modified", "Sun, 06 Dec 2026 10:00:00 GMT"),
                            ("ETag", #""s31fg-1""#),
                        ], body: body)
            }))
        let prefix = "dwd-\(shortID())"
        try await MosquittoBroker.withPlainBroker { port in
            try sandbox.writeConfig(
                port: port, prefix: prefix,
                """
                homeassistant: {discovery: false}
                locations:
                  - {id: berlin, latitude: 52.52, longitude: 13.405, timezone: Europe/Berlin}
                  - {id: potsdam, latitude: 52.39, longitude: 13.06, timezone: Europe/Berlin}
                  - {id: munich, latitude: 48.137, longitude: 11.575, timezone: Europe/Berlin}
                pollen: {sources: [dwd]}
                climate: {enabled: false}
                \(sandbox.apis.endpointsYAML)
                """)
            let view = try BrokerView(port: port)
            try await view.start(["\(prefix)/#"])
            defer { Task { await view.stop() } }
            let agent = try AgentProcess(["run", "--config", sandbox.configPath], logDirectory: sandbox.directory)
            defer { Task { await agent.terminate() } }
            let hazel = "\(prefix)/berlin/pollen/hazel"
            // Brandenburg und Berlin (region 50): Hasel "0" on all three days of this document.
            #expect(await view.waitFor("\(hazel)/value", "0"), "\(agent.stderr)")
            #expect(await view.waitFor("\(prefix)/munich/pollen/hazel/value", "0"), "\(agent.stderr)")
            #expect(await view.waitFor("\(prefix)/potsdam/pollen/hazel/value", "0"), "\(agent.stderr)")
            #expect(view.payload("\(hazel)/level") == "None")
            #expect(view.payload("\(hazel)/d1/value") == "0")
            let item = try #require(view.json(hazel))
            #expect(item["source"] as? String == "dwd")
            #expect(item["dwd_index"] as? String == "0")
            #expect(item["dwd_value"] as? Int == 0)
            #expect(item["index_description"] as? String == "keine Belastung")
            #expect(item["region"] as? Int == 50)
            #expect(view.payload("\(prefix)/berlin/pollen/ash/value") == "0")
            #expect(view.payload("\(prefix)/berlin/pollen/rye/value") == "0")
            // Berlin's grasses and ragweed are "0-1" in this document: 1, Low, dwd_value 0.5.
            #expect(view.payload("\(prefix)/berlin/pollen/graminales/value") == "1")
            #expect(view.payload("\(prefix)/berlin/pollen/ragweed/level") == "Low")
            #expect(view.json("\(prefix)/berlin/pollen/graminales")?["dwd_index"] as? String == "0-1")
            #expect(view.payload("\(prefix)/berlin/pollen/grass/value") == "1")
            let summary = try #require(view.json("\(prefix)/berlin/pollen"))
            #expect((summary["attribution"] as? String)?.contains("Deutscher Wetterdienst (DWD)") == true)
            // One request for the three German locations, unconditional.
            let first = sandbox.apis.requests(path: "/dwd/")
            #expect(first.count == 1)
            #expect(first.first?.header("If-Modified-Since") == nil)

            // refresh: asked again with If-Modified-Since; the 304 keeps the document.
            let commander = try BrokerView(port: port)
            try await commander.start([])
            defer { Task { await commander.stop() } }
            try commander.client.publish("\(prefix)/berlin/refresh", "1", qos: 1)
            #expect(
                await agent.waitForLine("dwd[berlin]: not modified (HTTP 304); the document held stays"),
                "\(agent.stderr)")
            let all = sandbox.apis.requests(path: "/dwd/")
            #expect(all.count == 2)
            // The server's own validators sent back.
            #expect(all.last?.header("If-Modified-Since") == "Sun, 06 Dec 2026 10:00:00 GMT")
            #expect(all.last?.header("If-None-Match") == #""s31fg-1""#)
            #expect(agent.lines(containing: "failed").isEmpty, "\(agent.stderr)")
            #expect(await view.waitFor("\(prefix)/berlin/pollen/stale", "false"))
            #expect(view.payload("\(hazel)/value") == "0")
            let after = try await BrokerView.snapshot(port: port, ["\(prefix)/#"])
            #expect(after["\(hazel)/value"] == "0")
            #expect(after["\(prefix)/munich/pollen/hazel/value"] == "0")
        }
    }

    @Test("print: 100 German locations from one request; each with its region's species in the card shape")
    func hundredLocationsOneRequest() async throws {
        let body = try Self.document()
        let sandbox = try AgentSandbox(
            routes: FakeAPIs.Routes(dwd: { _ in
                .respond(status: 200, headers: [("Content-Type", "application/json")], body: body)
            }))
        // 100 locations spread over the 27 regions: each region's representative town, moved a
        // little towards the middle of Germany (51.2 N, 10.4 E) so that no copy leaves the country.
        let regions = DWDRegions.regions
        var lines: [String] = []
        for n in 0..<100 {
            let region = regions[n % regions.count]
            let step = Double(n / regions.count) * 0.02
            let latitude = region.latitude + (51.2 - region.latitude) * step
            let longitude = region.longitude + (10.4 - region.longitude) * step
            lines.append("  - {id: loc\(n), latitude: \(latitude), longitude: \(longitude), timezone: Europe/Berlin}")
        }
        // Port 9 (discard): print needs no broker.
        try sandbox.writeConfig(
            port: 9, prefix: "dwd100",
            """
            homeassistant: {discovery: false}
            locations:
            \(lines.joined(separator: "\n"))
            pollen: {sources: [dwd]}
            climate: {enabled: false}
            \(sandbox.apis.endpointsYAML)
            """)
        let result = try await AgentProcess.run(
            ["print", "--config", sandbox.configPath], logDirectory: sandbox.directory)
        #expect(result.status == 0, "\(result.stderr)")
        let tree = Dictionary(
            result.stdout.split(separator: "\n").map {
                let parts = $0.split(separator: "\t", maxSplits: 1).map(String.init)
                return (parts[0], parts.count > 1 ? parts[1] : "")
            }
        ) { a, _ in a }
        // The stand-in's request log: one DWD request served all 100.
        let requests = sandbox.apis.requests(path: "/dwd/")
        #expect(requests.count == 1, "\(requests.count) DWD requests")
        let withHazel = (0..<100).filter { tree["dwd100/loc\($0)/pollen/hazel/value"] != nil }
        #expect(
            withHazel.count == 100,
            "without hazel: \(Set(0..<100).subtracting(withHazel).sorted()) \(result.stderr.suffix(1500))")
        // Berlin (region 50, the document's Brandenburg und Berlin row): the grasses are "0-1" today.
        let berlin = try #require(regions.firstIndex { $0.key == 50 })
        let card = try #require(
            tree["dwd100/loc\(berlin)/pollen/graminales/dwd"].flatMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            })
        #expect(card["species"] as? String == "Graeser")
        #expect(card["region_id"] as? Int == 50)
        #expect(card["state_today"] as? Double == 0.5)
        #expect(card["state_today_desc"] as? String == "keine bis geringe Belastung")
        #expect((card["last_update"] as? String)?.contains("T00:05:00+0") == true, "\(card)")
        print("dwd100: \(requests.count) DWD request for \(withHazel.count) locations; \(tree.count) topics printed")
    }
}
