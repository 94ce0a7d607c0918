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

import BreezeCore
import BreezeYAML

/// Reads, validates and completes the configuration file (docs/reference.md, Configuration).
///
/// Everything the agent would otherwise discover late is checked here, before anything is
/// published: types and ranges, unknown keys, topic-level safety, secret files, time zones.
/// Environment overrides (`BREEZE_GOOGLE_API_KEY`, `BREEZE_MQTT_HOST`, `BREEZE_MQTT_PORT`,
/// `BREEZE_MQTT_USERNAME`, `BREEZE_MQTT_PASSWORD`) win over the file; an empty variable counts
/// as unset. Relative paths (`state_dir`, `*_file`) are relative to the working directory.
public enum ConfigLoader {
    /// The largest configuration file read (docs/operations.md); the add-on checks the file it
    /// generates against it before writing.
    public static let maximumFileBytes = 1 << 20
    /// The longest MQTT user name, password or client id: a two-byte length prefix.
    public static let mqttStringLimit = 65_535

    /// Loads the file at `path`. `currentYear` bounds `climate.years`; `hostname` makes the default client id.
    public static func load(
        path: String, environment: [String: String], currentYear: Int, hostname: String,
        timeZones: TimeZoneResolver = TimeZoneResolver()
    ) throws(ConfigError) -> AgentConfig {
        let bytes: [UInt8]
        do {
            bytes = try PosixFile.read(path, limit: maximumFileBytes)
        } catch {
            throw ConfigError(
                file: path, line: nil, keyPath: "", message: "cannot read the configuration file: \(error.reason)")
        }
        return try load(
            text: String(decoding: bytes, as: UTF8.self), file: path, environment: environment,
            currentYear: currentYear, hostname: hostname, timeZones: timeZones)
    }

    /// Same as `load(path:…)` for text already in memory; `file` is used in messages.
    public static func load(
        text: String, file: String, environment: [String: String], currentYear: Int, hostname: String,
        timeZones: TimeZoneResolver = TimeZoneResolver()
    ) throws(ConfigError) -> AgentConfig {
        let root: YAMLNode?
        do {
            root = try YAML.load(text, file: file)
        } catch {
            throw ConfigError(file: file, line: error.line, keyPath: "", message: error.message)
        }
        var parser = ConfigParser(
            file: file, environment: environment.filter { !$0.value.isEmpty }, currentYear: currentYear,
            hostname: hostname, timeZones: timeZones)
        return try parser.parse(root)
    }
}

/// Default MQTT client id: `breeze-agent-<hostname>`.
func defaultClientID(hostname: String) -> String {
    hostname.isEmpty ? "breeze-agent" : "breeze-agent-\(hostname)"
}

/// True for `[a-z0-9_-]+`.
func isValidLocationID(_ id: String) -> Bool {
    !id.isEmpty
        && id.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5f || $0 == 0x2d }
}

private struct ConfigParser {
    let file: String
    let environment: [String: String]
    let currentYear: Int
    let hostname: String
    let timeZones: TimeZoneResolver
    /// Looked up once, only when a location has no `timezone`.
    var systemZone: TimeZoneResolver.SystemZone?
    /// Locations that got UTC because neither they nor the system name a zone, with why.
    var utcFallbacks: [(id: String, reason: String)] = []

    init(file: String, environment: [String: String], currentYear: Int, hostname: String, timeZones: TimeZoneResolver) {
        self.file = file
        self.environment = environment
        self.currentYear = currentYear
        self.hostname = hostname
        self.timeZones = timeZones
    }

    mutating func parse(_ root: YAMLNode?) throws(ConfigError) -> AgentConfig {
        let top = try MappingReader(
            root, path: "",
            keys: [
                "mqtt", "homeassistant", "locations", "pollen", "climate", "air", "profiles", "endpoints", "state_dir",
                "log_level", "outputs", "shard", "http", "images", "air_out", "language",
            ],
            file: file)
        let mqtt = try parseMQTT(top.rawNode("mqtt"))
        let homeAssistant = try parseHomeAssistant(top.rawNode("homeassistant"))
        let locations = try parseLocations(top)
        let (language, languageTag) = try parseLanguage(top)
        var pollen = try parsePollen(top.rawNode("pollen"), defaultLanguage: languageTag)
        pollen.names = language
        if pollen.dwd { pollen.berlin = (try? timeZones.load(DWDPollen.zoneName)) ?? .utc }
        let climate = try parseClimate(top.rawNode("climate"))
        let endpoints = try parseEndpoints(
            top.rawNode("endpoints"),
            sendsGoogleKey: pollen.enabled && pollen.apiKey != nil && pollen.source != .openMeteo)
        let stateDir = try top.text("state_dir", expected: "a directory path") ?? "/var/lib/breeze-agent"
        let logLevel = try top.choice("log_level", LogLevel.allCases.map(\.rawValue)).flatMap(LogLevel.init) ?? .info
        var config = AgentConfig(
            mqtt: mqtt, homeAssistant: homeAssistant, locations: locations, pollen: pollen, climate: climate,
            endpoints: endpoints, stateDir: stateDir, logLevel: logLevel, sourceFile: file)
        config.language = language
        config.languageTag = languageTag
        config.air = try AirConfigParser.parseAir(top.rawNode("air"), file: file)
        config.profiles = try AirConfigParser.parseProfiles(
            top.rawNode("profiles"), file: file, line: top.line(of: "profiles"))
        config.images = try ImagesParser(file: file, locations: locations, climateEnabled: climate.enabled).parse(
            top.rawNode("images"))
        (config.outputs, config.openEPaperLink) = try OutputsParser(
            file: file, locations: locations, topicPrefix: mqtt.topicPrefix, discoveryPrefix: homeAssistant.prefix,
            climateEnabled: climate.enabled, profiles: config.profiles.map(\.id), images: config.images
        ).parseAll(top.rawNode("outputs"))
        try ShardConfig.apply(top, to: &config)
        try AirOutConfig.apply(top, to: &config)
        try HTTPConfigParser.apply(top, to: &config)
        try FleetConfig.apply(top, to: &config)
        for index in config.locations.indices {
            let location = config.locations[index]
            config.locations[index].unit =
                climate.unit ?? FahrenheitZones.unit(forZone: timeZones.canonicalName(location.timezone))
        }
        if let reason = utcFallbacks.first?.reason {
            let ids = utcFallbacks.map(\.id).joined(separator: ", ")
            config.notices.append(
                "time zone: no timezone for \(ids) and none on this system (\(reason)): using UTC; set TZ "
                    + "(e.g. TZ=Europe/Berlin) or locations[].timezone")
        }
        return config
    }

    // MARK: mqtt

    private func parseMQTT(_ node: YAMLNode?) throws(ConfigError) -> MQTTSettings {
        let r = try MappingReader(
            node, path: "mqtt",
            keys: [
                "host", "port", "username", "password", "password_file", "client_id", "topic_prefix", "qos",
                "keepalive", "protocol", "tls", "max_packet_size",
            ], file: file)
        var tls: MQTTTLSOptions?
        if r.isPresent("tls") {
            let t = try MappingReader(
                r.rawNode("tls"), path: "mqtt.tls", keys: ["ca_file", "cert_file", "key_file", "insecure"], file: file)
            tls = MQTTTLSOptions(
                caFile: try t.text("ca_file", expected: "a file path"),
                certFile: try t.text("cert_file", expected: "a file path"),
                keyFile: try t.text("key_file", expected: "a file path"),
                insecure: try t.bool("insecure") ?? false)
            if (tls?.certFile == nil) != (tls?.keyFile == nil) {
                let given = tls?.certFile == nil ? "key_file" : "cert_file"
                throw t.fail(given, "cert_file and key_file go together (a client certificate needs its key)")
            }
        }
        var host = try r.text("host", expected: "a host name or address") ?? "localhost"
        if host.contains(" ") {
            throw r.fail("host", "expected a host name or address, got \(doubleQuoted(host))")
        }
        var port = try r.int("port", in: 1...65535) ?? (tls == nil ? 1883 : 8883)
        var username = try r.text("username")
        var password = try secret(r, inline: "password", file: "password_file")
        let clientID = try r.text("client_id", expected: "a non-empty client id") ?? defaultClientID(hostname: hostname)
        let prefix = try r.text("topic_prefix", expected: "a topic prefix like breeze or home/breeze") ?? "breeze"
        guard Topic.isPlain(prefix) else {
            throw r.fail(
                "topic_prefix",
                "expected a topic prefix like breeze or home/breeze (no #, no +, no empty levels, no leading or trailing /, not starting with $), got \(doubleQuoted(prefix))"
            )
        }
        let qos = try r.int("qos", in: 0...2) ?? 1
        let keepalive = try r.int("keepalive", in: 5...65535) ?? 60
        var version = MQTTProtocolVersion.v5
        if let value = r.node("protocol") {
            // `protocol: 5` arrives as a plain scalar "5", the same text as `protocol: "5"`.
            guard let text = value.scalarText, let parsed = MQTTProtocolVersion(text) else {
                throw r.fail("protocol", "expected \"5\" or \"3.1.1\", got \(MappingReader.describe(value))", at: value)
            }
            version = parsed
        }
        let maxPacketSize = try r.int("max_packet_size", in: MQTTProtocolVersion.packetSizeRange)

        if let value = environment["BREEZE_MQTT_HOST"] { host = value }
        if let value = environment["BREEZE_MQTT_PORT"] {
            guard let number = MappingReader.parseInt(value), (1...65535).contains(number) else {
                throw ConfigError(
                    file: nil, line: nil, keyPath: "BREEZE_MQTT_PORT (environment)",
                    message: "expected an integer 1–65535, got \(doubleQuoted(value))")
            }
            port = number
        }
        if let value = environment["BREEZE_MQTT_USERNAME"] { username = value }
        if let value = environment["BREEZE_MQTT_PASSWORD"] {
            password = Secret(value, origin: "environment BREEZE_MQTT_PASSWORD")
        }
        // MQTT writes each of these with a two-byte length (MQTT 5 §1.5.4 and §1.5.6, 3.1.1
        // §1.5.3): a longer one cannot be sent, and the broker's silence would be misread as an
        // MQTT 3.1.1-only broker. Refused here, where the key can be named.
        let fields: [(key: String, variable: String?, bytes: Int?)] = [
            ("username", "BREEZE_MQTT_USERNAME", username?.utf8.count),
            ("password", "BREEZE_MQTT_PASSWORD", password?.value.utf8.count),
            ("client_id", nil, clientID.utf8.count),
        ]
        for field in fields {
            guard let bytes = field.bytes, bytes > ConfigLoader.mqttStringLimit else { continue }
            let message = "is \(bytes) bytes; MQTT carries at most \(ConfigLoader.mqttStringLimit) bytes here"
            if let variable = field.variable, environment[variable] != nil {
                throw ConfigError(file: nil, line: nil, keyPath: "\(variable) (environment)", message: message)
            }
            let key = field.key == "password" && r.isPresent("password_file") ? "password_file" : field.key
            throw r.fail(key, message)
        }
        return MQTTSettings(
            host: host, port: port, username: username, password: password, clientID: clientID, topicPrefix: prefix,
            qos: qos, keepalive: keepalive, protocolVersion: version, tls: tls,
            protocolExplicit: r.node("protocol") != nil, maxPacketSize: maxPacketSize)
    }

    /// A secret given inline or as a file, never both.
    private func secret(_ r: MappingReader, inline: String, file fileKey: String) throws(ConfigError) -> Secret? {
        let value = try r.string(inline, expected: "a string")
        let path = try r.text(fileKey, expected: "a file path")
        if value != nil, path != nil {
            let first = min(r.line(of: inline), r.line(of: fileKey))
            let second = max(r.line(of: inline), r.line(of: fileKey))
            throw ConfigError(
                file: file, line: second, keyPath: r.keyPath(inline),
                message:
                    "give either \(r.keyPath(inline)) or \(r.keyPath(fileKey)), not both (lines \(first) and \(second))"
            )
        }
        if let value {
            guard !value.isEmpty else { throw r.fail(inline, "expected a non-empty string") }
            return Secret(value, origin: "inline")
        }
        guard let path else { return nil }
        let bytes: [UInt8]
        do {
            bytes = try PosixFile.read(path, limit: 64 * 1024)
        } catch {
            throw r.fail(fileKey, "cannot read \(doubleQuoted(path)): \(error.reason)")
        }
        var text = String(decoding: bytes, as: UTF8.self)
        while text.hasSuffix("\n") || text.hasSuffix("\r") || text.hasSuffix("\r\n") { text.removeLast() }
        guard !text.isEmpty else { throw r.fail(fileKey, "the file \(doubleQuoted(path)) is empty") }
        return Secret(text, origin: "file \(path)", file: path)
    }

    // MARK: homeassistant

    private func parseHomeAssistant(_ node: YAMLNode?) throws(ConfigError) -> HomeAssistantSettings {
        let r = try MappingReader(node, path: "homeassistant", keys: ["discovery", "prefix"], file: file)
        let prefix = try r.text("prefix", expected: "a topic prefix like homeassistant") ?? "homeassistant"
        guard Topic.isPlain(prefix) else {
            throw r.fail(
                "prefix",
                "expected a topic prefix like homeassistant (no #, no +, no empty levels, no leading or trailing /), got \(doubleQuoted(prefix))"
            )
        }
        return HomeAssistantSettings(discovery: try r.bool("discovery") ?? true, prefix: prefix)
    }

    // MARK: locations

    private mutating func parseLocations(_ top: MappingReader) throws(ConfigError) -> [LocationConfig] {
        let expected = "a list of one or more locations, each with id, latitude and longitude"
        guard let node = top.node("locations") else { throw top.missing("locations", expected: expected) }
        guard case .sequence(let items) = node.kind, !items.isEmpty else {
            throw top.fail("locations", "expected \(expected), got \(MappingReader.describe(node))", at: node)
        }
        var locations: [LocationConfig] = []
        var idLines: [String: Int] = [:]
        for (index, item) in items.enumerated() {
            let path = "locations[\(index)]"
            guard case .mapping = item.kind else {
                throw ConfigError(
                    file: file, line: item.line, keyPath: path,
                    message:
                        "expected a mapping with id, name, latitude, longitude, timezone, got \(MappingReader.describe(item))"
                )
            }
            let r = try MappingReader(
                item, path: path, keys: ["id", "name", "latitude", "longitude", "timezone", "dwd_region"], file: file)
            let idExpected = "an id of lower-case letters, digits, _ and - (it becomes an MQTT topic level)"
            guard let id = try r.string("id", expected: idExpected) else { throw r.missing("id", expected: idExpected) }
            guard isValidLocationID(id) else {
                throw r.fail("id", "expected \(idExpected), got \(doubleQuoted(id))")
            }
            if let earlier = idLines[id] {
                throw r.fail("id", "duplicate location id \"\(id)\" (first used at line \(earlier))")
            }
            idLines[id] = r.line(of: "id")
            let latExpected = "a latitude in degrees, −90 to 90"
            let lonExpected = "a longitude in degrees, −180 to 180"
            guard let latitude = try r.double("latitude", in: -90...90, expected: latExpected) else {
                throw r.missing("latitude", expected: latExpected)
            }
            guard let longitude = try r.double("longitude", in: -180...180, expected: lonExpected) else {
                throw r.missing("longitude", expected: lonExpected)
            }
            let name = try r.name("name") ?? id
            let dwdRegion = try parseDWDRegion(r, latitude: latitude, longitude: longitude)
            let timezone: String
            let zone: ZoneRules
            if let given = try r.text("timezone", expected: "an IANA time zone name like Europe/Berlin") {
                do {
                    zone = try timeZones.load(given)
                } catch {
                    throw r.fail(
                        "timezone",
                        "expected an IANA time zone name like Europe/Berlin (a file under \(timeZones.zoneInfoRoot)), got \(doubleQuoted(given)): \(error.problem)"
                    )
                }
                timezone = given
            } else {
                let system = systemZone ?? timeZones.systemZone(environment: environment)
                systemZone = system
                switch system {
                case .found(let name, let rules, _):
                    timezone = name
                    zone = rules
                case .unusableTZ(let reason):
                    throw r.fail(
                        "timezone",
                        "no timezone given and the system's time zone has no IANA name (\(reason)); set timezone to a name like Europe/Berlin"
                    )
                case .notFound(let reason):
                    // A container image has no zone of its own: UTC, said once, rather than a
                    // refusal to start (docs/installing.md, "Time zone").
                    timezone = "UTC"
                    zone = (try? timeZones.load("UTC")) ?? .utc
                    utcFallbacks.append((id, reason))
                }
            }
            var location = LocationConfig(
                id: id, name: name, latitude: latitude, longitude: longitude, timezone: timezone, zone: zone)
            (location.dwdRegion, location.dwdRegionGiven) = dwdRegion
            locations.append(location)
        }
        return locations
    }

    /// `dwd_region` (docs/reference.md, "DWD"): one of the document's 27 keys (a partregion id,
    /// or 20 and 50 for the two regions without partregions); else the region nearest to the
    /// coordinates inside Germany, nil outside.
    private func parseDWDRegion(_ r: MappingReader, latitude: Double, longitude: Double) throws(ConfigError) -> (
        Int?, Bool
    ) {
        guard r.node("dwd_region") != nil else {
            return (DWDRegions.nearest(latitude: latitude, longitude: longitude)?.key, false)
        }
        let keys = DWDRegions.regions.map(\.key)
        let expected =
            "a DWD region: one of \(keys.map(String.init).joined(separator: ", ")) (20 Mecklenburg-Vorpommern, 50 Brandenburg und Berlin)"
        guard let key = try? r.int("dwd_region", in: 0...999), DWDRegions.region(key: key) != nil else {
            throw r.fail("dwd_region", "expected \(expected), got \(MappingReader.describe(r.node("dwd_region")!))")
        }
        return (key, true)
    }

    // MARK: language

    /// `language` (issue 51): a BCP 47 tag whose language has a catalogue (`de`, `de-AT`,
    /// `pt-BR`); `en` when not set. An unknown one names the languages there are.
    private func parseLanguage(_ top: MappingReader) throws(ConfigError) -> (Language, String) {
        guard let tag = try top.text("language", expected: "a language code like en or de") else {
            return (.english, "en")
        }
        guard Self.isLanguageTag(tag), let language = Language(tag: tag) else {
            throw top.fail(
                "language",
                "expected one of \(Language.supportedList) (a BCP 47 tag such as de or pt-BR), got \(doubleQuoted(tag))"
            )
        }
        return (language, tag)
    }

    /// Letters, digits and `-`, at most 35 characters (BCP 47's longest useful tag).
    static func isLanguageTag(_ text: String) -> Bool {
        text.count <= 35
            && text.utf8.allSatisfy {
                ($0 >= 0x41 && $0 <= 0x5a) || ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2d
            }
    }

    // MARK: pollen

    /// `pollen.sources` (an ordered list of `google`, `open-meteo`, `dwd`) or its one-source
    /// shorthand `pollen.source` (`auto`, the default: Google with a key, else Open-Meteo, plus
    /// the DWD where a location has a DWD region; docs/reference.md, "DWD").
    private func parseSources(_ r: MappingReader, into settings: inout PollenSettings) throws(ConfigError) {
        let names = ["google", "open-meteo", "dwd"]
        if r.node("sources") != nil, r.node("source") != nil {
            throw r.fail("sources", "set pollen.sources or pollen.source, not both (source: X is sources: [X])")
        }
        guard let node = r.node("sources") else {
            let choice = try r.choice("source", ["auto"] + names) ?? "auto"
            settings.source = PollenSourceChoice(rawValue: choice) ?? .auto
            settings.dwd = choice == "auto" || choice == "dwd"
            return
        }
        let expected = "a list of one or more of \"google\", \"open-meteo\", \"dwd\" (in order)"
        guard case .sequence(let items) = node.kind, !items.isEmpty else {
            throw r.fail("sources", "expected \(expected), got \(MappingReader.describe(node))", at: node)
        }
        var list: [String] = []
        for item in items {
            guard let text = item.scalarText, names.contains(text) else {
                throw r.fail("sources", "expected \(expected), got \(MappingReader.describe(item))", at: item)
            }
            guard !list.contains(text) else {
                throw r.fail("sources", "\(doubleQuoted(text)) is listed twice", at: item)
            }
            list.append(text)
        }
        let daily = list.filter { $0 != "dwd" }
        guard daily.count <= 1 else {
            throw r.fail(
                "sources", "google and open-meteo together are not supported: list one of them (and dwd)", at: node)
        }
        settings.source = daily.first.flatMap(PollenSourceChoice.init) ?? .dwd
        settings.dwd = list.contains("dwd")
        settings.dwdFirst = list.first == "dwd" && !daily.isEmpty
    }

    private func parsePollen(_ node: YAMLNode?, defaultLanguage: String) throws(ConfigError) -> PollenSettings {
        let r = try MappingReader(
            node, path: "pollen",
            keys: [
                "enabled", "source", "sources", "api_key", "api_key_file", "days", "language", "interval",
                "refresh_cooldown", "max_calls_per_day", "colors",
            ], file: file)
        var settings = PollenSettings(language: defaultLanguage)
        settings.enabled = try r.bool("enabled") ?? true
        try parseSources(r, into: &settings)
        settings.apiKey = try secret(r, inline: "api_key", file: "api_key_file")
        if let value = environment["BREEZE_GOOGLE_API_KEY"] {
            settings.apiKey = Secret(value, origin: "environment BREEZE_GOOGLE_API_KEY")
        }
        if settings.enabled, settings.source == .google, settings.apiKey == nil {
            throw r.fail(
                "source",
                "source google needs an API key: set pollen.api_key, pollen.api_key_file or BREEZE_GOOGLE_API_KEY (or use auto)"
            )
        }
        settings.days = try r.int("days", in: 1...5) ?? 5
        if let language = try r.text("language", expected: "a language code like en or de") {
            guard Self.isLanguageTag(language) else {
                throw r.fail(
                    "language", "expected a language code like en, de or pt-BR, got \(doubleQuoted(language))")
            }
            settings.language = language
        }
        settings.interval =
            try r.duration("interval", atLeast: .seconds(15 * 60), minimumText: "15m") ?? .seconds(6 * 3600)
        settings.refreshCooldown =
            try r.duration(
                "refresh_cooldown", atLeast: .seconds(60), minimumText: "1m", atMost: MappingReader.longestCooldown)
            ?? .seconds(15 * 60)
        settings.maxCallsPerDay = try r.int("max_calls_per_day", in: 1...10_000) ?? 24
        settings.colors = try parseColors(r.rawNode("colors"))
        return settings
    }

    private func parseColors(_ node: YAMLNode?) throws(ConfigError) -> PollenPalette {
        let r = try MappingReader(
            node, path: "pollen.colors", keys: ["none", "low", "moderate", "high", "very_high", "unknown"], file: file)
        func color(_ key: String) throws(ConfigError) -> HexColor? {
            guard r.isPresent(key) else { return nil }
            guard let value = r.node(key) else {
                // `low: #ff0000` unquoted: YAML reads `#` as a comment and the value as null.
                throw r.fail(key, "expected a color \"#rrggbb\" in quotes (an unquoted # starts a YAML comment)")
            }
            guard let text = value.scalarText, text.utf8.count == 7, text.hasPrefix("#"),
                text.utf8.dropFirst().allSatisfy({
                    ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x66)
                }),
                let parsed = HexColor(hex: text)
            else { throw r.fail(key, "expected a color \"#rrggbb\", got \(MappingReader.describe(value))", at: value) }
            return parsed
        }
        let standard = PollenPalette.standard
        return PollenPalette(
            none: try color("none") ?? standard.none, low: try color("low") ?? standard.low,
            moderate: try color("moderate") ?? standard.moderate, high: try color("high") ?? standard.high,
            veryHigh: try color("very_high") ?? standard.veryHigh, unknown: try color("unknown") ?? standard.unknown)
    }

    // MARK: climate

    private func parseClimate(_ node: YAMLNode?) throws(ConfigError) -> ClimateSettings {
        let r = try MappingReader(
            node, path: "climate", keys: ["enabled", "unit", "years", "refresh_cooldown", "stripes"], file: file)
        var settings = ClimateSettings()
        settings.enabled = try r.bool("enabled") ?? true
        settings.unit = try r.choice("unit", ["auto", "fahrenheit", "celsius"]).flatMap {
            TemperatureUnit(rawValue: $0)
        }
        let yearExpected = "a year from 1940 to \(currentYear - 1) (before the current year)"
        if let node = r.node("years") {
            guard case .sequence(let items) = node.kind, !items.isEmpty else {
                throw r.fail(
                    "years",
                    "expected a list of one or more years like [1980, 2000], got \(MappingReader.describe(node))",
                    at: node)
            }
            var years: [Int] = []
            for (index, item) in items.enumerated() {
                guard case .scalar(let text, .plain) = item.kind, let year = MappingReader.parseInt(text),
                    year >= 1940, year < currentYear
                else {
                    throw ConfigError(
                        file: file, line: item.line, keyPath: "climate.years[\(index)]",
                        message: "expected \(yearExpected), got \(MappingReader.describe(item))")
                }
                years.append(year)
            }
            settings.years = Array(Set(years)).sorted()
        } else {
            // The defaults are fixed past years; drop any a wrong clock would make invalid.
            settings.years = settings.years.filter { $0 < currentYear }
        }
        settings.refreshCooldown =
            try r.duration(
                "refresh_cooldown", atLeast: .seconds(60), minimumText: "1m", atMost: MappingReader.longestCooldown)
            ?? .seconds(3600)
        // docs/reference.md, Warming stripes: the warming stripes start here; the archive begins in 1940 and the last
        // stripe is last year, so at least one complete year must lie in between.
        let stripes = try MappingReader(
            r.rawNode("stripes"), path: "climate.stripes", keys: ["first_year"], file: file)
        settings.stripesFirstYear =
            try stripes.int("first_year", in: StripesRequest.earliestYear...(currentYear - 1))
            ?? min(StripesRequest.defaultFirstYear, currentYear - 1)
        settings.stripesLastYear = currentYear - 1
        return settings
    }

    // MARK: endpoints

    /// - Parameter sendsGoogleKey: the key goes to `endpoints.pollen`, which must then not be
    ///   plain `http://` off the loopback interface (docs/operations.md, Limits).
    private func parseEndpoints(_ node: YAMLNode?, sendsGoogleKey: Bool) throws(ConfigError) -> Endpoints {
        let r = try MappingReader(
            node, path: "endpoints", keys: EndpointsKeys.all, file: file)
        func url(_ key: String, _ fallback: String) throws(ConfigError) -> String {
            guard var text = try r.text(key, expected: "an http:// or https:// base URL") else { return fallback }
            let rest =
                text.hasPrefix("https://") ? text.dropFirst(8) : text.hasPrefix("http://") ? text.dropFirst(7) : nil
            guard let rest, !rest.isEmpty, !rest.hasPrefix("/"), !text.contains(" "), !text.contains("?"),
                !text.contains("#")
            else {
                throw r.fail(
                    key, "expected an http:// or https:// base URL without query, got \(doubleQuoted(text))")
            }
            while text.hasSuffix("/") { text.removeLast() }
            return text
        }
        let defaults = Endpoints()
        let pollen = try url("pollen", defaults.pollen)
        if sendsGoogleKey, EndpointURL.isPlainHTTPOffLoopback(pollen) {
            throw r.fail(
                "pollen",
                "the Google API key would cross the network unencrypted to \(EndpointURL.host(of: pollen)); use https:// (plain http:// only to a loopback host such as 127.0.0.1)"
            )
        }
        var endpoints = Endpoints(
            pollen: pollen, airQuality: try url("air_quality", defaults.airQuality),
            climateArchive: try url("climate_archive", defaults.climateArchive),
            climateForecast: try url("climate_forecast", defaults.climateForecast))
        endpoints.dwd = try url("dwd", defaults.dwd)
        return endpoints
    }
}
