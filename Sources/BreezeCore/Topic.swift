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

/// An MQTT topic name as levels (MQTT 5 §4.7): what every topic of the agent is, spelled by
/// ``TopicLayout`` and ``DeviceTopics``. "Levels, not characters" is the type's: `a/bc` is not
/// below `a/b`, a level is appended whole, and no level holds a separator or a wildcard.
public struct Topic: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The topic as it goes on the wire.
    public let name: String

    /// A topic name read from outside (the configuration, a message): nil when it is empty, over
    /// MQTT's 65,535 bytes, or holds a wildcard (`+`, `#`) or NUL. Empty levels are allowed, as
    /// MQTT allows them.
    public init?(validating name: String) {
        guard !name.isEmpty, name.utf8.count <= 65_535,
            !name.utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "#") || $0 == 0 })
        else { return nil }
        self.name = name
    }

    /// A topic written out in the source (a test's expectation): it must be one.
    public init(stringLiteral name: String) {
        guard let topic = Topic(validating: name) else { preconditionFailure("not a topic name: \(name)") }
        self = topic
    }

    /// A name the caller has checked (a validated prefix, a level-by-level build).
    init(unchecked name: String) { self.name = name }

    /// Whether `level` may be one level: no separator, no wildcard, no NUL.
    public static func isLevel(_ level: some StringProtocol) -> Bool {
        !level.utf8.contains {
            $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "#") || $0 == 0
        }
    }

    /// The topic one level below: `a/b` + `c` → `a/b/c`. The level is one level whole (the
    /// agent's levels are its configuration's ids and the core's slugs, checked where they are made).
    public func appending(_ level: some StringProtocol) -> Topic {
        precondition(Self.isLevel(level), "not one topic level: \(level)")
        // Reserved whole: `+` grows its result by doubling, and a topic's name lives as long as
        // it is published (280 per location; up to twice their bytes otherwise).
        var joined = ""
        joined.reserveCapacity(name.utf8.count + 1 + level.utf8.count)
        joined += name
        joined += "/"
        joined += level
        return Topic(unchecked: joined)
    }

    /// The levels, split at the byte `/` as MQTT does (an empty level counts).
    public var levels: [Substring] { name.split(separator: "/", omittingEmptySubsequences: false) }

    /// Level `index` (0 the first), possibly empty; nil when the topic has fewer levels.
    public func level(_ index: Int) -> Substring? {
        let levels = name.utf8.split(
            separator: UInt8(ascii: "/"), maxSplits: index + 1, omittingEmptySubsequences: false)
        return index < levels.count ? Substring(levels[index]) : nil
    }

    /// Whether this lies strictly below `scope` (`scope/…`, not `scope` itself).
    public func isDescendant(of scope: Topic) -> Bool { Self.isDescendant(name, of: scope.name) }

    /// Whether this is `scope` itself or lies below it.
    public func isAtOrBelow(_ scope: Topic) -> Bool { name == scope.name || isDescendant(of: scope) }

    /// The topics this lies below, nearest first: `a/b/c` → `a/b`, `a` (an empty level counts:
    /// `a//b` → `a/`, `a`). Lazy: the publisher asks it for every topic it records.
    public var ancestors: UnfoldSequence<Substring, String.Index> { Self.ancestors(of: name) }

    public var description: String { name }

    public static func < (lhs: Topic, rhs: Topic) -> Bool { lhs.name < rhs.name }

    // The same rules on names already in hand as strings (the published set's and the
    // publisher's topics, a message's topic), without making a value of each.

    /// Whether `topic` lies strictly below `scope`, by levels.
    public static func isDescendant(_ topic: String, of scope: String) -> Bool {
        topic.hasPrefix(scope) && topic.utf8.dropFirst(scope.utf8.count).first == UInt8(ascii: "/")
    }

    /// Whether `topic` is `scope` or lies below it, by levels.
    public static func isAtOrBelow(_ topic: String, _ scope: String) -> Bool {
        topic == scope || isDescendant(topic, of: scope)
    }

    /// Level `index` (0 the first) of `topic`, possibly empty; nil when it has fewer levels.
    public static func level(_ index: Int, of topic: String) -> Substring? { Topic(unchecked: topic).level(index) }

    /// Whether `topic` is a plain topic that names exactly one subtree, as a prefix or a device's
    /// topic must: not empty, at most 1,024 bytes, not a `$` system topic, no empty level (so no
    /// leading, trailing or double `/`), no wildcard (`#`, `+`) and no NUL in any level.
    public static func isPlain(_ topic: String) -> Bool {
        guard !topic.isEmpty, !topic.hasPrefix("$"), topic.utf8.count <= 1024 else { return false }
        return topic.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty && isLevel($0) }
    }

    /// The topics `topic` lies below, nearest first (``ancestors``).
    public static func ancestors(of topic: String) -> UnfoldSequence<Substring, String.Index> {
        sequence(state: topic.utf8.endIndex) { end in
            guard let slash = topic.utf8[..<end].lastIndex(of: UInt8(ascii: "/")) else { return nil }
            end = slash
            return topic[..<slash]
        }
    }
}
