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

#if canImport(Glibc)
    import Glibc
#endif

/// Restarts, broker faults, signals and bad command input, against the real agent binary, a
/// real mosquitto and the loopback APIs; each test reads back what the broker holds.
@Suite("Fault injection: restarts, broker, signals, commands", .serialized)
struct FaultRuntimeTests {
    @Test("a warm restart publishes from state_dir with no HTTP request; a corrupt file is set aside")
    func warmRestartSpendsNoQuota() async throws {
        let scenario = try AgentSandbox(faultLocations: [
            FakeAPIs.Location(id: "warm", latitude: 51.0), FakeAPIs.Location(id: "broken", latitude: 51.5),
        ])
        try await MosquittoBroker.withPlainBroker { port in
            try scenario.writeConfig(brokerPort: port)
            let view = try await BrokerView(port: port, patterns: ["\(scenario.prefix)/#"])
            defer { Task { await view.stop() } }
            let first = try AgentProcess(["run", "--config", scenario.configPath], directory: scenario.directory)
            let topics =
                scenario.essentialTopics("warm").filter { !$0.contains("/device/") }
                + scenario.essentialTopics("broken").filter { !$0.contains("/device/") }
            try #require(await view.waitForTopics(topics), "\(first.log)")
            let warmUpdated = try #require(view.value("\(scenario.prefix)/warm/pollen/updated_at"))
            #expect(await first.terminate() == 0)
            #expect(await view.waitFor("\(scenario.prefix)/status", "offline"))
            let requestsBefore = scenario.apis.requests().count

            // Truncate one stored response, as a crash or a full disk could leave it.
            let brokenFile = scenario.stateDir + "/responses/broken.pollen-google.json"
            let stored = try Data(contentsOf: URL(fileURLWithPath: brokenFile))
            try stored.prefix(stored.count / 2).write(to: URL(fileURLWithPath: brokenFile))

            let second = try AgentProcess(["run", "--config", scenario.configPath], directory: scenario.directory)
            #expect(await view.waitFor("\(scenario.prefix)/status", "online"), "\(second.log)")
            #expect(await second.waitForLine("broken.pollen-google.json is corrupt"), "\(second.log)")
            #expect(second.lines(containing: "is corrupt").count == 1)
            #expect(FileManager.default.fileExists(atPath: brokenFile + ".corrupt"))
            #expect(second.lines(containing: "pollen[warm]: restored data").count == 1)
            #expect(second.lines(containing: "climate[warm]: restored data").count == 1)
            // The broken source is fetched again (after the 0–5 s start jitter) ...
            #expect(await second.waitForLine("pollen[broken]: fetched from google"), "\(second.log)")
            // ... and, by then, nothing else. That no restored source is fetched again at all
            // is DaemonLoopTests' `aWarmRestartFetchesNothingItRestored` (a hand-moved clock
            // through the start spread and the diagnostics), so no wait for the jitter here.
            let after = Array(scenario.apis.requests().dropFirst(requestsBefore))
            #expect(after.count == 1, "requests after restart: \(after.map(\.target))")
            #expect(
                after.allSatisfy { scenario.apis.location(of: $0) == "broken" && $0.path.hasSuffix("forecast:lookup") })
            #expect(view.value("\(scenario.prefix)/warm/pollen/updated_at") == warmUpdated)
            #expect(view.value("\(scenario.prefix)/warm/pollen/stale") == "false")
            #expect(await second.terminate() == 0)
        }
    }

    @Test("broker down at start, then restarted without its retained store: the full tree comes back")
    func brokerDownThenRestarted() async throws {
        let scenario = try AgentSandbox(faultLocations: [FakeAPIs.Location(id: "home", latitude: 52.5)])
        let broker = try MosquittoBroker()
        defer { broker.stop() }
        try scenario.writeConfig(brokerPort: broker.port)
        let agent = try AgentProcess(["run", "--config", scenario.configPath], directory: scenario.directory)
        // The agent fetches while the broker is down and keeps running.
        try #require(await agent.waitForLine("pollen[home]: fetched"), "\(agent.log)")
        try #require(await agent.waitForLine("climate[home]: fetched"), "\(agent.log)")
        #expect(agent.isRunning)

        try await broker.start()
        let topics = scenario.essentialTopics("home")
        let view = try await BrokerView(
            port: broker.port, patterns: ["\(scenario.prefix)/#", "\(scenario.discoveryPrefix)/#"])
        let appeared = await view.waitForTopics(topics, timeout: .seconds(20))
        #expect(appeared, "missing: \(topics.filter { view.value($0) == nil })\n\(agent.log)")
        #expect(view.value("\(scenario.prefix)/status") == "online")
        let complete = view.tree(under: scenario.prefix)
        await view.stop()

        // No persistence: the restarted broker has lost every retained message.
        try await broker.restart()
        let fresh = try await BrokerView(
            port: broker.port, patterns: ["\(scenario.prefix)/#", "\(scenario.discoveryPrefix)/#"])
        var back = false
        // Timed off the cooperative pool (parallel render tests may hold it for seconds).
        let took = await durationOffThePool { back = await fresh.waitForTopics(topics, timeout: .seconds(20)) }
        #expect(back, "missing after restart: \(topics.filter { fresh.value($0) == nil })\n\(agent.log)")
        #expect(took < .seconds(15))
        // Every topic held before the restart is back with the same payload. A source that
        // finished after the first snapshot (the stripes fetch, which the essential topics do not
        // wait for) may add topics; that is not a difference.
        let republished = await eventually(bound: .seconds(10)) {
            let after = fresh.tree(under: scenario.prefix)
            return complete.allSatisfy { after[$0.key] == $0.value }
        }
        let after = fresh.tree(under: scenario.prefix)
        let differing = complete.keys.filter { complete[$0] != after[$0] }.sorted()
        #expect(
            republished,
            "tree differs after the broker restart: \(differing.map { "\($0): \(complete[$0] ?? "-") → \(after[$0] ?? "-")" })"
        )
        #expect(agent.lines(containing: "mqtt: disconnected").count >= 1)
        #expect(await agent.terminate() == 0)
        #expect(await fresh.waitFor("\(scenario.prefix)/status", "offline"))
        await fresh.stop()
    }

    @Test("broker killed in the middle of publishing thousands of topics: the whole tree arrives after it returns")
    func brokerKilledMidPublish() async throws {
        // 20 locations: about 5 000 retained topics, published in one burst on connect.
        let locations = (0..<20).map { FakeAPIs.Location(id: "l\($0)", latitude: 40.0 + Double($0) * 0.5) }
        let scenario = try AgentSandbox(faultLocations: locations)
        let broker = try MosquittoBroker()
        defer { broker.stop() }
        try scenario.writeConfig(brokerPort: broker.port)
        let agent = try AgentProcess(["run", "--config", scenario.configPath], directory: scenario.directory)
        // Everything is fetched while the broker is down, so the connect publishes it all at once.
        try #require(
            await agent.waitForLine("climate[", count: locations.count, timeout: .seconds(60)), "\(agent.log)")
        try #require(await agent.waitForLine("pollen[", count: locations.count, timeout: .seconds(60)))
        // The warming stripes (one yearly request per location) too: "stripes[lN]: 46 years 1980–…".
        try #require(await agent.waitForLine(" years 1980–", count: locations.count, timeout: .seconds(60)))

        try await broker.start()
        let watcher = try await BrokerView(port: broker.port, patterns: ["\(scenario.prefix)/#"])
        // Cut the broker (SIGKILL: no goodbye) as soon as the burst has begun.
        let begun = await eventually(bound: .seconds(20)) { watcher.tree(under: scenario.prefix).count > 50 }
        try #require(begun, "the publish burst never started\n\(agent.log)")
        broker.stop()
        let seenBeforeCut = watcher.tree(under: scenario.prefix).count
        await watcher.stop()

        // Back without its retained store: the agent reconnects and republishes everything.
        try await broker.start()
        let view = try await BrokerView(
            port: broker.port, patterns: ["\(scenario.prefix)/#", "\(scenario.discoveryPrefix)/#"])
        let essentials = locations.flatMap { scenario.essentialTopics($0.id) }
        let back = await view.waitForTopics(essentials, timeout: .seconds(30))
        #expect(
            back,
            "missing: \(essentials.filter { view.value($0) == nil }.prefix(5))\n\(agent.log)\nbroker:\n\(broker.log)")
        // Settled: the tree stops growing.
        var settled = view.tree(under: scenario.prefix)
        _ = await eventually(bound: .seconds(20)) {
            let now = view.tree(under: scenario.prefix)
            defer { settled = now }
            return now.count == settled.count && now.count > seenBeforeCut
        }
        let afterCut = view.tree(under: scenario.prefix)
        await view.stop()

        // A clean restart republishes the complete tree: it must equal what the cut one became.
        try await broker.restart()
        let reference = try await BrokerView(port: broker.port, patterns: ["\(scenario.prefix)/#"])
        let complete = await eventually(bound: .seconds(30)) {
            reference.tree(under: scenario.prefix).count >= afterCut.count
        }
        #expect(
            complete,
            "\(reference.tree(under: scenario.prefix).count) of \(afterCut.count) topics\n\(agent.log)\nbroker:\n\(broker.log)"
        )
        _ = await eventually(bound: .seconds(10)) { reference.tree(under: scenario.prefix) == afterCut }
        #expect(reference.tree(under: scenario.prefix) == afterCut, "the tree after the cut is not the full tree")
        #expect(afterCut.count > locations.count * 100, "only \(afterCut.count) topics")
        // The cut really came in the middle of the burst.
        #expect(seenBeforeCut < afterCut.count, "saw \(seenBeforeCut) of \(afterCut.count) before the cut")
        #expect(agent.lines(containing: "mqtt: disconnected").count >= 1)
        #expect(await agent.terminate() == 0)
        await reference.stop()
    }

    @Test(
        "SIGTERM and SIGINT while a fetch hangs: offline retained, exit 0 within 2 s",
        arguments: [SIGTERM, SIGINT])
    func signalsWhileFetchHangs(_ signal: Int32) async throws {
        let scenario = try AgentSandbox(faultLocations: [FakeAPIs.Location(id: "home", latitude: 53.5)])
        scenario.apis.setFaultForAll(.hang)
        try await MosquittoBroker.withPlainBroker { port in
            try scenario.writeConfig(brokerPort: port)
            let view = try await BrokerView(port: port, patterns: ["\(scenario.prefix)/status"])
            defer { Task { await view.stop() } }
            let agent = try AgentProcess(["run", "--config", scenario.configPath], directory: scenario.directory)
            try #require(await view.waitFor("\(scenario.prefix)/status", "online"), "\(agent.log)")
            try #require(
                await eventually(bound: .seconds(15)) { !scenario.apis.requests().isEmpty }, "no fetch started")
            let sent = ContinuousClock.now
            agent.signal(signal)
            let status = await agent.waitForExit(timeout: .seconds(2))
            let took = ContinuousClock.now - sent
            #expect(status == 0, "exit \(String(describing: status)) after \(took)\n\(agent.log)")
            #expect(await view.waitFor("\(scenario.prefix)/status", "offline", timeout: .seconds(5)))
            #expect(agent.lines(containing: "shutting down").count == 1)
            #expect(agent.lines(containing: "stopped").count == 1)
            if status == nil { await agent.terminate() }
        }
    }

    @Test("garbage, invalid UTF-8, huge payloads and wrong words on command topics change nothing")
    func badCommandInput() async throws {
        let scenario = try AgentSandbox(faultLocations: [FakeAPIs.Location(id: "home", latitude: 54.5)])
        try await MosquittoBroker.withPlainBroker { port in
            try scenario.writeConfig(brokerPort: port)
            let view = try await BrokerView(port: port, patterns: ["\(scenario.prefix)/#"])
            defer { Task { await view.stop() } }
            let agent = try AgentProcess(["run", "--config", scenario.configPath], directory: scenario.directory)
            let unitTopic = "\(scenario.prefix)/home/climate/unit"
            try #require(await view.waitForTopics(scenario.essentialTopics("home").filter { !$0.contains("/device/") }))
            try #require(await agent.waitForLine("mqtt: connected"))
            #expect(view.value(unitTopic) == "°F")
            let requests = scenario.apis.requests().count
            let climateBefore = view.value("\(scenario.prefix)/home/climate")

            let set = "\(scenario.prefix)/home/climate/unit/set"
            let refresh = "\(scenario.prefix)/home/refresh"
            let huge = [UInt8](repeating: UInt8(ascii: "c"), count: 1 << 20)
            let bad: [(topic: String, payload: [UInt8], logged: String)] = [
                (set, [0x00, 0x01, 0x1b, 0x7f, 0x08], "refused unit"),
                (set, [0xc3, 0x28, 0xff, 0xfe, 0x80], "refused unit"),
                (set, Array("kelvin".utf8), "refused unit \"kelvin\""),
                (set, Array("Celsius please".utf8), "refused unit"),
                (set, Array(#"{"unit":"celsius"}"#.utf8), "refused unit"),
                (set, Array("[\"°C\"]".utf8), "refused unit"),
                (set, huge, "ignoring 1048576-byte payload"),
                (refresh, huge, "ignoring 1048576-byte payload"),
            ]
            for input in bad { try view.client.publish(input.topic, input.payload, qos: 1) }
            // A valid command last: the agent handles commands in order, so once it is logged
            // every bad one before it has been handled.
            try view.client.publish(set, "celsius", qos: 1)
            try #require(await agent.waitForLine("command: climate unit of home is now °C"), "\(agent.log)")

            let commandLines = agent.lines(containing: "command:")
            #expect(commandLines.count == bad.count + 1, "\(commandLines.joined(separator: "\n"))")
            var remaining = commandLines
            for input in bad {
                let index = remaining.firstIndex { $0.contains(input.logged) && $0.contains(input.topic) }
                #expect(index != nil, "no log line for \(input.logged) on \(input.topic)")
                if let index { remaining.remove(at: index) }
            }
            // Exactly one unit change (the valid one): the bad ones never touched the topic.
            #expect(await view.waitFor(unitTopic, "°C"))
            #expect(view.history(unitTopic) == ["°F", "°C"])
            #expect(
                jsonObject(view.value("\(scenario.prefix)/home/climate"))?["updated_at"] as? String
                    == jsonObject(climateBefore)?["updated_at"] as? String)
            #expect(scenario.apis.requests().count == requests, "a bad command caused a fetch")
            #expect(agent.isRunning)
            #expect(await agent.terminate() == 0)
        }
    }
}
