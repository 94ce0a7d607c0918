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
@testable import BreezeConfig
import BreezeCore
import Foundation
import Testing

/// A unit chosen with `climate/unit/set` is kept across restarts, until the configured
/// `climate.unit` changes: then the configuration wins (before, the stored choice silently
/// overrode every later edit of the file).
@Suite("climate.unit: the configured value against the unit chosen at run time")
struct UnitChoiceTests {
    /// The unit the agent starts with for `home`, the log, and units.json afterwards.
    private func start(zone: String, configured: String?, unitsJSON: String?) throws
        -> (unit: TemperatureUnit, lines: [String], stored: [String: StateStore.UnitChoice])
    {
        let sandbox = try ConfigSandbox()
        let state = sandbox.root.appendingPathComponent("state").path
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        if let unitsJSON { try unitsJSON.write(toFile: state + "/units.json", atomically: true, encoding: .utf8) }
        let config = try sandbox.load(
            "locations:\n  - {id: home, latitude: 1, longitude: 2, timezone: \(zone)}\nstate_dir: \(state)\n"
                + (configured.map { "climate:\n  unit: \($0)\n" } ?? ""))
        let lines = OnceLoopTests.Lines()
        let log = Log(level: .debug, timestamps: false, sink: { lines.append($0) })
        let agent = Agent(
            config: config, log: log, store: StateStore(directory: state, log: log),
            http: OnceLoopTests.Answers { _, _ in .init(status: 500, body: []) }, demo: false)
        let stored = StateStore(directory: state, log: Log(level: .error)).units()
        return (agent.state.locations[0].unit, lines.all, stored)
    }

    @Test func withNothingChosenTheZoneDecides() throws {
        #expect(try start(zone: "America/New_York", configured: nil, unitsJSON: nil).unit == .fahrenheit)
        #expect(try start(zone: "Europe/Berlin", configured: nil, unitsJSON: nil).unit == .celsius)
        #expect(try start(zone: "America/New_York", configured: "celsius", unitsJSON: nil).unit == .celsius)
    }

    @Test func aChoiceUnderTheSameConfiguredValueIsKept() throws {
        let run = try start(
            zone: "Europe/Berlin", configured: nil, unitsJSON: #"{"home": {"unit": "°F", "configured": "auto"}}"#)
        #expect(run.unit == .fahrenheit)
        #expect(run.stored["home"] == .init(unit: "°F", configured: "auto"))
        #expect(run.lines.allSatisfy { !$0.contains("climate.unit changed") })
    }

    @Test func aChangedConfiguredValueWinsAndReplacesTheChoice() throws {
        let run = try start(
            zone: "Europe/Berlin", configured: "celsius", unitsJSON: #"{"home": {"unit": "°F", "configured": "auto"}}"#)
        #expect(run.unit == .celsius)
        #expect(run.stored["home"] == nil)
        #expect(
            run.lines.contains(
                "info: climate[home]: climate.unit changed from auto to celsius: °C replaces the °F chosen with unit/set"
            ))
    }

    @Test("a choice stored before the configured value was (a plain string) is kept until the next choice")
    func aChoiceFromAnOlderAgentIsKept() throws {
        let run = try start(zone: "Europe/Berlin", configured: "celsius", unitsJSON: #"{"home": "°F"}"#)
        #expect(run.unit == .fahrenheit)
        #expect(run.stored["home"] == .init(unit: "°F", configured: nil))
    }
}
