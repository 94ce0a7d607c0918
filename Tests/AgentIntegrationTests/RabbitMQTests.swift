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
@testable import BreezeConfig
import BreezeCore
import BreezeMQTT
import BreezeTestSupport
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The port of the private RabbitMQ node `make test-brokers` starts (scripts/rabbitmq-broker.sh).
let rabbitMQPort: Int? = ProcessInfo.processInfo.environment["BREEZE_TEST_RABBITMQ_PORT"].flatMap { Int($0) }

/// SPEC §11 with RabbitMQ's MQTT plugin (Debian 12: RabbitMQ 3.10, MQTT 3.1.1 only). RabbitMQ
/// keeps retained messages per node and delivers them to exact-topic subscriptions only, never
/// to wildcards — so the tree is read back one topic at a time. Runs under `make test-brokers`
/// (skipped in `make test`, which has no RabbitMQ node).
@Suite("Brokers: RabbitMQ (MQTT 3.1.1)", .serialized, .enabled(if: rabbitMQPort != nil))
struct RabbitMQTests {
    static let zone = "Europe/Berlin"

    /// A 3.1.1 client that reads exact topics: every message it receives, latest per topic.
    final class Reader: Sendable {
        let client: MQTTClient
        private let latest = Mutex<[String: String]>([:])
        private let pump = Mutex<Task<Void, Never>?>(nil)

        init(port: Int) async throws {
            client = try MQTTClient(
                MQTTConfiguration(
                    host: "127.0.0.1", port: port, clientID: "reader-\(shortID())", protocolVersion: .v311))
            let events = client.events
            pump.withLock {
                $0 = Task { [self] in
                    for await event in events {
                        guard case .message(let message) = event else { continue }
                        latest.withLock { $0[message.topic] = message.payloadString }
                        TestEvents.shared.report()
                    }
                }
            }
            try client.start()
            let connected = await client.waitUntilConnected(timeout: .seconds(15))
            try #require(connected, "reader did not connect: \(String(describing: client.lastError))")
        }

        func stop() async {
            await client.stop()
            pump.withLock { $0?.cancel() }
        }

        func payload(_ topic: String) -> String? { latest.withLock { $0[topic] } }
        var all: [String: String] { latest.withLock { $0 } }

        /// Subscribes to each topic (exact, no wildcard) and waits until every one has a message.
        func read(_ topics: [String], timeout: Duration = .seconds(20)) async throws -> [String: String] {
            for topic in topics { try client.subscribe(topic, qos: 1) }
            _ = await eventually(bound: timeout) { topics.allSatisfy { self.payload($0) != nil } }
            let seen = all
            return seen.filter { topics.contains($0.key) }
        }

        func waitFor(_ topic: String, _ payload: String, timeout: Duration = .seconds(15)) async -> Bool {
            await eventually(bound: timeout) { self.payload(topic) == payload }
        }
    }

    static func config(
        _ sandbox: AgentSandbox, port: Int, prefix: String, upstream: FakeAPIs, explicitProtocol: Bool = true
    ) throws {
        try sandbox.writeConfig(
            port: port, prefix: prefix,
            """
            locations:
              - {id: home, name: Home, latitude: 52.52, longitude: 13.405, timezone: \(zone)}
            pollen: {api_key: e2e-key, refresh_cooldown: 1m}
            climate: {years: [2000, 2010], unit: fahrenheit, refresh_cooldown: 1m}
            \(upstream.endpointsYAML)
            """)
        guard explicitProtocol else { return }
        // `protocol` belongs under `mqtt:`; writeConfig writes that block first.
        let text = try String(contentsOfFile: sandbox.configPath, encoding: .utf8)
        try text.replacingOccurrences(of: "mqtt:\n", with: "mqtt:\n  protocol: \"3.1.1\"\n")
            .write(toFile: sandbox.configPath, atomically: true, encoding: .utf8)
    }

    static func upstream() throws -> FakeAPIs {
        let today = Day.today(in: zone)
        let body = try googleBody(zone: zone)
        return try FakeAPIs(
            .init(
                google: { _ in .respond(status: 200, body: body) },
                celsius: [2000: 10.0, 2010: 11.0, today.year: 12.4]))
    }

    @Test("once with protocol 3.1.1: the complete tree is retained on the node, read topic by topic")
    func onceTree() async throws {
        let port = try #require(rabbitMQPort)
        let sandbox = try AgentSandbox()
        let prefix = "rmq-\(shortID())"
        let upstream = try Self.upstream()
        try Self.config(sandbox, port: port, prefix: prefix, upstream: upstream)
        #expect(await runAgent("once", sandbox) == 0)

        // What the agent published, by its own record; every one of those topics must be retained.
        let published = StateStore(directory: sandbox.stateDir, log: Log(level: .error)).publishedDigests()
        let base = "\(prefix)/home"
        #expect(published["\(base)/pollen/grass/value"] == PayloadDigest(payload: "3"))
        #expect(published["\(base)/climate/current"] == PayloadDigest(payload: "54.3"))
        #expect(published.keys.contains { $0.hasPrefix("homeassistant/device/") })
        #expect(published.count > 200)
        let reader = try await Reader(port: port)
        defer { Task { await reader.stop() } }
        let retained = try await reader.read(published.keys.sorted())
        let missing = published.keys.filter { retained[$0] == nil }.sorted()
        #expect(missing.isEmpty, "\(missing.count) of \(published.count) topics not retained: \(missing.prefix(10))")
        let different = published.keys.filter { topic in
            retained[topic].map { PayloadDigest(payload: $0) != published[topic] } ?? false
        }
        #expect(different.isEmpty, "\(different.sorted().prefix(10))")

        // RabbitMQ's documented limit, checked so docs/brokers.md stays true: a wildcard
        // subscriber gets none of the retained tree.
        let wildcard = try await Reader(port: port)
        defer { Task { await wildcard.stop() } }
        try wildcard.client.subscribe("\(prefix)/#", qos: 1)
        // Time must pass here: RabbitMQ's retainer answers a subscription apart from its
        // routing, so no marker published afterwards is ordered behind what it would send.
        try await Task.sleep(for: .seconds(1))
        #expect(wildcard.all.isEmpty)
    }

    @Test("once without mqtt.protocol: MQTT 5 refused by RabbitMQ 3.10, one fallback to 3.1.1, the tree retained")
    func onceFallsBack() async throws {
        let port = try #require(rabbitMQPort)
        let sandbox = try AgentSandbox()
        let prefix = "rmq-\(shortID())"
        let upstream = try Self.upstream()
        try Self.config(sandbox, port: port, prefix: prefix, upstream: upstream, explicitProtocol: false)
        #expect(!(try String(contentsOfFile: sandbox.configPath, encoding: .utf8)).contains("protocol"))
        // Without the fallback `once` gives up after its 10 s connect wait with exit 69.
        #expect(await runAgent("once", sandbox) == 0)
        let published = StateStore(directory: sandbox.stateDir, log: Log(level: .error)).publishedDigests()
        #expect(published["\(prefix)/home/pollen/grass/value"] == PayloadDigest(payload: "3"))
        #expect(published.count > 200)
        let reader = try await Reader(port: port)
        defer { Task { await reader.stop() } }
        let retained = try await reader.read(published.keys.sorted())
        let missing = published.keys.filter { retained[$0] == nil }.sorted()
        #expect(missing.isEmpty, "\(missing.count) of \(published.count) topics not retained: \(missing.prefix(10))")
    }

    @Test("run with protocol 3.1.1: online, commands (unit, refresh), Home Assistant birth, offline")
    func commands() async throws {
        let port = try #require(rabbitMQPort)
        let sandbox = try AgentSandbox()
        let prefix = "rmq-run-\(shortID())"
        let upstream = try Self.upstream()
        try Self.config(sandbox, port: port, prefix: prefix, upstream: upstream)
        let base = "\(prefix)/home"
        let device = "homeassistant/device/\(prefix.replacingOccurrences(of: "-", with: "_"))_home/config"

        let reader = try await Reader(port: port)
        defer { Task { await reader.stop() } }
        for topic in ["\(prefix)/status", "\(base)/climate/unit", "\(base)/climate/current", device] {
            try reader.client.subscribe(topic, qos: 1)
        }
        let agent = try AgentProcess(["run", "--config", sandbox.configPath], logDirectory: sandbox.directory)
        #expect(await reader.waitFor("\(prefix)/status", "online"), "\(agent.stderr)")
        #expect(await reader.waitFor("\(base)/climate/unit", "°F", timeout: .seconds(20)), "\(agent.stderr)")
        #expect(await eventually(bound: .seconds(15)) { reader.payload(device) != nil }, "\(agent.stderr)")
        #expect(upstream.googleRequests.count == 1)

        let commander = try await Reader(port: port)
        defer { Task { await commander.stop() } }
        try commander.client.publish("\(base)/climate/unit/set", "C", qos: 1)
        #expect(await reader.waitFor("\(base)/climate/unit", "°C"), "\(agent.stderr)")
        #expect(reader.payload("\(base)/climate/current") == "12.4")
        try commander.client.publish("\(base)/refresh", "1", qos: 1)
        #expect(await eventually(bound: .seconds(15)) { upstream.googleRequests.count == 2 }, "\(agent.stderr)")

        // Home Assistant restarts (its `homeassistant/#` gets no retained configs from RabbitMQ):
        // the birth message makes the agent send discovery again.
        try commander.client.publish(device, "", qos: 1, retain: true)
        #expect(await reader.waitFor(device, ""))
        try commander.client.publish("homeassistant/status", "online", qos: 1)
        #expect(
            await eventually(bound: .seconds(20)) { !(reader.payload(device) ?? "").isEmpty }, "\(agent.stderr)")

        #expect(await agent.terminate() == 0)
        #expect(await reader.waitFor("\(prefix)/status", "offline"))
    }
}
