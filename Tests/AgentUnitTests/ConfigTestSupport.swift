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
import Foundation
import Testing

/// A throw-away directory with a fake zoneinfo tree and fake /etc files, so configuration
/// tests never depend on the machine's own time zone setup.
final class ConfigSandbox {
    let root: URL
    var zoneInfo: String { root.appendingPathComponent("zoneinfo").path }
    var etcTimezone: String { root.appendingPathComponent("etc/timezone").path }
    var etcLocaltime: String { root.appendingPathComponent("etc/localtime").path }

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("breeze-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("etc"), withIntermediateDirectories: true)
        // Real zone files, so that loading (which parses them) succeeds; tzdata is installed.
        for zone in ["Europe/Berlin", "America/New_York", "UTC"] {
            let url = root.appendingPathComponent("zoneinfo/\(zone)")
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(contentsOf: URL(fileURLWithPath: "/usr/share/zoneinfo/\(zone)")).write(to: url)
        }
        try write("zoneinfo/Broken/Zone", "not a tzif file")
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    var resolver: TimeZoneResolver {
        TimeZoneResolver(zoneInfoRoot: zoneInfo, timezoneFile: etcTimezone, localtimeLink: etcLocaltime)
    }

    @discardableResult
    func write(_ relative: String, _ text: String) throws -> String {
        let url = root.appendingPathComponent(relative)
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    func symlink(_ relative: String, to target: String) throws {
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent(relative).path, withDestinationPath: target)
    }

    /// Writes `yaml` to config.yaml and loads it.
    func load(
        _ yaml: String, environment: [String: String] = [:], currentYear: Int = 2026, hostname: String = "hub"
    ) throws(ConfigError) -> AgentConfig {
        let path: String
        do {
            path = try write("config.yaml", yaml)
        } catch {
            fatalError("cannot write test config: \(error)")
        }
        return try ConfigLoader.load(
            path: path, environment: environment, currentYear: currentYear, hostname: hostname, timeZones: resolver)
    }

    /// The error loading `yaml` gives, recording an issue when it loads.
    func failure(
        _ yaml: String, environment: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
    ) -> ConfigError? {
        do {
            let config = try load(yaml, environment: environment)
            Issue.record("expected an error, loaded \(config.locations.map(\.id))", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }
}

/// One valid location line, appended to cases that test something else.
let oneLocation = """
    locations:
      - {id: home, latitude: 52.52, longitude: 13.405, timezone: Europe/Berlin}
    """

extension TimeZoneResolver {
    /// True when `load` succeeds for `name`: what the configuration accepts.
    func isValid(_ name: String) -> Bool { (try? load(name)) != nil }
}
