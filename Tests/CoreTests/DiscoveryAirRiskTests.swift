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

@Suite("Home Assistant discovery: air and risk")
struct DiscoveryAirRiskTests {
    func components(air: Bool, profiles: [DiscoveryInput.Profile], prefix: String = "breeze") throws
        -> [String: [String: Any]]
    {
        var input = DiscoveryInput(
            layout: TopicLayout(prefix: prefix), agentVersion: "1.2.3", location: .init(id: "home", name: "Home"),
            pollenAvailable: true, pollenItems: [.init(id: "grass", name: "Grass", isPlant: false)],
            climateEnabled: false)
        input.airEnabled = air
        input.profiles = profiles
        return try discoveryComponents(decodeDiscovery(HomeAssistantDiscovery.deviceConfig(for: input)))
    }

    @Test func offByDefault() throws {
        let all = try components(air: false, profiles: [])
        #expect(!all.keys.contains { $0.hasPrefix("air_") || $0.hasPrefix("risk_") })
    }

    @Test func airSensors() throws {
        let all = try components(air: true, profiles: [])
        for metric in ["european_aqi", "us_aqi"] {
            let sensor = try #require(all["air_\(metric)"])
            #expect(sensor["device_class"] as? String == "aqi")
            #expect(sensor["unit_of_measurement"] == nil)
            #expect(sensor["state_topic"] as? String == "breeze/home/air/\(metric)/value")
            #expect(sensor["state_class"] as? String == "measurement")
            #expect(sensor["suggested_display_precision"] as? Int == 0)
        }
        for (metric, deviceClass) in [("pm2_5", "pm25"), ("pm10", "pm10")] {
            let sensor = try #require(all["air_\(metric)"])
            #expect(sensor["device_class"] as? String == deviceClass)
            // GREEK SMALL LETTER MU, g, /, m, SUPERSCRIPT THREE: Home Assistant's own spelling.
            let unit = try #require(sensor["unit_of_measurement"] as? String)
            #expect(unit.unicodeScalars.map(\.value) == [0x03BC, 0x67, 0x2F, 0x6D, 0xB3])
            #expect(!unit.unicodeScalars.contains { $0.value == 0x00B5 })  // not MICRO SIGN
            #expect(sensor["suggested_display_precision"] as? Int == 1)
            #expect(all["air_\(metric)_level"] == nil)
        }
        for metric in ["uv_index", "uv_index_max"] {
            let sensor = try #require(all["air_\(metric)"])
            #expect(sensor["device_class"] == nil)
            #expect(sensor["unit_of_measurement"] as? String == "UV index")
        }
        let level = try #require(all["air_european_aqi_level"])
        #expect(level["device_class"] as? String == "enum")
        #expect(level["state_class"] == nil && level["unit_of_measurement"] == nil)
        #expect(
            level["options"] as? [String] == ["Good", "Fair", "Moderate", "Poor", "Very poor", "Extremely poor"])
        #expect(level["value_template"] as? String == "{{ None if value == 'Unknown' else value }}")
        #expect((all["air_uv_index_max_level"]?["options"] as? [String])?.last == "Extreme")
        #expect(all["air_stale"]?["platform"] as? String == "binary_sensor")
        #expect(all["air_stale"]?["state_topic"] as? String == "breeze/home/air/stale")
        #expect(all["air_updated_at"]?["device_class"] as? String == "timestamp")
        for (key, value) in all where key.hasPrefix("air_") {
            let id = try #require(value["default_entity_id"] as? String)
            #expect(matchesObjectIDPattern(String(id.split(separator: ".")[1])), "\(id)")
            #expect(value["unique_id"] as? String == "breeze_home_\(key)")
        }
    }

    @Test func riskPerProfile() throws {
        let all = try components(
            air: false, profiles: [.init(id: "anna", name: "Anna"), .init(id: "ben-2", name: "Ben")], prefix: "my-hub")
        let anna = try #require(all["risk_anna"])
        #expect(anna["platform"] as? String == "sensor" && anna["name"] as? String == "Anna pollen risk")
        #expect(anna["device_class"] as? String == "enum")
        #expect(anna["options"] as? [String] == ["No pollen", "Low", "Moderate", "High", "Very High"])
        #expect(
            anna["value_template"] as? String
                == "{{ 'No pollen' if value == 'None' else (None if value == 'Unknown' else value) }}")
        #expect(anna["state_topic"] as? String == "my-hub/home/risk/anna/level")
        #expect(anna["json_attributes_topic"] as? String == "my-hub/home/risk/anna")
        let alert = try #require(all["risk_ben_2_alert"])
        #expect(alert["platform"] as? String == "binary_sensor" && alert["device_class"] == nil)
        #expect(alert["state_topic"] as? String == "my-hub/home/risk/ben-2/alert")
        #expect(alert["payload_on"] as? String == "true" && alert["payload_off"] as? String == "false")
        #expect(alert["unique_id"] as? String == "my_hub_home_risk_ben_2_alert")
        #expect(alert["default_entity_id"] as? String == "binary_sensor.my_hub_home_risk_ben_2_alert")
    }

    /// The topics the entities read are the ones the tree publishes.
    @Test func entitiesReadPublishedTopics() throws {
        let all = try components(air: true, profiles: [.init(id: "anna", name: "Anna")])
        let topics = TopicLayout(prefix: "breeze").location("home")
        let reading = AirReading(today: date(2026, 6, 1), hour: 0, tenths: [.europeanAQI: 100])
        var published = Set(AirTopics.tree(topics: topics, reading: reading, fetchedAt: 0, stale: false).topics)
        let selection = PollenSelection.select(
            report: PollenReport(
                source: .google,
                days: [
                    PollenDay(
                        date: date(2026, 6, 1),
                        items: [PollenItem(code: "BIRCH", name: "Birch", isPlant: true, value: 3)])
                ]), today: date(2026, 6, 1), days: 1, fetchedAt: 0, now: 0, stale: false)
        published.formUnion(
            RiskTopics.tree(
                topics: topics,
                profiles: [RiskProfile(id: "anna", name: "Anna", allergens: ["birch"], alertLevel: .high)],
                selection: selection
            ).topics)
        for (key, value) in all where key.hasPrefix("air_") || key.hasPrefix("risk_") {
            for field in ["state_topic", "json_attributes_topic"] {
                guard let topic = value[field] as? String else { continue }
                #expect(published.contains(topic), "\(key).\(field) reads \(topic), which is not published")
            }
        }
    }
}
