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

/// The DWD species in the DWD integrations' shape (`<p>/<loc>/pollen/<id>/dwd`) and the Home
/// Assistant entities of several sources: the card sensors, the "(all sources)" level and the
/// "sources disagree" binary sensor.
@Suite("DWD card shape and the consensus entities")
struct DWDCardTests {
    static let topics = TopicLayout(prefix: "breeze").location("berlin")

    static func card(_ tree: TopicTree, _ id: String) throws -> [String: Any] {
        let payload = try #require(tree[topics.pollenDWD(id)])
        return try #require(JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any])
    }

    @Test("three days in half steps, the German words, null for -1 and missing; Berlin's offset in the times")
    func cardPayload() throws {
        let berlin = try zoneInfo("Europe/Berlin")
        // Hasel 1, 2, 3 → 1, 2, 3; Erle "-1" today, then "0", "0"; the other six species absent.
        let document = try DWDPollen.decode(DWDPollenTests.document(hasel: ("0-1", "1-2", "2-3")), berlin: berlin)
        let tree = DWDCardTopics.tree(
            topics: Self.topics, document: document, key: 50, now: utc(2026, 9, 29, 12), berlin: berlin)
        #expect(tree.count == 8)
        let hazel = try Self.card(tree, "hazel")
        #expect(hazel["species"] as? String == "Hasel")
        #expect(hazel["region_id"] as? Int == 50)
        #expect(hazel["region_name"] as? String == "Brandenburg und Berlin")
        #expect(hazel["state_today"] as? Double == 0.5)
        #expect(hazel["state_tomorrow"] as? Double == 1.5)
        #expect(hazel["state_in_2_days"] as? Double == 2.5)
        #expect(hazel["state_today_desc"] as? String == "keine bis geringe Belastung")
        #expect(hazel["state_tomorrow_desc"] as? String == "geringe bis mittlere Belastung")
        #expect(hazel["state_in_2_days_desc"] as? String == "mittlere bis hohe Belastung")
        // Summer time on 29 September: +02:00.
        #expect(hazel["last_update"] as? String == "2026-09-29T11:00:00+02:00")
        #expect(hazel["next_update"] as? String == "2026-09-30T11:00:00+02:00")
        #expect(hazel["stale"] as? Bool == false)
        let alder = try Self.card(tree, "alder")
        #expect(alder["state_today"] is NSNull)
        #expect(alder["state_today_desc"] is NSNull)
        #expect(alder["state_tomorrow"] as? Int == 0)
        #expect(alder["state_tomorrow_desc"] as? String == "keine Belastung")
        let rye = try Self.card(tree, "rye")
        #expect(rye["species"] as? String == "Roggen")
        #expect(rye["state_today"] is NSNull)
        // Whole numbers are written without a fraction, as the DWD integrations give them.
        let whole = try DWDPollen.decode(DWDPollenTests.document(hasel: ("1", "2", "3")), berlin: berlin)
        let wholeTree = DWDCardTopics.tree(
            topics: Self.topics, document: whole, key: 50, now: utc(2026, 9, 29, 12), berlin: berlin)
        let payload = try #require(wholeTree[Self.topics.pollenDWD("hazel")])
        #expect(payload.contains(#""state_today":1,"state_tomorrow":2,"state_in_2_days":3"#), "\(payload)")
    }

    @Test("winter time +01:00; the day shift at Berlin midnight; nothing after 48 h; no row, no topics")
    func cardDays() throws {
        let berlin = try zoneInfo("Europe/Berlin")
        let document = try DWDPollen.decode(
            DWDPollenTests.document(
                lastUpdate: "2026-12-06 11:00 Uhr", next: "2026-12-07 11:00 Uhr", hasel: ("0", "1", "2")),
            berlin: berlin)
        let issued = utc(2026, 12, 6, 10)
        let today = try Self.card(
            DWDCardTopics.tree(topics: Self.topics, document: document, key: 50, now: issued + 3600, berlin: berlin),
            "hazel")
        #expect(today["last_update"] as? String == "2026-12-06T11:00:00+01:00")
        let states = [today["state_today"], today["state_tomorrow"], today["state_in_2_days"]]
        #expect(states.map { $0 as? Int } == [0, 1, 2])
        // 00:30 Berlin on 7 December, the document not replaced: tomorrow is today.
        let shifted = try Self.card(
            DWDCardTopics.tree(
                topics: Self.topics, document: document, key: 50, now: utc(2026, 12, 6, 23, 30), berlin: berlin),
            "hazel")
        #expect(shifted["state_today"] as? Int == 1)
        #expect(shifted["state_tomorrow"] as? Int == 2)
        #expect(shifted["state_in_2_days"] is NSNull)
        let stale = try Self.card(
            DWDCardTopics.tree(
                topics: Self.topics, document: document, key: 50, now: issued + 48 * 3600 + 1, berlin: berlin),
            "hazel")
        #expect(stale["stale"] as? Bool == true)
        #expect(stale["state_today"] is NSNull)
        #expect(
            DWDCardTopics.tree(topics: Self.topics, document: document, key: 121, now: issued, berlin: berlin).count
                == 0)
    }

    static func components(consensus: Set<String>, region: Int?) throws -> [String: [String: Any]] {
        var input = DiscoveryInput(
            agentVersion: "1.2.3", location: .init(id: "berlin", name: "Berlin"), pollenAvailable: true,
            pollenItems: [
                .init(id: "grass", name: "Grass", isPlant: false),
                .init(id: "graminales", name: "Grasses", isPlant: true, hasIndex: true),
                .init(id: "hazel", name: "Hazel", isPlant: true, hasIndex: true),
            ], climateEnabled: false)
        input.consensusItems = consensus
        input.dwdRegion = region
        return try discoveryComponents(decodeDiscovery(HomeAssistantDiscovery.deviceConfig(for: input)))
    }

    @Test("the card's sensors: entity ids the card's dwd pattern finds, state and attributes from the dwd topic")
    func cardSensors() throws {
        let components = try Self.components(consensus: [], region: 50)
        let keys = ["hasel", "erle", "esche", "birke", "graeser", "roggen", "beifuss", "ambrosia"]
        let pattern = /sensor\.(?:\w+_)*pollenflug_([a-z]+)_(\d+)/
        for (key, species) in zip(keys, DWDPollen.species) {
            let sensor = try #require(components["pollenflug_\(key)_50"], "\(key)")
            let entity = try #require(sensor["default_entity_id"] as? String)
            #expect(entity == "sensor.breeze_berlin_pollenflug_\(key)_50")
            let match = try #require(entity.wholeMatch(of: pattern))
            #expect(match.1 == key[...])
            #expect(match.2 == "50")
            let topic = "breeze/berlin/pollen/\(species.code.lowercased())/dwd"
            #expect(sensor["state_topic"] as? String == topic)
            #expect(sensor["json_attributes_topic"] as? String == topic)
            #expect(sensor["value_template"] as? String == "{{ value_json.state_today }}")
            #expect(sensor["state_class"] as? String == "measurement")
            #expect(sensor["enabled_by_default"] == nil)
        }
        #expect(components["pollenflug_graeser_50"]?["name"] as? String == "Pollenflug Gr\u{00E4}ser")
        #expect(components["pollenflug_beifuss_50"]?["name"] as? String == "Pollenflug Beifu\u{00DF}")
        #expect(try Self.components(consensus: [], region: nil).keys.allSatisfy { !$0.hasPrefix("pollenflug") })
    }

    @Test("consensus: an (all sources) level and a disagree binary sensor per item two sources carry; plants disabled")
    func consensusEntities() throws {
        let components = try Self.components(consensus: ["grass", "graminales"], region: nil)
        let level = try #require(components["pollen_grass_consensus"])
        #expect(level["name"] as? String == "Grass pollen (all sources)")
        #expect(level["state_topic"] as? String == "breeze/berlin/pollen/grass/consensus/level")
        #expect(level["json_attributes_topic"] as? String == "breeze/berlin/pollen/grass/consensus")
        #expect(level["device_class"] as? String == "enum")
        #expect(level["value_template"] as? String == HomeAssistantDiscovery.levelTemplate)
        #expect(level["enabled_by_default"] == nil)
        let disagree = try #require(components["pollen_grass_disagree"])
        #expect(disagree["platform"] as? String == "binary_sensor")
        #expect(disagree["default_entity_id"] as? String == "binary_sensor.breeze_berlin_pollen_grass_disagree")
        #expect(disagree["name"] as? String == "Grass pollen: sources disagree")
        #expect(disagree["state_topic"] as? String == "breeze/berlin/pollen/grass/consensus")
        #expect(components["pollen_graminales_consensus"]?["enabled_by_default"] as? Bool == false)
        #expect(components["pollen_graminales_disagree"]?["enabled_by_default"] as? Bool == false)
        // An item one source carries gets neither.
        #expect(components["pollen_hazel_consensus"] == nil)
        #expect(components["pollen_hazel_disagree"] == nil)
    }
}
