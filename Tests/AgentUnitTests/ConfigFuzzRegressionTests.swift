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

/// Inputs the config fuzz target (fuzz/targets/ConfigFuzz.swift) crashed or hung on, kept in
/// `Tests/CoreTests/Fixtures/fuzz-regressions/config/` with the other targets' inputs, replayed
/// through `ConfigLoader.load(text:…)` as the target does.
@Suite struct ConfigFuzzRegressionTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../CoreTests/Fixtures/fuzz-regressions/config").standardized

    static func load(_ text: String) -> Result<AgentConfig, ConfigError> {
        Result { () throws(ConfigError) -> AgentConfig in
            try ConfigLoader.load(
                text: text, file: "fuzz.yaml", environment: ["TZ": "Europe/Berlin"], currentYear: 2026,
                hostname: "fuzz")
        }
    }

    static func contents(_ name: String) -> Data? {
        FileManager.default.contents(atPath: directory.appendingPathComponent(name).path)
    }

    static func message(_ result: Result<AgentConfig, ConfigError>) -> String? {
        if case .failure(let error) = result { return error.message }
        return nil
    }

    /// 60 000 nested `[` overflowed the stack releasing the tree; 30 000 unclosed ones took
    /// libyaml seconds. Both now stop at the first collection past the depth limit.
    @Test(arguments: ["nested-60000-closed.yaml", "nested-30000-unclosed.yaml"])
    func deepNestingIsRefusedQuickly(name: String) throws {
        let data = try #require(Self.contents(name))
        let start = ContinuousClock.now
        let result = Self.load(String(decoding: data, as: UTF8.self))
        #expect(ContinuousClock.now - start < .seconds(2))
        guard case .failure(let error) = result else {
            Issue.record("expected a ConfigError")
            return
        }
        #expect(error.message == "collections are nested more than 64 levels deep")
        #expect(error.line == 1)
        #expect(error.file == "fuzz.yaml")
    }

    /// The limit counts the root mapping: 63 brackets under `locations:` are still YAML the
    /// loader reads (and then rejects as a configuration), 64 are not read at all.
    @Test func depthLimitIsSixtyFourCollections() {
        func nested(_ n: Int) -> String {
            "locations: " + String(repeating: "[", count: n) + String(repeating: "]", count: n)
        }
        let atLimit = Self.message(Self.load(nested(63)))
        #expect(atLimit != nil)
        #expect(atLimit != "collections are nested more than 64 levels deep")
        #expect(Self.message(Self.load(nested(64))) == "collections are nested more than 64 levels deep")
    }

    @Test func everySavedConfigInputIsRefusedWithAnError() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path).sorted()
        #expect(!names.isEmpty)
        for name in names {
            let data = try #require(Self.contents(name))
            #expect(Self.message(Self.load(String(decoding: data, as: UTF8.self))) != nil, "\(name)")
        }
    }
}
