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

@testable import BreezeCore
import Foundation
import Testing

/// SPEC §17: the attributes the pollen Lovelace cards read, on every item's numeric sensor, for
/// both sources. The template itself runs in a real Home Assistant (test/ha); here: its exact
/// text per item, and that the summary JSON it reads has what it picks, equal to the item JSON.
@Suite("Discovery: pollen card attributes")
struct DiscoveryCardAttributesTests {
    /// The template for `birch`, written out once (a plant: with `code`).
    static let birchTemplate =
        "{%- set ns = namespace(item={}, forecast=[]) -%}"
        + "{%- for i in value_json['items'] if i.id == 'birch' %}{% set ns.item = i %}{% endfor -%}"
        + "{%- for day in value_json.days[1:] %}{% set offset = loop.index %}"
        + "{% for i in day['items'] if i.id == 'birch' %}"
        + "{% set ns.forecast = ns.forecast + [{'offset': offset, 'date': day.date,"
        + " 'has_index': i.value is not none, 'value': i.value, 'category': i.level,"
        + " 'color_hex': i.color, 'level': i.level, 'color': i.color}] %}"
        + "{% endfor %}{% endfor -%}"
        + "{{ dict(ns.item, attribution=value_json.attribution, forecast=ns.forecast, code='birch') | tojson }}"

    /// The expected template of any item: birch's with the id swapped, without `code` for a type.
    static func expectedTemplate(_ id: String, isPlant: Bool) -> String {
        var text = birchTemplate.replacingOccurrences(of: "'birch'", with: "'\(id)'")
        if !isPlant { text = text.replacingOccurrences(of: ", code='\(id)'", with: "") }
        return text
    }

    static let typeIcons = ["grass": "mdi:grass", "tree": "mdi:tree", "weed": "mdi:flower-tulip"]

    struct Source: Sendable, CustomStringConvertible {
        var name: String
        var fixture: String
        var today: CivilDate
        var attribution: String
        var description: String { name }
    }

    static let sources = [
        Source(
            name: "google", fixture: PollenFixtures.spain, today: date(2026, 6, 13),
            attribution: "Includes pollen data from Google"),
        Source(
            name: "open-meteo", fixture: PollenFixtures.brno, today: date(2026, 10, 1),
            attribution: "Pollen data by Open-Meteo.com (CC BY 4.0, https://open-meteo.com/)."),
    ]

    static func report(_ source: Source) throws -> PollenReport {
        let body = try PollenFixtures.bytes(source.fixture)
        return try source.name == "google" ? googleReport(body) : openMeteoReport(body)
    }

    static func selection(_ source: Source) throws -> PollenSelection {
        PollenSelection.select(
            report: try report(source), today: source.today, days: 5, fetchedAt: 0, now: 0, stale: false)
    }

    /// The discovery input the agent builds from a selection (DiscoverySink).
    static func input(_ selection: PollenSelection) -> DiscoveryInput {
        DiscoveryInput(
            agentVersion: "1.2.3", location: .init(id: "home", name: "Home"), pollenAvailable: true,
            pollenItems: selection.items.map { .init(id: $0.topicID, name: $0.name, isPlant: $0.isPlant) },
            climateEnabled: false, pollenForecast: true)
    }

    @Test(arguments: sources) func everyItemSensorReadsTheSummaryThroughItsTemplate(_ source: Source) throws {
        let selection = try Self.selection(source)
        let comps = try discoveryComponents(
            decodeDiscovery(HomeAssistantDiscovery.deviceConfig(for: Self.input(selection))))
        let ids = selection.items.map(\.topicID)
        // Both fixtures have the three types and plants.
        #expect(Set(Self.typeIcons.keys).isSubset(of: Set(ids)))
        #expect(selection.items.contains { $0.isPlant })
        for item in selection.items {
            let component = try #require(comps["pollen_" + item.topicID])
            #expect(component["json_attributes_topic"] as? String == "breeze/home/pollen", "\(item.topicID)")
            #expect(
                component["json_attributes_template"] as? String
                    == Self.expectedTemplate(item.topicID, isPlant: item.isPlant), "\(item.topicID)")
            let icon = item.isPlant ? "mdi:flower-pollen" : Self.typeIcons[item.topicID]
            #expect(component["icon"] as? String == icon, "\(item.topicID)")
            // The level and tomorrow sensors stay without attributes.
            let level = try #require(comps["pollen_\(item.topicID)_level"])
            #expect(level["json_attributes_topic"] == nil && level["json_attributes_template"] == nil)
            #expect(level["icon"] as? String == "mdi:flower-pollen-outline")
            if !item.isPlant {
                let tomorrow = try #require(comps["pollen_\(item.topicID)_tomorrow"])
                #expect(tomorrow["json_attributes_topic"] == nil && tomorrow["icon"] as? String == "mdi:flower-pollen")
            }
        }
        // The max carries the overall-risk attributes (SPEC §17.1): `top_pollen_codes` tells the
        // card it is the summary, not an item.
        let max = try #require(comps["pollen_max"])
        #expect(max["json_attributes_topic"] as? String == "breeze/home/pollen")
        #expect(max["json_attributes_template"] as? String == PollenCardAttributes.overallRiskTemplate)
        let template = PollenCardAttributes.overallRiskTemplate
        #expect(template.contains("top_pollen_codes=ns.codes") && !template.contains("top_value"))
        #expect(template.contains("attribution=value_json.attribution") && template.contains("forecast=ns.forecast"))
    }

    /// What the template reads: the summary's attribution, today's item in `items` (every field
    /// of the item JSON but its forecast), and per later day (dated today + offset) the item with
    /// the value, level and color the item JSON's forecast has.
    @Test(arguments: sources) func summaryHasWhatTheTemplatePicks(_ source: Source) throws {
        let selection = try Self.selection(source)
        let topics = TopicLayout(prefix: "breeze").location("home")
        let tree = PollenTopics.tree(topics: topics, selection: selection, fetchedAt: 0)
        let summary = try json(try #require(tree["breeze/home/pollen"]))
        let attribution = try #require(summary["attribution"] as? String)
        #expect(attribution.hasPrefix(source.attribution))
        if source.name == "google" {
            #expect(attribution.contains("pollen data from Google"))  // what the leading card matches
        }
        let items = try #require(summary["items"] as? [[String: Any]])
        let days = try #require(summary["days"] as? [[String: Any]])
        #expect(days.count == selection.days.count && days.count >= 2)
        for item in selection.items {
            let id = item.topicID
            var itemJSON = try json(try #require(tree["breeze/home/pollen/" + id]))
            let forecast = try #require(itemJSON.removeValue(forKey: "forecast") as? [[String: Any]])
            let today = try #require(items.first { $0["id"] as? String == id })
            #expect(try canonical(today) == canonical(itemJSON), "\(id)")
            #expect(forecast.count == days.count - 1)
            for (offset, day) in days.enumerated().dropFirst() {
                #expect(day["date"] as? String == source.today.adding(days: offset).description)
                let entry = try #require((day["items"] as? [[String: Any]])?.first { $0["id"] as? String == id })
                let expected = forecast[offset - 1]
                #expect(entry["date"] == nil && expected["date"] as? String == day["date"] as? String)
                for key in ["value", "level", "color"] {
                    #expect("\(entry[key] ?? "missing")" == "\(expected[key] ?? "missing")", "\(id) d\(offset) \(key)")
                }
            }
        }
    }

    /// The object serialized with sorted keys: equal objects give equal text.
    private func canonical(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }
}
