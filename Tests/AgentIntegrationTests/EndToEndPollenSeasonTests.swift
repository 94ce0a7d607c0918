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
import BreezeMQTT
import BreezeTestSupport
import Foundation
import Testing

/// Today against the recent season (SPEC §20) through the real binary, libcurl, a loopback
/// Open-Meteo and a real mosquitto: the day's first key-free call asks for `past_days=92`, the
/// season topics reach the broker, the body is kept in `state_dir`, and `print` shows them.
@Suite("End to end: the pollen season call", .serialized)
struct EndToEndPollenSeasonTests {
    static var today: CivilDate { EndToEndAirRiskTests.today }

    /// Open-Meteo's air-quality answer to whatever it is asked: `past_days` before today and
    /// four days (the demo's real-format body, its season rising into birch's).
    static func routes() -> FakeAPIs.Routes {
        FakeAPIs.Routes(airQuality: { request in
            let past = Int(request.queryValue("past_days") ?? "0") ?? 0
            return .respond(
                status: 200, headers: [("Content-Type", "application/json")],
                text: DemoResponder.airQuality(
                    start: Self.today.adding(days: -past), past: past,
                    timezone: request.queryValue("timezone") ?? "UTC"))
        })
    }

    /// `breeze-agent <command>` with one key-free UTC location and climate off.
    static func run(_ command: String, _ sandbox: AgentSandbox, port: Int, prefix: String) async throws
        -> (status: Int32?, stdout: String, stderr: String)
    {
        try sandbox.writeConfig(
            port: port, prefix: prefix,
            """
            homeassistant: {discovery: false}
            locations:
              - {id: home, latitude: 52.5, longitude: 13.4, timezone: UTC}
            pollen: {source: open-meteo}
            climate: {enabled: false}
            \(sandbox.apis.endpointsYAML)
            """)
        return try await AgentProcess.run([command, "--config", sandbox.configPath], logDirectory: sandbox.directory)
    }

    @Test("once: one call with past_days=92 and forecast_days=4; percentile and season_start retained; stored")
    func onceAsksForTheSeasonAndPublishesIt() async throws {
        let sandbox = try AgentSandbox(routes: Self.routes())
        let prefix = "season-\(shortID())"
        try await MosquittoBroker.withPlainBroker { port in
            let run = try await Self.run("once", sandbox, port: port, prefix: prefix)
            #expect(run.status == 0, "\(run.stderr)")
            let requests = sandbox.apis.requests()
            #expect(requests.count == 1)
            #expect(requests.first?.queryValue("past_days") == "92")
            #expect(requests.first?.queryValue("forecast_days") == "4")

            let tree = try await BrokerView.snapshot(port: port, ["\(prefix)/#"])
            let pollen = "\(prefix)/home/pollen"
            // Birch has been at or above 10 grains/m³ for the last 11 days (the demo's season).
            #expect(tree["\(pollen)/birch/season_start"] == Self.today.adding(days: -11).description)
            #expect(tree["\(pollen)/tree/season_start"] == Self.today.adding(days: -11).description)
            // No start for grass: the empty payload clears the retained topic.
            #expect(tree["\(pollen)/grass/season_start"] == nil)
            let percentile = try #require(tree["\(pollen)/birch/percentile"].flatMap { Int($0) })
            #expect((1...100).contains(percentile))
            // The pollen topics are today's and the forecast's, not the past days'.
            let date = try #require(jsonObject(tree[pollen]))["date"] as? String
            #expect(date == Self.today.description)

            // The season body is kept on its own in state_dir (a restart reads it back).
            let files = try FileManager.default.contentsOfDirectory(atPath: sandbox.stateDir + "/responses")
            #expect(files.contains("home.\(PollenRules.seasonStoreName).json"), "\(files)")
        }
    }

    @Test("print shows the season topics; Google configurations have none")
    func printShowsThem() async throws {
        let sandbox = try AgentSandbox(routes: Self.routes())
        let run = try await Self.run("print", sandbox, port: 9, prefix: "breeze")
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.contains("breeze/home/pollen/birch/season_start\t\(Self.today.adding(days: -11))"[...]))
        #expect(lines.contains { $0.hasPrefix("breeze/home/pollen/weed/percentile\t") })
        #expect(!lines.contains { $0.contains("/oak/") })
    }
}
