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

@Suite("Configuration: air_out (SPEC §20)")
struct ConfigAirOutTests {
    @Test func defaultsAndEveryKey() throws {
        let sandbox = try ConfigSandbox()
        let defaults = try sandbox.load(oneLocation)
        #expect(defaults.airOut == AirOutSettings(window: 2, hours: DaytimeHours(start: 6, end: 22)!))
        #expect(renderEffective(defaults).contains("air_out:\n  window: 2\n  hours: \"06-22\"\n"))

        let night = try sandbox.load(oneLocation + "\nair_out: {window: 6, hours: 20-04}")
        #expect(night.airOut == AirOutSettings(window: 6, hours: DaytimeHours(start: 20, end: 4)!))
        // What check-config prints loads again as the same settings.
        let rendered = renderEffective(night)
        #expect(rendered.contains("air_out:\n  window: 6\n  hours: \"20-04\"\n"))
        let quoted = try sandbox.load(oneLocation + "\nair_out: {window: 1, hours: \"00-24\"}")
        #expect(quoted.airOut.hours.count == 24 && quoted.airOut.window == 1)
        // An empty mapping keeps the defaults.
        #expect(try sandbox.load(oneLocation + "\nair_out: {}").airOut == AirOutSettings())
    }

    /// Each bad value names the file, its line and the key, and says what is expected.
    @Test(arguments: [
        ("air_out: {window: 0}", "air_out.window", "expected an integer 1–6, got \"0\""),
        ("air_out: {window: 7}", "air_out.window", "expected an integer 1–6, got \"7\""),
        ("air_out: {window: 2h}", "air_out.window", "expected an integer 1–6"),
        ("air_out: {hours: 6-22}", "air_out.hours", "HH-HH"),
        ("air_out: {hours: 06-06}", "air_out.hours", "not equal"),
        ("air_out: {hours: 06-25}", "air_out.hours", "got \"06-25\""),
        ("air_out: {hours: [6, 22]}", "air_out.hours", "like 06-22"),
        ("air_out: {hours: 21-22, window: 2}", "air_out.hours", "21-22 has 1 hour(s), fewer than the window of 2"),
        ("air_out: {windw: 2}", "air_out.windw", "did you mean \"window\""),
        ("air_out: 2", "air_out", "expected a mapping"),
    ])
    func badValues(yaml: String, keyPath: String, fragment: String) throws {
        let sandbox = try ConfigSandbox()
        let error = try #require(sandbox.failure(oneLocation + "\n\n" + yaml))
        #expect(error.line == 4, "\(error)")
        #expect(error.keyPath == keyPath, "\(error)")
        #expect(error.message.contains(fragment), "\(error)")
        #expect(error.file?.hasSuffix("config.yaml") == true)
    }
}
