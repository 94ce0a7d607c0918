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

#if canImport(Glibc)
    import Glibc
#endif

/// The warming stripes end to end (SPEC §9.1): libcurl against a loopback archive serving
/// generated decades of `temperature_2m_mean`, the agent (`once`, `print`, `run`), a real mosquitto, `state_dir`.
@Suite("End to end: warming stripes (once, print, run)")
struct EndToEndStripesTests {
    static let berlin = "Europe/Berlin"

    /// Annual means (hundredths of °C) the fake archive serves. 2017 has no data (nulls only),
    /// 2021 has 359 values (left out whatever its mean), 2022 on have no data yet.
    static let means: [Int: Int] = [2015: 1039, 2016: 982, 2017: 1500, 2018: 991, 2019: 993, 2020: 995, 2021: 3000]
    static let nullDays: [Int: Int] = {
        var nulls: [Int: Int] = [2017: 366, 2021: 6]
        for year in 2022...2100 { nulls[year] = 366 }
        return nulls
    }()

    /// The stripes route: generated decades with ``means`` and ``nullDays``.
    static let stripesRoute: FakeAPIs.Handler = { request in
        let archive = DailyMeanArchive(
            firstYear: 2015, lastYear: 2015, meanHundredths: { EndToEndStripesTests.means[$0] ?? 0 },
            nullDays: EndToEndStripesTests.nullDays)
        return archive.answer(request)
            ?? .respond(status: 400, text: #"{"error":true,"reason":"not a stripes request"}"#)
    }

    /// A sandbox whose archive serves ``stripesRoute`` and the daily climate for 2010.
    static func sandbox() throws -> AgentSandbox {
        try AgentSandbox(routes: FakeAPIs.Routes(celsius: [2010: 11.0], stripes: stripesRoute))
    }

    static func config(_ sandbox: AgentSandbox, firstYear: Int?) -> String {
        let stripes = firstYear.map { ", stripes: {first_year: \($0)}" } ?? ""
        return """
            homeassistant: {discovery: false}
            locations:
              - {id: home, latitude: 52.52, longitude: 13.405, timezone: \(berlin)}
            pollen: {enabled: false}
            climate: {years: [2010], unit: celsius\(stripes)}
            \(sandbox.apis.endpointsYAML)
            """
    }

    @Test("Fetched once through libcurl, published, kept in state_dir, refetched when first_year changes")
    func stripesEndToEnd() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let sandbox = try Self.sandbox()
            let prefix = "e2e-st-\(shortID())"
            let archive = sandbox.apis
            try sandbox.writeConfig(port: port, prefix: prefix, Self.config(sandbox, firstYear: 2015))

            #expect(await runAgent("once", sandbox) == 0)

            // One archive request for whole years, daily means, the location's zone.
            let request = try #require(archive.stripesRequests.first)
            #expect(archive.stripesRequests.count == 1)
            #expect(request.path == "/archive/archive")
            #expect(request.queryValue("start_date") == "2015-01-01")
            let end = try #require(request.queryValue("end_date"))
            let lastYear = try #require(Int(end.prefix(4)))
            let thisYear = Day.today(in: Self.berlin).year
            // Last year from 10 January (+ up to 21 days), the year before until then.
            #expect(end == "\(lastYear)-12-31")
            #expect(lastYear == thisYear - 1 || lastYear == thisYear - 2)
            #expect(request.queryValue("timezone") == Self.berlin)
            #expect(request.queryValue("latitude") == "52.52")
            #expect(request.queryValue("longitude") == "13.405")

            // SPEC §9.1 worked by hand: reference = (10.39 + 9.82 + 9.91 + 9.93 + 9.95) / 5 = 10.00
            // (fewer than 20 years of 1981–2010: all years); anomalies 0.39, −0.18, −0.09, −0.07,
            // −0.05; Σa = 0, Σa² = 0.2000, σ = 0.20. 2015 is exactly 1.95 σ: the warmest bin.
            let base = "\(prefix)/home/climate/stripes"
            let tree = try await BrokerView.snapshot(port: port, ["\(prefix)/#"])
            #expect(tree["\(base)/colors"] == "#b2182b,#92c5de,#d1e5f0,#d1e5f0,#d1e5f0")
            let text = try #require(tree[base])
            #expect(text.hasPrefix(#"{"reference":10.00,"first_year":2015,"last_year":\#(lastYear),"years":["#))
            #expect(text.contains(##"{"year":2016,"mean_celsius":9.82,"anomaly_celsius":-0.18,"color":"#92c5de"}"##))
            let json = try #require(parseJSON(text) as? [String: Any])
            let years = try #require(json["years"] as? [[String: Any]])
            #expect(years.map { $0["year"] as? Int } == [2015, 2016, 2018, 2019, 2020])
            #expect(years.map { ($0["mean_celsius"] as? NSNumber)?.doubleValue } == [10.39, 9.82, 9.91, 9.93, 9.95])
            #expect(
                years.map { ($0["anomaly_celsius"] as? NSNumber)?.doubleValue } == [0.39, -0.18, -0.09, -0.07, -0.05])
            // The daily climate is there too, beside the stripes.
            #expect(tree["\(prefix)/home/climate/2010"] == "11.0")

            // Kept in state_dir as per-year tallies.
            let stored = try String(contentsOfFile: sandbox.stateDir + "/responses/home.stripes.json", encoding: .utf8)
            #expect(stored.contains("first_year") && stored.contains("2015"))

            // A second run publishes from state_dir: no archive request for the stripes.
            #expect(await runAgent("once", sandbox) == 0)
            #expect(archive.stripesRequests.count == 1)
            let again = try await BrokerView.snapshot(port: port, ["\(prefix)/#"])
            #expect(again[base] == text)

            // Another first year: fetched at once. 2016–2020 without 2017: reference
            // (9.82 + 9.91 + 9.93 + 9.95) / 4 = 9.9025 → 9.90; anomalies −0.08, 0.01, 0.03, 0.05;
            // V = 4·0.0099 − 0.0001 = 0.0395 (hundredths²: 395), σ ≈ 0.0497:
            // −1.61 σ → bin 1, 0.20 σ and 0.60 σ → bin 4, 1.006 σ → bin 5.
            try sandbox.writeConfig(port: port, prefix: prefix, Self.config(sandbox, firstYear: 2016))
            #expect(await runAgent("once", sandbox) == 0)
            #expect(archive.stripesRequests.count == 2)
            #expect(archive.stripesRequests.last?.queryValue("start_date") == "2016-01-01")
            let moved = try await BrokerView.snapshot(port: port, ["\(prefix)/#"])
            #expect(moved["\(base)/colors"] == "#4393c3,#fddbc7,#fddbc7,#f4a582")
            let movedJSON = try #require(parseJSON(moved[base]) as? [String: Any])
            #expect((movedJSON["reference"] as? NSNumber)?.doubleValue == 9.90)
            #expect(movedJSON["first_year"] as? Int == 2016)
        }
    }

    /// The daemon (`run`, the binary): the stripes arrive through the event loop's fetch, and a
    /// restart publishes them from `state_dir` with no second archive request.
    @Test("run: stripes published by the daemon, kept across a restart without a refetch")
    func daemonKeepsStripesAcrossARestart() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let sandbox = try Self.sandbox()
            let prefix = "e2e-str-\(shortID())"
            try sandbox.writeConfig(port: port, prefix: prefix, Self.config(sandbox, firstYear: 2015))
            let view = try BrokerView(port: port)
            try await view.start(["\(prefix)/#"])
            defer { Task { await view.stop() } }
            let colors = "\(prefix)/home/climate/stripes/colors"
            let expected = "#b2182b,#92c5de,#d1e5f0,#d1e5f0,#d1e5f0"

            var agent = try AgentProcess(["run", "--config", sandbox.configPath], logDirectory: sandbox.directory)
            #expect(await view.waitFor(colors, expected), "\(agent.stderr)")
            #expect(sandbox.apis.stripesRequests.count == 1)
            #expect(agent.stderr.contains("stripes[home]: fetching 2015–"), "\(agent.stderr)")
            agent.signal(SIGTERM)
            #expect(await agent.waitForExit(timeout: .seconds(2)) == 0, "\(agent.stderr)")
            #expect(await view.waitFor("\(prefix)/status", "offline"))

            agent = try AgentProcess(["run", "--config", sandbox.configPath], logDirectory: sandbox.directory)
            #expect(await view.waitFor("\(prefix)/status", "online"), "\(agent.stderr)")
            #expect(await eventually(bound: .seconds(10)) { agent.stderr.contains("stripes[home]: restored 2015–") })
            // That the restored stripes are not due at the first tick (nor until 10 January plus
            // the hub's spread) is StripesDaemonTests' `newYearIsFetchedFromTenJanuaryPlusTheSpread`,
            // on a hand-moved clock; here: restored from state_dir, and no request at the start.
            #expect(sandbox.apis.stripesRequests.count == 1, "\(agent.stderr)")
            #expect(view.payload(colors) == expected)
            agent.signal(SIGINT)
            #expect(await agent.waitForExit(timeout: .seconds(2)) == 0, "\(agent.stderr)")
        }
    }

    /// `print` (the binary, no broker) stores what it fetched; a second `print` uses the stored
    /// stripes instead of spending another ≈ 120 weighted calls.
    @Test("print: the stripes lines, fetched once and then read from state_dir")
    func printUsesStoredStripes() async throws {
        let sandbox = try Self.sandbox()
        let archive = sandbox.apis
        // Port 9 (discard): print needs no broker.
        try sandbox.writeConfig(port: 9, prefix: "e2e-stp", Self.config(sandbox, firstYear: 2015))
        var outputs: [String] = []
        for _ in 0..<2 {
            let result = try await AgentProcess.run(
                ["print", "--config", sandbox.configPath], logDirectory: sandbox.directory)
            #expect(result.status == 0, "\(result.stderr)")
            outputs.append(result.stdout)
        }
        #expect(archive.stripesRequests.count == 1)
        for output in outputs {
            #expect(output.contains("e2e-stp/home/climate/stripes/colors\t#b2182b,#92c5de,#d1e5f0,#d1e5f0,#d1e5f0\n"))
        }
    }

    @Test("An archive error publishes no stripes topics, once exits 69, the climate is still published")
    func archiveErrorIsReported() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let sandbox = try AgentSandbox(
                routes: FakeAPIs.Routes(
                    celsius: [2010: 11.0],
                    stripes: { _ in
                        .respond(
                            status: 400,
                            text:
                                #"{"reason":"Parameter 'start_date' is out of allowed range from 1940-01-01 to 2026-07-27","error":true}"#
                        )
                    }))
            let prefix = "e2e-ste-\(shortID())"
            try sandbox.writeConfig(port: port, prefix: prefix, Self.config(sandbox, firstYear: nil))
            // `once` says which source had no usable data (exit 69), after publishing the rest.
            #expect(await runAgent("once", sandbox) == 69)
            #expect(sandbox.apis.stripesRequests.count == 1)
            let tree = try await BrokerView.snapshot(port: port, ["\(prefix)/#"])
            #expect(tree.keys.filter { $0.contains("/stripes") }.isEmpty)
            #expect(tree["\(prefix)/home/climate/2010"] == "11.0")
        }
    }
}
