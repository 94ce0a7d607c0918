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

import BreezeConfig
import BreezeTestSupport
import Foundation
import Testing

/// Issue 30 end to end: the agent's fetches fail all at once — the APIs answer 503 in
/// microseconds and the climate endpoints refuse connections — with two HTTP slots
/// (`http.max_concurrent: 2`). Every fetch must come back and be reported as failed with its
/// retry; before the HTTP driver's fix the agent reported a few and then waited, its other
/// fetches in flight for up to an hour.
@Suite("Fetches failing all at once all come back")
struct FetchStallTests {
    static let count = 200
    @Test("200 locations, every API failing at once, two HTTP slots: every fetch reported with its retry")
    func everyFailureComesBack() async throws {
        let locations = (0..<Self.count).map { FakeAPIs.Location(id: "loc\($0)", latitude: 40 + Double($0) / 10) }
        let scenario = try AgentSandbox(faultLocations: locations)
        scenario.apis.setFaultForAll(.respond(status: 503, text: "unavailable"))
        let refusing = try RefusingPort()  // bound, never listened on, held for the test
        defer { withExtendedLifetime(refusing) {} }
        let refused = refusing.port
        try await MosquittoBroker.withPlainBroker { port in
            try scenario.writeConfig(
                port: port, qos: 1, logLevel: "info",
                """
                \(scenario.locationsYAML)
                pollen:
                  source: google
                  api_key: test-key-0123456789
                http:
                  max_concurrent: 2
                endpoints:
                  pollen: \(scenario.apis.server.url("/google"))
                  air_quality: \(scenario.apis.server.url("/aq"))
                  climate_archive: http://127.0.0.1:\(refused)/archive
                  climate_forecast: http://127.0.0.1:\(refused)/forecast
                  max_calls_per_minute: 100000
                """)
            let agent = try AgentProcess(["run", "--config", scenario.configPath], directory: scenario.directory)
            defer { Task { await agent.terminate() } }
            // The first fetches start within the spread (12 s for 200) and fail in milliseconds.
            // The bound stays below the first retries (60 s on): a retry's request wakes a
            // stalled driver, which would hide the stall.
            let reported = await agent.waitForLine("failed:", count: locations.count * 3, timeout: .seconds(45))
            let failed = agent.lines(containing: "failed:")
            #expect(reported, "\(failed.count) of \(locations.count * 3) fetches reported:\n\(agent.log)")
            for location in locations {
                let id = location.id
                let own = failed.filter { $0.contains("[\(id)]") }
                #expect(own.contains { $0.contains("pollen[\(id)]: fetch from google failed: HTTP 503") }, "\(own)")
                #expect(
                    own.contains { $0.contains("climate[\(id)]: fetch failed: HTTP transfer failed (couldNotConnect") },
                    "\(own)")
                #expect(
                    own.contains { $0.contains("stripes[\(id)]: fetch failed: HTTP transfer failed (couldNotConnect") },
                    "\(own)")
            }
            #expect(failed.allSatisfy { $0.contains("; retry in ") })
            #expect(agent.lines(containing: "stuck").isEmpty)
            #expect(agent.isRunning)
        }
    }
}
