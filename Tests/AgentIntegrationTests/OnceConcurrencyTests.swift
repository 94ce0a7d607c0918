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

/// `once` fetches its locations concurrently through the curl multi driver, up to
/// `http.max_concurrent` (SPEC §11), and still publishes the whole tree.
@Suite("once fetches concurrently up to http.max_concurrent")
struct OnceConcurrencyTests {
    @Test("9 locations, each Google answer held 400 ms, max_concurrent 3: 3 at once, every location published")
    func reachesTheLimitAndPublishesEverything() async throws {
        let gauge = ConcurrencyGauge()
        let body = try googleBody(zone: "UTC")
        let locations = (0..<9).map { FakeAPIs.Location(id: "site\($0)", latitude: 50 + Double($0) / 10) }
        let sandbox = try AgentSandbox(
            locations: locations,
            routes: FakeAPIs.Routes(google: { _ in
                gauge.serve(holding: .milliseconds(400))
                return .respond(status: 200, body: body)
            }))
        // Nine locations' retained trees exceed mosquitto's default queue of 1,000 messages for
        // a new QoS 1 subscriber, which would drop the view's probe: a broker of its own.
        let broker = try MosquittoBroker(configuration: ["max_queued_messages 20000"])
        try await broker.start()
        defer { broker.stop() }
        do {
            let port = broker.port
            try sandbox.writeConfig(
                port: port,
                """
                \(sandbox.locationsYAML)
                pollen: {source: google, api_key: test-key-0123456789}
                climate: {enabled: false}
                http: {max_concurrent: 3}
                \(sandbox.apis.endpointsYAML)
                """)
            let run = try await AgentProcess.run(
                ["once", "--config", sandbox.configPath], logDirectory: sandbox.directory)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(gauge.total == 9)
            // The server saw the limit reached and never passed: concurrent, and bounded. (No
            // wall-time bound: on a loaded 2-core machine it says nothing the gauge does not.)
            #expect(gauge.peak == 3, "\(run.stderr)")
            let tree = try await BrokerView.snapshot(port: port, ["\(sandbox.prefix)/#"])
            for location in locations {
                #expect(tree["\(sandbox.prefix)/\(location.id)/pollen/grass/value"] != nil, "\(location.id)")
                #expect(run.stderr.contains("pollen[\(location.id)]: fetched"), "\(location.id)")
            }
            let perLocation = Set(
                locations.map { location in
                    tree.keys.filter { $0.hasPrefix("\(sandbox.prefix)/\(location.id)/") }.count
                })
            // Every location has the same, complete tree.
            #expect(perLocation.count == 1 && perLocation.first! > 10, "\(perLocation)")
        }
    }
}
