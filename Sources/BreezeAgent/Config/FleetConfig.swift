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

/// The settings for many locations in one agent (SPEC §11):
///
/// ```yaml
/// http:
///   max_concurrent: 4            # requests in flight at once, 1–64
/// endpoints:
///   max_calls_per_minute: 600    # pace Open-Meteo requests to custom endpoints too, 1–100000
/// ```
enum FleetConfig {
    /// The `http:` keys this file reads (the section may hold others, read elsewhere).
    static let httpKeys = ["max_concurrent"]
    static let concurrencyRange = 1...64
    static let callsPerMinuteRange = 1...100_000

    static func apply(_ top: MappingReader, to config: inout AgentConfig) throws(ConfigError) {
        if top.isPresent("http") {
            let r = try MappingReader(top.rawNode("http"), path: "http", keys: httpKeys, file: top.file)
            config.httpMaxConcurrent = try r.int("max_concurrent", in: concurrencyRange) ?? 4
        }
        if top.isPresent("endpoints") {
            let r = try MappingReader(
                top.rawNode("endpoints"), path: "endpoints", keys: EndpointsKeys.all, file: top.file)
            config.endpointsMaxCallsPerMinute = try r.int("max_calls_per_minute", in: callsPerMinuteRange)
        }
    }
}

/// Every key `endpoints:` accepts (the URLs, and the pacing override).
enum EndpointsKeys {
    static let urls = ["pollen", "air_quality", "climate_archive", "climate_forecast"]
    static let all = urls + ["max_calls_per_minute"]
}
