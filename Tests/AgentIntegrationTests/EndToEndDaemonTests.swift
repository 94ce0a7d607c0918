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
import BreezeMQTT
import BreezeTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The built binary as a subprocess: `run` (signals, commands, discovery), `--demo once`,
/// `check-config`.
@Suite("End to end: the binary (run, --demo, check-config)")
struct EndToEndDaemonTests {
    static let zone = "Europe/Berlin"

    @Test("run: status, commands (unit, refresh, retained), HA birth, SIGTERM, persisted unit")
    func daemon() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let sandbox = try AgentSandbox()
            let prefix = "e2e-run-\(shortID())"
            let haPrefix = "ha-\(shortID())"
            let today = Day.today(in: Self.zone)
            let body = try googleBody(zone: Self.zone)
            let upstream = sandbox.apis
            upstream.set(
                .init(
                    google: { _ in .respond(status: 200, body: body) },
                    celsius: [2000: 10.0, 2010: 11.0, today.year: 12.4]))
            try sandbox.writeConfig(
                port: port, prefix: prefix,
                """
                homeassistant: {discovery: true, prefix: \(haPrefix)}
                locations:
                  - {id: home, name: Home, latitude: 52.52, longitude: 13.405, timezone: \(Self.zone)}
                pollen: {api_key: e2e-key, refresh_cooldown: 15m}
                climate: {years: [2000, 2010], refresh_cooldown: 1h, unit: fahrenheit}
                \(upstream.endpointsYAML)
                """)
            let view = try BrokerView(port: port)
            try await view.start(["\(prefix)/#", "\(haPrefix)/#"])
            defer { Task { await view.stop() } }
            let base = "\(prefix)/home"
            let discoveryTopic = "\(haPrefix)/device/\(prefix.replacingOccurrences(of: "-", with: "_"))_home/config"

            var agent = try AgentProcess(["run", "--config", sandbox.configPath], logDirectory: sandbox.directory)
            #expect(await view.waitFor("\(prefix)/status", "online"), "\(agent.stderr)")
            // First fetches (after a 0–5 s start jitter) reach the broker.
            #expect(await view.waitFor("\(base)/climate/unit", "°F"), "\(agent.stderr)")
            #expect(await view.waitFor("\(base)/pollen/grass/value", "3"), "\(agent.stderr)")
            #expect(view.payload("\(base)/climate/current") == "54.3")
            #expect(await eventually(bound: .seconds(15)) { view.payload(discoveryTopic) != nil })
            let discovery = try #require(view.json(discoveryTopic))
            #expect(discovery["components"] is [String: Any])
            #expect(upstream.googleRequests.count == 1)
            #expect(upstream.climateRequestCount == 2)

            let commander = try BrokerView(port: port)
            try await commander.start([])
            defer { Task { await commander.stop() } }

            // A retained command is ignored and cleared.
            try commander.client.publish("\(base)/refresh", "now", qos: 1, retain: true)
            #expect(await view.waitFor("\(base)/refresh", ""), "retained command not cleared: \(agent.stderr)")
            let afterRetained = try await BrokerView.snapshot(port: port, ["\(prefix)/#"])
            #expect(afterRetained["\(base)/refresh"] == nil)

            // refresh: honoured once (pollen and climate fetched again).
            try commander.client.publish("\(base)/refresh", "1", qos: 1)
            #expect(await eventually(bound: .seconds(10)) { upstream.googleRequests.count == 2 }, "\(agent.stderr)")
            #expect(await eventually(bound: .seconds(10)) { upstream.climateRequestCount == 4 }, "\(agent.stderr)")
            // The retained command before did not fetch: exactly one more Google call so far.
            #expect(upstream.googleRequests.count == 2)
            let requestsBefore = upstream.totalRequests

            // A second refresh within the cooldown is ignored; the unit command after it proves
            // both were handled (one connection, one subscriber: in order).
            try commander.client.publish("\(base)/refresh", "1", qos: 1)
            try commander.client.publish("\(base)/climate/unit/set", "C", qos: 1)
            #expect(await view.waitFor("\(base)/climate/unit", "°C"), "\(agent.stderr)")
            #expect(await view.waitFor("\(base)/climate/current", "12.4"))
            #expect(view.payload("\(base)/climate/current/text") == "12.4°C")
            #expect(view.payload("\(base)/climate/change/text") == "+2.4°C")
            #expect((view.json("\(base)/climate")?["unit"] as? String) == "°C")
            // No HTTP for the unit change, none for the refused refresh.
            #expect(upstream.totalRequests == requestsBefore)
            #expect(upstream.googleRequests.count == 2)
            // The agent said so too (a refused refresh starts no fetch, so the count alone could race).
            #expect(
                agent.stderr.contains("refresh home: pollen skipped (cooldown), climate skipped (cooldown)"),
                "\(agent.stderr)")
            #expect(agent.stderr.contains("ignoring retained message on \(base)/refresh"), "\(agent.stderr)")

            // Home Assistant restarts: the discovery config comes back after `online`.
            try commander.client.publish(discoveryTopic, "", qos: 1, retain: true)
            #expect(await view.waitFor(discoveryTopic, ""))
            try commander.client.publish("\(haPrefix)/status", "online", qos: 1)
            #expect(await eventually(bound: .seconds(15)) { view.payload(discoveryTopic) != nil }, "\(agent.stderr)")

            // SIGTERM: offline, exit 0 within 2 s.
            var started = ContinuousClock.now
            agent.signal(SIGTERM)
            var status = await agent.waitForExit(timeout: .seconds(2))
            #expect(
                status == 0,
                "exit \(String(describing: status)) after \(ContinuousClock.now - started): \(agent.stderr)")
            #expect(await view.waitFor("\(prefix)/status", "offline"))

            // Restart: the unit chosen by command persists; data comes from state_dir.
            let requestsBeforeRestart = upstream.totalRequests
            agent = try AgentProcess(["run", "--config", sandbox.configPath], logDirectory: sandbox.directory)
            #expect(await view.waitFor("\(prefix)/status", "online"), "\(agent.stderr)")
            let restarted = try await BrokerView.snapshot(port: port, ["\(prefix)/#"])
            #expect(restarted["\(base)/climate/unit"] == "°C")
            #expect(restarted["\(base)/climate/current/text"] == "12.4°C")
            #expect(upstream.totalRequests == requestsBeforeRestart)

            started = ContinuousClock.now
            agent.signal(SIGINT)
            status = await agent.waitForExit(timeout: .seconds(2))
            #expect(
                status == 0,
                "exit \(String(describing: status)) after \(ContinuousClock.now - started): \(agent.stderr)")
            #expect(await view.waitFor("\(prefix)/status", "offline"))
        }
    }

    @Test("--demo once: the tree under breeze-demo/, no discovery")
    func demoOnce() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let sandbox = try AgentSandbox()
            let location = "d\(shortID())"
            let haPrefix = "ha-\(shortID())"
            try sandbox.writeConfig(
                port: port, prefix: "ignored-by-demo",
                """
                homeassistant: {discovery: true, prefix: \(haPrefix)}
                locations:
                  - {id: \(location), latitude: 52.52, longitude: 13.405, timezone: \(Self.zone)}
                """)
            let result = try await AgentProcess.run(
                ["once", "--demo", "--config", sandbox.configPath], logDirectory: sandbox.directory)
            #expect(result.status == 0, "\(result.stderr)")

            let tree = try await BrokerView.snapshot(
                port: port, ["breeze-demo/\(location)/#", "\(haPrefix)/#", "ignored-by-demo/#"])
            let base = "breeze-demo/\(location)"
            #expect(tree["\(base)/pollen/grass/value"] != nil)
            #expect(tree["\(base)/pollen/max/level"] != nil)
            // Berlin and no climate.unit: auto gives °C (the built-in demo config says fahrenheit).
            #expect(tree["\(base)/climate/current/text"]?.hasSuffix("°C") == true)
            #expect(tree.keys.filter { $0.hasPrefix(haPrefix) }.sorted() == [])
            #expect(tree.keys.filter { $0.hasPrefix("ignored-by-demo") }.sorted() == [])
            let homeassistant = try await BrokerView.snapshot(
                port: port, ["homeassistant/device/breeze_demo_\(location)/#"])
            #expect(homeassistant.isEmpty)
        }
    }

    @Test("print: topic<TAB>payload lines on stdout, no broker")
    func printTree() async throws {
        let sandbox = try AgentSandbox()
        let today = Day.today(in: Self.zone)
        let body = try googleBody(zone: Self.zone)
        let upstream = sandbox.apis
        upstream.set(
            .init(google: { _ in .respond(status: 200, body: body) }, celsius: [2010: 11.0, today.year: 12.4]))
        // Port 9 (discard): nothing listens; print must not need a broker.
        try sandbox.writeConfig(
            port: 9, prefix: "e2e-print",
            """
            homeassistant: {discovery: false}
            locations:
              - {id: home, latitude: 52.52, longitude: 13.405, timezone: \(Self.zone)}
            pollen: {api_key: e2e-key}
            climate: {years: [2010], unit: fahrenheit}
            \(upstream.endpointsYAML)
            """)
        let result = try await AgentProcess.run(
            ["print", "--config", sandbox.configPath], logDirectory: sandbox.directory)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map {
            $0.split(separator: "\t", maxSplits: 1).map(String.init)
        }
        #expect(lines.allSatisfy { $0.count == 2 })
        let tree = Dictionary(lines.map { ($0[0], $0.count > 1 ? $0[1] : "") }) { a, _ in a }
        #expect(tree["e2e-print/home/pollen/grass/value"] == "3")
        #expect(tree["e2e-print/home/climate/current/text"] == "54.3°F")
        #expect(!result.stderr.contains("e2e-key"))
    }

    @Test("check-config: a bad file exits 78 naming file:line and key")
    func checkConfigBad() async throws {
        let sandbox = try AgentSandbox()
        let yaml = """
            mqtt:
              host: 127.0.0.1
              qos: 7
            locations:
              - {id: home, latitude: 52.52, longitude: 13.405, timezone: Europe/Berlin}

            """
        try yaml.write(toFile: sandbox.configPath, atomically: true, encoding: .utf8)
        let result = try await AgentProcess.run(
            ["check-config", "--config", sandbox.configPath], logDirectory: sandbox.directory)
        #expect(result.status == 78)
        #expect(result.stderr.contains("\(sandbox.configPath):3"), "\(result.stderr)")
        #expect(result.stderr.contains("mqtt.qos"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)

        // The same file fixed passes.
        try yaml.replacingOccurrences(of: "qos: 7", with: "qos: 1").write(
            toFile: sandbox.configPath, atomically: true, encoding: .utf8)
        let fixed = try await AgentProcess.run(
            ["check-config", "--config", sandbox.configPath], logDirectory: sandbox.directory)
        #expect(fixed.status == 0, "\(fixed.stderr)")
    }
}
