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

import BreezeCore
import BreezeYAML

/// `air_out: {window, hours}` (docs/reference.md, The hour to air out): the hours to air out, chosen from the hourly pollen
/// of the key-free source.
///
/// ```yaml
/// air_out:
///   window: 2        # hours, 1–6
///   hours: 06-22     # local hours of the day the window may use; 22-06 runs across midnight
/// ```
enum AirOutConfig {
    static let keys = ["window", "hours"]

    /// Reads `air_out` from the top-level mapping into `config` (the defaults when absent).
    static func apply(_ top: MappingReader, to config: inout AgentConfig) throws(ConfigError) {
        guard top.isPresent("air_out") else { return }
        let r = try MappingReader(top.rawNode("air_out"), path: "air_out", keys: keys, file: top.file)
        var settings = AirOutSettings()
        let range = AirOutSettings.windowRange
        if let window = try r.int("window", in: range) { settings.window = window }
        let expected =
            "local hours of the day as HH-HH, 00–23 then 01–24, not equal, like 06-22 (22-06 runs across midnight)"
        if let text = try r.string("hours", expected: expected) {
            guard let hours = DaytimeHours(text: text) else {
                throw r.fail("hours", "expected \(expected), got \(doubleQuoted(text))")
            }
            settings.hours = hours
        }
        guard settings.hours.count >= settings.window else {
            throw r.fail(
                "hours",
                "\(settings.hours) has \(settings.hours.count) hour(s), fewer than the window of \(settings.window) hour(s)"
            )
        }
        config.airOut = settings
    }
}
