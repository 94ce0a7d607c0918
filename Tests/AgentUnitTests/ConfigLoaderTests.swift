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
import BreezeCore
import BreezeMQTT
import Foundation
import Testing

@Suite("Configuration loading")
struct ConfigLoaderTests {
    @Test func defaultsFromAMinimalFile() throws {
        let sandbox = try ConfigSandbox()
        let config = try sandbox.load(oneLocation)
        #expect(config.mqtt.host == "localhost")
        #expect(config.mqtt.port == 1883)
        #expect(config.mqtt.username == nil)
        #expect(config.mqtt.password == nil)
        #expect(config.mqtt.clientID == "breeze-agent-hub")
        #expect(config.mqtt.topicPrefix == "breeze")
        #expect(config.mqtt.qos == 1)
        #expect(config.mqtt.keepalive == 60)
        #expect(config.mqtt.protocolVersion == .v5)
        #expect(config.mqtt.protocolExplicit == false)
        #expect(config.mqtt.maxPacketSize == nil)
        #expect(config.mqtt.tls == nil)
        #expect(config.homeAssistant == HomeAssistantSettings(discovery: true, prefix: "homeassistant"))
        var home = LocationConfig(
            id: "home", name: "home", latitude: 52.52, longitude: 13.405, timezone: "Europe/Berlin",
            zone: try TimeZoneResolver().load("Europe/Berlin"))
        // Berlin: the DWD's region 50, Brandenburg und Berlin, from the coordinates.
        home.dwdRegion = 50
        #expect(config.locations == [home])
        #expect(config.pollen.enabled)
        #expect(config.pollen.source == .auto)
        #expect(config.pollen.dwd)
        #expect(config.endpoints.dwd == "https://opendata.dwd.de")
        #expect(config.pollen.apiKey == nil)
        #expect(config.pollen.days == 5)
        #expect(config.pollen.language == "en")
        #expect(config.pollen.interval == .seconds(6 * 3600))
        #expect(config.pollen.refreshCooldown == .seconds(900))
        #expect(config.pollen.maxCallsPerDay == 24)
        #expect(config.pollen.colors == PollenPalette.standard)
        #expect(
            config.climate
                == ClimateSettings(
                    enabled: true, unit: nil, years: [1980, 1990, 2000, 2010, 2020],
                    refreshCooldown: .seconds(3600), stripesFirstYear: 1980, stripesLastYear: 2025))
        #expect(config.endpoints == Endpoints())
        #expect(config.endpoints.pollen == "https://pollen.googleapis.com/v1")
        #expect(config.stateDir == "/var/lib/breeze-agent")
        #expect(config.logLevel == .info)
        #expect(config.sourceFile.hasSuffix("config.yaml"))
    }

    @Test func everyKeySet() throws {
        let sandbox = try ConfigSandbox()
        let config = try sandbox.load(
            """
            mqtt:
              host: broker.lan
              username: hub
              password: "pa:ss"
              client_id: my-hub
              topic_prefix: home/breeze
              qos: 2
              keepalive: 30
              protocol: 3.1.1
              tls: {ca_file: /etc/ca.pem, cert_file: c.crt, key_file: c.key, insecure: true}
            homeassistant: {discovery: false, prefix: ha}
            locations:
              - {id: home, name: "Our flat", latitude: -33.9, longitude: 151.2, timezone: UTC}
              - {id: office_2, latitude: 40.7, longitude: -74.0, timezone: America/New_York}
            pollen:
              enabled: false
              source: open-meteo
              days: 3
              language: pt-BR
              interval: 1d
              refresh_cooldown: 90s
              max_calls_per_day: 4
              colors: {low: "#00FF00", very_high: "#800000"}
            climate: {enabled: true, unit: celsius, years: [2020, 1980, 2020, 1950], refresh_cooldown: 2h}
            endpoints: {pollen: "http://127.0.0.1:8080/v1/", climate_forecast: "https://proxy/om"}
            state_dir: .state
            log_level: debug
            """)
        #expect(config.mqtt.host == "broker.lan")
        #expect(config.mqtt.port == 8883)  // tls present, no port
        #expect(config.mqtt.password?.value == "pa:ss")
        #expect(config.mqtt.clientID == "my-hub")
        #expect(config.mqtt.topicPrefix == "home/breeze")
        #expect(config.mqtt.qos == 2)
        #expect(config.mqtt.keepalive == 30)
        #expect(config.mqtt.protocolVersion == .v311)
        #expect(
            config.mqtt.tls
                == MQTTTLSOptions(caFile: "/etc/ca.pem", certFile: "c.crt", keyFile: "c.key", insecure: true))
        #expect(config.homeAssistant == HomeAssistantSettings(discovery: false, prefix: "ha"))
        #expect(config.locations.map(\.id) == ["home", "office_2"])
        #expect(config.locations[0].name == "Our flat")
        #expect(config.locations[1].name == "office_2")
        #expect(config.locations[1].timezone == "America/New_York")
        #expect(config.locations[0].latitude == -33.9)
        #expect(!config.pollen.enabled)
        #expect(config.pollen.source == .openMeteo)
        #expect(config.pollen.days == 3)
        #expect(config.pollen.language == "pt-BR")
        #expect(config.pollen.interval == .seconds(86_400))
        #expect(config.pollen.refreshCooldown == .seconds(90))
        #expect(config.pollen.maxCallsPerDay == 4)
        #expect(config.pollen.colors.low == HexColor(red: 0, green: 255, blue: 0))
        #expect(config.pollen.colors.veryHigh == HexColor(red: 0x80, green: 0, blue: 0))
        #expect(config.pollen.colors.none == PollenPalette.standard.none)
        #expect(config.climate.unit == .celsius)
        #expect(config.climate.years == [1950, 1980, 2020])
        #expect(config.climate.refreshCooldown == .seconds(7200))
        #expect(config.endpoints.pollen == "http://127.0.0.1:8080/v1")
        #expect(config.endpoints.climateForecast == "https://proxy/om")
        #expect(config.endpoints.airQuality == "https://air-quality-api.open-meteo.com/v1")
        #expect(config.stateDir == ".state")
        #expect(config.logLevel == .debug)
    }

    @Test(arguments: [
        ("protocol: 5", MQTTProtocolVersion.v5), ("protocol: \"5\"", .v5), ("protocol: \"3.1.1\"", .v311),
        ("protocol: 3.1.1", .v311),
    ])
    func protocolAsIntOrString(line: String, expected: MQTTProtocolVersion) throws {
        let config = try ConfigSandbox().load("mqtt:\n  \(line)\n" + oneLocation)
        #expect(config.mqtt.protocolVersion == expected)
        // Set in the file, even to the default: no fallback to 3.1.1.
        #expect(config.mqtt.protocolExplicit)
        #expect(AgentMain.mqttConfiguration(config, once: true).protocolFallback == false)
    }

    @Test func maxPacketSizeAndTheFallbackReachTheClient() throws {
        let config = try ConfigSandbox().load("mqtt:\n  max_packet_size: 2000\n" + oneLocation)
        #expect(config.mqtt.maxPacketSize == 2000)
        let client = AgentMain.mqttConfiguration(config, once: false)
        #expect(client.maxPacketSize == 2000)
        #expect(client.protocolFallback)
        #expect(client.connectTimeout == 10)
    }

    @Test func emptyTLSMappingTurnsTLSOn() throws {
        let sandbox = try ConfigSandbox()
        let on = try sandbox.load("mqtt:\n  tls: {}\n" + oneLocation)
        #expect(on.mqtt.tls == MQTTTLSOptions())
        #expect(on.mqtt.port == 8883)
        let explicit = try sandbox.load("mqtt:\n  port: 8884\n  tls:\n" + oneLocation)
        #expect(explicit.mqtt.tls != nil)
        #expect(explicit.mqtt.port == 8884)
    }

    @Test(arguments: [
        ("90s", 90), ("15m", 900), ("6h", 21_600), ("1d", 86_400), ("60s", 60), ("120m", 7200),
    ])
    func durations(text: String, seconds: Int64) throws {
        let config = try ConfigSandbox().load("pollen:\n  refresh_cooldown: \(text)\n" + oneLocation)
        #expect(config.pollen.refreshCooldown == .seconds(seconds))
    }

    @Test(arguments: ["15", "1h30m", "m", "-5m", "1.5h", "15M", "15 m", "\"\"", "[15m]", "59s"])
    func badDurations(text: String) throws {
        let error = try #require(ConfigSandbox().failure("pollen:\n  refresh_cooldown: \(text)\n" + oneLocation))
        #expect(error.line == 2)
        #expect(error.keyPath == "pollen.refresh_cooldown")
        #expect(
            error.message.hasPrefix("expected a duration like 90s, 15m, 6h or 1d (at least 1m, at most 1d), got "),
            "\(error)")
    }

    @Test func exactMessageFormat() throws {
        let error = try #require(ConfigSandbox().failure("mqtt:\n  host: a\n  port: abc\n" + oneLocation))
        #expect(error.description.hasSuffix("/config.yaml:3: mqtt.port: expected an integer 1–65535, got \"abc\""))
    }

    /// (yaml, line, key path, a part of the message)
    static let badFiles: [(String, Int, String, String)] = [
        ("mqtt:\n  port: 70000\n" + oneLocation, 2, "mqtt.port", "expected an integer 1–65535, got \"70000\""),
        ("mqtt:\n  port: \"1883\"\n" + oneLocation, 2, "mqtt.port", "got the quoted string \"1883\""),
        ("mqtt:\n  port: [1]\n" + oneLocation, 2, "mqtt.port", "got a list"),
        ("mqtt:\n  qos: 3\n" + oneLocation, 2, "mqtt.qos", "expected an integer 0–2"),
        ("mqtt:\n  keepalive: 0\n" + oneLocation, 2, "mqtt.keepalive", "expected an integer 5–65535"),
        ("mqtt:\n  host: a\n  hots: b\n" + oneLocation, 3, "mqtt.hots", "unknown key \"hots\"; did you mean \"host\"?"),
        ("mqtt:\n  pasword: x\n" + oneLocation, 2, "mqtt.pasword", "did you mean \"password\"?"),
        ("mqtt:\n  zzzzzz: x\n" + oneLocation, 2, "mqtt.zzzzzz", "unknown key \"zzzzzz\" (known keys: host, port"),
        ("locaitons:\n  - {id: a}\n", 1, "locaitons", "did you mean \"locations\"?"),
        ("mqtt:\n  protocol: 4\n" + oneLocation, 2, "mqtt.protocol", "expected \"5\" or \"3.1.1\", got \"4\""),
        ("mqtt:\n  max_packet_size: 10\n" + oneLocation, 2, "mqtt.max_packet_size", "expected an integer 64–268435460"),
        ("mqtt:\n  topic_prefix: a/#\n" + oneLocation, 2, "mqtt.topic_prefix", "no #"),
        ("mqtt:\n  topic_prefix: /breeze\n" + oneLocation, 2, "mqtt.topic_prefix", "got \"/breeze\""),
        ("mqtt:\n  topic_prefix: breeze/\n" + oneLocation, 2, "mqtt.topic_prefix", "got \"breeze/\""),
        ("mqtt:\n  topic_prefix: a//b\n" + oneLocation, 2, "mqtt.topic_prefix", "got \"a//b\""),
        ("mqtt:\n  topic_prefix: a/+/b\n" + oneLocation, 2, "mqtt.topic_prefix", "got \"a/+/b\""),
        ("mqtt:\n  tls: {cert_file: c.crt}\n" + oneLocation, 2, "mqtt.tls.cert_file", "go together"),
        (
            "mqtt:\n  tls: {insecure: maybe}\n" + oneLocation, 2, "mqtt.tls.insecure",
            "expected true or false, got \"maybe\""
        ),
        ("mqtt: [a, b]\n" + oneLocation, 1, "mqtt", "expected a mapping of keys, got a list"),
        ("homeassistant:\n  prefix: \"ha#\"\n" + oneLocation, 2, "homeassistant.prefix", "got \"ha#\""),
        (
            "log_level: verbose\n" + oneLocation, 1, "log_level",
            "expected one of \"debug\", \"info\", \"warning\", \"error\""
        ),
        ("mqtt: {}\n", 1, "locations", "required: a list of one or more locations"),
        ("locations: []\n", 1, "locations", "expected a list of one or more locations"),
        ("locations:\n  - home\n", 2, "locations[0]", "expected a mapping"),
        (
            "locations:\n  - {id: home, latitude: 91, longitude: 0, timezone: UTC}\n", 2, "locations[0].latitude",
            "expected a latitude in degrees, −90 to 90, got \"91\""
        ),
        (
            "locations:\n  - id: home\n    latitude: 1\n    longitude: -180.5\n    timezone: UTC\n", 4,
            "locations[0].longitude", "got \"-180.5\""
        ),
        ("locations:\n  - id: home\n    latitude: north\n", 3, "locations[0].latitude", "got \"north\""),
        ("locations:\n  - id: home\n    longitude: 2\n", 2, "locations[0].latitude", "required: a latitude"),
        ("locations:\n  - {latitude: 1, longitude: 2}\n", 2, "locations[0].id", "required: an id"),
        (
            "locations:\n  - {id: Home, latitude: 1, longitude: 2, timezone: UTC}\n", 2, "locations[0].id",
            "lower-case letters, digits, _ and -"
        ),
        ("locations:\n  - {id: a/b, latitude: 1, longitude: 2, timezone: UTC}\n", 2, "locations[0].id", "got \"a/b\""),
        (
            "locations:\n  - {id: home, latitude: 1, longitude: 2, timezone: UTC}\n  - id: work\n    latitude: 1\n"
                + "    longitude: 2\n    timezone: UTC\n  - {id: home, latitude: 3, longitude: 4, timezone: UTC}\n", 7,
            "locations[2].id", "duplicate location id \"home\" (first used at line 2)"
        ),
        (
            "locations:\n  - {id: home, latitude: 1, longitude: 2, timezone: Mars/Base}\n", 2, "locations[0].timezone",
            "expected an IANA time zone name like Europe/Berlin"
        ),
        (
            "locations:\n  - {id: home, latitude: 1, longitude: 2, timezone: Broken/Zone}\n", 2,
            "locations[0].timezone",
            "got \"Broken/Zone\""
        ),
        (
            "locations:\n  - {id: home, latitude: 1, longitude: 2, timezone: ../zoneinfo/UTC}\n", 2,
            "locations[0].timezone", "got \"../zoneinfo/UTC\""
        ),
        (
            "locations:\n  - {id: home, latitude: 1, longitude: 2, tz: UTC}\n", 2, "locations[0].tz",
            "unknown key \"tz\""
        ),
        (
            oneLocation + "\npollen:\n  interval: 10m\n", 4, "pollen.interval",
            "(at least 15m, at most 30d), got \"10m\""
        ),
        (oneLocation + "\npollen:\n  days: 6\n", 4, "pollen.days", "expected an integer 1–5"),
        (
            oneLocation + "\npollen:\n  source: bing\n", 4, "pollen.source",
            "expected one of \"auto\", \"google\", \"open-meteo\""
        ),
        (oneLocation + "\npollen:\n  source: google\n", 4, "pollen.source", "source google needs an API key"),
        (oneLocation + "\npollen:\n  enabled: maybe\n", 4, "pollen.enabled", "expected true or false"),
        (oneLocation + "\npollen:\n  language: \"en us\"\n", 4, "pollen.language", "expected a language code"),
        (oneLocation + "\npollen:\n  colors:\n    low: #ff0000\n", 5, "pollen.colors.low", "in quotes"),
        (
            oneLocation + "\npollen:\n  colors:\n    high: \"#ff00zz\"\n", 5, "pollen.colors.high",
            "got the quoted string \"#ff00zz\""
        ),
        (
            oneLocation + "\npollen:\n  colors:\n    hihg: \"#ff0000\"\n", 5, "pollen.colors.hihg",
            "did you mean \"high\"?"
        ),
        (
            oneLocation + "\nclimate:\n  years: [1980, 1930]\n", 4, "climate.years[1]",
            "expected a year from 1940 to 2025 (before the current year), got \"1930\""
        ),
        (oneLocation + "\nclimate:\n  years:\n    - 2000\n    - 2026\n", 6, "climate.years[1]", "got \"2026\""),
        (oneLocation + "\nclimate:\n  years: []\n", 4, "climate.years", "one or more years"),
        (oneLocation + "\nclimate:\n  unit: kelvin\n", 4, "climate.unit", "\"auto\", \"fahrenheit\", \"celsius\""),
        (
            oneLocation + "\nendpoints:\n  pollen: ftp://x\n", 4, "endpoints.pollen",
            "expected an http:// or https:// base URL"
        ),
        (oneLocation + "\nstate_dir: [a]\n", 3, "state_dir", "expected a directory path, got a list"),
        ("mqtt:\n  host: a\n  host: b\n" + oneLocation, 3, "", "duplicate key \"host\" (first given at line 2)"),
        ("mqtt:\n  host: [a\n" + oneLocation, 3, "", "flow sequence"),
        ("a: 1\n---\nb: 2\n", 2, "", "only one document"),
    ]

    @Test(arguments: badFiles)
    func badFileNamesLineAndKey(yaml: String, line: Int, keyPath: String, fragment: String) throws {
        let error = try #require(ConfigSandbox().failure(yaml))
        #expect(error.line == line, "\(error)")
        #expect(error.keyPath == keyPath, "\(error)")
        #expect(error.message.contains(fragment), "\(error)")
        #expect(error.file?.hasSuffix("config.yaml") == true)
        let prefix = keyPath.isEmpty ? ":\(line): " : ":\(line): \(keyPath): "
        #expect(error.description.contains(prefix), "\(error)")
    }

    @Test func missingFileNamesThePath() throws {
        let sandbox = try ConfigSandbox()
        let path = sandbox.root.appendingPathComponent("nope.yaml").path
        #expect {
            try ConfigLoader.load(
                path: path, environment: [:], currentYear: 2026, hostname: "h", timeZones: sandbox.resolver)
        } throws: { error in
            let error = error as? ConfigError
            return error?.description == "\(path): cannot read the configuration file: No such file or directory"
        }
    }

    @Test func emptyFileAsksForLocations() throws {
        let error = try #require(ConfigSandbox().failure(""))
        #expect(error.keyPath == "locations")
        #expect(error.message.hasPrefix("required"))
    }

    @Test func unwritableStateDirIsNotAnError() throws {
        let config = try ConfigSandbox().load("state_dir: /proc/definitely/not/writable\n" + oneLocation)
        #expect(config.stateDir == "/proc/definitely/not/writable")
    }

    // MARK: environment

    @Test func environmentOverridesBrokerAndSecrets() throws {
        let config = try ConfigSandbox().load(
            "mqtt: {host: file-host, port: 1884, username: u, password: filepw}\npollen: {api_key: filekey}\n"
                + oneLocation,
            environment: [
                "BREEZE_MQTT_HOST": "env-host", "BREEZE_MQTT_PORT": "2883", "BREEZE_MQTT_USERNAME": "env-user",
                "BREEZE_MQTT_PASSWORD": "env-pw", "BREEZE_GOOGLE_API_KEY": "env-key",
            ])
        #expect(config.mqtt.host == "env-host")
        #expect(config.mqtt.port == 2883)
        #expect(config.mqtt.username == "env-user")
        #expect(config.mqtt.password == Secret("env-pw", origin: "environment BREEZE_MQTT_PASSWORD"))
        #expect(config.pollen.apiKey?.value == "env-key")
    }

    @Test func emptyEnvironmentVariablesAreUnset() throws {
        let config = try ConfigSandbox().load(
            "mqtt: {host: file-host}\n" + oneLocation, environment: ["BREEZE_MQTT_HOST": "", "BREEZE_MQTT_PORT": ""])
        #expect(config.mqtt.host == "file-host")
        #expect(config.mqtt.port == 1883)
    }

    @Test func badPortFromEnvironment() throws {
        let error = try #require(ConfigSandbox().failure(oneLocation, environment: ["BREEZE_MQTT_PORT": "http"]))
        #expect(error.file == nil)
        #expect(error.description == "BREEZE_MQTT_PORT (environment): expected an integer 1–65535, got \"http\"")
    }

    @Test func googleSourceSatisfiedByEnvironmentKey() throws {
        let config = try ConfigSandbox().load(
            "pollen: {source: google}\n" + oneLocation, environment: ["BREEZE_GOOGLE_API_KEY": "k"])
        #expect(config.pollen.source == .google)
        #expect(config.pollen.apiKey?.origin == "environment BREEZE_GOOGLE_API_KEY")
    }

    // MARK: secrets

    @Test func secretFilesAreReadAndTrimmed() throws {
        let sandbox = try ConfigSandbox()
        let pw = try sandbox.write("secrets/mqtt", "s3cret\n")
        let key = try sandbox.write("secrets/google", "AIzaKey\r\n")
        let config = try sandbox.load("mqtt: {password_file: \(pw)}\npollen: {api_key_file: \(key)}\n" + oneLocation)
        #expect(config.mqtt.password == Secret("s3cret", origin: "file \(pw)", file: pw))
        #expect(config.pollen.apiKey?.value == "AIzaKey")
    }

    @Test func missingSecretFileNamesTheFile() throws {
        let sandbox = try ConfigSandbox()
        let error = try #require(sandbox.failure("pollen:\n  api_key_file: /nonexistent/key\n" + oneLocation))
        #expect(error.line == 2)
        #expect(error.keyPath == "pollen.api_key_file")
        #expect(error.message == "cannot read \"/nonexistent/key\": No such file or directory")
    }

    @Test func emptySecretFileIsRefused() throws {
        let sandbox = try ConfigSandbox()
        let path = try sandbox.write("secrets/empty", "\n")
        let error = try #require(sandbox.failure("mqtt:\n  password_file: \(path)\n" + oneLocation))
        #expect(error.keyPath == "mqtt.password_file")
        #expect(error.message.contains("is empty"))
    }

    @Test func secretGivenTwiceNamesBothKeys() throws {
        let sandbox = try ConfigSandbox()
        let path = try sandbox.write("secrets/mqtt", "filepw\n")
        let error = try #require(
            sandbox.failure("mqtt:\n  password_file: \(path)\n  host: h\n  password: inlinepw\n" + oneLocation))
        #expect(error.line == 4)
        #expect(error.message == "give either mqtt.password or mqtt.password_file, not both (lines 2 and 4)")
        #expect(!error.description.contains("inlinepw"))
        #expect(!error.description.contains("filepw"))
        let twice = try #require(sandbox.failure("pollen:\n  api_key: k\n  api_key_file: /x\n" + oneLocation))
        #expect(twice.message.contains("pollen.api_key or pollen.api_key_file"))
    }

    @Test func secretsNeverPrintThemselves() {
        let secret = Secret("hunter2", origin: "inline")
        #expect("\(secret)" == "********")
        #expect(!String(reflecting: secret).contains("hunter2"))
    }

    // MARK: check-config rendering

    @Test func renderingMasksEverySecret() throws {
        let sandbox = try ConfigSandbox()
        let pw = try sandbox.write("pw", "file-password-123\n")
        let config = try sandbox.load(
            "mqtt: {username: bob, password_file: \(pw)}\npollen: {api_key: AIzaInlineKey999}\n" + oneLocation)
        let text = renderEffective(config)
        #expect(!text.contains("file-password-123"))
        #expect(!text.contains("AIzaInlineKey999"))
        #expect(text.contains("  password: \"********\"  # from file \(pw)"))
        #expect(text.contains("  api_key: \"********\"  # from inline"))
        #expect(text.contains("  username: \"bob\""))
        #expect(text.contains("  interval: 6h"))
        #expect(text.contains("  refresh_cooldown: 15m"))
        #expect(text.contains("  years: [1980, 1990, 2000, 2010, 2020]"))
        #expect(text.contains("    timezone: \"Europe/Berlin\""))
    }

    @Test func renderingSaysNotSetAndReloads() throws {
        let sandbox = try ConfigSandbox()
        let config = try sandbox.load("mqtt: {tls: {}}\npollen: {colors: {low: \"#00ff00\"}}\n" + oneLocation)
        let text = renderEffective(config)
        #expect(text.contains("  password:  # (not set)"))
        #expect(text.contains("  api_key:  # (not set)"))
        #expect(text.contains("    ca_file:  # system CAs"))
        #expect(text.contains("    low: \"#00ff00\""))
        #expect(text.contains("    high: \"#ff3b30\""))
        // The rendering is itself a valid config that gives the same settings back.
        let again = try sandbox.load(text)
        #expect(again.mqtt.port == 8883)
        #expect(again.mqtt.tls == MQTTTLSOptions())
        #expect(again.pollen.colors == config.pollen.colors)
        #expect(again.locations == config.locations)
        #expect(again.climate == config.climate)
        #expect(again.endpoints == config.endpoints)
    }

    // MARK: shipped configs

    private static let configDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("config")

    @Test(arguments: ["breeze-agent.example.yaml", "local.yaml"])
    func shippedConfigsLoad(name: String) throws {
        let path = Self.configDirectory.appendingPathComponent(name).path
        let sandbox = try ConfigSandbox()
        let config = try ConfigLoader.load(
            path: path, environment: [:], currentYear: 2026, hostname: "hub", timeZones: sandbox.resolver)
        #expect(config.locations.first?.id == "home")
        #expect(config.locations.first?.timezone == "Europe/Berlin")
        #expect(config.pollen.apiKey == nil)
        if name == "local.yaml" {
            #expect(config.mqtt.host == "127.0.0.1")
            #expect(config.mqtt.port == 1883)
            #expect(config.stateDir == ".state")
        } else {
            // The example documents the defaults: loading it must give exactly them.
            let defaults = try sandbox.load(oneLocation)
            #expect(config.mqtt.port == defaults.mqtt.port)
            #expect(config.mqtt.topicPrefix == defaults.mqtt.topicPrefix)
            #expect(config.pollen.interval == defaults.pollen.interval)
            #expect(config.climate == defaults.climate)
            #expect(config.airOut == defaults.airOut)
            #expect(config.endpoints == defaults.endpoints)
            #expect(config.stateDir == defaults.stateDir)
            #expect(config.pollen.colors.moderate == HexColor(hex: "#ff9500"))
        }
    }
}
