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

import BreezeConfig
import BreezeCore
import BreezeTestSupport
import Foundation
import Testing

/// `once` against a mosquitto whose ACL file denies the climate subtree (SPEC §12): with MQTT 5
/// each refused topic is logged at warning with its reason, stays out of the published set, and
/// `once` exits 69; with MQTT 3.1.1 the broker's PUBACK carries no reason code, so the refusal
/// is invisible (docs/operations.md).
@Suite("once against a broker that refuses topics")
struct EndToEndRefusalTests {
    static let zone = "Europe/Berlin"

    func run(protocolVersion: String) async throws -> (
        status: Int32?, stderr: String, published: [String: String], prefix: String
    ) {
        let sandbox = try AgentSandbox()
        let prefix = sandbox.prefix
        let aclFile = sandbox.directory + "/acl"
        try "topic readwrite \(prefix)/#\ntopic deny \(prefix)/home/climate/#\n".write(
            toFile: aclFile, atomically: true, encoding: .utf8)
        let broker = try MosquittoBroker(configuration: ["acl_file \(aclFile)"])
        try await broker.start()
        defer { broker.stop() }

        let body = try googleBody(zone: Self.zone)
        sandbox.apis.set(.init(google: { _ in .respond(status: 200, body: body) }, celsius: [2010: 11.0]))
        let config = """
            mqtt:
              host: 127.0.0.1
              port: \(broker.port)
              client_id: \(prefix)-agent
              topic_prefix: \(prefix)
              qos: 1
              protocol: "\(protocolVersion)"
            state_dir: \(sandbox.stateDir)
            log_level: info
            homeassistant: {discovery: false}
            locations:
              - {id: home, latitude: 52.52, longitude: 13.405, timezone: \(Self.zone)}
            pollen: {api_key: e2e-key}
            climate: {years: [2010]}
            \(sandbox.apis.endpointsYAML)

            """
        try config.write(toFile: sandbox.configPath, atomically: true, encoding: .utf8)
        let result = try await AgentProcess.run(
            ["once", "--config", sandbox.configPath], logDirectory: sandbox.directory)
        // The published set as the binary wrote it: one file per location, topic → digest.
        struct PublishedFile: Decodable { var topics: [String: String] }
        let data = try Data(contentsOf: URL(fileURLWithPath: sandbox.stateDir + "/published/location-home.json"))
        let published = try JSONDecoder().decode(PublishedFile.self, from: data).topics
        return (result.status, result.stderr, published, prefix)
    }

    @Test func mqtt5RefusalsAreLoggedKeptOutOfThePublishedSetAndExit69() async throws {
        let (status, stderr, published, prefix) = try await run(protocolVersion: "5")
        #expect(status == 69, "\(stderr)")
        let warnings = stderr.split(separator: "\n").filter {
            $0.contains("mqtt: publish \(prefix)/home/climate/")
                && $0.contains("refused by the broker (0x87): Not authorized")
        }
        #expect(warnings.isEmpty == false, "\(stderr)")
        #expect(warnings.allSatisfy { $0.contains("warning: mqtt: publish") }, "\(warnings)")
        #expect(stderr.contains("refused"), "\(stderr)")
        // Pollen was accepted; no climate topic is claimed as published.
        #expect(published.keys.contains { $0.hasPrefix("\(prefix)/home/pollen/") })
        #expect(published.keys.filter { $0.hasPrefix("\(prefix)/home/climate/") }.isEmpty, "\(published.keys.sorted())")
        #expect(stderr.contains("topics published and acknowledged") == false)
    }

    @Test func mqtt311CannotSeeTheRefusal() async throws {
        let (status, stderr, published, prefix) = try await run(protocolVersion: "3.1.1")
        // Documented limitation: 3.1.1's PUBACK says nothing; mosquitto drops the message.
        #expect(status == 0, "\(stderr)")
        #expect(published.keys.contains { $0.hasPrefix("\(prefix)/home/climate/") })
    }

    /// A TLS broker address whose TCP handshake never completes: `once` gives up after its
    /// 10 s connect wait and exits 69 promptly (libmosquitto alone held on for its 60 s keepalive).
    @Test func onceGivesUpOnAStalledTLSPortPromptly() async throws {
        let sandbox = try AgentSandbox()
        let stalled = try StalledListener()
        let config = """
            mqtt:
              host: 127.0.0.1
              port: \(stalled.port)
              tls: {insecure: true}
            state_dir: \(sandbox.stateDir)
            log_level: info
            homeassistant: {discovery: false}
            locations:
              - {id: home, latitude: 52.52, longitude: 13.405, timezone: \(Self.zone)}
            pollen: {api_key: e2e-key}
            \(sandbox.apis.endpointsYAML)

            """
        try config.write(toFile: sandbox.configPath, atomically: true, encoding: .utf8)
        // Timed off the cooperative pool (TimingExecutor): in the parallel suite synchronous
        // render tests hold both pool threads, and the wait for the process would be measured.
        var outcome: (status: Int32?, stdout: String, stderr: String)?
        let elapsed = try await durationOffThePool {
            outcome = try await AgentProcess.run(
                ["once", "--config", sandbox.configPath], logDirectory: sandbox.directory, timeout: .seconds(60))
        }
        let result = try #require(outcome)
        #expect(result.status == 69, "\(result.stderr)")
        #expect(elapsed < .seconds(15), "once took \(elapsed)")
        #expect(result.stderr.contains("cannot connect to 127.0.0.1:\(stalled.port)"), "\(result.stderr)")
        _ = stalled
    }
}
