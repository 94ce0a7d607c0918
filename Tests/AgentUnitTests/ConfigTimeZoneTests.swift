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

@Suite("Configuration: time zone detection")
struct ConfigTimeZoneTests {
    private let noZone = "locations:\n  - {id: home, latitude: 52.5, longitude: 13.4}\n"

    @Test(arguments: [
        ("Europe/Berlin", "Europe/Berlin"), (":America/New_York", "America/New_York"), ("UTC", "UTC"),
    ])
    func fromTZ(tz: String, expected: String) throws {
        let sandbox = try ConfigSandbox()
        try sandbox.write("etc/timezone", "UTC\n")  // TZ wins over /etc/timezone
        let config = try sandbox.load(noZone, environment: ["TZ": tz])
        #expect(config.locations[0].timezone == expected)
    }

    @Test func tzAsPathUnderZoneinfo() throws {
        let sandbox = try ConfigSandbox()
        let config = try sandbox.load(noZone, environment: ["TZ": ":\(sandbox.zoneInfo)/America/New_York"])
        #expect(config.locations[0].timezone == "America/New_York")
    }

    @Test func tzAsPathToALink() throws {
        let sandbox = try ConfigSandbox()
        try sandbox.symlink("etc/localtime", to: "\(sandbox.zoneInfo)/Europe/Berlin")
        let config = try sandbox.load(noZone, environment: ["TZ": ":\(sandbox.etcLocaltime)"])
        #expect(config.locations[0].timezone == "Europe/Berlin")
    }

    @Test func unusableTZIsRefusedNotSkipped() throws {
        let sandbox = try ConfigSandbox()
        try sandbox.write("etc/timezone", "Europe/Berlin\n")
        let error = try #require(sandbox.failure(noZone, environment: ["TZ": "CET-1CEST"]))
        #expect(error.keyPath == "locations[0].timezone")
        #expect(error.line == 2)
        #expect(error.message.contains("TZ=CET-1CEST"))
        #expect(error.message.contains("set timezone"))
    }

    @Test func fromEtcTimezone() throws {
        let sandbox = try ConfigSandbox()
        try sandbox.write("etc/timezone", "America/New_York\n")
        try sandbox.symlink("etc/localtime", to: "\(sandbox.zoneInfo)/Europe/Berlin")
        let config = try sandbox.load(noZone)
        #expect(config.locations[0].timezone == "America/New_York")
    }

    @Test func invalidEtcTimezoneFallsBackToLocaltimeLink() throws {
        let sandbox = try ConfigSandbox()
        try sandbox.write("etc/timezone", "Broken/Zone\n")
        try sandbox.symlink("etc/localtime", to: "../zoneinfo/Europe/Berlin")
        let config = try sandbox.load(noZone)
        #expect(config.locations[0].timezone == "Europe/Berlin")
    }

    @Test func fromLocaltimeLinkOnly() throws {
        let sandbox = try ConfigSandbox()
        try sandbox.symlink("etc/localtime", to: "\(sandbox.zoneInfo)/America/New_York")
        let config = try sandbox.load(noZone)
        #expect(config.locations[0].timezone == "America/New_York")
    }

    @Test func localtimeAsPlainFileGivesNoName() throws {
        let sandbox = try ConfigSandbox()
        try sandbox.write("etc/localtime", "TZif2 copied, not linked")
        let error = try #require(sandbox.failure(noZone))
        #expect(error.line == 2)
        #expect(error.keyPath == "locations[0].timezone")
        #expect(error.message.contains("set timezone to a name like Europe/Berlin"))
    }

    @Test func nothingFoundAsksForTimezone() throws {
        let error = try #require(try ConfigSandbox().failure(noZone))
        #expect(error.description.contains("config.yaml:2: locations[0].timezone: no timezone given"))
    }

    @Test func explicitZonesNeedNoSystemZone() throws {
        // Nothing on the "system": every location names its zone, so loading succeeds.
        let config = try ConfigSandbox().load(oneLocation)
        #expect(config.locations[0].timezone == "Europe/Berlin")
    }

    @Test func systemZoneFillsOnlyMissingOnes() throws {
        let sandbox = try ConfigSandbox()
        let config = try sandbox.load(
            "locations:\n  - {id: a, latitude: 1, longitude: 2}\n  - {id: b, latitude: 1, longitude: 2, timezone: UTC}\n",
            environment: ["TZ": "America/New_York"])
        #expect(config.locations.map(\.timezone) == ["America/New_York", "UTC"])
    }

    @Test func validationChecksTheTZifMagicAndDotDot() throws {
        let sandbox = try ConfigSandbox()
        let resolver = sandbox.resolver
        #expect(resolver.isValid("Europe/Berlin"))
        #expect(!resolver.isValid("Broken/Zone"))
        #expect(!resolver.isValid("Europe"))  // a directory
        #expect(!resolver.isValid("Europe/../UTC"))
        #expect(!resolver.isValid("/UTC"))
        #expect(!resolver.isValid(""))
    }

    @Test func realSystemZoneinfoWhenInstalled() throws {
        let resolver = TimeZoneResolver()
        guard FileManager.default.fileExists(atPath: "/usr/share/zoneinfo/Europe/Berlin") else { return }
        #expect(resolver.isValid("Europe/Berlin"))
        #expect(!resolver.isValid("Europe/Atlantis"))
    }
}
