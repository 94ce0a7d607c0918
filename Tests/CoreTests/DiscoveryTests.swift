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
import Foundation
import Testing

/// Decodes a serialized payload back with Foundation, so that every rule is checked on what
/// Home Assistant would actually parse, not on our own JSON value.
func decodeDiscovery(_ message: DiscoveryMessage) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(message.payload.utf8))
    return try #require(object as? [String: Any])
}

func discoveryComponents(_ root: [String: Any]) throws -> [String: [String: Any]] {
    let raw = try #require(root["components"] as? [String: Any])
    var out: [String: [String: Any]] = [:]
    for (key, value) in raw { out[key] = try #require(value as? [String: Any]) }
    return out
}

private let items: [DiscoveryInput.PollenItem] = [
    .init(id: "grass", name: "Grass", isPlant: false),
    .init(id: "tree", name: "Tree", isPlant: false),
    .init(id: "weed", name: "Weed", isPlant: false),
    .init(id: "birch", name: "Birch", isPlant: true),
    .init(id: "japanese_cedar", name: "Japanese cedar", isPlant: true),
]

private func input(
    prefix: String = "breeze",
    location: String = "home",
    pollen: Bool = true,
    climate: Bool = true,
    pollenItems: [DiscoveryInput.PollenItem] = items
) -> DiscoveryInput {
    DiscoveryInput(
        layout: TopicLayout(prefix: prefix), agentVersion: "1.2.3", location: .init(id: location, name: "Home"),
        pollenAvailable: pollen, pollenItems: pollenItems, climateEnabled: climate)
}

private func config(_ input: DiscoveryInput) throws -> [String: [String: Any]] {
    try discoveryComponents(decodeDiscovery(HomeAssistantDiscovery.deviceConfig(for: input)))
}

private func allKeys(_ value: Any) -> [String] {
    if let object = value as? [String: Any] {
        return Array(object.keys) + object.values.flatMap(allKeys)
    }
    if let array = value as? [Any] { return array.flatMap(allKeys) }
    return []
}

func matchesObjectIDPattern(_ text: String) -> Bool {
    text.wholeMatch(of: /[a-z0-9]+(_[a-z0-9]+)*/) != nil
}

@Suite("Home Assistant discovery")
struct DiscoveryTests {
    @Test func topicIsDeviceBasedUnderTheDiscoveryPrefix() {
        #expect(HomeAssistantDiscovery.deviceConfig(for: input()).topic == "homeassistant/device/breeze_home/config")
        var custom = input()
        custom.layout = TopicLayout(prefix: "breeze", discoveryPrefix: "ha")
        #expect(HomeAssistantDiscovery.deviceConfig(for: custom).topic == "ha/device/breeze_home/config")
    }

    @Test func rootHasDeviceOriginAvailabilityAndComponents() throws {
        let root = try decodeDiscovery(HomeAssistantDiscovery.deviceConfig(for: input()))
        // No root `qos`: Home Assistant does not pass it on to the components (each has its own).
        #expect(Set(root.keys) == ["device", "origin", "availability", "components"])

        let device = try #require(root["device"] as? [String: Any])
        #expect(device["identifiers"] as? [String] == ["breeze_home"])
        #expect(device["name"] as? String == "Breeze Home")
        #expect(device["manufacturer"] as? String == "breeze-agent")
        #expect(device["model"] as? String == "Pollen & climate agent")
        #expect(device["sw_version"] as? String == "1.2.3")

        let origin = try #require(root["origin"] as? [String: Any])
        #expect(origin["name"] as? String == "breeze-agent")
        #expect(origin["sw_version"] as? String == "1.2.3")
        #expect((origin["support_url"] as? String)?.hasPrefix("https://") == true)

        let availability = try #require(root["availability"] as? [[String: Any]])
        #expect(availability.count == 1)
        #expect(availability.first?["topic"] as? String == "breeze/status")
        #expect(availability.first?["payload_available"] as? String == "online")
        #expect(availability.first?["payload_not_available"] as? String == "offline")
    }

    @Test func forecastSensorsTrendAndPeak() throws {
        var forecast = input()
        forecast.pollenForecast = true
        let comps = try config(forecast)
        let tomorrow = comps.filter { $0.key.hasSuffix("_tomorrow") }
        #expect(Set(tomorrow.keys) == ["pollen_grass_tomorrow", "pollen_tree_tomorrow", "pollen_weed_tomorrow"])
        let grass = try #require(comps["pollen_grass_tomorrow"])
        #expect(grass["state_topic"] as? String == "breeze/home/pollen/grass/d1/value")
        #expect(grass["state_class"] as? String == "measurement")
        #expect(grass["enabled_by_default"] == nil)
        // Without a forecast day there is no tomorrow sensor.
        #expect(try config(input()).keys.filter { $0.hasSuffix("_tomorrow") }.isEmpty)

        let trend = try #require(comps["pollen_trend"])
        #expect(trend["state_topic"] as? String == "breeze/home/pollen/max/trend")
        #expect(trend["device_class"] as? String == "enum")
        #expect(trend["options"] as? [String] == ["rising", "falling", "steady"])
        #expect(trend["value_template"] as? String == HomeAssistantDiscovery.trendTemplate)
        let peak = try #require(comps["pollen_peak"])
        #expect(peak["state_topic"] as? String == "breeze/home/pollen/peak/level")
        #expect(peak["json_attributes_topic"] as? String == "breeze/home/pollen/peak")
        #expect(peak["options"] as? [String] == ["No pollen", "Low", "Moderate", "High", "Very High"])
        #expect(peak["value_template"] as? String == HomeAssistantDiscovery.levelTemplate)
    }

    @Test func everyComponentCarriesTheQoS() throws {
        var custom = input()
        custom.qos = 2
        for (metric, component) in try config(custom) {
            #expect(component["qos"] as? Int == 2, "\(metric)")
        }
        for (metric, component) in try config(input()) {
            #expect(component["qos"] as? Int == 1, "\(metric)")
        }
    }

    @Test func removedComponentsAreNamedOnceWithTheirPlatformAlone() throws {
        let before = HomeAssistantDiscovery.deviceConfig(for: input()).payload
        var withoutPollen = input()
        withoutPollen.pollenAvailable = false
        withoutPollen.pollenItems = []
        let plain = HomeAssistantDiscovery.deviceConfig(for: withoutPollen).payload
        let update = HomeAssistantDiscovery.addingRemovals(to: plain, replacing: before)
        let components = try #require(
            try decodeDiscovery(DiscoveryMessage(topic: "t", payload: update))["components"] as? [String: [String: Any]]
        )
        let removed = components.filter { $0.value["unique_id"] == nil }
        #expect(Set(removed.keys) == Set(try config(input()).keys).subtracting(try config(withoutPollen).keys))
        #expect(removed["pollen_grass_level"]?.count == 1)
        #expect(removed["pollen_grass_level"]?["platform"] as? String == "sensor")
        #expect(removed["pollen_stale"]?["platform"] as? String == "binary_sensor")
        #expect(components["climate_current"]?["unique_id"] as? String == "breeze_home_climate_current")
        // The next config after the removal leaves the removal entries out again.
        #expect(HomeAssistantDiscovery.addingRemovals(to: plain, replacing: update) == plain)
        // Nothing removed, no previous config, or the device removed: unchanged.
        #expect(HomeAssistantDiscovery.addingRemovals(to: before, replacing: before) == before)
        #expect(HomeAssistantDiscovery.addingRemovals(to: before, replacing: nil) == before)
        #expect(HomeAssistantDiscovery.addingRemovals(to: "", replacing: before) == "")
    }

    @Test func everyComponentHasPlatformNameAndPatternedUniqueID() throws {
        let comps = try config(input())
        #expect(comps.count > 10)
        var uniqueIDs: Set<String> = []
        for (metric, component) in comps {
            let platform = try #require(component["platform"] as? String)
            #expect(["sensor", "binary_sensor", "button", "select"].contains(platform))
            #expect((component["name"] as? String)?.isEmpty == false)
            let uniqueID = try #require(component["unique_id"] as? String)
            #expect(uniqueID == "breeze_home_" + metric)
            #expect(uniqueIDs.insert(uniqueID).inserted, "duplicate unique_id \(uniqueID)")
        }
        #expect(comps["pollen_grass"]?["unique_id"] as? String == "breeze_home_pollen_grass")
    }

    @Test func defaultEntityIDsMatchThePatternAndThePlatform() throws {
        let comps = try config(input())
        for (_, component) in comps {
            let platform = try #require(component["platform"] as? String)
            let entityID = try #require(component["default_entity_id"] as? String)
            let parts = entityID.split(separator: ".", maxSplits: 1).map(String.init)
            #expect(parts.count == 2)
            #expect(parts.first == platform)
            #expect(matchesObjectIDPattern(parts.last ?? ""), "bad object id in \(entityID)")
        }
        #expect(
            comps["pollen_japanese_cedar"]?["default_entity_id"] as? String
                == "sensor.breeze_home_pollen_japanese_cedar")
    }

    @Test func noObjectIDAnywhere() throws {
        let root = try decodeDiscovery(HomeAssistantDiscovery.deviceConfig(for: input()))
        let keys = allKeys(root)
        #expect(keys.contains("unique_id"))
        #expect(!keys.contains("object_id"))
        #expect(!keys.contains("obj_id"))
    }

    @Test func numericPollenSensorsAreMeasurementsWithAttributes() throws {
        let comps = try config(input())
        for item in items.map(\.id) + ["max"] {
            let component = try #require(comps["pollen_" + item])
            #expect(component["platform"] as? String == "sensor")
            #expect(component["state_class"] as? String == "measurement")
            #expect(component["suggested_display_precision"] as? Int == 0)
            #expect(component["state_topic"] as? String == "breeze/home/pollen/\(item)/value")
            // Every one reads the location's summary through a template (SPEC §17, §17.1).
            #expect(component["json_attributes_topic"] as? String == "breeze/home/pollen")
            #expect(component["json_attributes_template"] != nil)
            #expect(component["unit_of_measurement"] == nil)
        }
    }

    @Test func plantsStartDisabledTypesDoNot() throws {
        let comps = try config(input())
        for item in items {
            for metric in ["pollen_" + item.id, "pollen_" + item.id + "_level"] {
                let component = try #require(comps[metric])
                if item.isPlant {
                    #expect(component["enabled_by_default"] as? Bool == false, "\(metric)")
                } else {
                    #expect(component["enabled_by_default"] == nil, "\(metric)")
                }
            }
        }
        #expect(comps["pollen_max"]?["enabled_by_default"] == nil)
    }

    /// SPEC §17.1: a plant with an index today is announced enabled; one with a code and a name
    /// only stays disabled.
    @Test func plantsWithAnIndexTodayAreAnnouncedEnabled() throws {
        let withIndex: [DiscoveryInput.PollenItem] = [
            .init(id: "grass", name: "Grass", isPlant: false, hasIndex: false),
            .init(id: "birch", name: "Birch", isPlant: true, hasIndex: true),
            .init(id: "oak", name: "Oak", isPlant: true, hasIndex: false),
        ]
        let comps = try config(input(pollenItems: withIndex))
        for metric in ["pollen_birch", "pollen_birch_level", "pollen_grass", "pollen_grass_level"] {
            #expect(comps[metric]?["enabled_by_default"] == nil, "\(metric)")
        }
        for metric in ["pollen_oak", "pollen_oak_level"] {
            #expect(comps[metric]?["enabled_by_default"] as? Bool == false, "\(metric)")
        }
    }

    @Test func enumLevelSensorsHaveOptionsButNoStateClassOrUnit() throws {
        let comps = try config(input())
        let allEnums = comps.filter { $0.value["device_class"] as? String == "enum" }
        #expect(
            Set(allEnums.keys)
                == Set((items.map(\.id) + ["max"]).map { "pollen_\($0)_level" } + ["pollen_trend", "pollen_peak"]))
        let enums = allEnums.filter { $0.key.hasSuffix("_level") }
        for (metric, component) in enums {
            #expect(component["state_class"] == nil, "\(metric)")
            #expect(component["unit_of_measurement"] == nil, "\(metric)")
            #expect(component["options"] as? [String] == ["No pollen", "Low", "Moderate", "High", "Very High"])
            #expect(component["value_template"] as? String == HomeAssistantDiscovery.levelTemplate)
            #expect((component["state_topic"] as? String)?.hasSuffix("/level") == true)
        }
        #expect(comps["pollen_max_level"]?["state_topic"] as? String == "breeze/home/pollen/max/level")
    }

    @Test func temperaturesAreCelsiusFromTheClimateJSON() throws {
        let comps = try config(input())
        for metric in ["climate_current", "climate_baseline", "climate_change"] {
            let component = try #require(comps[metric])
            #expect(component["unit_of_measurement"] as? String == "°C")
            #expect(component["state_topic"] as? String == "breeze/home/climate")
            #expect(component["state_class"] as? String == "measurement")
            #expect((component["value_template"] as? String)?.contains("celsius") == true)
        }
        #expect(comps["climate_current"]?["device_class"] as? String == "temperature")
        #expect(comps["climate_baseline"]?["device_class"] as? String == "temperature")
        #expect(comps["climate_change"]?["device_class"] as? String == "temperature_delta")
        #expect((comps["climate_current"]?["value_template"] as? String)?.contains("'forecast'") == true)
        #expect((comps["climate_change"]?["value_template"] as? String)?.contains("change.celsius") == true)
    }

    @Test func refreshButtonAndUnitSelect() throws {
        let comps = try config(input())
        let button = try #require(comps["refresh"])
        #expect(button["platform"] as? String == "button")
        #expect(button["command_topic"] as? String == "breeze/home/refresh")
        #expect(button["payload_press"] as? String == "PRESS")

        let select = try #require(comps["climate_unit"])
        #expect(select["platform"] as? String == "select")
        #expect(select["options"] as? [String] == ["°C", "°F"])
        #expect(select["state_topic"] as? String == "breeze/home/climate/unit")
        #expect(select["command_topic"] as? String == "breeze/home/climate/unit/set")
    }

    @Test func diagnosticSensors() throws {
        let comps = try config(input())
        let updated = try #require(comps["pollen_updated_at"])
        #expect(updated["device_class"] as? String == "timestamp")
        #expect(updated["state_topic"] as? String == "breeze/home/pollen/updated_at")
        let stale = try #require(comps["pollen_stale"])
        #expect(stale["platform"] as? String == "binary_sensor")
        #expect(stale["state_topic"] as? String == "breeze/home/pollen/stale")
        #expect(stale["payload_on"] as? String == "true")
        let calls = try #require(comps["api_calls_today"])
        #expect(calls["state_topic"] as? String == "breeze/diagnostics")
        #expect((calls["value_template"] as? String)?.contains("api_calls_today['home']") == true)
        for metric in ["pollen_updated_at", "pollen_stale", "climate_stale", "api_calls_today"] {
            #expect(comps[metric]?["entity_category"] as? String == "diagnostic", "\(metric)")
        }
        // Only diagnostics (and the config select) are categorized; the data entities are not.
        #expect(comps["pollen_grass"]?["entity_category"] == nil)
        #expect(comps["climate_current"]?["entity_category"] == nil)
        #expect(comps["climate_unit"]?["entity_category"] as? String == "config")
    }

    @Test func dashesInPrefixAndLocationAreSlugged() throws {
        let message = HomeAssistantDiscovery.deviceConfig(for: input(prefix: "my-breeze", location: "summer-house"))
        #expect(message.topic == "homeassistant/device/my_breeze_summer_house/config")
        let root = try decodeDiscovery(message)
        let device = try #require(root["device"] as? [String: Any])
        #expect(device["identifiers"] as? [String] == ["my_breeze_summer_house"])
        let comps = try discoveryComponents(root)
        let grass = try #require(comps["pollen_grass"])
        #expect(grass["unique_id"] as? String == "my_breeze_summer_house_pollen_grass")
        #expect(grass["default_entity_id"] as? String == "sensor.my_breeze_summer_house_pollen_grass")
        // Topics keep the real names: only ids are slugged.
        #expect(grass["state_topic"] as? String == "my-breeze/summer-house/pollen/grass/value")
        let availability = try #require(root["availability"] as? [[String: Any]])
        #expect(availability.first?["topic"] as? String == "my-breeze/status")
    }

    @Test func pollenComponentsAbsentWhenPollenUnavailable() throws {
        let comps = try config(input(pollen: false))
        #expect(comps.keys.filter { $0.hasPrefix("pollen_") }.isEmpty)
        #expect(comps["climate_current"] != nil)
        #expect(comps["refresh"] != nil)
        #expect(comps["api_calls_today"] != nil)
    }

    @Test func climateComponentsAbsentWhenClimateDisabled() throws {
        let comps = try config(input(climate: false))
        #expect(comps.keys.filter { $0.hasPrefix("climate_") }.isEmpty)
        #expect(comps["pollen_grass"] != nil)
    }

    /// A removed location's device is removed by an empty retained payload on this topic (the
    /// publisher clears every topic under no scope): the layout and discovery must agree on it.
    @Test func theConfigTopicIsTheLayoutsDeviceConfigTopic() {
        let topic = HomeAssistantDiscovery.deviceConfig(for: input(prefix: "my-breeze", location: "summer-house")).topic
        #expect(topic == TopicLayout(prefix: "my-breeze").location("summer-house").deviceConfig.name)
        #expect(topic == "homeassistant/device/my_breeze_summer_house/config")
    }

    @Test func clashingItemIDsKeepUniqueIDsUnique() throws {
        let clashing =
            items + [
                .init(id: "max", name: "Max", isPlant: true),
                .init(id: "grass_level", name: "Grass level", isPlant: true),
            ]
        let comps = try config(input(pollenItems: clashing))
        // The summary keeps `pollen_max`; the clashing items are left out rather than duplicated.
        #expect(comps["pollen_max"]?["state_topic"] as? String == "breeze/home/pollen/max/value")
        #expect(comps["pollen_grass_level"]?["device_class"] as? String == "enum")
        let ids = comps.values.compactMap { $0["unique_id"] as? String }
        #expect(Set(ids).count == ids.count)
        #expect(comps.count == (try config(input())).count)
    }

    @Test func payloadIsDeterministicAndOrdered() {
        let message = HomeAssistantDiscovery.deviceConfig(for: input())
        #expect(message == HomeAssistantDiscovery.deviceConfig(for: input()))
        #expect(message.payload.hasPrefix("{\"device\":{\"identifiers\":[\"breeze_home\"]"))
    }
}

@Suite("Discovery naming")
struct DiscoveryNamingTests {
    @Test(arguments: [
        ("breeze", "breeze"), ("my-breeze", "my_breeze"), ("a-b-c", "a_b_c"), ("home/breeze", "home_breeze"),
        ("Breeze", "breeze"), ("x__y", "x__y"),
    ])
    func slug(input: String, expected: String) {
        #expect(DiscoveryNaming.slug(input) == expected)
    }

    @Test(arguments: [
        ("breeze_home_pollen_grass", "breeze_home_pollen_grass"), ("_a__b_", "a_b"), ("a--b", "a_b"),
        ("Home/Breeze-1", "home_breeze_1"),
    ])
    func entityObjectID(input: String, expected: String) {
        #expect(DiscoveryNaming.entityObjectID(input) == expected)
        #expect(matchesObjectIDPattern(DiscoveryNaming.entityObjectID(input)))
    }

    @Test func birthTopicAndAvailability() {
        #expect(TopicLayout(prefix: "breeze").homeAssistantBirth == "homeassistant/status")
        #expect(TopicLayout(prefix: "breeze", discoveryPrefix: "ha").homeAssistantBirth == "ha/status")
        #expect(TopicLayout(prefix: "breeze").status == "breeze/status")
    }
}

/// A generator that always returns the same word: pins the delay to a known value.
private struct ConstantGenerator: RandomNumberGenerator {
    let word: UInt64
    mutating func next() -> UInt64 { word }
}

@Suite("Re-announce delay")
struct ReannounceDelayTests {
    @Test func endsOfTheRangeAreOneAndTenSeconds() {
        var low = ConstantGenerator(word: 0)
        #expect(DiscoveryNaming.reannounceDelay(using: &low) == .seconds(1))
        var high = ConstantGenerator(word: 9_000)
        #expect(DiscoveryNaming.reannounceDelay(using: &high) == .seconds(10))
        var wrapped = ConstantGenerator(word: 9_001)
        #expect(DiscoveryNaming.reannounceDelay(using: &wrapped) == .seconds(1))
        var middle = ConstantGenerator(word: 4_500)
        #expect(DiscoveryNaming.reannounceDelay(using: &middle) == .milliseconds(5_500))
    }

    @Test func delaysStayInRangeAndSpread() {
        var generator = SplitMix64(seed: 42)
        let delays = (0..<1_000).map { _ in DiscoveryNaming.reannounceDelay(using: &generator) }
        #expect(delays.allSatisfy { $0 >= .seconds(1) && $0 <= .seconds(10) })
        #expect(delays.contains { $0 < .seconds(3) })
        #expect(delays.contains { $0 > .seconds(8) })
    }
}
