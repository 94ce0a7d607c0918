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

/// Odd `timezone:` values: the configuration loader is the only place a zone is checked and
/// loaded, so `check-config` and `once` accept and refuse exactly the same names.
@Suite("Time zones: the config loader is the one path")
struct TimeZoneAgreementTests {
    static let refused = TimeZoneNameCases.refused
    static let accepted = TimeZoneNameCases.accepted
    private static func yaml(_ zone: String) -> String { TimeZoneNameCases.locationYAML(zone) }

    @Test(arguments: refused)
    func loaderRefuses(_ zone: String) throws {
        let sandbox = try ConfigSandbox()
        let error = try #require(sandbox.failure(Self.yaml(zone)))
        #expect(error.keyPath == "locations[0].timezone")
        #expect(error.line == 2)
        #expect(error.message.contains("got \"\(zone)\""), "\(error.message)")
        #expect(throws: ZoneInfoError.self) { try sandbox.resolver.load(zone) }
    }

    @Test(arguments: accepted)
    func loaderAcceptsAndCarriesTheRules(_ zone: String) throws {
        let sandbox = try ConfigSandbox()
        let config = try sandbox.load(Self.yaml(zone))
        #expect(config.locations[0].timezone == zone)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: "/usr/share/zoneinfo/\(zone)"))
        #expect(config.locations[0].zone == (try ZoneRules(tzif: [UInt8](bytes))))
    }

    @Test func refusedNameSaysWhy() throws {
        let sandbox = try ConfigSandbox()
        let doubled = try #require(sandbox.failure(Self.yaml("Europe//Berlin")))
        #expect(doubled.message.contains("none empty, . or .."), "\(doubled.message)")
        let broken = try #require(sandbox.failure(Self.yaml("Broken/Zone")))
        #expect(broken.message.contains("not a zone file"), "\(broken.message)")
        let missing = try #require(sandbox.failure(Self.yaml("Mars/Base")))
        #expect(missing.message.contains("No such file or directory"), "\(missing.message)")
    }
}
