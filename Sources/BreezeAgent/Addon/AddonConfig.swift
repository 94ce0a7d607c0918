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
import BreezeDaemon
import BreezeYAML

/// The add-on's pure core (docs/home-assistant.md, Add-on): `/data/options.json` and the Supervisor's two answers in,
/// the agent's configuration file (docs/reference.md, Configuration) out. No I/O here: ``AddonEntry`` reads and writes.
///
/// The options.json text and the Supervisor's JSON bodies are read with the YAML loader (JSON is
/// YAML's flow style), so there is one parser and its limits (docs/operations.md) apply.
enum AddonConfig {
    /// Id of Home Assistant's home location.
    static let homeID = "home"

    /// The add-on's options, checked; what only the agent can judge is refused here with the
    /// option's name as the add-on's Configuration tab shows it.
    struct Options: Sendable {
        var homeLocation = true
        /// Each a mapping of the option's fields (nulls dropped), in the user's order.
        var locations: [[(String, AddonNode)]] = []
        var googleAPIKey: String?
        var unit = "auto"
        var pollenSource = "auto"
        var air = false
        /// `air_out.window` (1…6 hours) and `air_out.hours` (`HH-HH`); nil: the agent's defaults.
        var airOutWindow: Int?
        var airOutHours: String?
        /// The agent's `language` (and so Google's texts, `pollen.language`); nil: Home
        /// Assistant's language. One the agent has no catalogue for goes to Google alone.
        var language: String?
        var profiles: [[(String, AddonNode)]] = []
        var images: [AddonNode] = []
        var outputs: [AddonNode] = []
        var logLevel = "info"
        /// `forget`: clear the broker (`breeze-agent forget`) instead of running, before the
        /// add-on is uninstalled (DOCS.md, "Removing").
        var forget = false
        /// The `advanced` text parsed: the top-level mapping's pairs.
        var advanced: [(String, AddonNode)] = []
        var locationCount: Int { locations.count }
    }

    /// `GET /services/mqtt`'s `data` (docs/home-assistant.md, "Runtime environment").
    struct Broker: Sendable, Equatable {
        var host: String
        var port: Int
        var username: String?
        var password: String?
        var ssl: Bool
        init(host: String, port: Int, username: String? = nil, password: String? = nil, ssl: Bool = false) {
            self.host = host
            self.port = port
            self.username = username
            self.password = password
            self.ssl = ssl
        }
    }

    /// What of `GET /core/api/config` the add-on uses; coordinates kept as the JSON's number text.
    struct Home: Sendable, Equatable {
        var latitude: String
        var longitude: String
        var timeZone: String?
        var name: String?
        /// `unit_system.temperature`: `°C` or `°F`.
        var temperatureUnit: String?
        /// `language`: the language Home Assistant is set to (BCP 47, e.g. `de`).
        var language: String?
        init(
            latitude: String, longitude: String, timeZone: String? = nil, name: String? = nil,
            temperatureUnit: String? = nil, language: String? = nil
        ) {
            self.latitude = latitude
            self.longitude = longitude
            self.timeZone = timeZone
            self.name = name
            self.temperatureUnit = temperatureUnit
            self.language = language
        }
    }

    /// A bad option: one line, `option <name>: <what is wrong>`.
    struct OptionError: Error, Sendable, Equatable, CustomStringConvertible {
        var option: String
        var message: String
        init(_ option: String, _ message: String) {
            self.option = option
            self.message = message
        }
        var description: String { "option \(option): \(message)" }
    }

    // MARK: options.json

    /// Reads options.json's text (empty text: no options at all).
    static func parseOptions(_ text: String) throws(OptionError) -> Options {
        let root: YAMLNode?
        do {
            root = try YAML.load(text, file: "options.json")
        } catch {
            throw OptionError("(options.json)", "not valid JSON at line \(error.line): \(error.message)")
        }
        var options = Options()
        guard let root, !root.isNull else { return options }
        guard case .mapping(let pairs) = root.kind else {
            throw OptionError("(options.json)", "expected an object of options, got \(root.typeDescription)")
        }
        for pair in pairs {
            guard let key = pair.key.scalarText else { continue }
            let value = pair.value
            if value.isNull { continue }
            switch key {
            case "home_location": options.homeLocation = try bool(value, key)
            case "air": options.air = try bool(value, key)
            case "forget": options.forget = try bool(value, key)
            case "google_api_key":
                // Never echoed: it is a password field.
                guard let text = value.scalarText, !isNumberOrBool(value) else {
                    throw OptionError(key, "expected the key as text")
                }
                options.googleAPIKey = text.isEmpty ? nil : text
            case "unit": options.unit = try choice(value, key, ["auto", "celsius", "fahrenheit"])
            case "pollen_source":
                options.pollenSource = try choice(value, key, ["auto", "google", "open-meteo", "dwd"])
            case "log_level": options.logLevel = try choice(value, key, ["debug", "info", "warning", "error"])
            case "air_out_window":
                guard let text = value.scalarText, let hours = Int(text), (1...6).contains(hours) else {
                    throw OptionError(key, "expected a whole number of hours from 1 to 6")
                }
                options.airOutWindow = hours
            case "air_out_hours":
                guard let text = value.scalarText, !text.isEmpty else { throw OptionError(key, "expected HH-HH") }
                options.airOutHours = text
            case "language":
                guard let text = value.scalarText, !isNumberOrBool(value) else {
                    throw OptionError(key, "expected a language code like de or pt-BR")
                }
                options.language = text.isEmpty ? nil : text
            case "locations": options.locations = try locations(value)
            case "profiles": options.profiles = try profiles(value)
            case "images": options.images = try nodes(value, key)
            case "outputs": options.outputs = try nodes(value, key)
            case "advanced": options.advanced = try advanced(value)
            default: continue  // the Supervisor drops keys its schema lacks; a newer option is ignored here too
            }
        }
        return options
    }

    private static func isNumberOrBool(_ node: YAMLNode) -> Bool {
        guard case .scalar(let text, .plain) = node.kind else { return false }
        return Double(text) != nil || text == "true" || text == "false"
    }

    private static func bool(_ node: YAMLNode, _ option: String) throws(OptionError) -> Bool {
        if case .scalar(let text, .plain) = node.kind, text == "true" || text == "false" { return text == "true" }
        throw OptionError(option, "expected true or false, got \(shown(node))")
    }

    private static func choice(_ node: YAMLNode, _ option: String, _ words: [String]) throws(OptionError) -> String {
        guard let text = node.scalarText, words.contains(text) else {
            let list = words.dropLast().joined(separator: ", ") + " or " + words[words.count - 1]
            throw OptionError(option, "expected \(list), got \(shown(node))")
        }
        return text
    }

    /// A JSON value for a message: a scalar in quotes (all of options.json's strings are quoted).
    private static func shown(_ node: YAMLNode) -> String {
        node.scalarText.map { doubleQuoted($0) } ?? node.typeDescription
    }

    private static func list(_ node: YAMLNode, _ option: String) throws(OptionError) -> [YAMLNode] {
        guard case .sequence(let items) = node.kind else {
            throw OptionError(option, "expected a list, got \(node.typeDescription)")
        }
        return items
    }

    private static func nodes(_ node: YAMLNode, _ option: String) throws(OptionError) -> [AddonNode] {
        var result: [AddonNode] = []
        for (index, item) in try list(node, option).enumerated() {
            result.append(.map(try fields(item, "\(option)[\(index)]")))
        }
        return result
    }

    private static func fields(_ node: YAMLNode, _ option: String) throws(OptionError) -> [(String, AddonNode)] {
        guard case .mapping(let pairs) = node.kind else {
            throw OptionError(option, "expected a group of fields, got \(node.typeDescription)")
        }
        var result: [(String, AddonNode)] = []
        for pair in pairs where !pair.value.isNull {
            guard let key = pair.key.scalarText else { continue }
            result.append((key, try AddonNode(pair.value, option: "\(option).\(key)")))
        }
        return result
    }

    private static func locations(_ node: YAMLNode) throws(OptionError) -> [[(String, AddonNode)]] {
        var result: [[(String, AddonNode)]] = []
        for (index, item) in try list(node, "locations").enumerated() {
            let name = "locations[\(index)]"
            let entry = try fields(item, name)
            for (field, range) in [("latitude", 90.0), ("longitude", 180.0)] {
                guard let value = entry.first(where: { $0.0 == field })?.1 else {
                    throw OptionError("\(name).\(field)", "required: degrees, −\(Int(range)) to \(Int(range))")
                }
                guard case .plain(let text) = value, let number = Double(text), number.isFinite else {
                    throw OptionError("\(name).\(field)", "expected a number of degrees, got \(value.shown)")
                }
                guard abs(number) <= range else {
                    throw OptionError("\(name).\(field)", "\(text) is outside −\(Int(range))…\(Int(range))")
                }
            }
            result.append(entry)
        }
        return result
    }

    private static func profiles(_ node: YAMLNode) throws(OptionError) -> [[(String, AddonNode)]] {
        var result: [[(String, AddonNode)]] = []
        for (index, item) in try list(node, "profiles").enumerated() {
            let name = "profiles[\(index)]"
            var entry = try fields(item, name)
            // The UI has a text field; the agent wants a list ("birch, grass" → [birch, grass]).
            if let position = entry.firstIndex(where: { $0.0 == "allergens" }),
                case .quoted(let text) = entry[position].1
            {
                let names = text.split(separator: ",").map { String($0).trimmingSpaces }.filter { !$0.isEmpty }
                guard !names.isEmpty else {
                    throw OptionError(
                        "\(name).allergens", "name at least one pollen type or plant, e.g. \"birch, grass\"")
                }
                entry[position].1 = .list(names.map(AddonNode.quoted))
            }
            result.append(entry)
        }
        return result
    }

    private static func advanced(_ node: YAMLNode) throws(OptionError) -> [(String, AddonNode)] {
        guard let text = node.scalarText else {
            throw OptionError("advanced", "expected YAML text, got \(node.typeDescription)")
        }
        let root: YAMLNode?
        do {
            root = try YAML.load(text, file: "advanced")
        } catch {
            throw OptionError("advanced", "line \(error.line): \(error.message)")
        }
        guard let root, !root.isNull else { return [] }
        guard case .mapping = root.kind, case .map(let pairs) = try AddonNode(root, option: "advanced") else {
            throw OptionError("advanced", "expected YAML keys like `pollen: {days: 3}`, got \(root.typeDescription)")
        }
        if pairs.contains(where: { $0.0 == "state_dir" }) {
            throw OptionError(
                "advanced", "state_dir: the add-on keeps its state in /data (included in backups); remove it")
        }
        return pairs
    }

    // MARK: the Supervisor's answers

    /// Why the Supervisor's answer cannot be used yet; `key` is the state (the log says each
    /// state once), `message` what the log says.
    struct Wait: Error, Sendable, Equatable, CustomStringConvertible {
        var key: String
        var message: String
        init(key: String, message: String) {
            self.key = key
            self.message = message
        }
        var description: String { message }
        static func == (a: Wait, b: Wait) -> Bool { a.key == b.key }
    }

    /// The longest host name the Supervisor may announce (DNS's 253 bytes).
    static let maximumHostBytes = 253

    /// `GET /services/mqtt`: `{"result": "ok", "data": {host, port, ssl, username, password}}`;
    /// 400 "Service not enabled" when no broker is announced (docs/home-assistant.md).
    ///
    /// A field of the wrong JSON type (a password given as a list, `ssl: "yes"`, a port `+1883`)
    /// or longer than MQTT can carry makes the whole answer unusable: it is waited on like an
    /// unreachable Supervisor, never coerced (a dropped password would connect without one).
    static func broker(status: Int, body: [UInt8]) -> Result<Broker, Wait> {
        let endpoint = "/services/mqtt"
        if let wait = statusWait(endpoint, status: status, body: body) { return .failure(wait) }
        guard let root = json(body), let data = member(root, "data"), case .mapping = data.kind,
            member(root, "result")?.scalarText == "ok"
        else { return .failure(unexpected(endpoint, "no {\"result\": \"ok\", \"data\": {…}}")) }
        guard case .some(.some(let host)) = jsonString(member(data, "host")), !host.isEmpty else {
            return .failure(unexpected(endpoint, "no host (a JSON string)"))
        }
        guard host.utf8.count <= maximumHostBytes else {
            return .failure(unexpected(endpoint, "host is \(host.utf8.count) bytes, at most \(maximumHostBytes)"))
        }
        // An integer in the Supervisor's schema, a string in its documentation's example: both,
        // written as decimal digits only.
        guard let portNode = member(data, "port"), case .scalar(let portText, _) = portNode.kind,
            !portText.isEmpty, portText.utf8.count <= 5, portText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let port = Int(portText), (1...65535).contains(port)
        else {
            return .failure(unexpected(endpoint, "no port 1–65535 (decimal digits)"))
        }
        var strings: [String: String] = [:]
        for key in ["username", "password"] {
            guard let value = jsonString(member(data, key)) else {
                return .failure(unexpected(endpoint, "\(key) is not a JSON string"))
            }
            guard let value, !value.isEmpty else { continue }
            guard value.utf8.count <= ConfigLoader.mqttStringLimit else {
                return .failure(
                    unexpected(
                        endpoint,
                        "\(key) is \(value.utf8.count) bytes; MQTT carries at most \(ConfigLoader.mqttStringLimit)"))
            }
            strings[key] = value
        }
        guard let ssl = jsonBool(member(data, "ssl")) else {
            return .failure(unexpected(endpoint, "ssl is not true or false"))
        }
        return .success(
            Broker(host: host, port: port, username: strings["username"], password: strings["password"], ssl: ssl))
    }

    /// A JSON string member: `.some(nil)` when absent or null, nil when of another type.
    private static func jsonString(_ node: YAMLNode?) -> String?? {
        guard let node, !node.isNull else { return .some(nil) }
        guard node.tag == nil, case .scalar(let text, let style) = node.kind, style != .plain else { return nil }
        return .some(text)
    }

    /// A JSON boolean member (absent or null: false); nil when of another type.
    private static func jsonBool(_ node: YAMLNode?) -> Bool? {
        guard let node, !node.isNull else { return false }
        guard node.tag == nil, case .scalar(let text, .plain) = node.kind, text == "true" || text == "false" else {
            return nil
        }
        return text == "true"
    }

    /// `GET /core/api/config`: Home Assistant's `/api/config`, passed through without the envelope.
    static func home(status: Int, body: [UInt8]) -> Result<Home, Wait> {
        let endpoint = "/core/api/config"
        if let wait = statusWait(endpoint, status: status, body: body) { return .failure(wait) }
        guard let root = json(body), case .mapping = root.kind else {
            return .failure(unexpected(endpoint, "not a JSON object"))
        }
        // A JSON number written as one (no sign but `-`, no hex), at most 64 characters.
        func number(_ key: String, _ range: Double) -> String? {
            guard let node = member(root, key), node.tag == nil, case .scalar(let text, .plain) = node.kind,
                text.utf8.count <= 64,
                text.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || "-.eE+".utf8.contains($0) }),
                !text.hasPrefix("+"), let value = Double(text), abs(value) <= range
            else { return nil }
            return text
        }
        guard let latitude = number("latitude", 90), let longitude = number("longitude", 180) else {
            return .failure(unexpected(endpoint, "no latitude and longitude (JSON numbers)"))
        }
        var strings: [String: String] = [:]
        for key in ["time_zone", "location_name", "language"] {
            guard let value = jsonString(member(root, key)) else {
                return .failure(unexpected(endpoint, "\(key) is not a JSON string"))
            }
            if let value, !value.isEmpty { strings[key] = value }
        }
        guard let temperature = jsonString(member(root, "unit_system").flatMap { member($0, "temperature") }) else {
            return .failure(unexpected(endpoint, "unit_system.temperature is not a JSON string"))
        }
        return .success(
            Home(
                latitude: latitude, longitude: longitude, timeZone: strings["time_zone"],
                name: strings["location_name"], temperatureUnit: temperature,
                language: strings["language"].flatMap { Self.isLanguageTag($0) ? $0 : nil }))
    }

    /// A BCP 47 tag the way Home Assistant writes them (`de`, `pt-BR`, `zh-Hant`): letters and
    /// digits in parts of 1–8 joined by `-`; anything else is not passed on.
    static func isLanguageTag(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        return text.utf8.count <= 35
            && parts.allSatisfy { part in
                (1...8).contains(part.utf8.count)
                    && part.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7a) }
            }
    }

    /// Home Assistant's values the user cannot fix from the add-on, made usable with one warning
    /// each: a home name longer than the agent takes is cut at a character boundary; a time zone
    /// this image's zoneinfo lacks becomes UTC (for the home and every location without its own).
    static func usableHome(_ home: Home, zoneExists: (String) -> Bool) -> (home: Home, warnings: [String]) {
        var result = home
        var warnings: [String] = []
        let limit = ImageBounds.maximumTextBytes
        if let name = home.name, name.utf8.count > limit {
            var cut = ""
            var bytes = 0
            for character in name {
                bytes += character.utf8.count
                guard bytes <= limit else { break }
                cut.append(character)
            }
            result.name = cut.isEmpty ? nil : cut
            warnings.append(
                "add-on: Home Assistant's home name is \(name.utf8.count) bytes, more than the \(limit) the agent takes; using its first \(cut.count) characters"
            )
        }
        if let zone = home.timeZone, !zoneExists(zone) {
            result.timeZone = "UTC"
            warnings.append(
                "add-on: Home Assistant's time zone \(doubleQuoted(String(zone.prefix(64)))) is not in this image's zoneinfo; using UTC (a location's own timezone option overrides it)"
            )
        }
        return (result, warnings)
    }

    private static func statusWait(_ endpoint: String, status: Int, body: [UInt8]) -> Wait? {
        switch status {
        case 200: return nil
        case 400 where String(decoding: body, as: UTF8.self).contains("Service not enabled"):
            return Wait(
                key: "not-enabled",
                message:
                    "no MQTT broker announced yet (\(endpoint): 400 Service not enabled): is the Mosquitto add-on installed and started?"
            )
        case 401, 403:
            return Wait(
                key: "refused-\(status)", message: "the Supervisor refused the add-on's token (\(endpoint): \(status))")
        default:
            return Wait(key: "status-\(status)", message: "the Supervisor answered \(status) (\(endpoint))")
        }
    }

    private static func unexpected(_ endpoint: String, _ what: String) -> Wait {
        Wait(key: "unexpected-\(endpoint)", message: "the Supervisor's answer to \(endpoint) is not usable: \(what)")
    }

    private static func json(_ body: [UInt8]) -> YAMLNode? {
        try? YAML.load(String(decoding: body, as: UTF8.self), file: "answer")
    }

    private static func member(_ node: YAMLNode, _ key: String) -> YAMLNode? {
        guard case .mapping(let pairs) = node.kind else { return nil }
        return pairs.first { $0.key.scalarText == key }?.value
    }

    // MARK: the effective configuration

    /// The generated configuration and how to name an option for a key path in it.
    struct Plan: Sendable {
        /// The configuration file's text (secrets in it: written 0600, never logged).
        var text: String
        /// The key paths `advanced` set (`mqtt.tls.ca_file`; a list or a scalar ends a path):
        /// errors at, under or above one of them are the advanced text's.
        var advancedPaths: [String]
        /// 1 when the home location is first in `locations`, else 0.
        var homeOffset: Int

        /// The option a configuration error's key path comes from, e.g. `locations[1].timezone`
        /// (home first) → `locations[0].timezone`; `pollen.api_key` → `google_api_key`.
        func option(forKeyPath path: String) -> String {
            let head = String(path.prefix { $0 != "." && $0 != "[" })
            if advancedPaths.contains(where: { Self.related(path, $0) }) { return "advanced: \(path)" }
            switch head {
            case "locations":
                guard path.hasPrefix("locations["), let close = path.firstIndex(of: "]"),
                    let index = Int(path[path.index(path.startIndex, offsetBy: 10)..<close])
                else { return "locations" }
                let rest = path[path.index(after: close)...]
                if index < homeOffset {
                    return rest.isEmpty ? "home_location" : "home_location (Home Assistant's \(rest.dropFirst()))"
                }
                return "locations[\(index - homeOffset)]" + rest
            case "pollen":
                switch path {
                case "pollen.api_key": return "google_api_key"
                case "pollen.language": return "language"
                default: return "pollen_source"
                }
            case "language": return "language"
            case "climate": return "unit"
            case "air_out": return path == "air_out.window" ? "air_out_window" : "air_out_hours"
            case "air": return "air"
            case "mqtt": return "(the Supervisor's MQTT service: \(path))"
            case "profiles", "images", "outputs", "log_level": return path
            case "": return advancedPaths.isEmpty ? "(the generated configuration)" : "advanced"
            default: return "advanced: \(path)"
            }
        }

        /// True when `a` is `b`, or one is inside the other (`mqtt.tls` and `mqtt.tls.ca_file`,
        /// `images` and `images[0].id`).
        static func related(_ a: String, _ b: String) -> Bool {
            func inside(_ inner: String, _ outer: String) -> Bool {
                inner == outer || inner.hasPrefix(outer + ".") || inner.hasPrefix(outer + "[")
            }
            return inside(a, b) || inside(b, a)
        }
    }

    /// The agent's configuration for `options`, the broker and Home Assistant's home, with
    /// `state_dir` `stateDir` and the advanced YAML merged over it (later wins; lists replace).
    /// `ingress_port` of ha-addon/breeze_agent/config.yaml (a test keeps the two equal).
    static let ingressPort = 8099
    /// The Supervisor's address on the `hassio` network, then loopback (the agent's default).
    static let ingressAllow = ["172.30.32.2", "127.0.0.0/8", "::1"]

    static func plan(options: Options, broker: Broker, home: Home, stateDir: String) throws(OptionError) -> Plan {
        var ids: [String: String] = options.homeLocation ? [homeID: "home_location"] : [:]
        var locations: [AddonNode] = []
        if options.homeLocation {
            var fields: [(String, AddonNode)] = [
                ("id", .quoted(homeID)), ("name", .quoted(home.name ?? "Home")), ("latitude", .plain(home.latitude)),
                ("longitude", .plain(home.longitude)),
            ]
            if let zone = home.timeZone { fields.append(("timezone", .quoted(zone))) }
            locations.append(.map(fields))
        }
        for (index, var fields) in options.locations.enumerated() {
            let name = "locations[\(index)]"
            guard let id = fields.first(where: { $0.0 == "id" })?.1.text else {
                throw OptionError("\(name).id", "required: lower-case letters, digits, _ and -")
            }
            if let earlier = ids[id] {
                throw OptionError(
                    "\(name).id",
                    earlier == "home_location"
                        ? "\"\(id)\" is already the home location's id" : "\"\(id)\" is already the id of \(earlier)")
            }
            ids[id] = name
            if !fields.contains(where: { $0.0 == "timezone" }), let zone = home.timeZone {
                fields.append(("timezone", .quoted(zone)))
            }
            locations.append(.map(fields))
        }
        guard !locations.isEmpty else {
            throw OptionError("home_location", "is off and no other locations are set: there is nothing to serve")
        }

        var mqtt: [(String, AddonNode)] = [("host", .quoted(broker.host)), ("port", .plain(String(broker.port)))]
        if let user = broker.username { mqtt.append(("username", .quoted(user))) }
        if let password = broker.password { mqtt.append(("password", .quoted(password))) }
        if broker.ssl { mqtt.append(("tls", .map([]))) }
        var pollen: [(String, AddonNode)] = [("source", .quoted(options.pollenSource))]
        if let key = options.googleAPIKey { pollen.append(("api_key", .quoted(key))) }
        // The top-level `language` (issue 51): the option, else Home Assistant's language, when
        // the agent has it (`pollen.language` follows it); any other tag still reaches Google,
        // and the agent's own words stay English.
        var language: [(String, AddonNode)] = []
        if let tag = options.language ?? home.language {
            if Language(tag: tag) != nil {
                language.append(("language", .quoted(tag)))
            } else {
                pollen.append(("language", .quoted(tag)))
            }
        }
        let unit: String =
            switch options.unit {
            case "auto": home.temperatureUnit == "°F" ? "fahrenheit" : "celsius"
            default: options.unit
            }
        var top: [(String, AddonNode)] = [
            ("mqtt", .map(mqtt)), ("locations", .list(locations)),
        ]
        top += language
        top += [
            ("pollen", .map(pollen)),
            ("climate", .map([("unit", .quoted(unit))])), ("air", .map([("enabled", .plain(String(options.air)))])),
        ]
        var airOut: [(String, AddonNode)] = []
        if let window = options.airOutWindow { airOut.append(("window", .plain(String(window)))) }
        if let hours = options.airOutHours { airOut.append(("hours", .quoted(hours))) }
        if !airOut.isEmpty { top.append(("air_out", .map(airOut))) }
        if !options.profiles.isEmpty { top.append(("profiles", .list(options.profiles.map(AddonNode.map)))) }
        if !options.images.isEmpty { top.append(("images", .list(options.images))) }
        if !options.outputs.isEmpty { top.append(("outputs", .list(options.outputs))) }
        // The status page behind Home Assistant's ingress (docs/home-assistant.md, Add-on): the Supervisor connects
        // from 172.30.32.2 to the add-on's `ingress_port` (config.yaml), on the add-on's own
        // address, so the server listens on every interface and lets in only the Supervisor
        // and loopback (docs/home-assistant.md, "Ingress").
        top.append(
            (
                "http",
                .map([
                    ("listen", .quoted("0.0.0.0:\(ingressPort)")),
                    ("allow", .list(ingressAllow.map(AddonNode.quoted))),
                    // The ingress proxy passes the browser's Host on (whatever name Home
                    // Assistant is reached by); only it and loopback can connect, so the DNS
                    // rebinding check has nothing to guard here (docs/http.md, `hosts`).
                    ("hosts", .list([.quoted(HTTPSettings.anyHost)])),
                ])
            ))
        top.append(("state_dir", .quoted(stateDir)))
        top.append(("log_level", .quoted(options.logLevel)))
        let merged = AddonNode.map(top).merging(.map(options.advanced))
        let plan = Plan(
            text: "# Written by `breeze-agent addon` from the add-on's options and the Supervisor.\n"
                + merged.yaml(indent: 0),
            advancedPaths: AddonNode.map(options.advanced).leafPaths(under: ""),
            homeOffset: options.homeLocation ? 1 : 0)
        // Checked before anything is written: a file the agent would refuse to read is never
        // written. The Supervisor's answers are bounded (host, MQTT login, numbers), so what
        // is too long here is the options' own text.
        let bytes = plan.text.utf8.count
        guard bytes <= ConfigLoader.maximumFileBytes else {
            throw OptionError(
                plan.advancedPaths.isEmpty ? "(the generated configuration)" : "advanced",
                "the configuration these options make is \(bytes) bytes, over the \(ConfigLoader.maximumFileBytes >> 20) MiB the agent reads"
            )
        }
        return plan
    }
}

/// A YAML value the add-on writes: plain scalars (numbers, booleans) stay plain, every other
/// scalar is written double-quoted, so the agent's loader reads back exactly these types.
indirect enum AddonNode: Sendable {
    case plain(String)
    case quoted(String)
    case list([AddonNode])
    case map([(String, AddonNode)])

    /// From a loaded node; tags and non-scalar keys are refused (`option` names where).
    init(_ node: YAMLNode, option: String) throws(AddonConfig.OptionError) {
        if let tag = node.tag, tag != "tag:yaml.org,2002:str" {
            throw AddonConfig.OptionError(option, "line \(node.line): YAML tags (\(tag)) are not supported here")
        }
        switch node.kind {
        case .scalar(let text, let style):
            // Plain only for what the agent reads as a number, a boolean or null; any other
            // scalar is written double-quoted (a multi-line plain one would not survive).
            self =
                style == .plain && node.tag == nil && Self.staysPlain(text)
                ? .plain(node.isNull ? "null" : text) : .quoted(text)
        case .sequence(let items):
            var values: [AddonNode] = []
            for item in items { values.append(try AddonNode(item, option: option)) }
            self = .list(values)
        case .mapping(let pairs):
            var values: [(String, AddonNode)] = []
            for pair in pairs {
                guard let key = pair.key.scalarText else {
                    throw AddonConfig.OptionError(option, "line \(pair.key.line): keys must be plain words")
                }
                values.append((key, try AddonNode(pair.value, option: option)))
            }
            self = .map(values)
        }
    }

    /// A plain scalar the agent's loader reads as null, a boolean or a number (MappingReader).
    static func staysPlain(_ text: String) -> Bool {
        switch text.lowercased() {
        case "", "~", "null", "true", "false", "yes", "no", "on", "off": return true
        default: return text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) && Double(text) != nil
        }
    }

    /// Paths of the scalars and lists in this mapping, prefixed with `path` (`mqtt.tls.ca_file`).
    func leafPaths(under path: String) -> [String] {
        guard case .map(let pairs) = self else { return [path] }
        if pairs.isEmpty, !path.isEmpty { return [path] }
        return pairs.flatMap { key, value in value.leafPaths(under: path.isEmpty ? key : path + "." + key) }
    }

    /// The scalar's text, nil for a collection.
    var text: String? {
        switch self {
        case .plain(let text), .quoted(let text): text
        default: nil
        }
    }

    /// For messages: a scalar in quotes, else its kind.
    var shown: String {
        switch self {
        case .plain(let text), .quoted(let text): doubleQuoted(text)
        case .list: "a list"
        case .map: "a group of fields"
        }
    }

    /// `other` over `self`: mappings merge key by key, anything else is replaced.
    func merging(_ other: AddonNode) -> AddonNode {
        guard case .map(var pairs) = self, case .map(let overrides) = other else { return other }
        for (key, value) in overrides {
            if let position = pairs.firstIndex(where: { $0.0 == key }) {
                pairs[position].1 = pairs[position].1.merging(value)
            } else {
                pairs.append((key, value))
            }
        }
        return .map(pairs)
    }

    /// Block-style YAML at `indent` spaces (a mapping or a list at the top).
    func yaml(indent: Int) -> String {
        let pad = String(repeating: " ", count: indent)
        var out = ""
        switch self {
        case .map(let pairs):
            for (key, value) in pairs {
                out += pad + Self.key(key) + ":"
                switch value {
                case .map(let inner) where !inner.isEmpty: out += "\n" + value.yaml(indent: indent + 2)
                case .list(let inner) where !inner.isEmpty: out += "\n" + value.yaml(indent: indent + 2)
                default: out += " " + value.inline + "\n"
                }
            }
        case .list(let items):
            for item in items {
                switch item {
                case .map(let inner) where !inner.isEmpty: out += pad + "-\n" + item.yaml(indent: indent + 2)
                case .list(let inner) where !inner.isEmpty: out += pad + "-\n" + item.yaml(indent: indent + 2)
                default: out += pad + "- " + item.inline + "\n"
                }
            }
        case .plain, .quoted:
            out += pad + inline + "\n"
        }
        return out
    }

    /// A scalar or an empty collection on one line.
    private var inline: String {
        switch self {
        case .plain(let text): text.isEmpty ? "null" : text
        case .quoted(let text): Self.quote(text)
        case .list: "[]"
        case .map: "{}"
        }
    }

    private static func key(_ text: String) -> String {
        let plain =
            !text.isEmpty
            && text.utf8.allSatisfy {
                ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x41 && $0 <= 0x5a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5f
            }
        return plain ? text : quote(text)
    }

    /// A YAML double-quoted scalar: the project's quoting (`check-config`'s) plus `\u` escapes for
    /// what YAML reads as a line break (NEL, LS, PS) or refuses (C1 controls, BOM) in the text.
    static func quote(_ text: String) -> String {
        var out = ""
        for scalar in doubleQuoted(text, controls: .yaml).unicodeScalars {
            let value = scalar.value
            if (0x80...0x9f).contains(value) || value == 0x2028 || value == 0x2029 || value == 0xfeff {
                let hex = String(value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: String {
        let isSpace = { (c: Character) in c == " " || c == "\t" }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
