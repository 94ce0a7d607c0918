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
import Testing

/// The release of issue 12 item 4: `timezone: "Europe//Berlin"` passed `check-config` (exit 0)
/// while `once` exited 78. Both now go through the config loader's one zone path.
@Suite("Time zones: check-config and run agree (the binary)")
struct TimeZoneBinaryAgreementTests {
    static let refused = TimeZoneNameCases.refused
    static let accepted = TimeZoneNameCases.accepted
    private static func yaml(_ zone: String) -> String { TimeZoneNameCases.locationYAML(zone) }

    @Test("the binary: check-config and once --demo give the same verdict for every name")
    func binaryAgrees() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            // Against the real zoneinfo; Broken/Zone exists only in the config sandbox.
            for zone in Self.refused.filter({ $0 != "Broken/Zone" }) + Self.accepted {
                let sandbox = try AgentSandbox()
                try sandbox.writeConfig(port: port, prefix: "tz-\(shortID())", Self.yaml(zone))
                let check = try await AgentProcess.run(
                    ["check-config", "--config", sandbox.configPath], logDirectory: sandbox.directory)
                let once = try await AgentProcess.run(
                    ["once", "--demo", "--config", sandbox.configPath], logDirectory: sandbox.directory)
                let expected: Int32 = Self.accepted.contains(zone) ? 0 : 78
                #expect(check.status == expected, "check-config \(zone): \(check.stderr)")
                #expect(once.status == expected, "once \(zone): \(once.stderr)")
                if expected == 78 {
                    #expect(check.stderr.contains("locations[0].timezone"), "\(check.stderr)")
                    #expect(once.stderr.contains("locations[0].timezone"), "\(once.stderr)")
                }
            }
        }
    }
}
