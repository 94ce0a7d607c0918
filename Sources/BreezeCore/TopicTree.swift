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

/// What the agent wants on the broker: topic → payload, in a stable order.
///
/// The core produces a tree from decoded data and a clock; the runtime's retained publisher
/// compares it with what was published before and publishes only the difference.
public struct TopicTree: Sendable, Equatable {
    public private(set) var topics: [String] = []
    public private(set) var payloads: [String: String] = [:]

    public init() {}

    /// Sets a topic's payload; a topic set twice keeps its first position.
    public mutating func set(_ topic: String, _ payload: String) {
        if payloads.updateValue(payload, forKey: topic) == nil { topics.append(topic) }
    }

    /// Sets a topic to a JSON document.
    public mutating func set(_ topic: String, json: JSONValue) { set(topic, json.serialized) }

    /// Sets a topic's payload (``set(_:_:)`` by its name).
    public mutating func set(_ topic: Topic, _ payload: String) { set(topic.name, payload) }

    /// Sets a topic to a JSON document.
    public mutating func set(_ topic: Topic, json: JSONValue) { set(topic.name, json.serialized) }

    /// Appends every topic of `other` (later values win).
    public mutating func merge(_ other: TopicTree) {
        for topic in other.topics { set(topic, other.payloads[topic]!) }
    }

    public subscript(topic: String) -> String? { payloads[topic] }

    public subscript(topic: Topic) -> String? { payloads[topic.name] }

    public var isEmpty: Bool { topics.isEmpty }
    public var count: Int { topics.count }
}
