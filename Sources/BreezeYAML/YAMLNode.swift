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

/// One node of a loaded YAML document, with the position it was written at.
///
/// Only what a configuration file needs: scalars keep their text and style (so a caller can
/// tell `port: "1883"` from `port: 1883`), mappings keep their pairs in file order, and every
/// node carries its 1-based line and column so error messages can point at it.
public struct YAMLNode: Sendable {
    /// How a scalar was written; plain scalars are the only ones YAML resolves to null,
    /// booleans or numbers.
    public enum ScalarStyle: Sendable, Hashable {
        case plain
        case singleQuoted
        case doubleQuoted
        case literal
        case folded
    }

    /// The shape of the node.
    public enum Kind: Sendable {
        case scalar(String, style: ScalarStyle)
        case sequence([YAMLNode])
        case mapping([YAMLPair])
    }

    public var kind: Kind
    /// 1-based line of the node's first character.
    public var line: Int
    /// 1-based column of the node's first character.
    public var column: Int
    /// An explicit tag (`!!str`, `!custom`), nil when none was written.
    public var tag: String?

    public init(kind: Kind, line: Int, column: Int, tag: String? = nil) {
        self.kind = kind
        self.line = line
        self.column = column
        self.tag = tag
    }

    /// The scalar's text, nil for a collection.
    public var scalarText: String? {
        if case .scalar(let text, _) = kind { return text }
        return nil
    }

    /// True for a plain untagged scalar YAML reads as null: empty, `~`, `null`, `Null`, `NULL`.
    public var isNull: Bool {
        guard tag == nil, case .scalar(let text, .plain) = kind else { return false }
        return text.isEmpty || text == "~" || text == "null" || text == "Null" || text == "NULL"
    }

    /// A short human description of the node's type, for "expected X, got Y" messages.
    public var typeDescription: String {
        switch kind {
        case .scalar: isNull ? "nothing (null)" : "a scalar"
        case .sequence: "a list"
        case .mapping: "a mapping"
        }
    }
}

/// One key/value entry of a mapping, in file order.
public struct YAMLPair: Sendable {
    public var key: YAMLNode
    public var value: YAMLNode

    public init(key: YAMLNode, value: YAMLNode) {
        self.key = key
        self.value = value
    }
}

/// A YAML file that could not be loaded: where, and libyaml's (or our) explanation.
public struct YAMLError: Error, Sendable, CustomStringConvertible {
    /// The file name as given to `YAML.load`, used only in messages.
    public var file: String
    /// 1-based line of the problem.
    public var line: Int
    /// 1-based column of the problem.
    public var column: Int
    /// What is wrong, e.g. libyaml's "mapping values are not allowed in this context".
    public var message: String

    public init(file: String, line: Int, column: Int, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// `file:line:column: message`.
    public var description: String { "\(file):\(line):\(column): \(message)" }
}
