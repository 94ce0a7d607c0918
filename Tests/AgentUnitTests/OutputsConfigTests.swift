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
import Foundation
import Testing

/// `outputs:` (SPEC §8): every config error of the section, each with its file, line and key.
@Suite("Configuration: outputs")
struct OutputsConfigTests {
    static let twoLocations = """
        locations:
          - {id: home, latitude: 52.52, longitude: 13.405, timezone: Europe/Berlin}
          - {id: office, latitude: 48.1, longitude: 11.6, timezone: Europe/Berlin}
        """

    @Test func everyDeviceWithDefaultsAndAllKeys() throws {
        let config = try ConfigSandbox().load(
            Self.twoLocations + """

                outputs:
                  - {type: wled, topic: wled/strip1}
                  - type: wled
                    topic: wled/strip2
                    location: office
                    show: pollen_types
                    leds: 60
                    brightness: 128
                    power: on
                  - {type: awtrix, topic: awtrix_4f2a10}
                  - {type: awtrix, topic: awtrix_b, app: pollen, indicator: 3, location: office}
                  - {type: tasmota, topic: tasmota_bulb}
                  - {type: tasmota, topic: bulb2, power: on, command_topic: home/bulb2/cmnd, lwt_topic: home/bulb2/LWT}
                """)
        #expect(
            config.outputs == [
                OutputConfig(
                    device: .wled(WLEDOutput(show: .pollenMax, leds: nil, brightness: nil, power: .leave)),
                    topic: "wled/strip1", location: "home"),
                OutputConfig(
                    device: .wled(WLEDOutput(show: .pollenTypes, leds: 60, brightness: 128, power: .on)),
                    topic: "wled/strip2", location: "office"),
                OutputConfig(
                    device: .awtrix(AwtrixOutput(app: "breeze", indicator: nil)), topic: "awtrix_4f2a10",
                    location: "home"),
                OutputConfig(
                    device: .awtrix(AwtrixOutput(app: "pollen", indicator: 3)), topic: "awtrix_b", location: "office"),
                OutputConfig(
                    device: .tasmota(
                        TasmotaOutput(
                            power: .leave, commandTopic: "cmnd/tasmota_bulb", lwtTopic: "tele/tasmota_bulb/LWT")),
                    topic: "tasmota_bulb", location: "home"),
                OutputConfig(
                    device: .tasmota(
                        TasmotaOutput(power: .on, commandTopic: "home/bulb2/cmnd", lwtTopic: "home/bulb2/LWT")),
                    topic: "bulb2", location: "home"),
            ])
    }

    @Test func checkConfigPrintsOutputsThatLoadBackTheSame() throws {
        let sandbox = try ConfigSandbox()
        let config = try sandbox.load(
            oneLocation + """

                profiles:
                  - {id: anna, allergens: [birch]}
                outputs:
                  - {type: wled, topic: wled/strip1, show: pollen_types, leds: 30}
                  - {type: awtrix, topic: clock, indicator: 2}
                  - {type: tasmota, topic: bulb, power: on}
                  - {type: wled, topic: wled/strip2, show: climate_stripes, leds: 46}
                  - {type: wled, topic: wled/strip3, show: "risk:anna"}
                  - {type: tasmota, topic: bulb2, show: "risk:anna"}
                """)
        let printed = renderEffective(config)
        #expect(printed.contains("outputs:\n  - type: wled\n    topic: \"wled/strip1\"\n"))
        let again = try sandbox.load(printed)
        #expect(again.outputs == config.outputs)
    }

    /// Every `outputs:` recipe in docs/displays.md loads as it is written.
    @Test func recipesInTheDisplaysGuideAreValid() throws {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        let guide = try String(contentsOf: root.appendingPathComponent("docs/displays.md"), encoding: .utf8)
        let blocks = guide.components(separatedBy: "```yaml\n").dropFirst().compactMap {
            $0.components(separatedBy: "```").first
        }
        let recipes = blocks.filter { $0.hasPrefix("outputs:") }
        #expect(recipes.count == 3)
        var types: [String] = []
        for recipe in recipes {
            let config = try ConfigSandbox().load(oneLocation + "\n" + recipe)
            types += config.outputs.map(\.typeName)
        }
        #expect(types == ["wled", "awtrix", "tasmota"])
    }

    /// Every device `type:` the parser accepts runs in the agent: its settings type conforms to
    /// `DeviceOutput` (in the output's own file) and makes at least one sink. A new type without
    /// a sample here, or without its conformance, fails this test.
    @Test func everyDeviceTypeRegistersItsSinks() throws {
        let samples = [
            "wled": "{type: wled, topic: d/wled}", "awtrix": "{type: awtrix, topic: d/awtrix}",
            "tasmota": "{type: tasmota, topic: d/tasmota}",
        ]
        #expect(samples.keys.sorted() == OutputsParser.deviceTypes.sorted(), "one sample per device type")
        for type in OutputsParser.deviceTypes {
            let item = try #require(samples[type], "no sample for \(type)")
            let config = try ConfigSandbox().load(oneLocation + "\noutputs:\n  - " + item + "\n")
            let output = try #require(config.outputs.first)
            #expect(output.typeName == type)
            let agentOutput = try #require(output.device.settings as? any DeviceOutput, "\(type) has no DeviceOutput")
            let retained = agentOutput.retainedSinks(topic: output.topic, locationID: output.location)
            let command = agentOutput.commandSink(topic: output.topic, locationID: output.location)
            #expect(retained.count + (command == nil ? 0 : 1) > 0, "\(type) makes no sink")
        }
    }

    @Test func noOutputsByDefault() throws {
        #expect(try ConfigSandbox().load(oneLocation).outputs.isEmpty)
    }

    /// (outputs block, line, key path, a part of the message). Line 1 is `outputs:`; the
    /// location lines come after it.
    static let badOutputs: [(String, Int, String, String)] = [
        // SPEC §8's list, in order.
        ("  - {type: wled, topic: w/1, location: nowhere}", 2, "outputs[0].location", "no location \"nowhere\""),
        (
            "  - {type: wled, topic: w/1}\n  - {type: tasmota, topic: w/1}", 3, "outputs[1].topic",
            "two outputs on one device topic \"w/1\" (first at line 2)"
        ),
        ("  - {type: wled, topic: breeze/strip}", 2, "outputs[0].topic", "lies under mqtt.topic_prefix \"breeze\""),
        ("  - {type: awtrix, topic: breeze}", 2, "outputs[0].topic", "lies under mqtt.topic_prefix"),
        (
            "  - {type: wled, topic: homeassistant/light}", 2, "outputs[0].topic",
            "lies under homeassistant.prefix \"homeassistant\""
        ),
        (
            "  - {type: tasmota, topic: bulb, command_topic: breeze/cmnd}", 2, "outputs[0].command_topic",
            "lies under mqtt.topic_prefix"
        ),
        (
            "  - {type: wled, topic: w/1, show: climate_stripes}", 2, "outputs[0].leds",
            "required: the strip's LED count"
        ),
        ("  - {type: wled, topic: w/1, show: pollen_types}", 2, "outputs[0].leds", "required: the strip's LED count"),
        (
            "  - {type: wled, topic: w/1, show: \"risk:hay_fever\"}", 2, "outputs[0].show",
            "\"risk:hay_fever\" names no risk profile (no profiles are configured)"
        ),
        (
            "  - {type: tasmota, topic: bulb, show: \"risk:x\"}", 2, "outputs[0].show", "names no risk profile"
        ),
        ("  - {type: wled, topic: w/#}", 2, "outputs[0].topic", "expected an MQTT topic (no #, no +"),
        ("  - {type: wled, topic: w/+/x}", 2, "outputs[0].topic", "got \"w/+/x\""),
        ("  - {type: wled, topic: w//x}", 2, "outputs[0].topic", "got \"w//x\""),
        ("  - {type: wled, topic: /w}", 2, "outputs[0].topic", "got \"/w\""),
        ("  - {type: tasmota, topic: b, lwt_topic: \"tele/#\"}", 2, "outputs[0].lwt_topic", "no #"),
        // Types, ranges, keys.
        ("  - {topic: w/1}", 2, "outputs[0].type", "required: one of \"wled\", \"awtrix\", \"tasmota\""),
        ("  - {type: hue, topic: w/1}", 2, "outputs[0].type", "expected one of \"wled\", \"awtrix\", \"tasmota\""),
        ("  - {type: wled}", 2, "outputs[0].topic", "required: the device's MQTT topic"),
        ("  - {type: wled, topic: w/1, show: rainbow}", 2, "outputs[0].show", "got \"rainbow\""),
        ("  - {type: tasmota, topic: b, show: pollen_types}", 2, "outputs[0].show", "expected pollen_max or risk"),
        ("  - {type: wled, topic: w/1, brightness: 0}", 2, "outputs[0].brightness", "expected an integer 1–255"),
        ("  - {type: wled, topic: w/1, brightness: 256}", 2, "outputs[0].brightness", "expected an integer 1–255"),
        ("  - {type: wled, topic: w/1, leds: 0}", 2, "outputs[0].leds", "expected an integer 1–16384"),
        ("  - {type: wled, topic: w/1, show: pollen_types, leds: 2}", 2, "outputs[0].leds", "at least 3 LEDs"),
        ("  - {type: wled, topic: w/1, power: off}", 2, "outputs[0].power", "expected one of \"leave\", \"on\""),
        ("  - {type: awtrix, topic: a, indicator: 4}", 2, "outputs[0].indicator", "expected an integer 1–3"),
        ("  - {type: awtrix, topic: a, app: \"my app\"}", 2, "outputs[0].app", "custom-app name"),
        ("  - {type: awtrix, topic: a, app: a/b}", 2, "outputs[0].app", "got \"a/b\""),
        ("  - {type: awtrix, topic: a, leds: 3}", 2, "outputs[0].leds", "unknown key \"leds\""),
        ("  - {type: wled, topic: w, app: x}", 2, "outputs[0].app", "unknown key \"app\""),
        ("  - {type: wled, topic: w, brightnes: 3}", 2, "outputs[0].brightnes", "did you mean \"brightness\"?"),
        ("  - wled", 2, "outputs[0]", "expected a mapping with type and topic"),
        ("  wled: {}", 2, "outputs", "expected a list of outputs"),
    ]

    @Test(arguments: badOutputs)
    func refused(_ bad: (String, Int, String, String)) throws {
        let (block, line, key, message) = bad
        let error = try #require(ConfigSandbox().failure("outputs:\n" + block + "\n" + oneLocation))
        #expect(error.line == line, "\(error)")
        #expect(error.keyPath == key, "\(error)")
        #expect(error.message.contains(message), "\(error)")
        #expect(error.description.contains("config.yaml:\(line): \(key): "), "\(error)")
    }

    @Test func climateStripesWithClimateOffNamesTheReason() throws {
        let error = try #require(
            ConfigSandbox().failure(
                "climate: {enabled: false}\noutputs:\n  - {type: wled, topic: w/1, show: climate_stripes, leds: 30}\n"
                    + oneLocation))
        #expect(error.line == 3)
        #expect(error.keyPath == "outputs[0].show")
        #expect(error.message == "climate_stripes needs climate data, but climate.enabled is false")
    }

    @Test func riskNamesAConfiguredProfile() throws {
        let profiles = "profiles:\n  - {id: anna, allergens: [birch]}\n"
        let unknown = try #require(
            ConfigSandbox().failure(
                profiles + "outputs:\n  - {type: wled, topic: w/1, show: \"risk:ben\"}\n" + oneLocation))
        #expect(unknown.line == 4)
        #expect(unknown.message == "\"risk:ben\" names no risk profile (profiles: anna)")
        let config = try ConfigSandbox().load(
            profiles + "outputs:\n  - {type: tasmota, topic: bulb, show: \"risk:anna\"}\n"
                + "  - {type: wled, topic: w/1, show: \"risk:anna\", leds: 10}\n" + oneLocation)
        #expect(
            config.outputs.map(\.device) == [
                .tasmota(
                    TasmotaOutput(
                        power: .leave, commandTopic: "cmnd/bulb", lwtTopic: "tele/bulb/LWT", show: .risk("anna"))),
                .wled(WLEDOutput(show: .risk("anna"), leds: 10, brightness: nil, power: .leave)),
            ])
    }

    @Test func climateStripesLoads() throws {
        let config = try ConfigSandbox().load(
            "outputs:\n  - {type: wled, topic: w/1, show: climate_stripes, leds: 30}\n" + oneLocation)
        #expect(
            config.outputs.map(\.device) == [
                .wled(WLEDOutput(show: .climateStripes, leds: 30, brightness: nil, power: .leave))
            ])
    }

    @Test func deviceTopicsUnderCustomPrefixesAreRefused() throws {
        let error = try #require(
            ConfigSandbox().failure(
                "mqtt: {topic_prefix: home/pollen}\nhomeassistant: {prefix: ha}\noutputs:\n  - {type: awtrix, topic: ha/clock}\n"
                    + oneLocation))
        #expect(error.line == 4)
        #expect(error.message.contains("lies under homeassistant.prefix \"ha\""), "\(error)")
        // A topic that merely starts with the same letters is not under the prefix.
        let config = try ConfigSandbox().load(
            "mqtt: {topic_prefix: home/pollen}\noutputs:\n  - {type: awtrix, topic: home/pollenclock}\n" + oneLocation)
        #expect(config.outputs.map(\.topic) == ["home/pollenclock"])
    }

    @Test func atMost64Outputs() throws {
        let many = (0..<65).map { "  - {type: wled, topic: w/\($0)}" }.joined(separator: "\n")
        let error = try #require(ConfigSandbox().failure("outputs:\n" + many + "\n" + oneLocation))
        #expect(error.keyPath == "outputs")
        #expect(error.message == "at most 64 outputs, got 65")
    }
}
