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

/// SPEC §12 at config time: durations and cooldowns bounded, the Google key never sent in clear
/// off the loopback interface, endpoint userinfo masked, loose secret files warned about, and a
/// config file that is too large or not a regular file refused.
@Suite("Configuration bounds and secrets")
struct ConfigBoundsTests {
    // MARK: durations

    /// (yaml block, key path): each one step past its bound.
    static let tooLong: [(String, String)] = [
        ("pollen:\n  interval: 9223372036854775807s", "pollen.interval"),
        ("pollen:\n  interval: 31d", "pollen.interval"),
        ("pollen:\n  interval: 2592001s", "pollen.interval"),
        ("pollen:\n  refresh_cooldown: 25h", "pollen.refresh_cooldown"),
        ("pollen:\n  refresh_cooldown: 86401s", "pollen.refresh_cooldown"),
        ("climate:\n  refresh_cooldown: 2d", "climate.refresh_cooldown"),
    ]

    @Test("a duration past 30 days or a cooldown past 1 day is a config error naming line and key", arguments: tooLong)
    func durationsBeyondTheirBound(yaml: String, keyPath: String) throws {
        let error = try #require(ConfigSandbox().failure(yaml + "\n" + oneLocation))
        #expect(error.line == 2)
        #expect(error.keyPath == keyPath)
        let bound = keyPath.hasSuffix("cooldown") ? "at most 1d" : "at most 30d"
        #expect(error.message.contains(bound), "\(error)")
        #expect(error.description.contains("/config.yaml:2: \(keyPath): expected a duration"), "\(error)")
    }

    @Test("the bounds themselves are accepted")
    func durationsAtTheirBound() throws {
        let config = try ConfigSandbox().load(
            "pollen:\n  interval: 30d\n  refresh_cooldown: 1d\nclimate:\n  refresh_cooldown: 86400s\n" + oneLocation)
        #expect(config.pollen.interval == .seconds(30 * 86_400))
        #expect(config.pollen.refreshCooldown == .seconds(86_400))
        #expect(config.climate.refreshCooldown == .seconds(86_400))
    }

    // MARK: MQTT's two-byte strings

    @Test(
        "an MQTT user name, password or client id over 65,535 bytes is refused at config time, naming the limit",
        arguments: ["username", "password", "client_id"])
    func mqttStringsOverTheTwoByteLength(key: String) throws {
        let long = String(repeating: "u", count: 65_536)
        let error = try #require(ConfigSandbox().failure("mqtt:\n  \(key): \(long)\n" + oneLocation))
        #expect(error.keyPath == "mqtt.\(key)" && error.line == 2, "\(error)")
        #expect(error.message.contains("65536 bytes") && error.message.contains("at most 65535"), "\(error)")
        #expect(!error.description.contains("uuuu"), "the value is not echoed")
        // 65,535 bytes fit.
        let fits = String(repeating: "u", count: 65_535)
        #expect(throws: Never.self) { try ConfigSandbox().load("mqtt:\n  \(key): \(fits)\n" + oneLocation) }
    }

    @Test("an over-long password from the environment or a password_file is named as such")
    func mqttStringsFromElsewhere() throws {
        let sandbox = try ConfigSandbox()
        let long = String(repeating: "p", count: 65_536)
        let fromEnvironment = try #require(
            sandbox.failure(oneLocation, environment: ["BREEZE_MQTT_PASSWORD": long]))
        #expect(fromEnvironment.keyPath == "BREEZE_MQTT_PASSWORD (environment)", "\(fromEnvironment)")
        #expect(!fromEnvironment.description.contains("pppp"))
        let file = try sandbox.write("password", long)
        let fromFile = try #require(sandbox.failure("mqtt:\n  password_file: \(file)\n" + oneLocation))
        #expect(fromFile.keyPath == "mqtt.password_file", "\(fromFile)")
    }

    // MARK: the Google key in clear

    @Test("a Google key over plain http:// to a non-loopback host is refused at the endpoint's line")
    func googleKeyOverPlainHTTP() throws {
        let sandbox = try ConfigSandbox()
        let error = try #require(
            sandbox.failure(
                "pollen:\n  api_key: AIzaTestKey0123\nendpoints:\n  pollen: http://pollen.example.net/v1\n"
                    + oneLocation))
        #expect(error.line == 4)
        #expect(error.keyPath == "endpoints.pollen")
        #expect(error.message.contains("unencrypted to pollen.example.net"), "\(error)")
        #expect(!error.description.contains("AIzaTestKey0123"))
        // The same URL without a key to send, or over https, or to loopback, is fine.
        for yaml in [
            "pollen:\n  source: open-meteo\n  api_key: AIzaTestKey0123\nendpoints:\n  pollen: http://pollen.example.net/v1",
            "endpoints:\n  pollen: http://pollen.example.net/v1",
            "pollen:\n  api_key: AIzaTestKey0123\nendpoints:\n  pollen: https://pollen.example.net/v1",
            "pollen:\n  api_key: AIzaTestKey0123\nendpoints:\n  pollen: http://127.0.0.1:8080/google",
            "pollen:\n  api_key: AIzaTestKey0123\nendpoints:\n  pollen: http://localhost/google",
            "pollen:\n  api_key: AIzaTestKey0123\nendpoints:\n  pollen: http://[::1]:9/google",
        ] {
            #expect(throws: Never.self, "\(yaml)") { try sandbox.load(yaml + "\n" + oneLocation) }
        }
        // A key from the environment counts too; a userinfo host trick does not hide the host.
        let fromEnvironment = try #require(
            sandbox.failure(
                "endpoints:\n  pollen: http://127.0.0.1@evil.example/v1\n" + oneLocation,
                environment: ["BREEZE_GOOGLE_API_KEY": "AIzaEnvKey4567"]))
        #expect(fromEnvironment.message.contains("unencrypted to evil.example"), "\(fromEnvironment)")
        let lookalike = try #require(
            sandbox.failure(
                "pollen:\n  api_key: AIzaTestKey0123\nendpoints:\n  pollen: http://127.example.net/v1\n" + oneLocation))
        #expect(lookalike.message.contains("unencrypted to 127.example.net"), "\(lookalike)")
    }

    // MARK: check-config output

    @Test("check-config masks the userinfo of endpoint URLs, and the scrubber knows the password")
    func endpointUserinfoMasked() throws {
        let config = try ConfigSandbox().load(
            "endpoints:\n  air_quality: https://proxyuser:proxy-pass-42@proxy.example/aq\n" + oneLocation)
        let text = renderEffective(config)
        #expect(text.contains("  air_quality: \"https://********@proxy.example/aq\""), "\(text)")
        #expect(!text.contains("proxy-pass-42"))
        #expect(!text.contains("proxyuser"))
        #expect(config.secretScrubber.scrub("auth proxy-pass-42 refused") == "auth ******** refused")
    }

    // MARK: secret files

    @Test("a secret file others can read, or its group change, is warned about; 0600 and 0640 are not")
    func looseSecretFiles() throws {
        let sandbox = try ConfigSandbox()
        let key = try sandbox.write("secrets/key", "AIzaFileKey98765\n")
        let password = try sandbox.write("secrets/password", "mqtt-pass-123\n")
        chmod(key, 0o644)
        chmod(password, 0o600)
        let yaml = "mqtt:\n  password_file: \(password)\npollen:\n  api_key_file: \(key)\n" + oneLocation
        let warnings = try sandbox.load(yaml).secretFileWarnings()
        #expect(warnings.count == 1)
        #expect(
            warnings.first?.hasPrefix(
                "pollen.api_key_file: \(key) can be read by others or changed by its group (mode 0644)") == true)
        chmod(password, 0o660)
        chmod(key, 0o640)
        #expect(try sandbox.load(yaml).secretFileWarnings().map { $0.prefix(19) } == ["mqtt.password_file:"])
        chmod(password, 0o604)
        #expect(try sandbox.load(yaml).secretFileWarnings().map { $0.prefix(19) } == ["mqtt.password_file:"])
        chmod(password, 0o640)
        chmod(key, 0o400)
        #expect(try sandbox.load(yaml).secretFileWarnings() == [])
    }

    // MARK: the file itself

    @Test("a config file over 1 MiB is an error, not truncated")
    func oversizedConfig() throws {
        let sandbox = try ConfigSandbox()
        // Valid YAML throughout: before the bound it was cut at 1 MiB and loaded without a word.
        let padding = String(repeating: "# padding padding padding padding padding padding padding\n", count: 18_500)
        let path = try sandbox.write("big.yaml", oneLocation + "\n" + padding)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int > 1 << 20)
        #expect {
            try ConfigLoader.load(
                path: path, environment: [:], currentYear: 2026, hostname: "hub", timeZones: sandbox.resolver)
        } throws: { error in
            "\(error)".hasSuffix("big.yaml: cannot read the configuration file: larger than 1 MiB")
        }
    }

    @Test("a device as the config file is an error naming what it is")
    func deviceAsConfig() throws {
        let sandbox = try ConfigSandbox()
        #expect {
            try ConfigLoader.load(
                path: "/dev/zero", environment: [:], currentYear: 2026, hostname: "hub", timeZones: sandbox.resolver)
        } throws: { error in
            "\(error)" == "/dev/zero: cannot read the configuration file: not a regular file (a character device)"
        }
    }
}

@Suite("Secret scrubber")
struct SecretScrubberTests {
    @Test func masksEveryFormLongestFirstAndLeavesShortValues() {
        let scrubber = SecretScrubber(secrets: ["AIzaKey/with+chars", "AIzaKey", "abc"])
        #expect(scrubber.scrub("k=AIzaKey/with+chars") == "k=********")
        #expect(scrubber.scrub("k=AIzaKey%2Fwith%2Bchars&x") == "k=********&x")
        #expect(scrubber.scrub("AIzaKey and AIzaKey") == "******** and ********")
        #expect(scrubber.scrub("abc stays") == "abc stays")
        #expect(SecretScrubber.none.scrub("AIzaKey") == "AIzaKey")
    }
}
