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
import BreezeTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// SPEC §11 end to end: four `run` agents (the real binary) sharing one configuration and one
/// private mosquitto, one killed, then the fleet shrunk to three so that locations move between
/// running shards — restarted one by one, so both handover rules are exercised: a location whose
/// new owner has not published it yet is cleared by the old owner, one the new owner already
/// re-published is left alone.
@Suite("End to end: a sharded fleet on one broker", .serialized)
struct ShardFleetTests {
    static let zone = "Europe/Berlin"
    /// FNV-1a mod 4: loc1, loc5 → 0; loc2, loc6 → 1; loc3, loc7 → 2; loc0, loc4 → 3.
    /// mod 3: loc3, loc5, loc6 → 0; loc0, loc7 → 1; loc1, loc2, loc4 → 2.
    static let ids = (0..<8).map { "loc\($0)" }

    final class Member {
        let index: Int
        let sandbox: AgentSandbox
        var process: AgentProcess?
        init(index: Int) throws {
            self.index = index
            sandbox = try AgentSandbox()
        }
    }

    static func writeConfig(_ member: Member, count: Int, port: Int, prefix: String, ha: String, upstream: FakeAPIs)
        throws
    {
        let locations = ids.enumerated().map { offset, id in
            "  - {id: \(id), latitude: \(50 + Double(offset) / 10), longitude: 13.4, timezone: \(zone)}"
        }
        // No mqtt.client_id: the default one (with `-<index>`) is under test.
        let text = """
            mqtt: {host: 127.0.0.1, port: \(port), topic_prefix: \(prefix)}
            homeassistant: {discovery: true, prefix: \(ha)}
            shard: {index: \(member.index), count: \(count)}
            locations:
            \(locations.joined(separator: "\n"))
            pollen: {api_key: e2e-key}
            climate: {enabled: false}
            state_dir: \(member.sandbox.stateDir)
            log_level: debug
            \(upstream.endpointsYAML)

            """
        try text.write(toFile: member.sandbox.configPath, atomically: true, encoding: .utf8)
    }

    static func start(_ member: Member) throws {
        member.process = try AgentProcess(
            ["run", "--config", member.sandbox.configPath], directory: member.sandbox.directory,
            name: "shard\(member.index)")
    }

    @Test("4 shards: ownership, per-shard status and client ids, a killed shard, locations moved on restart")
    func fleet() async throws {
        // Eight locations' retained trees (≈ 2,000 topics) exceed mosquitto's default queue of
        // 1,000 messages for a new QoS 1 subscriber, which would drop the view's probe.
        let broker = try MosquittoBroker(configuration: ["max_queued_messages 20000"])
        try await broker.start()
        defer { broker.stop() }
        let port = broker.port
        let prefix = "fleet-\(shortID())"
        let ha = "ha-\(shortID())"
        let slug = prefix.replacingOccurrences(of: "-", with: "_")
        func deviceConfig(_ id: String) -> String { "\(ha)/device/\(slug)_\(id)/config" }
        func availability(_ id: String, in view: BrokerView) -> String? {
            ((view.json(deviceConfig(id))?["availability"] as? [[String: Any]])?.first?["topic"]) as? String
        }
        let body = try googleBody(zone: Self.zone)
        let upstream = try FakeAPIs(.init(google: { _ in .respond(status: 200, body: body) }, celsius: [:]))
        let view = try BrokerView(port: port)
        try await view.start(["\(prefix)/#", "\(ha)/#"])
        defer { Task { await view.stop() } }

        // Four shards, one configuration.
        let members = try (0..<4).map { try Member(index: $0) }
        for member in members {
            try Self.writeConfig(member, count: 4, port: port, prefix: prefix, ha: ha, upstream: upstream)
            try Self.start(member)
        }
        func logs() -> String { members.map { "shard \($0.index):\n\($0.process?.stderr ?? "")" }.joined() }
        for index in 0..<4 {
            #expect(await view.waitFor("\(prefix)/status/\(index)", "online"), "\(logs())")
        }
        let values = Self.ids.map { "\(prefix)/\($0)/pollen/grass/value" }
        #expect(await view.waitForTopics(values + Self.ids.map(deviceConfig)), "\(logs())\n\(broker.log)")
        // Each location fetched once, by its owner; its discovery availability names that shard.
        #expect(upstream.googleRequests.count == 8)
        for id in Self.ids {
            let owner = Shard.owner(of: id, count: 4)
            #expect(availability(id, in: view) == "\(prefix)/status/\(owner)", "\(id)")
            #expect(
                members[owner].process?.stderr.contains("pollen[\(id)]: fetched") == true,
                "\(id) not fetched by \(owner)")
        }
        for member in members {
            #expect(member.process?.stderr.contains("shard \(member.index) of 4: serving 2 of 8") == true)
        }
        // Default client ids differ per shard: all four stayed connected, none knocked off.
        let host = currentHostnameForTest()
        for index in 0..<4 {
            #expect(broker.log.contains("as breeze-agent-\(host)-\(index) "), "\(broker.log)")
        }
        #expect(!logs().contains("mqtt: disconnected"), "\(logs())")
        // `<p>/status` is not used with shards.
        #expect(view.history("\(prefix)/status").isEmpty)

        // One shard killed: its will says offline; the others stay online.
        members[3].process?.signal(SIGKILL)
        _ = await members[3].process?.waitForExit(timeout: .seconds(5))
        #expect(await view.waitFor("\(prefix)/status/3", "offline"), "\(broker.log)")
        // A barrier instead of a pause: whatever the broker routed before it (another shard's
        // will, had one gone too) has reached the view.
        try await view.barrier(under: "\(prefix)/#")
        for index in 0..<3 { #expect(view.payload("\(prefix)/status/\(index)") == "online") }
        let afterKill = try await BrokerView.snapshot(port: port, ["\(prefix)/#"])
        for index in 0..<3 { #expect(afterKill["\(prefix)/status/\(index)"] == "online") }
        #expect(afterKill["\(prefix)/status/3"] == "offline")
        // Its locations keep their last retained data.
        #expect(afterKill["\(prefix)/loc0/pollen/grass/value"] != nil)

        // The fleet shrinks to three: every running shard gets count 3 and is restarted in turn.
        // Shard 0 first: loc1 moves to shard 2, which has not restarted — nobody re-published
        // it, so shard 0 clears it. Shard 0 now serves loc3, loc5, loc6.
        let beforeClear = view.history("\(prefix)/loc1/pollen/grass/value").count
        try Self.writeConfig(members[0], count: 3, port: port, prefix: prefix, ha: ha, upstream: upstream)
        await members[0].process?.terminate()
        try Self.start(members[0])
        #expect(
            await members[0].process?.waitForLine("shard: loc1 moved to another shard; clearing") == true, "\(logs())")
        #expect(await view.waitFor("\(prefix)/loc1/pollen/grass/value", ""), "\(logs())")
        #expect(view.history("\(prefix)/loc1/pollen/grass/value").count > beforeClear)
        // The clears go out in topic order: wait for the last of them, not only the first.
        #expect(
            await eventually(bound: .seconds(10)) { view.tree(under: "\(prefix)/loc1/").isEmpty },
            "\(view.tree(under: "\(prefix)/loc1/").keys.sorted())")
        #expect(await view.waitFor(deviceConfig("loc1"), ""))
        #expect(
            await eventually(bound: .seconds(15)) { availability("loc6", in: view) == "\(prefix)/status/0" },
            "\(logs())")

        // Shard 1: loc6 went to shard 0, which has re-published it — shard 1 must not clear it;
        // loc2 goes to shard 2 (not restarted yet) and is cleared.
        try Self.writeConfig(members[1], count: 3, port: port, prefix: prefix, ha: ha, upstream: upstream)
        await members[1].process?.terminate()
        try Self.start(members[1])
        #expect(
            await members[1].process?.waitForLine("shard: loc6 moved to another shard, which has re-published it")
                == true, "\(logs())")
        #expect(await members[1].process?.waitForLine("shard: loc2 moved to another shard; clearing") == true)
        #expect(await view.waitFor("\(prefix)/loc2/pollen/grass/value", ""))

        // Shard 2: loc3 (now shard 0's) and loc7 (now shard 1's) were re-published by their new
        // owners; shard 2 takes over loc1, loc2 and loc4.
        try Self.writeConfig(members[2], count: 3, port: port, prefix: prefix, ha: ha, upstream: upstream)
        await members[2].process?.terminate()
        try Self.start(members[2])
        #expect(
            await members[2].process?.waitForLine("shard: loc3 moved to another shard, which has re-published it")
                == true, "\(logs())")
        #expect(
            await members[2].process?.waitForLine("shard: loc7 moved to another shard, which has re-published it")
                == true)
        for index in 0..<3 { #expect(await view.waitFor("\(prefix)/status/\(index)", "online")) }

        // The final tree: every location present (shard 2 fetches its new ones after its start
        // jitter), published by its owner under count 3.
        for id in Self.ids {
            #expect(await view.waitFor("\(prefix)/\(id)/pollen/grass/value", "3"), "\(id): \(logs())")
            #expect(await eventually(bound: .seconds(15)) { view.payload(deviceConfig(id)) != nil })
        }
        let final = try await BrokerView.snapshot(port: port, ["\(prefix)/#", "\(ha)/#"])
        let check = try BrokerView(port: port)
        try await check.start(["\(prefix)/#", "\(ha)/#"])
        defer { Task { await check.stop() } }
        for id in Self.ids {
            #expect(final["\(prefix)/\(id)/pollen/grass/value"] == "3", "\(id): \(logs())")
            // The new owner re-announces the device after its own start jitter: wait for it.
            let owner = "\(prefix)/status/\(Shard.owner(of: id, count: 3))"
            #expect(
                await eventually(bound: .seconds(20)) { availability(id, in: view) == owner },
                "\(id): \(String(describing: availability(id, in: view)))")
            #expect(availability(id, in: check) != nil, "\(id)")
        }
        // The handed-over locations were not wiped after their new owner published them.
        #expect(view.payload("\(prefix)/loc6/pollen/grass/value") == "3")
        #expect(view.payload("\(prefix)/loc3/pollen/grass/value") == "3")
        for member in members.prefix(3) { await member.process?.terminate() }
        for index in 0..<3 { #expect(await view.waitFor("\(prefix)/status/\(index)", "offline")) }
    }
}

/// The host name the agent puts in its default client id.
func currentHostnameForTest() -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count) == 0 else { return "" }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
