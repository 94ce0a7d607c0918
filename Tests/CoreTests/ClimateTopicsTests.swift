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

import Foundation
import Testing

@testable import BreezeCore

/// A full example from raw response bodies to topics, its numbers worked out by hand:
/// Berlin, today 2026-07-15; 1980: 19.6, 2000: null, 2020: 21.6, 2026 (forecast): 22.3 °C.
/// - baseline 1980 (19.6); change 22.3 − 19.6 = 2.7 °C = 4.86 °F → `+4.9°F`, red;
/// - deviations 0.0 (gray), 2.0 (exactly 2.0: orange), 2.7 (red);
/// - °F: 19.6 × 1.8 + 32 = 67.28 → 67.3; 21.6 → 70.88 → 70.9; 22.3 → 72.14 → 72.1;
/// - bars over min 19.6, max 22.3 (range 2.7): 0, 2.0 / 2.7 = 0.7407 → 0.741, 1.
@Suite struct ClimateTopicsTests {
    static let today = date(2026, 7, 15)
    static let archiveBody = """
        [{"latitude":52.52,"longitude":13.419998,"generationtime_ms":0.1,"utc_offset_seconds":7200,"timezone":"Europe/Berlin","timezone_abbreviation":"GMT+2","elevation":38.0,"daily_units":{"time":"iso8601","temperature_2m_max":"°C"},"daily":{"time":["1980-07-15"],"temperature_2m_max":[19.6]}},\
        {"latitude":52.52,"longitude":13.419998,"generationtime_ms":0.1,"utc_offset_seconds":7200,"timezone":"Europe/Berlin","timezone_abbreviation":"GMT+2","elevation":38.0,"daily_units":{"time":"iso8601","temperature_2m_max":"°C"},"daily":{"time":["2000-07-15"],"temperature_2m_max":[null]}},\
        {"latitude":52.52,"longitude":13.419998,"generationtime_ms":0.1,"utc_offset_seconds":7200,"timezone":"Europe/Berlin","timezone_abbreviation":"GMT+2","elevation":38.0,"daily_units":{"time":"iso8601","temperature_2m_max":"°C"},"daily":{"time":["2020-07-15"],"temperature_2m_max":[21.6]}}]
        """
    // Local midnight 2026-07-15 in Berlin (UTC+2) as unixtime: 1_784_066_400.
    static let forecastBody =
        ##"{"latitude":52.52,"longitude":13.419998,"utc_offset_seconds":7200,"timezone":"Europe/Berlin","daily_units":{"time":"unixtime","temperature_2m_max":"°C"},"daily":{"time":[1784066400],"temperature_2m_max":[22.3]}}"##

    static func fullTrend() throws -> ClimateTrend {
        let points = ClimateRequestPlan.points(today: today, years: [2020, 1980, 2000])
        return try ClimateTrend.compute(
            today: today, points: points,
            archive: OpenMeteoDailyDecoder.decode(Array(archiveBody.utf8)),
            forecast: OpenMeteoDailyDecoder.decode(Array(forecastBody.utf8)))
    }

    @Test func fullExampleInFahrenheit() throws {
        let trend = try Self.fullTrend()
        #expect(trend.omittedYears == [2000])
        let tree = ClimateTopics.tree(
            topics: TopicLayout(prefix: "breeze").location("home"), trend: trend, unit: .fahrenheit,
            updatedAt: "2026-07-15T04:05:06Z",
            stale: false)
        let expectedJSON =
            ##"{"date":"2026-07-15","unit":"°F","baseline_year":1980,"updated_at":"2026-07-15T04:05:06Z","stale":false,"##
            + ##""attribution":"Weather data by Open-Meteo.com (CC BY 4.0, https://open-meteo.com/)","##
            + ##""change":{"celsius":2.7,"value":4.9,"text":"+4.9°F","color":"#ff3b30"},"points":["##
            + ##"{"year":1980,"date":"1980-07-15","celsius":19.6,"value":67.3,"text":"67.3°F","color":"#8e8e93","deviation_celsius":0.0,"bar":0.000,"source":"archive"},"##
            + ##"{"year":2020,"date":"2020-07-15","celsius":21.6,"value":70.9,"text":"70.9°F","color":"#ff9500","deviation_celsius":2.0,"bar":0.741,"source":"archive"},"##
            + ##"{"year":2026,"date":"2026-07-15","celsius":22.3,"value":72.1,"text":"72.1°F","color":"#ff3b30","deviation_celsius":2.7,"bar":1.000,"source":"forecast"}]}"##
        #expect(tree["breeze/home/climate"] == expectedJSON)
        let expected: [(String, String)] = [
            ("breeze/home/climate", expectedJSON),
            ("breeze/home/climate/change", "4.9"),
            ("breeze/home/climate/change/text", "+4.9°F"),
            ("breeze/home/climate/change/color", "#ff3b30"),
            ("breeze/home/climate/1980", "67.3"),
            ("breeze/home/climate/1980/text", "67.3°F"),
            ("breeze/home/climate/1980/color", "#8e8e93"),
            ("breeze/home/climate/2020", "70.9"),
            ("breeze/home/climate/2020/text", "70.9°F"),
            ("breeze/home/climate/2020/color", "#ff9500"),
            ("breeze/home/climate/2026", "72.1"),
            ("breeze/home/climate/2026/text", "72.1°F"),
            ("breeze/home/climate/2026/color", "#ff3b30"),
            ("breeze/home/climate/current", "72.1"),
            ("breeze/home/climate/current/text", "72.1°F"),
            ("breeze/home/climate/current/color", "#ff3b30"),
            ("breeze/home/climate/unit", "°F"),
        ]
        #expect(tree.topics == expected.map(\.0))
        for (topic, payload) in expected { #expect(tree[topic] == payload, "\(topic)") }
        #expect(tree["breeze/home/climate/2000"] == nil)
        // The JSON is valid JSON.
        let parsed = try JSONSerialization.jsonObject(with: Data(expectedJSON.utf8)) as? [String: Any]
        #expect(parsed?["baseline_year"] as? Int == 1980)
    }

    @Test func fullExampleInCelsiusAndStale() throws {
        let tree = ClimateTopics.tree(
            topics: TopicLayout(prefix: "p").location("cabin-2"), trend: try Self.fullTrend(), unit: .celsius,
            updatedAt: "2026-07-15T04:05:06Z", stale: true)
        #expect(tree["p/cabin-2/climate/change"] == "2.7")
        #expect(tree["p/cabin-2/climate/change/text"] == "+2.7°C")
        #expect(tree["p/cabin-2/climate/1980"] == "19.6")
        #expect(tree["p/cabin-2/climate/2020/text"] == "21.6°C")
        #expect(tree["p/cabin-2/climate/current/text"] == "22.3°C")
        #expect(tree["p/cabin-2/climate/unit"] == "°C")
        let json = try #require(tree["p/cabin-2/climate"])
        #expect(json.contains(##""unit":"°C","##))
        #expect(json.contains(##""stale":true,"##))
        #expect(json.contains(##""change":{"celsius":2.7,"value":2.7,"text":"+2.7°C","color":"#ff3b30"}"##))
        #expect(json.contains(##""celsius":21.6,"value":21.6,"text":"21.6°C""##))
    }

    @Test func missingCurrentYearPublishesNoneAndGray() throws {
        let points = ClimateRequestPlan.points(today: Self.today, years: [1980, 2020])
        let trend = try ClimateTrend.compute(
            today: Self.today, points: points,
            archive: [
                ClimateObservation(date: date(1980, 7, 15), tenthsCelsius: -4),
                ClimateObservation(date: date(2020, 7, 15), tenthsCelsius: -11),
            ],
            forecast: [ClimateObservation(date: Self.today, tenthsCelsius: nil)])
        let tree = ClimateTopics.tree(
            topics: TopicLayout(prefix: "breeze").location("home"), trend: trend, unit: .celsius,
            updatedAt: "2026-07-15T04:05:06Z",
            stale: false)
        #expect(tree["breeze/home/climate/change"] == "None")
        #expect(tree["breeze/home/climate/change/text"] == "None")
        #expect(tree["breeze/home/climate/change/color"] == "#8e8e93")
        #expect(tree["breeze/home/climate/current"] == "None")
        #expect(tree["breeze/home/climate/current/text"] == "None")
        #expect(tree["breeze/home/climate/current/color"] == "#8e8e93")
        #expect(tree["breeze/home/climate/2026"] == nil)
        #expect(tree["breeze/home/climate/1980/text"] == "-0.4°C")
        // −1.1 − (−0.4) = −0.7: blue.
        #expect(tree["breeze/home/climate/2020/color"] == "#007aff")
        let json = try #require(tree["breeze/home/climate"])
        #expect(json.contains(##""stale":true,"##))
        #expect(json.contains(##""change":{"celsius":null,"value":null,"text":null,"color":"#8e8e93"}"##))
        #expect(json.contains(##""deviation_celsius":-0.7,"bar":0.000"##))
        #expect(
            json.contains(
                ##""celsius":-0.4,"value":-0.4,"text":"-0.4°C","color":"#8e8e93","deviation_celsius":0.0,"bar":1.000"##)
        )
    }

    @Test func attributionIsTheSpecText() {
        #expect(ClimateTopics.attribution == "Weather data by Open-Meteo.com (CC BY 4.0, https://open-meteo.com/)")
    }
}
