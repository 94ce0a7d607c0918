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
import BreezeYAML

/// `shard: {index, count}` (docs/operations.md, Many locations): one agent of a fleet that shares one configuration.
///
/// ```yaml
/// shard:
///   index: 0      # 0 … count − 1
///   count: 4      # 1 … 1024
/// ```
///
/// Every shard reads the same `locations:` list and serves the ones whose FNV-1a hash of `id`
/// mod `count` is its `index`. Without an explicit `mqtt.client_id` the default one gets
/// `-<index>` appended, so shards on one host do not knock each other off the broker.
enum ShardConfig {
    static let keys = ["index", "count"]

    /// Reads `shard` from the top-level mapping into `config` (nil when absent) and applies its
    /// default client id.
    static func apply(_ top: MappingReader, to config: inout AgentConfig) throws(ConfigError) {
        guard top.isPresent("shard") else { return }
        let r = try MappingReader(top.rawNode("shard"), path: "shard", keys: keys, file: top.file)
        guard r.isPresent("index") || r.isPresent("count") else {
            throw top.fail("shard", "expected a mapping with index and count, like {index: 0, count: 4}")
        }
        let countExpected = "the number of shards, 1–\(Shard.maximumCount)"
        guard let count = try r.int("count", in: 1...Shard.maximumCount) else {
            throw r.missing("count", expected: countExpected)
        }
        let indexExpected = "this agent's shard, 0–\(count - 1) (count is \(count))"
        guard let value = r.node("index") else { throw r.missing("index", expected: indexExpected) }
        guard case .scalar(let text, .plain) = value.kind, let index = MappingReader.parseInt(text),
            let shard = Shard(index: index, count: count)
        else {
            throw r.fail("index", "expected \(indexExpected), got \(MappingReader.describe(value))", at: value)
        }
        config.shard = shard
        if !hasExplicitClientID(top.rawNode("mqtt")) { config.mqtt.clientID += "-\(index)" }
    }

    /// Whether `mqtt.client_id` is written (with a value) in the file.
    private static func hasExplicitClientID(_ mqtt: YAMLNode?) -> Bool {
        guard let mqtt, case .mapping(let pairs) = mqtt.kind else { return false }
        return pairs.contains { $0.key.scalarText == "client_id" && !$0.value.isNull }
    }
}

extension AgentConfig {
    /// The locations this agent serves: all of them, or the shard's.
    public var ownedLocations: [LocationConfig] {
        guard let shard else { return locations }
        return locations.filter { shard.owns($0.id) }
    }
}
