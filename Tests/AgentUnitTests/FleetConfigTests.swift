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
import Foundation
import Testing

/// `http.max_concurrent` and `endpoints.max_calls_per_minute` (SPEC §11).
@Suite("Fleet configuration: concurrency and pacing keys")
struct FleetConfigTests {
    @Test("defaults: 4 requests at once, no pacing override")
    func defaults() throws {
        let config = try ConfigSandbox().load(oneLocation)
        #expect(config.httpMaxConcurrent == 4)
        #expect(config.endpointsMaxCallsPerMinute == nil)
    }

    @Test("both keys are read and shown by the effective config")
    func read() throws {
        let config = try ConfigSandbox().load(
            "http:\n  max_concurrent: 16\nendpoints:\n  max_calls_per_minute: 120\n" + oneLocation)
        #expect(config.httpMaxConcurrent == 16)
        #expect(config.endpointsMaxCallsPerMinute == 120)
        let text = renderEffective(config)
        // max_concurrent alone starts no server (docs/http.md); the section says so.
        #expect(text.contains("http:  # server off: no listen\n  max_concurrent: 16"), "\(text)")
        #expect(text.contains("  max_calls_per_minute: 120"))
    }

    @Test(
        "out of range or not a number: an error naming line and key",
        arguments: [
            ("http:\n  max_concurrent: 0", "http.max_concurrent"),
            ("http:\n  max_concurrent: 65", "http.max_concurrent"),
            ("http:\n  max_concurrent: many", "http.max_concurrent"),
            ("endpoints:\n  max_calls_per_minute: 0", "endpoints.max_calls_per_minute"),
            ("endpoints:\n  max_calls_per_minute: 100001", "endpoints.max_calls_per_minute"),
        ])
    func outOfRange(yaml: String, keyPath: String) throws {
        let error = try #require(ConfigSandbox().failure(yaml + "\n" + oneLocation))
        #expect(error.line == 2)
        #expect(error.keyPath == keyPath)
        #expect(error.message.contains("expected an integer"), "\(error)")
    }

    @Test("an unknown key under http: is refused")
    func unknownKey() throws {
        let error = try #require(ConfigSandbox().failure("http:\n  max_concurent: 8\n" + oneLocation))
        #expect(error.keyPath == "http.max_concurent")
    }
}
