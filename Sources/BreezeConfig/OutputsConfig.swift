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

/// The settings of one kind of device output (`type: wled`, …): what the parser made of its
/// keys, and how `check-config` prints them. The agent runs them through its `DeviceOutput`
/// protocol, which each settings type conforms to in its output's own file
/// (docs/architecture.md, "Adding an output").
public protocol DeviceOutputSettings: Sendable {
    /// The `type:` name as written.
    static var typeName: String { get }
    /// The keys after `type`, `topic` and `location` as `check-config` prints them (every
    /// default spelt out), without the list's indentation.
    var effectiveLines: [String] { get }
}

/// One entry of `outputs:` (docs/displays.md): a display the agent drives on the display's own topics.
public struct OutputConfig: Sendable, Equatable {
    /// The device and its settings.
    public enum Device: Sendable, Equatable {
        case wled(WLEDOutput)
        case awtrix(AwtrixOutput)
        case tasmota(TasmotaOutput)

        /// The settings, whatever the kind: the agent makes its sinks from them, `check-config`
        /// prints them. The one `switch` over the kinds, beside the parser's.
        public var settings: any DeviceOutputSettings {
            switch self {
            case .wled(let settings): settings
            case .awtrix(let settings): settings
            case .tasmota(let settings): settings
            }
        }
    }

    public var device: Device
    /// The device's own topic: WLED's device topic, Awtrix's prefix, Tasmota's `%topic%`.
    public var topic: String
    /// The id of the location it shows (the first location by default).
    public var location: String

    public init(device: Device, topic: String, location: String) {
        self.device = device
        self.topic = topic
        self.location = location
    }

    /// `wled`, `awtrix`, `tasmota`: the `type` as written.
    public var typeName: String { type(of: device.settings).typeName }
}

/// Whether a light output may switch its light on (docs/displays.md: a pollen update must not light a
/// bedroom at night, so the default leaves the power alone).
public enum PowerPolicy: String, Sendable, Equatable {
    case leave
    case on
}

/// What a WLED strip shows.
public enum WLEDShow: Sendable, Equatable {
    /// Segment 0 solid in the max pollen color.
    case pollenMax
    /// Segments 0, 1, 2 (thirds of `leds`) = grass, tree, weed in their level colors.
    case pollenTypes
    /// Segment 0 over all `leds`, one LED per year of the warming stripes (docs/reference.md, Warming stripes).
    case climateStripes
    /// Segment 0 solid in today's risk color of the profile with this id (docs/reference.md, Personal risk).
    case risk(String)

    /// The `show:` word as written in the config.
    public var configName: String {
        switch self {
        case .pollenMax: "pollen_max"
        case .pollenTypes: "pollen_types"
        case .climateStripes: "climate_stripes"
        case .risk(let id): "risk:" + id
        }
    }
}

/// What a Tasmota light shows.
public enum TasmotaShow: Sendable, Equatable {
    /// The max pollen color.
    case pollenMax
    /// Today's risk color of the profile with this id (docs/reference.md, Personal risk).
    case risk(String)

    /// The `show:` word as written in the config.
    public var configName: String {
        switch self {
        case .pollenMax: "pollen_max"
        case .risk(let id): "risk:" + id
        }
    }
}

/// `type: wled`.
public struct WLEDOutput: Sendable, Equatable {
    public var show: WLEDShow
    /// The strip's LED count (required for `pollen_types` and `climate_stripes`).
    public var leds: Int?
    /// 1–255; nil leaves the device's brightness alone.
    public var brightness: Int?
    public var power: PowerPolicy

    public init(show: WLEDShow, leds: Int?, brightness: Int?, power: PowerPolicy) {
        self.show = show
        self.leds = leds
        self.brightness = brightness
        self.power = power
    }
}

extension WLEDOutput: DeviceOutputSettings {
    public static var typeName: String { "wled" }

    public var effectiveLines: [String] {
        [
            "show: " + renderedShow(show.configName),
            "leds: " + (leds.map(String.init) ?? "null"),
            "brightness: " + (brightness.map(String.init) ?? "null  # leave the device's"),
            "power: " + power.rawValue,
        ]
    }
}

/// `type: awtrix` (Awtrix 3).
public struct AwtrixOutput: Sendable, Equatable {
    /// The custom-app name; the climate chart is `<app>c`.
    public var app: String
    /// 1–3: a corner dot in the max pollen color; nil for none.
    public var indicator: Int?

    public init(app: String, indicator: Int?) {
        self.app = app
        self.indicator = indicator
    }
}

extension AwtrixOutput: DeviceOutputSettings {
    public static var typeName: String { "awtrix" }

    public var effectiveLines: [String] {
        ["app: " + doubleQuoted(app, controls: .yaml), "indicator: " + (indicator.map(String.init) ?? "null")]
    }
}

/// `type: tasmota`.
public struct TasmotaOutput: Sendable, Equatable {
    public var show: TasmotaShow
    public var power: PowerPolicy
    /// Where commands go: `cmnd/<topic>` unless the device has a custom FullTopic.
    public var commandTopic: String
    /// The device's will: `tele/<topic>/LWT` unless the device has a custom FullTopic.
    public var lwtTopic: String

    public init(power: PowerPolicy, commandTopic: String, lwtTopic: String, show: TasmotaShow = .pollenMax) {
        self.show = show
        self.power = power
        self.commandTopic = commandTopic
        self.lwtTopic = lwtTopic
    }
}

extension TasmotaOutput: DeviceOutputSettings {
    public static var typeName: String { "tasmota" }

    public var effectiveLines: [String] {
        [
            "show: " + renderedShow(show.configName),
            "power: " + power.rawValue,
            "command_topic: " + doubleQuoted(commandTopic, controls: .yaml),
            "lwt_topic: " + doubleQuoted(lwtTopic, controls: .yaml),
        ]
    }
}

/// Reads `outputs:` (docs/displays.md). Every error names the file, the line and the key, like the rest
/// of the config; a mode this version cannot serve yet is refused here, never at run time.
struct OutputsParser {
    /// At most this many outputs (each one is a subscription and a command per change).
    static let maximumOutputs = 64
    /// WLED's segment bounds are 16-bit; no real strip on one controller comes near this.
    static let maximumLEDs = 16_384
    /// The `type:` names of the device outputs (``OutputConfig/Device``), in the order the
    /// parser lists them; `openepaperlink` is parsed apart.
    static let deviceTypes = [WLEDOutput.typeName, AwtrixOutput.typeName, TasmotaOutput.typeName]

    let file: String
    let locations: [LocationConfig]
    let topicPrefix: String
    let discoveryPrefix: String
    let climateEnabled: Bool
    /// The ids of `profiles:` (docs/reference.md, Personal risk).
    let profiles: [String]
    /// `images:` (docs/images.md), which `type: openepaperlink` outputs name.
    var images: [ImageConfig] = []

    func parse(_ node: YAMLNode?) throws(ConfigError) -> [OutputConfig] { try parseAll(node).devices }

    /// The device outputs and, apart (they have no device topic), the OpenEPaperLink tags.
    func parseAll(_ node: YAMLNode?) throws(ConfigError) -> (
        devices: [OutputConfig], openEPaperLink: [OpenEPaperLinkOutput]
    ) {
        guard let node, !node.isNull else { return ([], []) }
        guard case .sequence(let items) = node.kind else {
            throw ConfigError(
                file: file, line: node.line, keyPath: "outputs",
                message: "expected a list of outputs (each with type and topic), got \(MappingReader.describe(node))")
        }
        guard items.count <= Self.maximumOutputs else {
            throw ConfigError(
                file: file, line: node.line, keyPath: "outputs",
                message: "at most \(Self.maximumOutputs) outputs, got \(items.count)")
        }
        var outputs: [OutputConfig] = []
        var tags: [OpenEPaperLinkOutput] = []
        var topicLines: [String: Int] = [:]
        var macs: [String: String] = [:]
        for (index, item) in items.enumerated() {
            if Self.isOpenEPaperLink(item) {
                tags.append(try parseOpenEPaperLink(item, path: "outputs[\(index)]", macs: &macs))
                continue
            }
            let output = try parseOutput(item, path: "outputs[\(index)]", topicLines: &topicLines)
            outputs.append(output)
        }
        return (outputs, tags)
    }

    private func parseOutput(_ item: YAMLNode, path: String, topicLines: inout [String: Int]) throws(ConfigError)
        -> OutputConfig
    {
        guard case .mapping = item.kind else {
            throw ConfigError(
                file: file, line: item.line, keyPath: path,
                message: "expected a mapping with type and topic, got \(MappingReader.describe(item))")
        }
        // The type decides which keys are known: read it first from a reader that knows them all.
        let all = try MappingReader(
            item, path: path,
            keys: [
                "type", "topic", "location", "show", "leds", "brightness", "power", "app", "indicator",
                "command_topic", "lwt_topic", "ap", "mac", "image",
            ], file: file)
        let types = Self.deviceTypes + ["openepaperlink"]
        let typeExpected = "one of " + types.map { "\"\($0)\"" }.joined(separator: ", ")
        guard let type = try all.choice("type", types) else {
            throw all.missing("type", expected: typeExpected)
        }
        let keys: [String]
        switch type {
        case "wled": keys = ["type", "topic", "location", "show", "leds", "brightness", "power"]
        case "awtrix": keys = ["type", "topic", "location", "app", "indicator"]
        default: keys = ["type", "topic", "location", "show", "power", "command_topic", "lwt_topic"]
        }
        let r = try MappingReader(item, path: path, keys: keys, file: file)

        let topicExpected = "the device's MQTT topic, like wled/strip1 (no #, no +, no empty levels)"
        guard let topic = try r.text("topic", expected: topicExpected) else {
            throw r.missing("topic", expected: topicExpected)
        }
        try checkDeviceTopic(topic, key: "topic", r)
        if let earlier = topicLines[topic] {
            throw r.fail(
                "topic", "two outputs on one device topic \(doubleQuoted(topic)) (first at line \(earlier))")
        }
        topicLines[topic] = r.line(of: "topic")

        let location: String
        if let id = try r.text("location", expected: "a location id") {
            guard locations.contains(where: { $0.id == id }) else {
                throw r.fail(
                    "location",
                    "no location \(doubleQuoted(id)) in locations (known: \(locations.map(\.id).joined(separator: ", ")))"
                )
            }
            location = id
        } else {
            location = locations[0].id
        }

        switch type {
        case "wled":
            let show = try parseShow(r, allowed: "pollen_max, pollen_types, climate_stripes or risk:<profile>")
            let leds = try r.int("leds", in: 1...Self.maximumLEDs)
            let brightness = try r.int("brightness", in: 1...255)
            let power = try parsePower(r)
            let wled: WLEDShow
            switch show {
            case "pollen_max":
                wled = .pollenMax
            case "pollen_types":
                guard let leds else {
                    throw r.missing("leds", expected: "the strip's LED count (pollen_types splits it in thirds)")
                }
                guard leds >= 3 else {
                    throw r.fail("leds", "pollen_types needs at least 3 LEDs (one third per type), got \(leds)")
                }
                wled = .pollenTypes
            case "climate_stripes":
                guard climateEnabled else {
                    throw r.fail("show", "climate_stripes needs climate data, but climate.enabled is false")
                }
                guard leds != nil else {
                    throw r.missing("leds", expected: "the strip's LED count (climate_stripes shows one LED per year)")
                }
                wled = .climateStripes
            default:
                wled = .risk(try riskProfile(show, r))
            }
            return OutputConfig(
                device: .wled(WLEDOutput(show: wled, leds: leds, brightness: brightness, power: power)), topic: topic,
                location: location)
        case "awtrix":
            let appExpected = "a custom-app name of letters, digits, _ and - (it becomes a topic level)"
            let app = try r.text("app", expected: appExpected) ?? "breeze"
            guard app.utf8.count <= 64, app.utf8.allSatisfy(Self.isAppCharacter) else {
                throw r.fail("app", "expected \(appExpected), at most 64 characters, got \(doubleQuoted(app))")
            }
            let indicator = try r.int("indicator", in: 1...3)
            return OutputConfig(
                device: .awtrix(AwtrixOutput(app: app, indicator: indicator)), topic: topic, location: location)
        default:
            let show = try parseShow(r, allowed: "pollen_max or risk:<profile>")
            let tasmotaShow: TasmotaShow
            if show == "pollen_max" {
                tasmotaShow = .pollenMax
            } else if show.hasPrefix("risk:") {
                tasmotaShow = .risk(try riskProfile(show, r))
            } else {
                throw r.fail("show", "expected pollen_max or risk:<profile>, got \(doubleQuoted(show))")
            }
            let power = try parsePower(r)
            let command =
                try r.text("command_topic", expected: "a topic like cmnd/tasmota_bulb")
                ?? DeviceTopics.tasmotaCommandPrefix(topic).name
            try checkDeviceTopic(command, key: "command_topic", r)
            let lwt =
                try r.text("lwt_topic", expected: "a topic like tele/tasmota_bulb/LWT")
                ?? DeviceTopics.tasmotaLWT(topic).name
            try checkDeviceTopic(lwt, key: "lwt_topic", r)
            return OutputConfig(
                device: .tasmota(TasmotaOutput(power: power, commandTopic: command, lwtTopic: lwt, show: tasmotaShow)),
                topic: topic,
                location: location)
        }
    }

    /// `show:` as written (default `pollen_max`), checked against the known words.
    private func parseShow(_ r: MappingReader, allowed: String) throws(ConfigError) -> String {
        guard let show = try r.text("show", expected: allowed) else { return "pollen_max" }
        guard ["pollen_max", "pollen_types", "climate_stripes"].contains(show) || show.hasPrefix("risk:") else {
            throw r.fail("show", "expected \(allowed), got \(doubleQuoted(show))")
        }
        return show
    }

    /// `risk:<profile>`: the profile id, which must name a configured profile (docs/displays.md).
    private func riskProfile(_ show: String, _ r: MappingReader) throws(ConfigError) -> String {
        let id = String(show.dropFirst("risk:".count))
        guard profiles.contains(id) else {
            let known =
                profiles.isEmpty ? "no profiles are configured" : "profiles: " + profiles.joined(separator: ", ")
            throw r.fail("show", "\(doubleQuoted(show)) names no risk profile (\(known))")
        }
        return id
    }

    private func parsePower(_ r: MappingReader) throws(ConfigError) -> PowerPolicy {
        // `power: on` is a YAML 1.1 boolean to some readers, but libyaml hands the plain text "on".
        try r.choice("power", ["leave", "on"]).flatMap(PowerPolicy.init) ?? .leave
    }

    /// A device topic is a plain topic (no wildcards, no empty levels) that does not lie under
    /// the agent's own prefix or Home Assistant's: the agent would read its own commands back.
    private func checkDeviceTopic(_ topic: String, key: String, _ r: MappingReader) throws(ConfigError) {
        guard Topic.isPlain(topic) else {
            throw r.fail(
                key,
                "expected an MQTT topic (no #, no +, no empty levels, no leading or trailing /, not starting with $), got \(doubleQuoted(topic))"
            )
        }
        for (prefix, name) in [(topicPrefix, "mqtt.topic_prefix"), (discoveryPrefix, "homeassistant.prefix")]
        where Topic.isAtOrBelow(topic, prefix) {
            throw r.fail(
                key,
                "the device topic \(doubleQuoted(topic)) lies under \(name) \(doubleQuoted(prefix)): the agent would read its own messages back; use the device's own topic"
            )
        }
    }

    private static func isAppCharacter(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x30 && byte <= 0x39)
            || byte == 0x5f || byte == 0x2d
    }
}

/// `outputs:` as `check-config` prints it (nothing when there are none): every default spelt out.
func renderOutputs(_ outputs: [OutputConfig]) -> [String] {
    guard !outputs.isEmpty else { return [] }
    var lines = ["outputs:"]
    for output in outputs {
        lines.append("  - type: " + output.typeName)
        lines.append("    topic: " + doubleQuoted(output.topic, controls: .yaml))
        lines.append("    location: " + doubleQuoted(output.location, controls: .yaml))
        lines += output.device.settings.effectiveLines.map { "    " + $0 }
    }
    return lines
}

/// A `show:` word for `check-config`: plain, but `risk:<profile>` quoted (it holds a colon).
private func renderedShow(_ name: String) -> String {
    name.hasPrefix("risk:") ? doubleQuoted(name, controls: .yaml) : name
}
