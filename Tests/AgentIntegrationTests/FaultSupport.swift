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

@testable import BreezeConfig
import BreezeCore
import BreezeTestSupport
import Foundation

@testable import BreezeAgent
@testable import BreezeDaemon

// Support for the fault-injection suite (Fault*Tests.swift): a sandbox whose fake APIs answer
// in the real formats for today's dates unless a fault is set for a location, and its config.

extension FakeAPIs.Routes {
    /// Every API answers a good body for the dates it is asked (the demo mode's generator);
    /// the locations run on UTC, so "today" is the UTC date.
    static var demo: Self {
        Self(
            google: { request in
                good(DemoResponder.googlePollen(start: today, days: Int(request.queryValue("days") ?? "5") ?? 5))
            },
            airQuality: { request in
                good(DemoResponder.airQuality(start: today, timezone: request.queryValue("timezone") ?? "UTC"))
            },
            climate: { request in
                let dates = (request.queryValue("start_date") ?? "").split(separator: ",").compactMap {
                    CivilDate(iso: $0)
                }
                return good(DemoResponder.climate(dates: dates, timezone: request.queryValue("timezone") ?? "UTC"))
            })
    }

    static var today: CivilDate { CivilDate(daysSinceEpoch: Int(Date().timeIntervalSince1970 / 86_400)) }

    private static func good(_ body: String) -> LoopbackHTTPServer.Action {
        .respond(status: 200, headers: [("Content-Type", "application/json")], text: body)
    }
}

extension AgentSandbox {
    /// A fault scenario: `locations` on UTC, every API answering good bodies until a fault is set.
    convenience init(faultLocations locations: [FakeAPIs.Location]) throws {
        try self.init(locations: locations, routes: .demo)
    }

    /// Writes the fault suite's config.yaml; `pollen` is the body of the `pollen:` block.
    func writeConfig(brokerPort: Int, pollen: String = "source: google\n  api_key: test-key-0123456789") throws {
        try writeConfig(
            port: brokerPort, qos: 1, logLevel: "info",
            """
            homeassistant:
              discovery: true
              prefix: \(discoveryPrefix)
            \(locationsYAML)
            pollen:
              \(pollen)
              refresh_cooldown: 1m
            climate:
              unit: fahrenheit
              refresh_cooldown: 1m
            \(apis.endpointsYAML)
            """)
    }

    /// The topics a complete location has on the broker (status, discovery, pollen, climate).
    func essentialTopics(_ id: String) -> [String] {
        [
            "\(prefix)/status", "\(prefix)/\(id)/pollen", "\(prefix)/\(id)/pollen/updated_at",
            "\(prefix)/\(id)/pollen/stale", "\(prefix)/\(id)/climate", "\(prefix)/\(id)/climate/unit",
            // The warming stripes arrive by their own fetch, often a moment after the climate.
            "\(prefix)/\(id)/climate/stripes",
            TopicLayout(prefix: prefix, discoveryPrefix: discoveryPrefix).location(id).deviceConfig.name,
        ]
    }
}
