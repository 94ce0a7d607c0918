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

/// Issue 27 findings 3 and 4 end to end (SPEC §16 "Two agents, one identity", "Its own tree,
/// kept"), with two real agents on the test broker.
@Suite("End to end: two agents with one identity, the agent's own tree kept", .serialized)
struct IdentityEndToEndTests {
    static let zone = "Europe/Berlin"

    static func config(
        port: Int, prefix: String, clientID: String, stateDir: String, upstream: FakeAPIs, office: Bool = true
    ) -> String {
        """
        mqtt: {host: 127.0.0.1, port: \(port), client_id: \(clientID), topic_prefix: \(prefix)}
        state_dir: \(stateDir)
        log_level: debug
        locations:
          - {id: home, name: Home, latitude: 52.52, longitude: 13.405, timezone: \(zone)}
        \(office ? "  - {id: office, name: Office, latitude: 48.1, longitude: 11.6, timezone: \(zone)}" : "")
        pollen: {api_key: e2e-identity-key}
        climate: {enabled: false}
        \(upstream.endpointsYAML)

        """
    }

    static func write(_ text: String, to directory: String) throws -> String {
        let path = directory + "/config-\(shortID()).yaml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("two agents with one client id: backoff instead of a reconnect every second, one error line each")
    func sameClientIDBacksOff() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let one = try AgentSandbox()
            let two = try AgentSandbox()
            one.apis.set(.init(google: EndToEndImageTests.google(try googleBody(zone: Self.zone))))
            let prefix = one.prefix
            let clientID = "\(prefix)-same"
            let view = try await BrokerView(port: port, patterns: ["\(prefix)/#"])
            defer { Task { await view.stop() } }
            var agents: [AgentProcess] = []
            for sandbox in [one, two] {
                let path = try Self.write(
                    Self.config(
                        port: port, prefix: prefix, clientID: clientID, stateDir: sandbox.stateDir, upstream: one.apis,
                        office: false), to: sandbox.directory)
                agents.append(try AgentProcess(["run", "--config", path], logDirectory: sandbox.directory))
            }
            let seconds = 40
            // Time must pass here: what is measured is a rate (connects per 40 s of two agents
            // taking the client id from each other under the broker's and libmosquitto's clocks).
            try await Task.sleep(for: .seconds(seconds))
            let connects = agents.map { $0.lines(containing: "mqtt: connected to").count }
            let messages = view.messageCount
            print(
                "FIGURE finding3: \(seconds) s, connects per agent \(connects), messages seen under \(prefix)/# \(messages)"
            )
            for agent in agents { await agent.terminate() }
            #expect(connects.reduce(0, +) <= 24, "connects \(connects)")
            for agent in agents {
                #expect(
                    agent.lines(containing: "another client is using client id").count == 1,
                    "\(agent.stderr.suffix(3000))")
            }
            let diagnostics = view.history("\(prefix)/diagnostics")
            #expect(diagnostics.contains { $0.contains("\"identity_conflict\"") }, "\(diagnostics.suffix(3))")
        }
    }

    @Test("another live instance on the prefix: removed locations kept, offline replaced, refresh restores the tree")
    func otherInstanceKeepsTheTree() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let first = try AgentSandbox()
            let second = try AgentSandbox()
            first.apis.set(.init(google: EndToEndImageTests.google(try googleBody(zone: Self.zone))))
            let prefix = first.prefix
            // The second agent once served office too: its published set has office's topics.
            let both = try Self.write(
                Self.config(
                    port: port, prefix: prefix, clientID: "\(prefix)-b", stateDir: second.stateDir, upstream: first.apis
                ),
                to: second.directory)
            let (status, _, onceLog) = try await AgentProcess.run(
                ["once", "--config", both], logDirectory: second.directory, timeout: .seconds(60))
            try #require(status == 0, "\(onceLog)")
            // The first agent runs with both locations.
            let firstConfig = try Self.write(
                Self.config(
                    port: port, prefix: prefix, clientID: "\(prefix)-a", stateDir: first.stateDir, upstream: first.apis),
                to: first.directory)
            let a = try AgentProcess(["run", "--config", firstConfig], logDirectory: first.directory)
            defer { Task { await a.terminate() } }
            let view = try BrokerView(port: port)
            try await view.start(["\(prefix)/#"])
            defer { Task { await view.stop() } }
            #expect(await view.waitFor("\(prefix)/status", "online"), "\(a.stderr)")
            #expect(await a.waitForLine("republished"), "\(a.stderr)")
            let officeBefore = try await BrokerView.snapshot(port: port, ["\(prefix)/office/#"])
            try #require(!officeBefore.isEmpty)

            // The second agent drops office while the first one serves it.
            let homeOnly = try Self.write(
                Self.config(
                    port: port, prefix: prefix, clientID: "\(prefix)-b", stateDir: second.stateDir,
                    upstream: first.apis,
                    office: false), to: second.directory)
            let b = try AgentProcess(["run", "--config", homeOnly], logDirectory: second.directory)
            defer { Task { await b.terminate() } }
            #expect(await b.waitForLine("mqtt: connected to"), "\(b.stderr)")
            // 5 s after connecting (IdentityGuard.settleSeconds) b decides on office's topics and
            // says so; the clears would have been actions of that same step.
            #expect(
                await b.waitForLine("not clearing the topics of removed location(s) office", timeout: .seconds(20)),
                "\(b.stderr)")
            let officeAfter = try await BrokerView.snapshot(port: port, ["\(prefix)/office/#"])
            #expect(
                officeAfter.count == officeBefore.count,
                "office topics left: \(officeAfter.count) of \(officeBefore.count)\n\(b.stderr.suffix(2000))")
            #expect(b.lines(containing: "another instance announces itself").count == 1, "\(b.stderr.suffix(2000))")

            // Someone else's retained offline on the availability topic is replaced at once.
            let commander = try BrokerView(port: port)
            try await commander.start([])
            defer { Task { await commander.stop() } }
            let statusSeen = view.history("\(prefix)/status").count
            try commander.client.publish("\(prefix)/status", "offline", qos: 1, retain: true)
            #expect(await eventually(bound: .seconds(20)) { view.history("\(prefix)/status").count > statusSeen })
            #expect(
                await eventually(bound: .seconds(20)) {
                    let history = view.history("\(prefix)/status")
                    return history.count > statusSeen + 1 && history.last == "online"
                }, "\(view.history("\(prefix)/status"))")
            let availability = try await BrokerView.snapshot(port: port, ["\(prefix)/status/#"])
            #expect(availability["\(prefix)/status"] == "online")

            // Another client clears home's tree; one refresh brings all of it back.
            let home = try await BrokerView.snapshot(port: port, ["\(prefix)/home/#"])
            for topic in home.keys { try commander.client.publish(topic, "", qos: 1, retain: true) }
            #expect(
                await eventually(bound: .seconds(10)) {
                    view.tree.keys.filter { $0.hasPrefix("\(prefix)/home/") }.isEmpty
                })
            try commander.client.publish("\(prefix)/home/refresh", "1", qos: 1)
            let restored = await eventually(bound: .seconds(10)) {
                view.tree.keys.filter { $0.hasPrefix("\(prefix)/home/") }.count >= home.count
            }
            let count = view.tree.keys.filter { $0.hasPrefix("\(prefix)/home/") }.count
            print("FIGURE finding4: refresh restored \(count) of \(home.count) cleared topics")
            #expect(restored, "restored \(count) of \(home.count)")
        }
    }
}
