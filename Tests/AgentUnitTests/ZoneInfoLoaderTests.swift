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
import BreezeCore
import Foundation
import Testing

/// ``TimeZoneResolver/load(_:)``, the one path from a zone name to its rules, against the system zoneinfo.
@Suite struct ZoneInfoLoaderTests {
    @Test func loadsSystemZones() throws {
        let berlin = try TimeZoneResolver().load("Europe/Berlin")
        // 2026-07-01T00:00Z is summer time.
        #expect(berlin.utcOffset(atUnixTime: 1_782_864_000) == 7200)
        let utc = try TimeZoneResolver().load("UTC")
        #expect(utc.utcOffset(atUnixTime: 1_782_864_000) == 0)
    }

    @Test(arguments: [
        "../etc/passwd", "Europe/../../etc/passwd", "/etc/passwd", "", "Europe//Berlin", "Europe/Berlin\n",
        "./UTC", "Europe/Ber lin",
    ])
    func rejectsUnsafeNames(_ name: String) {
        #expect(throws: ZoneInfoError.invalidName(name)) { try TimeZoneResolver().load(name) }
    }

    @Test func unknownZoneNamesTheFile() {
        do {
            _ = try TimeZoneResolver().load("Mars/Olympus_Mons")
            Issue.record("expected an error")
        } catch {
            guard case .unreadable(let name, let path, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(name == "Mars/Olympus_Mons")
            #expect(path == "/usr/share/zoneinfo/Mars/Olympus_Mons")
        }
    }

    @Test func rejectsAFileThatIsNotTZif() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("zi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data("not a zone".utf8).write(to: dir.appendingPathComponent("Fake"))
        #expect(
            throws: ZoneInfoError.invalidFile(
                name: "Fake", path: dir.path + "/Fake", reason: ZoneRulesError.notTZif.description)
        ) {
            try TimeZoneResolver(zoneInfoRoot: dir.path).load("Fake")
        }
    }
}
