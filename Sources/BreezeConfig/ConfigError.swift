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

/// A configuration the agent refuses to run with (exit 78): one message naming the file, the
/// line, the key path and what is expected, e.g.
/// `config.yaml:12: mqtt.port: expected an integer 1–65535, got "abc"`.
///
/// The loader stops at the first error: later errors are often consequences of the first
/// (a mis-indented block), and one precise message is easier to act on than a list.
public struct ConfigError: Error, Sendable, CustomStringConvertible {
    /// The config file, or nil when the problem is not in it (an environment variable).
    public var file: String?
    /// 1-based line in `file`, when known.
    public var line: Int?
    /// Dotted key path (`mqtt.port`, `locations[1].id`), or the environment variable's name.
    public var keyPath: String
    /// What is wrong and what is expected. Never contains a secret.
    public var message: String

    public init(file: String?, line: Int?, keyPath: String, message: String) {
        self.file = file
        self.line = line
        self.keyPath = keyPath
        self.message = message
    }

    public var description: String {
        var parts: [String] = []
        if let file {
            parts.append(line.map { "\(file):\($0)" } ?? file)
        }
        if !keyPath.isEmpty { parts.append(keyPath) }
        parts.append(message)
        return parts.joined(separator: ": ")
    }
}
