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
import Foundation
import Testing

@Suite("Configuration: shard (SPEC §11)")
struct ShardConfigTests {
    static let fleet = """
        locations:
          - {id: home, latitude: 52.52, longitude: 13.405, timezone: Europe/Berlin}
          - {id: office, latitude: 52.5, longitude: 13.4, timezone: Europe/Berlin}
          - {id: garden, latitude: 52.4, longitude: 13.3, timezone: Europe/Berlin}
          - {id: loc0, latitude: 52.3, longitude: 13.2, timezone: Europe/Berlin}
        """

    @Test func noShardServesEverythingWithThePlainClientID() throws {
        let config = try ConfigSandbox().load(Self.fleet)
        #expect(config.shard == nil)
        #expect(config.ownedLocations.map(\.id) == ["home", "office", "garden", "loc0"])
        #expect(config.mqtt.clientID == "breeze-agent-hub")
    }

    @Test func aShardServesItsLocationsUnderItsOwnClientID() throws {
        let sandbox = try ConfigSandbox()
        var owned: [String] = []
        for index in 0..<4 {
            let config = try sandbox.load(Self.fleet + "\nshard: {index: \(index), count: 4}\n")
            #expect(config.shard == Shard(index: index, count: 4))
            #expect(config.mqtt.clientID == "breeze-agent-hub-\(index)")
            // Every shard still knows the whole list (to recognise locations it no longer owns).
            #expect(config.locations.count == 4)
            owned += config.ownedLocations.map(\.id)
        }
        // garden → 0, office → 1, home → 2, loc0 → 3 (FNV-1a mod 4).
        #expect(owned == ["garden", "office", "home", "loc0"])
    }

    @Test func anExplicitClientIDIsKept() throws {
        let config = try ConfigSandbox().load(
            "mqtt: {client_id: fleet-a}\n" + Self.fleet + "\nshard: {index: 1, count: 2}\n")
        #expect(config.mqtt.clientID == "fleet-a")
    }

    @Test func checkConfigShowsTheShardAndWhatItOwns() throws {
        let config = try ConfigSandbox().load(Self.fleet + "\nshard: {index: 2, count: 4}\n")
        let text = renderEffective(config)
        #expect(text.contains("shard:  # owns home\n  index: 2\n  count: 4\n"))
    }

    @Test func badShardsNameTheLineAndWhatIsExpected() throws {
        let sandbox = try ConfigSandbox()
        let cases: [(yaml: String, expected: String)] = [
            (
                "shard: {index: 4, count: 4}",
                ":6: shard.index: expected this agent's shard, 0–3 (count is 4), got \"4\""
            ),
            (
                "shard: {index: -1, count: 4}",
                ":6: shard.index: expected this agent's shard, 0–3 (count is 4), got \"-1\""
            ),
            (
                "shard: {index: one, count: 4}",
                ":6: shard.index: expected this agent's shard, 0–3 (count is 4), got \"one\""
            ),
            ("shard: {index: 0, count: 0}", ":6: shard.count: expected an integer 1–1024, got \"0\""),
            ("shard: {index: 0, count: 1025}", ":6: shard.count: expected an integer 1–1024, got \"1025\""),
            ("shard: {index: 0}", ":6: shard.count: required: the number of shards, 1–1024"),
            ("shard: {count: 2}", ":6: shard.index: required: this agent's shard, 0–1 (count is 2)"),
            ("shard: {index: 0, count: 2, size: 3}", ":6: shard.size: unknown key \"size\""),
            ("shard:\n  index: 0\n  cuont: 2", ":8: shard.cuont: unknown key \"cuont\"; did you mean \"count\"?"),
            ("shard: 3", ":6: shard: expected a mapping of keys, got"),
            ("shard:", ":6: shard: expected a mapping with index and count, like {index: 0, count: 4}"),
        ]
        for (yaml, expected) in cases {
            let error = sandbox.failure(Self.fleet + "\n" + yaml + "\n")
            let text = error.map { "\($0)" } ?? ""
            #expect(text.contains("config.yaml" + expected), "\(yaml) → \(text)")
        }
    }
}
