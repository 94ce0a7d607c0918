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

import BreezeCore
import Foundation
import Testing

@Suite("Sharding: FNV-1a ownership and per-shard topics (SPEC §11)")
struct ShardTests {
    /// The published FNV-1a 32-bit test vectors (Fowler/Noll/Vo reference `test_fnv.c`).
    @Test func fnv1aMatchesTheReferenceVectors() {
        #expect(FNV1a.hash32("") == 0x811c_9dc5)
        #expect(FNV1a.hash32("a") == 0xe40c_292c)
        #expect(FNV1a.hash32("b") == 0xe70c_2de5)
        #expect(FNV1a.hash32("foobar") == 0xbf9c_f968)
        #expect(FNV1a.hash32("chongo was here!\n") == 0xd49930d5)
        // Bytes above 0x7f are hashed as bytes, not as characters.
        #expect(FNV1a.hash32("é") == FNV1a.hash32([0xc3, 0xa9]))
    }

    @Test func ownershipIsTheHashModCount() {
        // home 0xd2c8c28e, office 0xaa8eba31, garden 0x775718f4, loc0 0xa60d0557
        #expect(Shard.owner(of: "home", count: 4) == 2)
        #expect(Shard.owner(of: "office", count: 4) == 1)
        #expect(Shard.owner(of: "garden", count: 4) == 0)
        #expect(Shard.owner(of: "loc0", count: 4) == 3)
        #expect(Shard.owner(of: "home", count: 3) == 2)
        #expect(Shard(index: 2, count: 4)!.owns("home"))
        #expect(!Shard(index: 1, count: 4)!.owns("home"))
        #expect(Shard(index: 0, count: 1)!.owns("anything"))
    }

    @Test func everyLocationHasExactlyOneOwnerAndTheSplitIsEven() {
        let ids = (0..<4000).map { "loc\($0)" }
        let shards = (0..<4).map { Shard(index: $0, count: 4)! }
        var perShard = [0, 0, 0, 0]
        for id in ids {
            let owners = shards.filter { $0.owns(id) }
            #expect(owners.count == 1)
            if let owner = owners.first { perShard[owner.index] += 1 }
        }
        // 1,000 expected each; a hash that skewed by more than 10 % would be a bad splitter.
        #expect(perShard.allSatisfy { (900...1100).contains($0) }, "per shard: \(perShard)")
    }

    @Test func invalidShardsAreRefused() {
        #expect(Shard(index: 0, count: 0) == nil)
        #expect(Shard(index: 4, count: 4) == nil)
        #expect(Shard(index: -1, count: 4) == nil)
        #expect(Shard(index: 0, count: Shard.maximumCount + 1) == nil)
        #expect(Shard(index: Shard.maximumCount - 1, count: Shard.maximumCount) != nil)
    }

    @Test func aShardHasItsOwnStatusAndDiagnosticsTopics() {
        let plain = TopicLayout(prefix: "breeze")
        #expect(plain.status == "breeze/status")
        #expect(plain.diagnostics == "breeze/diagnostics")
        let shard = TopicLayout(prefix: "breeze", shardIndex: 3)
        #expect(shard.status == "breeze/status/3")
        #expect(shard.diagnostics == "breeze/diagnostics/3")
        // Location topics do not depend on the shard: a moved location keeps its topics.
        #expect(shard.location("home") == plain.location("home"))
        #expect(shard.command(on: "breeze/home/refresh")?.locationID == "home")
    }

    @Test func discoveryPointsAvailabilityAndDiagnosticsAtTheShard() throws {
        var input = DiscoveryInput(
            agentVersion: "1.2.3", location: .init(id: "home", name: "Home"), pollenAvailable: false, pollenItems: [],
            climateEnabled: true)
        input.layout = TopicLayout(prefix: "breeze", shardIndex: 2)
        let root = try decodeDiscovery(HomeAssistantDiscovery.deviceConfig(for: input))
        let availability = try #require(root["availability"] as? [[String: Any]])
        #expect(availability.map { $0["topic"] as? String } == ["breeze/status/2"])
        let components = try discoveryComponents(root)
        let calls = try #require(components["api_calls_today"])
        #expect(calls["state_topic"] as? String == "breeze/diagnostics/2")
        input.layout = TopicLayout(prefix: "breeze")
        let plain = try decodeDiscovery(HomeAssistantDiscovery.deviceConfig(for: input))
        let plainAvailability = try #require(plain["availability"] as? [[String: Any]])
        #expect(plainAvailability.map { $0["topic"] as? String } == ["breeze/status"])
    }
}
