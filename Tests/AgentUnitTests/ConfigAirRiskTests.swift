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

@Suite("Configuration: air and risk profiles")
struct ConfigAirRiskTests {
    @Test func defaultsAreOff() throws {
        let config = try ConfigSandbox().load(oneLocation)
        #expect(config.air == AirSettings(enabled: false, interval: .seconds(3600)))
        #expect(config.profiles.isEmpty)
        #expect(config.profileWarnings.isEmpty)
    }

    @Test func everyKeySet() throws {
        let config = try ConfigSandbox().load(
            oneLocation + """

                air: {enabled: true, interval: 30m}
                profiles:
                  - id: anna
                    name: Anna Smith
                    allergens: [birch, Grass, birch]
                    alert_level: Very High
                  - {id: ben-2, allergens: [japanese_cedar]}
                """)
        #expect(config.air == AirSettings(enabled: true, interval: .seconds(1800)))
        #expect(
            config.profiles == [
                RiskProfile(id: "anna", name: "Anna Smith", allergens: ["birch", "grass"], alertLevel: .veryHigh),
                RiskProfile(id: "ben-2", name: "ben-2", allergens: ["japanese_cedar"], alertLevel: .high),
            ])
        // No key: pollen comes from Open-Meteo, which never lists japanese_cedar.
        #expect(
            config.profileWarnings == [
                "profiles: ben-2 lists allergen \"japanese_cedar\", which the configured pollen source does not list; it is ignored until the source reports it"
            ])
        let rendered = renderEffective(config)
        #expect(rendered.contains("air:\n  enabled: true\n  interval: 30m\n"))
        #expect(rendered.contains("    allergens: [birch, grass]\n    alert_level: \"Very High\""))
    }

    @Test func googleKnowsMorePlants() throws {
        let config = try ConfigSandbox().load(
            oneLocation + """

                pollen: {source: google, api_key: k-0123456789}
                profiles:
                  - {id: anna, allergens: [japanese_cedar, birch, dandelion]}
                """)
        #expect(config.profileWarnings.count == 1)
        #expect(config.profileWarnings.first?.contains("\"dandelion\"") == true)
    }

    /// Each bad value names the file, its line and the key, and says what is expected.
    @Test(arguments: [
        ("air: {interval: 5m}", 4, "air.interval", "at least 15m"),
        ("air: {interval: 2d}", 4, "air.interval", "from 15m to 1d"),
        ("air: {enabled: maybe}", 4, "air.enabled", "true or false"),
        ("air: {enabeld: true}", 4, "air.enabeld", "did you mean \"enabled\""),
        ("profiles: {id: anna}", 4, "profiles", "a list of profiles"),
        ("profiles:\n  - {id: Anna, allergens: [birch]}", 5, "profiles[0].id", "lower-case letters"),
        ("profiles:\n  - {allergens: [birch]}", 5, "profiles[0].id", "required"),
        ("profiles:\n  - {id: anna}", 5, "profiles[0].allergens", "required: a list of one or more"),
        ("profiles:\n  - {id: anna, allergens: []}", 5, "profiles[0].allergens", "one or more"),
        ("profiles:\n  - {id: anna, allergens: birch}", 5, "profiles[0].allergens", "a list"),
        ("profiles:\n  - {id: anna, allergens: [birch, \"tree pollen\"]}", 5, "profiles[0].allergens[1]", "item id"),
        ("profiles:\n  - {id: anna, allergens: [[birch]]}", 5, "profiles[0].allergens[0]", "item id"),
        (
            "profiles:\n  - id: anna\n    allergens: [birch]\n    alert_level: Extreme", 7, "profiles[0].alert_level",
            "\"Low\", \"Moderate\", \"High\", \"Very High\""
        ),
        ("profiles:\n  - {id: anna, allergens: [birch], alert_level: None}", 5, "profiles[0].alert_level", "\"Low\""),
        (
            "profiles:\n  - {id: anna, allergens: [birch]}\n  - {id: anna, allergens: [grass]}", 6, "profiles[1].id",
            "duplicate profile id \"anna\" (first used at line 5)"
        ),
        ("profiles:\n  - {id: anna, allergens: [birch], colour: red}", 5, "profiles[0].colour", "unknown key"),
        ("profiles:\n  - just-a-name", 5, "profiles[0]", "expected a mapping"),
    ])
    func badValues(yaml: String, line: Int, keyPath: String, fragment: String) throws {
        let sandbox = try ConfigSandbox()
        let error = try #require(sandbox.failure(oneLocation + "\n\n" + yaml))
        #expect(error.line == line, "\(error)")
        #expect(error.keyPath == keyPath, "\(error)")
        #expect(error.message.contains(fragment), "\(error)")
        #expect(error.file?.hasSuffix("config.yaml") == true)
    }

    @Test func boundedCounts() throws {
        let sandbox = try ConfigSandbox()
        let many = (0...32).map { "  - {id: p\($0), allergens: [birch]}" }.joined(separator: "\n")
        let error = try #require(sandbox.failure(oneLocation + "\nprofiles:\n" + many))
        #expect(error.message == "at most 32 profiles, got 33")
        let allergens = (0...64).map { "a\($0)" }.joined(separator: ", ")
        let tooMany = try #require(
            sandbox.failure(oneLocation + "\nprofiles:\n  - {id: anna, allergens: [\(allergens)]}"))
        #expect(tooMany.message == "at most 64 allergens, got 65")
    }

    /// `check-config` prints the configured daily weighted total as YAML comments.
    @Test func budgetReport() throws {
        let config = try ConfigSandbox().load(
            """
            locations:
              - {id: a, latitude: 52.52, longitude: 13.405, timezone: Europe/Berlin}
              - {id: b, latitude: 48.1, longitude: 11.6, timezone: Europe/Berlin}
            air: {enabled: true, interval: 1h}
            """)
        let report = renderOpenMeteoBudget(config)
        // Stripes 1980–2025 (the sandbox's year is 2026): 16 802 days = 16 802/140 calls per
        // location; two locations 33 604/140 = 240.03; that day 9 520 + 33 604 units = 308.03.
        #expect(
            report == """
                # Open-Meteo weighted calls per day (free tier: fewer than 10,000 a day; docs/operations.md):
                #   pollen: 8 requests, 14.23 weighted calls (4 per location: 1 × 4.11 with the season (past_days=92) + 3 × 1.00)
                #   air: 50 requests, 50.00 weighted calls (25 × 1.00 per location)
                #   climate: 4 requests, 12.00 weighted calls (5 archive range(s) + 1 forecast per location)
                #   stripes: 2 requests, 240.03 weighted calls (once a year: 16802 days × 1 variable = 120.01 per location)
                #   total: 76.23 weighted calls per day (316.26 on the stripes day)
                # DWD pollen (key-free): 1 request per new document for 2 location(s) in Germany (daily, about 11:00 Berlin time), then every 15 min with If-Modified-Since until it changes; at most 30 a day

                """)
        let google = try ConfigSandbox().load(
            oneLocation + "\npollen: {source: google, api_key: k-0123456789}\nclimate: {enabled: false}")
        #expect(
            renderOpenMeteoBudget(google)
                == """
                # Open-Meteo weighted calls per day (free tier: fewer than 10,000 a day; docs/operations.md):
                #   none (no Open-Meteo source is enabled)
                #   total: 0.00 weighted calls per day

                """)
    }
}
