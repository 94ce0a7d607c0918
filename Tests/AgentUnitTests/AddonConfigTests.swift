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

/// The add-on's core (SPEC §15): options.json and the Supervisor's answers → the agent's
/// configuration. Answers are shaped as docs/home-assistant.md ("Runtime environment") cites:
/// `/services/mqtt` in the `{"result": "ok", "data": …}` envelope [SV supervisor/api/utils.py,
/// supervisor/services/modules/mqtt.py], `/core/api/config` without it [DEV docs/api/rest.md].
@Suite("Add-on configuration")
struct AddonConfigTests {
    /// The defaults config.yaml's `options:` gives, as the Supervisor writes them to options.json.
    static let defaults = """
        {"home_location": true, "locations": [], "unit": "auto", "pollen_source": "auto", "air": false,
         "profiles": [], "images": [], "outputs": [], "log_level": "info"}
        """
    static let broker = AddonConfig.Broker(host: "core-mosquitto", port: 1883, username: "addons", password: "Ab1-pw")
    static let home = AddonConfig.Home(
        latitude: "52.52", longitude: "13.405", timeZone: "Europe/Berlin", name: "Zuhause", temperatureUnit: "°C")

    /// Options text through the core and the agent's loader.
    func load(
        _ options: String, broker: AddonConfig.Broker = broker, home: AddonConfig.Home = home
    ) throws(AddonConfig.OptionError) -> AgentConfig {
        let parsed = try AddonConfig.parseOptions(options)
        let plan = try AddonConfig.plan(options: parsed, broker: broker, home: home, stateDir: "/data")
        return try AddonEntry.check(plan, file: "/data/breeze-agent.yaml", currentYear: 2026, hostname: "addon")
    }

    /// The one line a bad option gives (an issue when there is none).
    func failure(
        _ options: String, home: AddonConfig.Home = home, sourceLocation: SourceLocation = #_sourceLocation
    ) -> String? {
        do {
            let config = try load(options, home: home)
            Issue.record("expected an option error, got \(config.locations.map(\.id))", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error.description
        }
    }

    @Test("pollen_source: auto adds the DWD for a home in Germany; dwd reads only the DWD; open-meteo none")
    func pollenSourceDWD() throws {
        let auto = try load(#"{"pollen_source": "auto"}"#)
        #expect(auto.pollen.dwd)
        #expect(auto.locations.first?.dwdRegion == 50)
        let dwd = try load(#"{"pollen_source": "dwd"}"#)
        #expect(dwd.pollen.source == .dwd)
        #expect(dwd.pollen.dwd)
        let openMeteo = try load(#"{"pollen_source": "open-meteo"}"#)
        #expect(!openMeteo.pollen.dwd)
    }

    @Test(arguments: ["", "{}", defaults])
    func zeroConfigurationServesHomeAssistantsHome(options: String) throws {
        let config = try load(options)
        #expect(config.locations.count == 1)
        let home = try #require(config.locations.first)
        #expect(home.id == "home")
        #expect(home.name == "Zuhause")
        #expect(home.latitude == 52.52)
        #expect(home.longitude == 13.405)
        #expect(home.timezone == "Europe/Berlin")
        #expect(config.climate.unit == .celsius)
        #expect(config.stateDir == "/data")
        #expect(config.logLevel == .info)
        #expect(config.mqtt.host == "core-mosquitto")
        #expect(config.mqtt.port == 1883)
        #expect(config.mqtt.username == "addons")
        #expect(config.mqtt.password?.value == "Ab1-pw")
        #expect(config.mqtt.tls == nil)
        #expect(config.pollen.apiKey == nil)
        #expect(config.pollen.source == .auto)
        #expect(config.air.enabled == false)
        #expect(config.profiles.isEmpty && config.images.isEmpty && config.outputs.isEmpty)
        // The status page behind ingress: every interface on ingress_port, only the Supervisor
        // (172.30.32.2) and loopback let in.
        let http = try #require(config.http)
        #expect(http.listenText == "0.0.0.0:8099")
        #expect(http.allow.map(\.description) == ["172.30.32.2/32", "127.0.0.0/8", "::1/128"])
    }

    /// The port the server listens on is the one config.yaml gives the Supervisor for ingress.
    @Test func ingressPortMatchesTheAddOnsConfigYAML() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(
            contentsOf: root.appendingPathComponent("ha-addon/breeze_agent/config.yaml"), encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("ingress_port:") })
        #expect(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) == "\(AddonConfig.ingressPort)")
    }

    @Test func advancedCanMoveTheStatusPage() throws {
        let config = try load(#"{"advanced": "http:\n  allow: [172.30.32.2, 192.168.1.0/24]"}"#)
        let http = try #require(config.http)
        #expect(http.listenText == "0.0.0.0:8099")
        #expect(http.allow.map(\.description) == ["172.30.32.2/32", "192.168.1.0/24"])
    }

    @Test func homeWithoutANameOrTimeZone() throws {
        let config = try load("{}", home: AddonConfig.Home(latitude: "-33.9", longitude: "151.2"))
        #expect(config.locations.map(\.name) == ["Home"])
        #expect(config.locations[0].latitude == -33.9)
    }

    @Test(
        arguments: [
            ("auto", "°C", TemperatureUnit.celsius), ("auto", "°F", .fahrenheit), ("celsius", "°F", .celsius),
            ("fahrenheit", "°C", .fahrenheit), ("auto", nil, .celsius),
        ] as [(String, String?, TemperatureUnit)])
    func unitFollowsHomeAssistantUnlessTheOptionSays(option: String, system: String?, expected: TemperatureUnit) throws
    {
        var home = Self.home
        home.temperatureUnit = system
        #expect(try load(#"{"unit": "\#(option)"}"#, home: home).climate.unit == expected)
    }

    @Test("the air-out window and hours, the language (Home Assistant's when unset), forget")
    func airOutLanguageAndForget() throws {
        var home = Self.home
        home.language = "de"
        let config = try load(#"{"air_out_window": 3, "air_out_hours": "22-06"}"#, home: home)
        #expect(config.airOut.window == 3)
        #expect(config.airOut.hours.description == "22-06")
        #expect(config.pollen.language == "de")
        #expect(try load(#"{"language": "pt-BR"}"#, home: home).pollen.language == "pt-BR")
        #expect(try load("{}").pollen.language == "en")
        #expect(try AddonConfig.parseOptions(#"{"forget": true}"#).forget)
        #expect(try !AddonConfig.parseOptions("{}").forget)
        #expect(
            failure(#"{"air_out_window": 7}"#) == "option air_out_window: expected a whole number of hours from 1 to 6")
        #expect(failure(#"{"air_out_hours": "6-22"}"#)?.hasPrefix("option air_out_hours: ") == true)
        // Home Assistant's language is passed on only when it is a language tag.
        let answered = AddonConfig.home(
            status: 200,
            body: Array(
                #"{"latitude": 1, "longitude": 2, "time_zone": "UTC", "location_name": "x", "language": "de; rm -rf", "unit_system": {"temperature": "°C"}}"#
                    .utf8))
        #expect((try? answered.get())?.language == nil)
    }

    @Test func everyOption() throws {
        let options = #"""
            {"home_location": true,
             "locations": [{"id": "cabin", "name": "Hütte \"am See\"", "latitude": 47.25, "longitude": 11.4},
                           {"id": "nyc", "latitude": 40.71, "longitude": -74.0, "timezone": "America/New_York"}],
             "google_api_key": "AIzaSyExample", "unit": "fahrenheit", "pollen_source": "google", "air": true,
             "profiles": [{"id": "anna", "name": "Anna", "allergens": "birch,  grass ,", "alert_level": "Moderate"}],
             "images": [{"id": "tag", "location": "cabin", "kind": "summary", "width": 296, "height": 128,
                         "palette": "bwr", "format": "jpeg"}],
             "outputs": [{"type": "wled", "topic": "wled/strip1", "show": "pollen_max", "brightness": 128},
                         {"type": "awtrix", "topic": "awtrix_1", "location": "nyc", "indicator": 2}],
             "log_level": "debug"}
            """#
        let config = try load(options, broker: AddonConfig.Broker(host: "10.0.0.2", port: 8883, ssl: true))
        #expect(config.locations.map(\.id) == ["home", "cabin", "nyc"])
        #expect(config.locations[1].name == "Hütte \"am See\"")
        #expect(config.locations[1].timezone == "Europe/Berlin")  // Home Assistant's, when not given
        #expect(config.locations[2].timezone == "America/New_York")
        #expect(config.locations[2].longitude == -74.0)
        #expect(config.pollen.apiKey?.value == "AIzaSyExample")
        #expect(config.pollen.source == .google)
        #expect(config.climate.unit == .fahrenheit)
        #expect(config.air.enabled)
        #expect(config.profiles.map(\.id) == ["anna"])
        #expect(config.profiles[0].allergens == ["birch", "grass"])
        #expect(config.images.map(\.id) == ["tag"])
        #expect(config.outputs.count == 2)
        #expect(config.logLevel == .debug)
        #expect(config.mqtt.host == "10.0.0.2")
        #expect(config.mqtt.port == 8883)
        #expect(config.mqtt.tls != nil)
        #expect(config.mqtt.username == nil && config.mqtt.password == nil)
    }

    @Test func homeLocationOffServesOnlyTheOthers() throws {
        let config = try load(
            #"{"home_location": false, "locations": [{"id": "home", "latitude": 1.5, "longitude": 2.5}]}"#)
        #expect(config.locations.map(\.id) == ["home"])
        #expect(config.locations[0].latitude == 1.5)
    }

    @Test(arguments: [
        (
            #"{"locations": [{"id": "a", "latitude": 1, "longitude": 1}, {"id": "b", "latitude": 1, "longitude": 1}, {"id": "c", "latitude": 123, "longitude": 1}]}"#,
            "option locations[2].latitude: 123 is outside −90…90"
        ),
        (
            #"{"locations": [{"id": "a", "latitude": 1, "longitude": -181}]}"#,
            "option locations[0].longitude: -181 is outside −180…180"
        ),
        (
            #"{"locations": [{"id": "a", "longitude": 1}]}"#,
            "option locations[0].latitude: required: degrees, −90 to 90"
        ),
        (
            #"{"locations": [{"id": "a", "latitude": "north", "longitude": 1}]}"#,
            #"option locations[0].latitude: expected a number of degrees, got "north""#
        ),
        (
            #"{"locations": [{"id": "home", "latitude": 1, "longitude": 1}]}"#,
            #"option locations[0].id: "home" is already the home location's id"#
        ),
        (
            #"{"locations": [{"id": "a", "latitude": 1, "longitude": 1}, {"id": "a", "latitude": 2, "longitude": 2}]}"#,
            #"option locations[1].id: "a" is already the id of locations[0]"#
        ),
        (
            #"{"locations": [{"name": "x", "latitude": 1, "longitude": 1}]}"#,
            "option locations[0].id: required: lower-case letters, digits, _ and -"
        ),
        (#"{"locations": [{"id": "Big Place", "latitude": 1, "longitude": 1}]}"#, "option locations[0].id: "),
        (
            #"{"locations": [{"id": "a", "latitude": 1, "longitude": 1, "timezone": "Mars/Base"}]}"#,
            "option locations[0].timezone: "
        ),
        (
            #"{"home_location": false}"#,
            "option home_location: is off and no other locations are set: there is nothing to serve"
        ),
        (#"{"unit": "kelvin"}"#, #"option unit: expected auto, celsius or fahrenheit, got "kelvin""#),
        (#"{"pollen_source": "bing"}"#, #"option pollen_source: expected auto, google, open-meteo or dwd, got "bing""#),
        (#"{"log_level": "verbose"}"#, #"option log_level: expected debug, info, warning or error, got "verbose""#),
        (#"{"air": "yes"}"#, #"option air: expected true or false, got "yes""#),
        (#"{"locations": {"id": "a"}}"#, "option locations: expected a list, got a mapping"),
        (#"{"google_api_key": 12345}"#, "option google_api_key: expected the key as text"),
        (#"{"pollen_source": "google"}"#, "option pollen_source: "),
        (
            #"{"profiles": [{"id": "anna", "allergens": " , "}]}"#,
            #"option profiles[0].allergens: name at least one pollen type or plant, e.g. "birch, grass""#
        ),
        (
            #"{"images": [{"id": "tag", "location": "nowhere", "kind": "summary", "width": 296, "height": 128}]}"#,
            "option images[0].location: "
        ),
        (#"{"outputs": [{"type": "wled", "topic": "wled/a", "show": "risk:nobody"}]}"#, "option outputs[0].show: "),
        (#"["not", "an", "object"]"#, "option (options.json): expected an object of options, got a list"),
        (#"{"home_location": tru"#, "option (options.json): not valid JSON at line "),
    ])
    func badOptionIsOneLineNamingIt(options: String, expected: String) {
        let line = failure(options)
        #expect(line?.hasPrefix(expected) == true, "\(line ?? "nil")")
        #expect(line?.contains("\n") == false)
    }

    @Test func aBadKeyIsNeverEchoed() {
        let line = failure(#"{"google_api_key": ["AIzaSecretPart"]}"#)
        #expect(line == "option google_api_key: expected the key as text")
    }

    // MARK: advanced

    @Test func advancedIsMergedOverTheGeneratedConfig() throws {
        let advanced =
            "mqtt:\n  topic_prefix: pollen\n  qos: 2\npollen:\n  days: 3\n  language: de\nhomeassistant:\n  discovery: false\n"
        let config = try load(#"{"google_api_key": "AIzaK", "advanced": \#(json(advanced))}"#)
        #expect(config.mqtt.topicPrefix == "pollen")
        #expect(config.mqtt.qos == 2)
        #expect(config.mqtt.host == "core-mosquitto")  // merged, not replaced
        #expect(config.mqtt.username == "addons")
        #expect(config.pollen.days == 3)
        #expect(config.pollen.language == "de")
        #expect(config.pollen.apiKey?.value == "AIzaK")
        #expect(config.homeAssistant.discovery == false)
        #expect(config.stateDir == "/data")
    }

    @Test func advancedReplacesAList() throws {
        let advanced = "locations:\n  - {id: only, latitude: 10, longitude: 20, timezone: UTC}\n"
        let config = try load(#"{"advanced": \#(json(advanced))}"#)
        #expect(config.locations.map(\.id) == ["only"])
    }

    @Test func advancedKeepsQuotedNumbersAsStrings() throws {
        // `port: "1883"` is text, not a number, to the agent: the merge must not unquote it.
        let line = failure(#"{"advanced": \#(json("mqtt:\n  port: \"1884\"\n"))}"#)
        #expect(line?.hasPrefix("option advanced: mqtt.port: expected an integer") == true, "\(line ?? "nil")")
        #expect(try load(#"{"advanced": \#(json("mqtt:\n  port: 1884\n"))}"#).mqtt.port == 1884)
    }

    @Test(arguments: [
        ("mqtt:\n  qos: 7\n", "option advanced: mqtt.qos: expected an integer 0–2"),
        ("pollen:\n  dayz: 3\n", "option advanced: pollen.dayz: "),
        ("colour: blue\n", "option advanced: colour: "),
        ("pollen: [days\n", "option advanced: line 2: "),
        ("- a\n- b\n", "option advanced: expected YAML keys like `pollen: {days: 3}`, got a list"),
        ("state_dir: /config\n", "option advanced: state_dir: the add-on keeps its state in /data"),
        ("mqtt:\n  host: !custom x\n", "option advanced: line 2: YAML tags (!custom) are not supported here"),
        ("a: &x 1\nb: *x\n", "option advanced: line 1: anchors"),
    ])
    func badAdvancedIsOneLine(advanced: String, expected: String) {
        let line = failure(#"{"advanced": \#(json(advanced))}"#)
        #expect(line?.hasPrefix(expected) == true, "\(line ?? "nil")")
        #expect(line?.contains("\n") == false)
    }

    /// Issue 39 item 7: `advanced` is blamed only for the keys it set.
    @Test func anAnnouncedHostsErrorIsNotBlamedOnAdvancedSettingAnotherMQTTKey() {
        let options = #"{"advanced": "mqtt:\n  client_id: mine\n"}"#
        do {
            let parsed = try AddonConfig.parseOptions(options)
            let plan = try AddonConfig.plan(
                options: parsed, broker: .init(host: "bad host", port: 1883), home: Self.home, stateDir: "/data")
            _ = try AddonEntry.check(plan, file: "/data/breeze-agent.yaml", currentYear: 2026, hostname: "addon")
            Issue.record("accepted a host with a space")
        } catch {
            #expect(error.option == "(the Supervisor's MQTT service: mqtt.host)", "\(error)")
        }
        // A key advanced did set is still its own.
        let line = failure(#"{"advanced": "mqtt:\n  client_id: mine\n  qos: 9\n"}"#)
        #expect(line?.hasPrefix("option advanced: mqtt.qos: ") == true, "\(line ?? "nil")")
    }

    /// Issue 39 item 7: every scalar that is not a number, a boolean or null is written quoted,
    /// so a multi-line plain scalar (a blank line in it is a line break) survives the file.
    @Test func aMultiLinePlainScalarFromAdvancedSurvivesTheWrittenFile() throws {
        let config = try load(#"{"advanced": "mqtt:\n  password: first\n\n    second\n  qos: 0\n"}"#)
        #expect(config.mqtt.password?.value == "first\nsecond")
        #expect(config.mqtt.qos == 0)
    }

    /// Issue 39 item 2: the file is checked against the agent's 1 MiB read limit before it is
    /// written; the error names the limit.
    @Test func aGeneratedConfigOverTheReadLimitIsRefusedBeforeWriting() throws {
        let long = String(repeating: "k", count: 1 << 20)
        let options = try AddonConfig.parseOptions(#"{"advanced": "pollen:\n  api_key: \#(long)\n"}"#)
        do {
            let plan = try AddonConfig.plan(options: options, broker: Self.broker, home: Self.home, stateDir: "/data")
            Issue.record("planned \(plan.text.utf8.count) bytes")
        } catch {
            #expect(error.option == "advanced")
            #expect(error.message.contains("over the 1 MiB the agent reads"), "\(error.message.prefix(200))")
            #expect(!error.description.contains("kkkk"))
        }
    }

    @Test func emptyAdvancedChangesNothing() throws {
        let parsed = try AddonConfig.parseOptions(##"{"advanced": "# nothing here\n"}"##)
        let plain = try AddonConfig.parseOptions("{}")
        let a = try AddonConfig.plan(options: parsed, broker: Self.broker, home: Self.home, stateDir: "/data")
        let b = try AddonConfig.plan(options: plain, broker: Self.broker, home: Self.home, stateDir: "/data")
        #expect(a.text == b.text)
    }

    @Test func homeLocationErrorsNameHomeAssistant() {
        let home = AddonConfig.Home(latitude: "1", longitude: "2", timeZone: "Not/AZone")
        let line = failure("{}", home: home)
        #expect(line?.hasPrefix("option home_location (Home Assistant's timezone): ") == true, "\(line ?? "nil")")
    }

    /// Issue 39 item 4: values the user cannot edit from the add-on never stop it.
    @Test func aLongHomeNameIsCutAtACharacterBoundaryWithOneWarning() throws {
        var home = Self.home
        home.name = String(repeating: "花", count: 100)  // 300 bytes, 3 per character
        let (usable, warnings) = AddonConfig.usableHome(home) { _ in true }
        #expect(usable.name == String(repeating: "花", count: 85))
        #expect(warnings.count == 1 && warnings[0].contains("300 bytes"), "\(warnings)")
        // A character of several scalars is kept whole or dropped whole.
        home.name = String(repeating: "a", count: 255) + "👩‍👩‍👧"
        #expect(AddonConfig.usableHome(home) { _ in true }.home.name == String(repeating: "a", count: 255))
        // The cut name goes through the agent's own checks.
        home.name = String(repeating: "花", count: 100)
        #expect(
            try load("{}", home: AddonConfig.usableHome(home) { _ in true }.home).locations[0].name.utf8.count == 255)
        // Within the bound: untouched, no warning.
        #expect(AddonConfig.usableHome(Self.home) { _ in true } == (Self.home, []))
    }

    @Test func aTimeZoneTheImageLacksIsUTCWithOneWarning() throws {
        var home = Self.home
        home.timeZone = "America/Ciudad_Juarez_2099"
        let (usable, warnings) = AddonConfig.usableHome(home) { TimeZoneResolver().isValid($0) }
        #expect(usable.timeZone == "UTC")
        #expect(warnings.count == 1 && warnings[0].contains("using UTC"), "\(warnings)")
        let config = try load(#"{"locations": [{"id": "cabin", "latitude": 1, "longitude": 2}]}"#, home: usable)
        #expect(config.locations.map(\.timezone) == ["UTC", "UTC"])
    }

    // MARK: text round trip

    @Test(arguments: [
        "Zuhause", "a: b # c", "\"quoted\" and \\ backslash", "line\nbreak", "tab\there", "null", "true", "123",
        "- dash", "[flow]", "{brace}", "ünïcödé 🌼", "\u{85}next\u{2028}sep\u{2029}\u{9b}\u{feff}", "   spaces   ",
    ])
    func namesSurviveTheWrittenYAML(name: String) throws {
        var home = Self.home
        home.name = name
        if name.contains("\n") || name.contains("\t") {
            // The loader refuses control characters in a name: the add-on says so, naming the home.
            let line = failure("{}", home: home)
            #expect(line?.hasPrefix("option home_location (Home Assistant's name): ") == true, "\(line ?? "nil")")
        } else {
            #expect(try load("{}", home: home).locations[0].name == name)
        }
    }

    @Test func secretsAreInTheFileOnly() throws {
        let plan = try AddonConfig.plan(
            options: AddonConfig.parseOptions(#"{"google_api_key": "AIza\"x"}"#), broker: Self.broker,
            home: Self.home, stateDir: "/data")
        #expect(plan.text.contains(#"api_key: "AIza\"x""#))
        #expect(plan.text.contains(#"password: "Ab1-pw""#))
        #expect(plan.text.contains("state_dir: \"/data\""))
    }

    // MARK: a TLS broker (`ssl: true`)

    /// What a provider announces with `ssl: true` (the Mosquitto add-on itself always announces
    /// `ssl: false` on 1883: home-assistant/addons mosquitto/rootfs/etc/services.d/mosquitto/discovery).
    static let tlsBroker = AddonConfig.Broker(
        host: "core-mosquitto", port: 8883, username: "addons", password: "Ab1-pw", ssl: true)

    @Test func sslGivesTLSVerifiedAgainstTheSystemCAs() throws {
        let plan = try AddonConfig.plan(
            options: AddonConfig.parseOptions(Self.defaults), broker: Self.tlsBroker, home: Self.home,
            stateDir: "/data")
        #expect(plan.text.contains("\n  port: 8883\n"), "\(plan.text)")
        #expect(plan.text.contains("\n  tls: {}\n"), "\(plan.text)")
        let config = try AddonEntry.check(plan, file: "/data/breeze-agent.yaml", currentYear: 2026, hostname: "addon")
        // No CA file: the client trusts the system's CAs; the peer and its host name are verified.
        #expect(config.mqtt.tls == MQTTTLSOptions())
        #expect(config.mqtt.port == 8883)
        #expect(config.mqtt.username == "addons")
        // Without `ssl` there is no TLS block at all.
        #expect(try load(Self.defaults).mqtt.tls == nil)
    }

    @Test func advancedAddsAPrivateCAToTheAnnouncedTLS() throws {
        // A broker certificate from the user's own CA (in Home Assistant's `ssl` folder, which
        // needs `map: [ssl]`; docs/home-assistant.md): `advanced` names it; the merge keeps the
        // Supervisor's host, port and login.
        let advanced = "mqtt:\n  tls:\n    ca_file: /ssl/ca.pem\n"
        let config = try load(#"{"advanced": \#(json(advanced))}"#, broker: Self.tlsBroker)
        #expect(config.mqtt.tls == MQTTTLSOptions(caFile: "/ssl/ca.pem"))
        #expect(config.mqtt.host == "core-mosquitto" && config.mqtt.port == 8883)
        #expect(config.mqtt.username == "addons" && config.mqtt.password?.value == "Ab1-pw")
        // A certificate for a public name reached as `core-mosquitto`: keep the chain check, drop the name check.
        let insecure = try load(#"{"advanced": \#(json("mqtt:\n  tls: {insecure: true}\n"))}"#, broker: Self.tlsBroker)
        #expect(insecure.mqtt.tls == MQTTTLSOptions(insecure: true))
    }

    // MARK: the Supervisor's answers

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test(arguments: [
        (
            #"{"result": "ok", "data": {"host": "core-mosquitto", "port": 1883, "ssl": false, "protocol": "3.1.1", "username": "addons", "password": "pw", "addon": "core_mosquitto"}}"#,
            AddonConfig.Broker(host: "core-mosquitto", port: 1883, username: "addons", password: "pw")
        ),
        // DEV's example writes the port as a string.
        (
            #"{"result": "ok", "data": {"host": "172.30.32.1", "port": "1883", "ssl": true, "protocol": "3.1.1", "username": "u", "password": "p"}}"#,
            AddonConfig.Broker(host: "172.30.32.1", port: 1883, username: "u", password: "p", ssl: true)
        ),
        (#"{"result": "ok", "data": {"host": "h", "port": 1884}}"#, AddonConfig.Broker(host: "h", port: 1884)),
    ])
    func brokerAnswer(body: String, expected: AddonConfig.Broker) throws {
        #expect(try AddonConfig.broker(status: 200, body: Self.bytes(body)).get() == expected)
    }

    @Test(arguments: [
        (400, #"{"result": "error", "message": "Service not enabled"}"#, "not-enabled"),
        (401, "401: Unauthorized", "refused-401"),
        (403, #"{"result": "error", "message": "Forbidden"}"#, "refused-403"),
        (500, "", "status-500"),
        (502, "", "status-502"),
        (400, #"{"result": "error", "message": "Something else"}"#, "status-400"),
        (200, #"{"result": "ok", "data": {"host": "h", "port": "eighteen"}}"#, "unexpected-/services/mqtt"),
        (200, #"{"result": "ok", "data": {"host": "h", "port": 70000}}"#, "unexpected-/services/mqtt"),
        (200, #"{"result": "ok", "data": {"port": 1883}}"#, "unexpected-/services/mqtt"),
        (200, #"{"host": "h", "port": 1883}"#, "unexpected-/services/mqtt"),
        (200, "<html>", "unexpected-/services/mqtt"),
        // A wrong type is an unusable answer, never coerced (issue 39, item 8).
        (
            200, #"{"result": "ok", "data": {"host": "h", "port": 1883, "password": ["pw"]}}"#,
            "unexpected-/services/mqtt"
        ),
        (200, #"{"result": "ok", "data": {"host": "h", "port": 1883, "username": true}}"#, "unexpected-/services/mqtt"),
        (200, #"{"result": "ok", "data": {"host": "h", "port": 1883, "password": 1234}}"#, "unexpected-/services/mqtt"),
        (200, #"{"result": "ok", "data": {"host": "h", "port": 1883, "ssl": "yes"}}"#, "unexpected-/services/mqtt"),
        (200, #"{"result": "ok", "data": {"host": "h", "port": +1883}}"#, "unexpected-/services/mqtt"),
        (200, #"{"result": "ok", "data": {"host": "h", "port": 0x1p5}}"#, "unexpected-/services/mqtt"),
        (200, #"{"result": "ok", "data": {"host": "h", "port": "+1883"}}"#, "unexpected-/services/mqtt"),
        (200, #"{"result": "ok", "data": {"host": 1, "port": 1883}}"#, "unexpected-/services/mqtt"),
        // Longer than MQTT carries (a 2 MB password): waited on, not written (items 2 and 3).
        (
            200,
            #"{"result": "ok", "data": {"host": "h", "port": 1883, "password": "\#(String(repeating: "p", count: 65_536))"}}"#,
            "unexpected-/services/mqtt"
        ),
    ])
    func brokerNotUsable(status: Int, body: String, key: String) {
        guard case .failure(let wait) = AddonConfig.broker(status: status, body: Self.bytes(body)) else {
            Issue.record("accepted \(body)")
            return
        }
        #expect(wait.key == key)
        #expect(!wait.message.contains("\n"))
        #expect(!wait.message.contains("ppppp"), "a password is never echoed")
    }

    @Test func homeAnswer() throws {
        let body = #"""
            {"latitude": 32.87336, "longitude": -117.22743, "elevation": 430, "unit_system": {"length": "mi",
             "accumulated_precipitation": "in", "mass": "lb", "pressure": "psi", "temperature": "°F",
             "volume": "gal", "wind_speed": "mph"}, "location_name": "Home", "time_zone": "America/Los_Angeles",
             "components": ["hassio"], "config_dir": "/config", "version": "2026.11.3", "state": "RUNNING"}
            """#
        let home = try AddonConfig.home(status: 200, body: Self.bytes(body)).get()
        #expect(
            home
                == AddonConfig.Home(
                    latitude: "32.87336", longitude: "-117.22743", timeZone: "America/Los_Angeles", name: "Home",
                    temperatureUnit: "°F"))
    }

    @Test(arguments: [
        (401, "", "refused-401"), (502, "", "status-502"),
        (200, #"{"longitude": 1}"#, "unexpected-/core/api/config"),
        (200, #"{"latitude": 91, "longitude": 1}"#, "unexpected-/core/api/config"),
        (200, #"{"latitude": "52", "longitude": 1}"#, "unexpected-/core/api/config"),
        (200, #"{"latitude": 0x1p5, "longitude": 1}"#, "unexpected-/core/api/config"),
        (200, #"{"latitude": 1, "longitude": 1, "location_name": true}"#, "unexpected-/core/api/config"),
        (200, #"{"latitude": 1, "longitude": 1, "time_zone": ["UTC"]}"#, "unexpected-/core/api/config"),
    ])
    func homeNotUsable(status: Int, body: String, key: String) {
        guard case .failure(let wait) = AddonConfig.home(status: status, body: Self.bytes(body)) else {
            Issue.record("accepted \(body)")
            return
        }
        #expect(wait.key == key)
    }

    @Test func addonIsACommand() throws {
        #expect(try Invocation.parse(["addon"]).command == .addon)
        #expect(Invocation.helpText.contains("addon "))
    }

    @Test func retryDelaysAreBoundedAndTheTestOverrideIsRanged() {
        #expect(AddonEntry.retryDelays([:]) == (.seconds(1), .seconds(30)))
        #expect(
            AddonEntry.retryDelays(["BREEZE_TEST_SUPERVISOR_RETRY_MS": "50"]) == (.milliseconds(50), .milliseconds(200))
        )
        #expect(AddonEntry.retryDelays(["BREEZE_TEST_SUPERVISOR_RETRY_MS": "5"]) == (.seconds(1), .seconds(30)))
        #expect(TestHooks.variables.contains("BREEZE_TEST_SUPERVISOR_RETRY_MS"))
    }

    @Test func waitsAreTheSameStateByKindNotByText() {
        let a = AddonConfig.Wait(key: "no-answer", message: "refused")
        let b = AddonConfig.Wait(key: "no-answer", message: "timed out")
        #expect(a == b)
        #expect(a != AddonConfig.Wait(key: "refused-401", message: "refused"))
    }

    /// `text` as a JSON string literal.
    func json(_ text: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: [text]), as: UTF8.self).dropFirst().dropLast()
            .description
    }
}
