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
import BreezeCore

/// The environment variables only a test build reads (docs/operations.md, "Test-only
/// settings"): they shorten waits (curl's timeout, the refresh cooldowns, the add-on's
/// Supervisor retries) and let a loopback HTTPS server be trusted, which the suites, the bench
/// and the Home Assistant tests need and a production agent must never honour. They are
/// compiled in only with `BREEZE_TEST_HOOKS` (debug builds, and the release variant
/// scripts/test-hooks-build.sh makes for the stages that drive a release binary); the shipped
/// binary reads none of them.
enum TestHooks {
    #if BREEZE_TEST_HOOKS
        /// The variables this build reads.
        static let variables: Set<String> = [
            "BREEZE_TEST_HTTP_TIMEOUT", "BREEZE_TEST_REFRESH_COOLDOWN", "BREEZE_TEST_CA_FILE",
            "BREEZE_TEST_SUPERVISOR_RETRY_MS",
        ]

        /// `BREEZE_TEST_HTTP_TIMEOUT` (whole seconds, 1…30): curl's total timeout, so the fault
        /// suite can inject a hanging API without waiting 30 s per case.
        static func httpTimeout(_ environment: [String: String]) -> Duration? {
            guard let text = environment["BREEZE_TEST_HTTP_TIMEOUT"], let seconds = Int(text),
                (1...30).contains(seconds)
            else { return nil }
            return .seconds(seconds)
        }

        /// `BREEZE_TEST_CA_FILE`: a PEM bundle the API client trusts instead of the system store.
        /// libcurl (unlike the curl tool) ignores `CURL_CA_BUNDLE`, and Debian's libcurl loads its
        /// built-in CA path rather than OpenSSL's defaults, so `SSL_CERT_FILE` does not reach it
        /// either; the bench's loopback HTTPS API with a self-signed CA needs this.
        static func caFile(_ environment: [String: String]) -> String? {
            environment["BREEZE_TEST_CA_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        }

        /// `BREEZE_TEST_REFRESH_COOLDOWN` (whole seconds, ≥ 1): both refresh cooldowns, below the
        /// config's 1 m floor, so the bench drives many full cycles with `refresh` commands.
        static func apply(to config: inout AgentConfig, environment: [String: String]) {
            guard let text = environment["BREEZE_TEST_REFRESH_COOLDOWN"], let seconds = Int64(text), seconds >= 1
            else { return }
            config.pollen.refreshCooldown = .seconds(seconds)
            config.climate.refreshCooldown = .seconds(seconds)
        }

        /// `BREEZE_TEST_SUPERVISOR_RETRY_MS` (10…1000): the add-on's first Supervisor retry in
        /// milliseconds, capped at 4× it, so the down-then-up test takes seconds.
        static func supervisorRetry(_ environment: [String: String]) -> (first: Duration, maximum: Duration)? {
            guard let text = environment["BREEZE_TEST_SUPERVISOR_RETRY_MS"], let ms = Int(text),
                (10...1000).contains(ms)
            else { return nil }
            return (.milliseconds(ms), .milliseconds(ms * 4))
        }
    #else
        static let variables: Set<String> = []
        static func httpTimeout(_ environment: [String: String]) -> Duration? { nil }
        static func caFile(_ environment: [String: String]) -> String? { nil }
        static func apply(to config: inout AgentConfig, environment: [String: String]) {}
        static func supervisorRetry(_ environment: [String: String]) -> (first: Duration, maximum: Duration)? { nil }
    #endif

    /// One warning per test-only variable this build reads that is set (docs/operations.md, Limits): a test
    /// setting left in a unit file says so at every start. Other `BREEZE_TEST_*` names (the
    /// suites' own, like `BREEZE_TEST_MQTT_PORT`) are not read by the agent and not mentioned.
    static func warnings(_ environment: [String: String]) -> [String] {
        variables.filter { environment[$0] != nil }.sorted().map { name in
            "environment: \(name) is set: a test-only setting is in effect (docs/operations.md, Test-only settings)"
        }
    }
}
