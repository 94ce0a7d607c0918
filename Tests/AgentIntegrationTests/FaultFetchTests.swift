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

@testable import BreezeConfig
import BreezeCore
import BreezeMQTT
import BreezeTestSupport
import Foundation
import Testing

@testable import BreezeAgent
@testable import BreezeDaemon

/// Fetch faults after a good fetch (SPEC §5): last good values stay on the broker, `stale`
/// becomes true, `updated_at` is unchanged, nothing is cleared, and the log says why and when
/// the retry comes (Retry-After honoured). A rejected Google key is reported once, not hammered.
@Suite("Fault injection: fetch failures", .serialized)
struct FaultFetchTests {
    static let oversized = [UInt8](repeating: UInt8(ascii: " "), count: 5 << 20)

    /// Each location gets its own fault (after one good fetch); `control` stays healthy until the
    /// server is stopped (connection refused).
    static let faults: [(id: String, action: LoopbackHTTPServer.Action, logged: String)] = [
        ("e500", .respond(status: 500, text: "internal error"), "HTTP 500"),
        ("e429", .respond(status: 429, headers: [("Retry-After", "120")], text: "slow down"), "retry in 120 s"),
        ("e503", .respond(status: 503, text: "unavailable"), "HTTP 503"),
        (
            "truncated",
            .truncated(
                status: 200, headers: [("Content-Type", "application/json")],
                body: Array(#"{"dailyInfo":[{"date":{"year":2026,"month":1,"day":1}}],"regionCode":"DE"}"#.utf8),
                sentBytes: 20),
            "partial"
        ),
        (
            "invalid",
            .respond(status: 200, headers: [("Content-Type", "application/json")], text: "{\"daily\": [1,2,"),
            "not valid JSON"
        ),
        (
            "oversized", .respond(status: 200, headers: [("Content-Type", "application/json")], body: oversized),
            "exceeds 4194304 bytes"
        ),
        (
            "envelope",
            .respond(
                status: 200, headers: [("Content-Type", "application/json")],
                text:
                    #"{"error":{"code":500,"message":"Internal error encountered.","status":"INTERNAL"},"reason":"Internal error","daily":null}"#
            ),
            "HTTP 200 with an error body: Internal error encountered."
        ),
        ("hanging", .hang, "Timeout"),
    ]

    @Test("every fetch fault keeps the last good values, marks them stale and keeps updated_at")
    func fetchFaultsKeepLastGoodValues() async throws {
        var locations = Self.faults.enumerated().map {
            FakeAPIs.Location(id: $0.element.id, latitude: 47.0 + Double($0.offset))
        }
        locations.append(FakeAPIs.Location(id: "control", latitude: 46.0))
        let scenario = try AgentSandbox(faultLocations: locations)
        try await MosquittoBroker.withPlainBroker { port in
            try scenario.writeConfig(brokerPort: port)
            let view = try await BrokerView(port: port, patterns: ["\(scenario.prefix)/#"])
            let agent = try AgentProcess(
                ["run", "--config", scenario.configPath], directory: scenario.directory,
                environment: ["BREEZE_TEST_HTTP_TIMEOUT": "3"])
            defer { Task { await view.stop() } }

            let all = locations.flatMap { scenario.essentialTopics($0.id).filter { !$0.contains("/device/") } }
            try #require(await view.waitForTopics(all, timeout: .seconds(30)), "first fetch incomplete:\n\(agent.log)")
            for location in locations {
                try #require(view.value("\(scenario.prefix)/\(location.id)/pollen/stale") == "false")
            }
            let before = view.latest

            for fault in Self.faults { scenario.apis.setFault(fault.id, fault.action) }
            for fault in Self.faults {
                try view.client.publish("\(scenario.prefix)/\(fault.id)/refresh", "now", qos: 1)
            }
            for fault in Self.faults {
                let stale = await view.waitFor("\(scenario.prefix)/\(fault.id)/pollen/stale", "true")
                #expect(stale, "pollen of \(fault.id) not stale:\n\(agent.log)")
                let climateStale = await eventually(bound: .seconds(20)) {
                    jsonObject(view.value("\(scenario.prefix)/\(fault.id)/climate"))?["stale"] as? Bool == true
                }
                #expect(climateStale, "climate of \(fault.id) not stale")
                #expect(await agent.waitForLine("pollen[\(fault.id)]: fetch from google failed", timeout: .seconds(10)))
                #expect(await agent.waitForLine("climate[\(fault.id)]: fetch failed", timeout: .seconds(10)))
                let pollenLine = agent.lines(containing: "pollen[\(fault.id)]: fetch from google failed").first ?? ""
                #expect(pollenLine.contains(fault.logged), "\(pollenLine)")
                #expect(pollenLine.contains("retry in"), "\(pollenLine)")
            }
            // Retry-After 120 s is longer than the first backoff step (60–75 s): honoured.
            #expect(agent.lines(containing: "climate[e429]: fetch failed").first?.contains("retry in 120 s") == true)
            // 503 without Retry-After: the first backoff step, 60 s plus up to 25 % jitter.
            let e503 = agent.lines(containing: "pollen[e503]: fetch from google failed").first ?? ""
            let delay = e503.split(separator: " ").reversed().dropFirst().first.flatMap { Int($0) }
            #expect(delay.map { (60...75).contains($0) } == true, "\(e503)")

            // The last good values stay: same topics, same payloads except the stale flags.
            for fault in Self.faults {
                let base = "\(scenario.prefix)/\(fault.id)/"
                // (The reading client also sees the refresh command it sent itself.)
                let now = view.tree(under: base).filter { !$0.key.hasSuffix("/refresh") }
                let then = before.filter { $0.key.hasPrefix(base) }
                #expect(Set(now.keys) == Set(then.keys), "\(fault.id): topics changed")
                #expect(now[base + "pollen/updated_at"] == then[base + "pollen/updated_at"])
                let oldClimate = jsonObject(then[base + "climate"])
                let newClimate = jsonObject(now[base + "climate"])
                #expect(newClimate?["updated_at"] as? String == oldClimate?["updated_at"] as? String)
                #expect(newClimate?["points"] != nil)
                #expect((newClimate?["points"] as? [Any])?.count == (oldClimate?["points"] as? [Any])?.count)
                #expect(jsonObject(now[base + "pollen"])?["stale"] as? Bool == true)
                #expect(now[base + "climate/unit"] == then[base + "climate/unit"])
            }
            #expect(view.clearedTopics(under: scenario.prefix).isEmpty)
            #expect(view.value("\(scenario.prefix)/control/pollen/stale") == "false")

            // Connection refused: the server goes away, the control location asks for a refresh.
            let controlUpdated = view.value("\(scenario.prefix)/control/pollen/updated_at")
            scenario.apis.server.stop()
            try view.client.publish("\(scenario.prefix)/control/refresh", "now", qos: 1)
            #expect(await view.waitFor("\(scenario.prefix)/control/pollen/stale", "true"), "\(agent.log)")
            #expect(await agent.waitForLine("pollen[control]: fetch from google failed"))
            let refused = agent.lines(containing: "pollen[control]: fetch from google failed").first ?? ""
            #expect(refused.lowercased().contains("connect"), "\(refused)")
            #expect(view.value("\(scenario.prefix)/control/pollen/updated_at") == controlUpdated)
            #expect(view.clearedTopics(under: scenario.prefix).isEmpty)
            #expect(view.value("\(scenario.prefix)/status") == "online")

            #expect(await agent.terminate() == 0)
        }
    }

    static let rejectedKeyBody = #"""
        {"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com","metadata":{"service":"pollen.googleapis.com"}}]}}
        """#

    @Test("a rejected key with source google is logged once and not retried")
    func rejectedKeyIsNotHammered() async throws {
        let scenario = try AgentSandbox(faultLocations: [FakeAPIs.Location(id: "home", latitude: 48.5)])
        scenario.apis.setGoogle(
            .respond(status: 400, headers: [("Content-Type", "application/json")], text: Self.rejectedKeyBody))
        try await MosquittoBroker.withPlainBroker { port in
            try scenario.writeConfig(brokerPort: port)
            let agent = try AgentProcess(["run", "--config", scenario.configPath], directory: scenario.directory)
            try #require(await agent.waitForLine("rejected the API key"), "\(agent.log)")
            // That no second request comes for a day is DaemonLoopTests' (a day of the loop on a
            // hand-moved clock); here: the wiring, one request, one error line.
            #expect(scenario.apis.requests(path: "/google").count == 1)
            #expect(agent.lines(containing: "rejected the API key").count == 1)
            #expect(agent.lines(containing: "rejected the API key").first?.contains("error:") == true)
            #expect(scenario.apis.requests(path: "/air-quality").isEmpty)
            #expect(await agent.terminate() == 0)
        }
    }

    @Test("a rejected key with source auto falls back to Open-Meteo")
    func rejectedKeyFallsBackWithAuto() async throws {
        let scenario = try AgentSandbox(faultLocations: [FakeAPIs.Location(id: "home", latitude: 48.5)])
        scenario.apis.setGoogle(
            .respond(status: 400, headers: [("Content-Type", "application/json")], text: Self.rejectedKeyBody))
        try await MosquittoBroker.withPlainBroker { port in
            try scenario.writeConfig(brokerPort: port, pollen: "source: auto\n  api_key: test-key-0123456789")
            let view = try await BrokerView(port: port, patterns: ["\(scenario.prefix)/#"])
            defer { Task { await view.stop() } }
            let agent = try AgentProcess(["run", "--config", scenario.configPath], directory: scenario.directory)
            let pollenTopic = "\(scenario.prefix)/home/pollen"
            let fellBack = await eventually(bound: .seconds(20)) {
                jsonObject(view.value(pollenTopic))?["source"] as? String == "open-meteo"
            }
            #expect(fellBack, "\(agent.log)")
            #expect(scenario.apis.requests(path: "/air-quality").count == 1)
            #expect(scenario.apis.requests(path: "/google").count == 1)
            #expect(agent.lines(containing: "using key-free Open-Meteo instead").count == 1)
            // The summary arrives before its scalars (topics go out in order): wait for the flag.
            #expect(await view.waitFor("\(pollenTopic)/stale", "false"))
            #expect(await agent.terminate() == 0)
        }
    }

    @Test("a 200 whose body is an Open-Meteo or Google error envelope is a failure, not data or 'no pollen here'")
    func errorEnvelopesOn200AreFailures() {
        let openMeteo = FetchedResponse(
            status: 200,
            body: Array(#"{"error":true,"reason":"Cannot initialize WeatherVariable from invalid String value"}"#.utf8))
        guard
            case .failure(let message, _) = PollenFetch.interpret(
                openMeteo, source: .openMeteo, fetchedAt: DaemonInstant(unixSeconds: 0))
        else {
            Issue.record("Open-Meteo error envelope on 200 not a failure")
            return
        }
        #expect(message.contains("Cannot initialize"), "\(message)")
        let google = FetchedResponse(
            status: 200,
            body: Array(
                #"{"error":{"code":503,"message":"The service is currently unavailable.","status":"UNAVAILABLE"}}"#.utf8
            ))
        let googleResult = PollenFetch.interpret(google, source: .google, fetchedAt: DaemonInstant(unixSeconds: 0))
        guard case .failure(let googleMessage, _) = googleResult else {
            Issue.record("Google error envelope on 200 not a failure")
            return
        }
        #expect(googleMessage == "HTTP 200 with an error body: The service is currently unavailable.")
    }
}
