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

import Foundation

/// A temporary directory for one agent under test: its `config.yaml`, its `state_dir`, the
/// agent's logs, a unique topic prefix and discovery prefix, and the ``FakeAPIs`` it fetches
/// from. Removed on deinit.
public final class AgentSandbox: Sendable {
    public let directory: String
    /// A unique topic prefix (`t-<tag>`) for tests that do not pick their own.
    public let prefix: String
    /// A unique Home Assistant discovery prefix (`ha-<tag>`).
    public let discoveryPrefix: String
    public let apis: FakeAPIs

    public var configPath: String { directory + "/config.yaml" }
    public var stateDir: String { directory + "/state" }
    public var locations: [FakeAPIs.Location] { apis.locations }

    public init(locations: [FakeAPIs.Location] = [], routes: FakeAPIs.Routes = FakeAPIs.Routes()) throws {
        let tag = String(UUID().uuidString.lowercased().filter { $0 != "-" }.prefix(8))
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("breeze-agent-test-\(tag)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        prefix = "t-\(tag)"
        discoveryPrefix = "ha-\(tag)"
        apis = try FakeAPIs(locations: locations, routes)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// Writes `config.yaml`: the broker on `port`, a client id, `prefix` (default: the sandbox's),
    /// `state_dir` here and `log_level`, then `rest` (which must not repeat those keys).
    public func writeConfig(
        port: Int, prefix: String? = nil, qos: Int? = nil, logLevel: String = "debug", _ rest: String
    ) throws {
        let topicPrefix = prefix ?? self.prefix
        let text = """
            mqtt:
              host: 127.0.0.1
              port: \(port)
              client_id: \(self.prefix)-agent
              topic_prefix: \(topicPrefix)
            \(qos.map { "  qos: \($0)\n" } ?? "")state_dir: \(stateDir)
            log_level: \(logLevel)
            \(rest)

            """
        try text.write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    /// The `locations:` block for ``locations`` (longitude 10, UTC).
    public var locationsYAML: String {
        "locations:\n"
            + locations.map { "  - {id: \($0.id), latitude: \($0.latitude), longitude: 10.0, timezone: UTC}" }
            .joined(separator: "\n")
    }
}

/// A fresh directory under the system temporary directory (the caller removes it).
public func temporaryDirectory() -> String {
    let path = NSTemporaryDirectory() + "breeze-test-" + UUID().uuidString
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}
