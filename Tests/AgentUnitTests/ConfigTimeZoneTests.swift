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

    @Test("/etc/localtime copied, not linked, names no zone: UTC, said once")
    func localtimeAsPlainFileGivesNoName() throws {
        let sandbox = try ConfigSandbox()
        try sandbox.write("etc/localtime", "TZif2 copied, not linked")
        let config = try sandbox.load(noZone)
        #expect(config.locations[0].timezone == "UTC")
        #expect(config.notices.count == 1)
        #expect(config.notices.first?.contains("is not a link into zoneinfo") == true)
    }

    @Test("no zone anywhere (a container image): UTC and one notice naming TZ and locations[].timezone")
    func nothingFoundRunsOnUTC() throws {
        let sandbox = try ConfigSandbox()
        let config = try sandbox.load(
            "locations:\n  - {id: home, latitude: 52.5, longitude: 13.4}\n  - {id: cabin, latitude: 47, longitude: 11}\n"
                + "  - {id: nyc, latitude: 40.7, longitude: -74, timezone: America/New_York}\n")
        #expect(config.locations.map(\.timezone) == ["UTC", "UTC", "America/New_York"])
        #expect(config.locations[0].zone.utcOffset(atUnixTime: 1_780_000_000) == 0)
        #expect(
            config.notices == [
                "time zone: no timezone for home, cabin and none on this system (TZ is not set, "
                    + "\(sandbox.etcTimezone) names no zone and \(sandbox.etcLocaltime) is not a link into "
                    + "zoneinfo): using UTC; set TZ (e.g. TZ=Europe/Berlin) or locations[].timezone"
            ])
        // A location that names its zone needs no notice.
        #expect(try ConfigSandbox().load(oneLocation).notices.isEmpty)
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

    @Test(
        "climate.unit auto: °F for a Fahrenheit country's zone (an old linked name too), °C elsewhere",
        arguments: [
            ("Europe/Berlin", nil, TemperatureUnit.celsius), ("America/New_York", nil, .fahrenheit),
            ("US/Eastern", nil, .fahrenheit), ("UTC", nil, .celsius), ("America/New_York", "celsius", .celsius),
            ("Europe/Berlin", "fahrenheit", .fahrenheit), ("America/New_York", "auto", .fahrenheit),
        ] as [(String, String?, TemperatureUnit)])
    func unitAutoFollowsTheZone(zone: String, configured: String?, expected: TemperatureUnit) throws {
        let sandbox = try ConfigSandbox()
        try FileManager.default.createDirectory(atPath: sandbox.zoneInfo + "/US", withIntermediateDirectories: true)
        try sandbox.symlink("zoneinfo/US/Eastern", to: "../America/New_York")
        let config = try sandbox.load(
            "locations:\n  - {id: home, latitude: 1, longitude: 2, timezone: \(zone)}\n"
                + (configured.map { "climate:\n  unit: \($0)\n" } ?? ""))
        #expect(config.locations[0].unit == expected)
        #expect(config.climate.unitSetting == (configured ?? "auto"))
        #expect(sandbox.resolver.canonicalName("US/Eastern") == "America/New_York")
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
