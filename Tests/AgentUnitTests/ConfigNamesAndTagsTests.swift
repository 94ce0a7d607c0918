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
import BreezeHTTP
import Foundation
import Testing

/// SPEC §16 "Names" and "Secrets everywhere" at config time (issue 27, findings 6 and 7): names
/// the render helper would refuse, OpenEPaperLink `ap` URLs that leak or cannot be right, two
/// tags on one MAC, image ids past 32 characters.
@Suite("Configuration: names the helper takes, OpenEPaperLink tags")
struct ConfigNamesAndTagsTests {
    // MARK: names (finding 6)

    /// Past the helper's limit in bytes: 257 ASCII letters, 86 CJK characters (258 bytes), 65
    /// emoji (260 bytes) — the attack's three names.
    static let tooLong: [String] = [
        String(repeating: "a", count: 257), String(repeating: "漢", count: 86), String(repeating: "😀", count: 65),
    ]

    @Test("a location name past the render helper's limit is a config error", arguments: tooLong)
    func locationNameTooLong(name: String) throws {
        let yaml = "locations:\n  - {id: home, name: \"\(name)\", latitude: 52.52, longitude: 13.405, timezone: UTC}\n"
        let error = try #require(ConfigSandbox().failure(yaml))
        #expect(error.keyPath == "locations[0].name", "\(error)")
        #expect(error.line == 2)
        #expect(
            error.message.contains("\(name.utf8.count) bytes, at most 256"), "\(error)")
    }

    @Test("a profile name past the render helper's limit is a config error")
    func profileNameTooLong() throws {
        let name = String(repeating: "😀", count: 65)
        let error = try #require(
            ConfigSandbox().failure(
                oneLocation + "\nprofiles:\n  - {id: anna, name: \"\(name)\", allergens: [birch]}\n")
        )
        #expect(error.keyPath == "profiles[0].name", "\(error)")
        #expect(error.message.contains("260 bytes, at most 256"), "\(error)")
    }

    @Test("names at the helper's limit are accepted")
    func namesAtTheLimit() throws {
        for name in [
            String(repeating: "a", count: 256), String(repeating: "漢", count: 85), String(repeating: "😀", count: 64),
        ] {
            let config = try ConfigSandbox().load(
                "locations:\n  - {id: home, name: \"\(name)\", latitude: 52.52, longitude: 13.405, timezone: UTC}\n")
            #expect(config.locations[0].name == name)
        }
    }

    // MARK: OpenEPaperLink (finding 7)

    static let images = """
        images:
          - {id: tag, kind: pollen, width: 296, height: 128, palette: bwr, format: jpeg}
        """

    static func tag(_ ap: String, mac: String = "0000021CBA123456") -> String {
        "  - {type: openepaperlink, ap: \"\(ap)\", mac: \(mac), image: tag}\n"
    }

    @Test("check-config and the log scrubber mask the ap URL's userinfo")
    func accessPointUserinfoMasked() throws {
        let config = try ConfigSandbox().load(
            oneLocation + "\n" + Self.images + "\noutputs:\n" + Self.tag("http://admin:ap-secret-7@192.168.1.50"))
        let text = renderEffective(config)
        #expect(text.contains("    ap: \"http://********@192.168.1.50\""), "\(text)")
        #expect(!text.contains("ap-secret-7"), "\(text)")
        #expect(!text.contains("admin:"), "\(text)")
        #expect(config.secretScrubber.scrub("POST http://admin:ap-secret-7@x failed").contains("ap-secret-7") == false)
    }

    /// (ap, what the message names): each refused at `outputs[0].ap`.
    static let badAccessPoints: [(String, String)] = [
        ("http://192.168.1.50:", "empty port"),
        ("http://192.168.1.50:0", "port 0 is outside 1–65535"),
        ("http://192.168.1.50:65536", "port 65536 is outside 1–65535"),
        ("http://192.168.1.50:8o", "port \"8o\" is not a number"),
        ("http://192.168.1.50/?x=1", "a query"),
        ("http://192.168.1.50#top", "a fragment"),
        ("http://admin:pw@192.168.1.50/?token=1", "a query"),
    ]

    @Test("an ap URL with an empty or out-of-range port, a query or a fragment is refused", arguments: badAccessPoints)
    func badAccessPoint(ap: String, problem: String) throws {
        let error = try #require(
            ConfigSandbox().failure(oneLocation + "\n" + Self.images + "\noutputs:\n" + Self.tag(ap)))
        #expect(error.keyPath == "outputs[0].ap", "\(error)")
        #expect(error.message.contains(problem), "\(error)")
        #expect(!error.description.contains("pw@"), "the error echoes the userinfo: \(error)")
    }

    @Test("an ap URL with a port in range is accepted")
    func accessPointWithPort() throws {
        let config = try ConfigSandbox().load(
            oneLocation + "\n" + Self.images + "\noutputs:\n" + Self.tag("http://[fe80::1]:8080/"))
        #expect(config.openEPaperLink[0].accessPoint == "http://[fe80::1]:8080")
    }

    @Test("two tags with the same MAC are refused, naming the first")
    func duplicateMAC() throws {
        let error = try #require(
            ConfigSandbox().failure(
                oneLocation + "\n" + Self.images + "\noutputs:\n" + Self.tag("http://ap1")
                    + Self.tag("http://ap2", mac: "0000021cba123456")))
        #expect(error.keyPath == "outputs[1].mac", "\(error)")
        #expect(error.line == 7, "\(error)")
        #expect(error.message.contains("0000021CBA123456 is already used by outputs[0]"), "\(error)")
    }

    @Test("image ids follow the location id rule: at most 32 characters")
    func imageIDLength() throws {
        let long = String(repeating: "i", count: 33)
        let error = try #require(
            ConfigSandbox().failure("images:\n  - {id: \(long), kind: pollen, width: 64, height: 64}\n" + oneLocation))
        #expect(error.keyPath == "images[0].id", "\(error)")
        #expect(error.message.contains("at most 32"), "\(error)")
        let ok = String(repeating: "i", count: 32)
        let config = try ConfigSandbox().load(
            "images:\n  - {id: \(ok), kind: pollen, width: 64, height: 64}\n" + oneLocation)
        #expect(config.images[0].id == ok)
    }
}
