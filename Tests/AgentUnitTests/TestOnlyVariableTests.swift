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
@testable import BreezeConfig
import Testing

@Suite struct TestOnlyVariableTests {
    @Test func eachTestVariableInTheEnvironmentIsNamedInAWarning() {
        let warnings = TestHooks.warnings([
            "BREEZE_TEST_HTTP_TIMEOUT": "5", "BREEZE_TEST_CA_FILE": "/x.pem", "BREEZE_TEST_MQTT_PORT": "1",
            "BREEZE_CONFIG": "/etc/x", "PATH": "/bin",
        ])
        #expect(
            warnings == [
                "environment: BREEZE_TEST_CA_FILE is set: a test-only setting is in effect (docs/operations.md, Test-only settings)",
                "environment: BREEZE_TEST_HTTP_TIMEOUT is set: a test-only setting is in effect (docs/operations.md, Test-only settings)",
            ])
        #expect(TestHooks.warnings(["BREEZE_CONFIG": "x"]).isEmpty)
    }
}
