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
import BreezeTestSupport
import Foundation
import Testing

/// SPEC §11: a hub broker bridging `<p>/#` and `homeassistant/#` out to a central broker, the
/// way a fleet of homes reports to one place (docs/brokers.md shows the same bridge lines).
/// Two private mosquittos; the agent only ever talks to the hub.
@Suite("Brokers: a mosquitto bridge, hub → central", .serialized)
struct BridgeTests {
    static let zone = "Europe/Berlin"

    /// The bridge section of the hub's mosquitto.conf, as an installer would write it.
    static func bridgeLines(centralPort: Int, prefix: String) -> [String] {
        [
            "connection central",
            "address 127.0.0.1:\(centralPort)",
            "topic \(prefix)/# out 1",
            "topic homeassistant/# out 1",
            // Reconnect within seconds in the test (the default backoff starts at 5 s).
            "restart_timeout 1 2",
        ]
    }

    /// The retained tree of a broker under the agent's prefix and discovery, read by a fresh client.
    static func tree(_ broker: MosquittoBroker, _ prefix: String) async throws -> [String: String] {
        try await BrokerView.snapshot(port: broker.port, ["\(prefix)/#", "homeassistant/#"])
    }

    /// Waits until the central tree equals the hub's (a bridge forwards asynchronously): the
    /// central tree is read again after each message the bridge delivers there.
    static func converge(hub: MosquittoBroker, central: MosquittoBroker, prefix: String) async throws -> (
        hub: [String: String], central: [String: String]
    ) {
        let hubTree = try await tree(hub, prefix)
        let arrivals = try await BrokerView(port: central.port, patterns: ["\(prefix)/#", "homeassistant/#"])
        defer { Task { await arrivals.stop() } }
        var centralTree: [String: String] = [:]
        let deadline = ContinuousClock.now + .seconds(20)
        while true {
            // Counted before the read: a message arriving during it wakes the next wait.
            let seen = arrivals.messageCount
            centralTree = try await tree(central, prefix)
            if centralTree == hubTree || ContinuousClock.now >= deadline { break }
            _ = await eventually(bound: deadline - ContinuousClock.now) { arrivals.messageCount > seen }
        }
        return (hubTree, centralTree)
    }

    static func body(without plants: Set<String>) throws -> [UInt8] {
        try googleBody(zone: zone) { days in
            for index in days.indices {
                days[index]["plantInfo"] = (days[index]["plantInfo"] as! [[String: Any]]).filter {
                    !plants.contains($0["code"] as? String ?? "")
                }
            }
        }
    }

    @Test("central equals hub after once, after a plant disappears, after the bridge is cut and restored")
    func bridge() async throws {
        let prefix = "bridge-\(shortID())"
        let central = try MosquittoBroker()
        try await central.start()
        defer { central.stop() }
        let hub = try MosquittoBroker(configuration: Self.bridgeLines(centralPort: central.port, prefix: prefix))
        try await hub.start()
        defer { hub.stop() }

        let today = Day.today(in: Self.zone)
        let all = try googleBody(zone: Self.zone)
        let upstream = try FakeAPIs(
            .init(
                google: { _ in .respond(status: 200, body: all) }, celsius: [2000: 10.0, 2010: 11.0, today.year: 12.4]))
        let sandbox = try AgentSandbox()
        try sandbox.writeConfig(
            port: hub.port, prefix: prefix,
            """
            locations:
              - {id: home, name: Home, latitude: 52.52, longitude: 13.405, timezone: \(Self.zone)}
            pollen: {api_key: e2e-key}
            climate: {years: [2000, 2010], unit: fahrenheit}
            \(upstream.endpointsYAML)
            """)
        let central1 = try BrokerView(port: central.port)
        try await central1.start(["\(prefix)/#", "homeassistant/#"])
        defer { Task { await central1.stop() } }

        // 1. once: the whole tree reaches the central broker, retained.
        #expect(await runAgent("once", sandbox) == 0)
        var (hubTree, centralTree) = try await Self.converge(hub: hub, central: central, prefix: prefix)
        let base = "\(prefix)/home"
        #expect(hubTree["\(base)/pollen/grass/value"] == "3")
        #expect(hubTree["\(base)/climate/current"] == "54.3")
        #expect(hubTree.keys.contains { $0.hasPrefix("homeassistant/device/") })
        #expect(hubTree["\(base)/pollen/pine/value"] != nil)
        #expect(centralTree == hubTree, "hub \(hubTree.count) topics, central \(centralTree.count)\n\(hub.log)")

        // 2. A plant disappears: the hub clears its topics, and the clears cross the bridge.
        let withoutPine = try Self.body(without: ["PINE"])
        upstream.update { $0.google = { _ in .respond(status: 200, body: withoutPine) } }
        #expect(await runAgent("once", sandbox) == 0)
        (hubTree, centralTree) = try await Self.converge(hub: hub, central: central, prefix: prefix)
        #expect(!hubTree.keys.contains { $0.hasPrefix("\(base)/pollen/pine") })
        #expect(centralTree == hubTree, "hub \(hubTree.count) topics, central \(centralTree.count)")
        // The live subscriber on the central broker saw the empty retained payloads arrive.
        #expect(
            await eventually(bound: .seconds(10)) { central1.clearedTopics(under: "\(base)/pollen/pine").count >= 4 })
        #expect(central1.tree(under: "\(base)/pollen/pine").isEmpty)

        // 3. The bridge is cut (the central broker goes away, losing its store), the hub's tree
        // changes meanwhile (birch gone), and the central broker comes back empty: the hub
        // re-sends its retained tree when the bridge reconnects.
        central.stop()
        let withoutBirch = try Self.body(without: ["PINE", "BIRCH"])
        upstream.update { $0.google = { _ in .respond(status: 200, body: withoutBirch) } }
        #expect(await runAgent("once", sandbox) == 0)
        try await central.restart()
        (hubTree, centralTree) = try await Self.converge(hub: hub, central: central, prefix: prefix)
        #expect(hubTree["\(base)/pollen/birch/value"] == nil)
        #expect(hubTree["\(base)/pollen/grass/value"] == "3")
        #expect(centralTree == hubTree, "hub \(hubTree.count) topics, central \(centralTree.count)\n\(hub.log)")
    }
}
