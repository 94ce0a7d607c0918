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
import Foundation
import Testing

@Suite("Diagnostics payload")
struct DiscoveryDiagnosticsTests {
    private let snapshot = AgentDiagnostics(
        uptimeSeconds: 3_600,
        sources: [
            .init(
                source: "google", fetchesOK: 4, fetchesFailed: 1, lastSuccess: "2025-05-01T06:00:00Z",
                lastError: (at: "2025-05-01T05:00:00Z", message: "HTTP 503")),
            .init(source: "open_meteo", fetchesOK: 9),
        ],
        apiCallsToday: [
            .init(locationID: "home", google: 5, openMeteo: 3),
            .init(locationID: "summer-house", google: 0, openMeteo: 2),
        ],
        reconnects: 2)

    private func decoded() throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(snapshot.json.serialized.utf8))
        return try #require(object as? [String: Any])
    }

    @Test func topicIsGlobal() {
        #expect(TopicLayout(prefix: "breeze").diagnostics == "breeze/diagnostics")
    }

    @Test func shapeMatchesTheDocumentedOne() throws {
        let root = try decoded()
        #expect(
            Set(root.keys) == [
                "uptime_s", "fetches", "api_calls_today", "open_meteo_calls_today", "last_success", "last_error",
                "reconnects",
            ])
        #expect(root["uptime_s"] as? Int == 3_600)
        #expect(root["reconnects"] as? Int == 2)
        let fetches = try #require(root["fetches"] as? [String: [String: Int]])
        #expect(fetches["google"] == ["ok": 4, "failed": 1, "stuck": 0])
        #expect(fetches["open_meteo"] == ["ok": 9, "failed": 0, "stuck": 0])
        let success = try #require(root["last_success"] as? [String: Any])
        #expect(success["google"] as? String == "2025-05-01T06:00:00Z")
        #expect(success["open_meteo"] is NSNull)
        let errors = try #require(root["last_error"] as? [String: Any])
        #expect((errors["google"] as? [String: String]) == ["at": "2025-05-01T05:00:00Z", "message": "HTTP 503"])
        #expect(errors["open_meteo"] is NSNull)
    }

    /// The discovery template reads `api_calls_today[<loc>].google` and `.open_meteo`: the
    /// payload must carry exactly those keys under the location's real (unslugged) id.
    @Test func apiCallsAreKeyedTheWayTheDiscoveryTemplateReadsThem() throws {
        let calls = try #require(try decoded()["api_calls_today"] as? [String: [String: Int]])
        #expect(calls["home"] == ["google": 5, "open_meteo": 3])
        #expect(calls["summer-house"] == ["google": 0, "open_meteo": 2])

        let input = DiscoveryInput(
            agentVersion: "1", location: .init(id: "summer-house", name: "Summer house"),
            pollenAvailable: false, pollenItems: [], climateEnabled: false)
        let component = try #require(
            try discoveryComponents(decodeDiscovery(HomeAssistantDiscovery.deviceConfig(for: input)))["api_calls_today"]
        )
        let template = try #require(component["value_template"] as? String)
        #expect(template.contains("api_calls_today['summer-house']"))
        #expect(template.contains("c.google") && template.contains("c.open_meteo"))
    }
}
