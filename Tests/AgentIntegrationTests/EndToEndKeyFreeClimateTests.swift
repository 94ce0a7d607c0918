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
import BreezeTestSupport
import Foundation
import Testing

/// `once` in-process: key-free Open-Meteo pollen and the climate trend, against a real broker.
@Suite("End to end: key-free pollen and climate (once)")
struct EndToEndKeyFreeClimateTests {
    // MARK: key-free pollen

    static let prague = "Europe/Prague"

    /// Hourly grains/m³ chosen per plant and day (24 values each; nil = the API's null).
    static func hours(_ value: Double?, count: Int = 24) -> [Double?] {
        Array(repeating: value, count: count) + Array(repeating: nil, count: 24 - count)
    }

    /// day 0…3 of each plant; the comments give the SPEC §1b outcome the test expects.
    static let series: [String: [[Double?]]] = [
        // mean 10.5 → 11 (half up) → 2; 0 → 0; 250 → 5; all null → Unknown
        "alder_pollen": [(0..<24).map { $0 % 2 == 0 ? 10.0 : 11.0 }, hours(0), hours(250), hours(nil)],
        // 35 → 3; 5 → 1; only 11 non-null hours → Unknown; 70 → 4
        "birch_pollen": [hours(35), hours(5), hours(300, count: 11), hours(70)],
        // 0 → 0; 20 → 2; 19.4 → 19 → 1; 150 → 5
        "grass_pollen": [hours(0), hours(20), hours(19.4), hours(150)],
        // 12 hours of 6 → 6 → 2; then 0
        "mugwort_pollen": [hours(6, count: 12), hours(0), hours(0), hours(0)],
        // always null → Unknown
        "olive_pollen": [hours(nil), hours(nil), hours(nil), hours(nil)],
        // 11 hours → Unknown; 8 → 3; 0; 0
        "ragweed_pollen": [hours(40, count: 11), hours(8), hours(0), hours(0)],
    ]

    /// Expected 0–5 values (nil = Unknown) per topic id for day 0…3.
    static let expected: [String: [Int?]] = [
        "alder": [2, 0, 5, nil], "birch": [3, 1, nil, 4], "olive": [nil, nil, nil, nil],
        "graminales": [0, 2, 1, 5], "mugwort": [2, 0, 0, 0], "ragweed": [nil, 3, 0, 0],
        // TREE = max(alder, birch, olive), GRASS = grass, WEED = max(mugwort, ragweed)
        "tree": [3, 1, 5, 4], "grass": [0, 2, 1, 5], "weed": [2, 3, 0, 0],
    ]

    /// An air-quality response with iso8601 local hours from today 00:00, four days.
    static func airQualityBody(zone: String) throws -> [UInt8] {
        let today = Day.today(in: zone)
        var times: [String] = []
        for day in 0..<4 {
            for hour in 0..<24 { times.append("\(today.adding(day))T\(hour < 10 ? "0" : "")\(hour):00") }
        }
        var hourly: [String: Any] = ["time": times]
        for (name, days) in series { hourly[name] = days.flatMap { $0 }.map { $0.map { $0 as Any } ?? NSNull() } }
        let units = Dictionary(uniqueKeysWithValues: series.keys.map { ($0, "grains/m³") })
        let root: [String: Any] = [
            "latitude": 50.1, "longitude": 14.4, "utc_offset_seconds": 3600, "timezone": zone,
            "hourly_units": units.merging(["time": "iso8601"]) { a, _ in a }, "hourly": hourly,
        ]
        return Array(try JSONSerialization.data(withJSONObject: root))
    }

    static func keyFreeConfig(_ upstream: FakeAPIs, latitude: Double, longitude: Double, zone: String) -> String {
        """
        homeassistant: {discovery: false}
        locations:
          - {id: garden, latitude: \(latitude), longitude: \(longitude), timezone: \(zone)}
        climate: {years: [2010]}
        \(upstream.endpointsYAML)
        """
    }

    @Test("No api_key in Europe: Open-Meteo with the SPEC §1b query; Google-shaped tree, no d4")
    func keyFreeEurope() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let sandbox = try AgentSandbox()
            let prefix = "e2e-om-\(shortID())"
            let body = try Self.airQualityBody(zone: Self.prague)
            let year = Day.today(in: Self.prague).year
            let upstream = sandbox.apis
            upstream.set(
                .init(
                    airQuality: { _ in .respond(status: 200, body: body) }, celsius: [2010: 15.0, year: 16.0]))
            try sandbox.writeConfig(
                port: port, prefix: prefix,
                Self.keyFreeConfig(upstream, latitude: 50.08, longitude: 14.42, zone: Self.prague))

            #expect(await runAgent("once", sandbox) == 0)

            #expect(upstream.googleRequests.isEmpty)
            let request = try #require(upstream.requests(path: "/aq/air-quality").first)
            #expect(request.queryValue("latitude").flatMap(Double.init) == 50.08)
            #expect(request.queryValue("longitude").flatMap(Double.init) == 14.42)
            #expect(
                request.queryValue("hourly")
                    == "alder_pollen,birch_pollen,grass_pollen,mugwort_pollen,olive_pollen,ragweed_pollen")
            #expect(request.queryValue("domains") == "cams_europe")
            #expect(request.queryValue("forecast_days") == "4")
            #expect(request.queryValue("timezone") == Self.prague)
            #expect(request.queryValue("timeformat") == "iso8601")

            let tree = try await BrokerView.snapshot(port: port, ["\(prefix)/#"])
            let base = "\(prefix)/garden/pollen"
            for (id, values) in Self.expected {
                let today = expectedLevel(values[0])
                #expect(tree["\(base)/\(id)/value"] == today.value, "\(id)")
                #expect(tree["\(base)/\(id)/level"] == today.level, "\(id)")
                #expect(tree["\(base)/\(id)/color"] == today.color, "\(id)")
                for n in 1...3 {
                    let day = expectedLevel(values[n])
                    #expect(tree["\(base)/\(id)/d\(n)/value"] == day.value, "\(id) d\(n)")
                    #expect(tree["\(base)/\(id)/d\(n)/level"] == day.level, "\(id) d\(n)")
                }
                #expect(tree["\(base)/\(id)/d4/value"] == nil, "\(id): Open-Meteo has no d4")
                let item = try #require(parseJSON(tree["\(base)/\(id)"]) as? [String: Any], "\(id)")
                #expect(item["in_season"] is NSNull)
                #expect(item["index_category"] is NSNull)
                #expect(item.keys.contains("grains_per_m3"))
                #expect((item["forecast"] as? [Any])?.count == 3)
            }
            let ids = Set(
                tree.keys.filter { $0.hasPrefix(base + "/") }.map {
                    String($0.dropFirst(base.count + 1).split(separator: "/")[0])
                })
            #expect(ids == Set(Self.expected.keys).union(["max", "peak", "updated_at", "stale", "air_out"]))
            // SPEC §20: the hourly topics, from the same body (no other request was made).
            for id in Self.expected.keys {
                #expect(tree["\(base)/\(id)/now/level"] != nil, "\(id)")
                #expect(tree["\(base)/\(id)/now/color"]?.hasPrefix("#") == true, "\(id)")
            }
            #expect(["ON", "OFF"].contains(tree["\(base)/air_out/now"] ?? ""))
            let airOut = try #require(parseJSON(tree["\(base)/air_out"]) as? [String: Any])
            #expect(airOut["window_h"] as? Int == 2)
            #expect(airOut["allergens"] as? [String] == ["grass", "tree", "weed"])

            let alder = try #require(parseJSON(tree["\(base)/alder"]) as? [String: Any])
            #expect(alder["is_plant"] as? Bool == true)
            #expect(alder["category"] as? String == "TREE")
            let grains = try #require(alder["grains_per_m3"] as? [String: Any])
            #expect((grains["mean"] as? NSNumber)?.doubleValue == 10.5)
            #expect((grains["max"] as? NSNumber)?.doubleValue == 11)
            let olive = try #require(parseJSON(tree["\(base)/olive"]) as? [String: Any])
            #expect(olive["grains_per_m3"] is NSNull)

            let summary = try #require(parseJSON(tree[base]) as? [String: Any])
            #expect(summary["source"] as? String == "open-meteo")
            #expect((summary["attribution"] as? String)?.hasPrefix("Pollen data by Open-Meteo.com (CC BY 4.0") == true)
            #expect((summary["days"] as? [Any])?.count == 4)
            #expect(tree["\(base)/max/value"] == "3")
            #expect((parseJSON(tree["\(base)/max"]) as? [String: Any])?["id"] as? String == "tree")
            // Prague: climate.unit auto gives °C (16.0 °C; it was 60.8 °F before auto).
            #expect(tree["\(prefix)/garden/climate/current"] == "16.0")
            #expect(tree["\(prefix)/garden/climate/unit"] == "°C")
        }
    }

    @Test("No api_key outside Europe: 400 → no pollen topics, climate present, exit 0")
    func keyFreeOutsideEurope() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let sandbox = try AgentSandbox()
            let prefix = "e2e-omx-\(shortID())"
            let zone = "America/New_York"
            let year = Day.today(in: zone).year
            let upstream = sandbox.apis
            upstream.set(
                .init(
                    airQuality: { _ in
                        .respond(
                            status: 400, text: #"{"reason":"No data is available for this location","error":true}"#)
                    }, celsius: [2010: 25.0, year: 24.0]))
            try sandbox.writeConfig(
                port: port, prefix: prefix, Self.keyFreeConfig(upstream, latitude: 40.71, longitude: -74.01, zone: zone)
            )

            #expect(await runAgent("once", sandbox) == 0)
            #expect(upstream.requests(path: "/aq/air-quality").count == 1)
            let tree = try await BrokerView.snapshot(port: port, ["\(prefix)/#"])
            #expect(tree.keys.filter { $0.contains("/pollen") }.sorted() == [])
            #expect(tree["\(prefix)/garden/climate/current"] == "75.2")
            #expect(tree["\(prefix)/garden/climate/change/text"] == "-1.8°F")
        }
    }

    // MARK: climate

    static let berlin = "Europe/Berlin"
    static let years = [1980, 1985, 1990, 2000, 2010, 2020]

    /// Year → °C answered by the fake archive/forecast; 1985 is null (left out).
    static func climateValues(currentYear: Int) -> [Int: Double?] {
        [1980: 10.0, 1985: nil, 1990: 9.4, 2000: 10.5, 2010: 12.0, 2020: 12.1, currentYear: 12.4]
    }

    /// SPEC §2 recomputed here with doubles and printf, independent of the agent's tenths code.
    struct ExpectedPoint {
        var year: Int, celsius: Double, value: String, text: String, color: String, deviation: Double, bar: Double
    }

    static func expectedPoints(_ values: [(Int, Double)], fahrenheit: Bool) -> [ExpectedPoint] {
        let baseline = values[0].1
        let low = values.map(\.1).min()!
        let high = values.map(\.1).max()!
        return values.map { year, c in
            let shown = fahrenheit ? c * 9 / 5 + 32 : c
            let value = String(format: "%.1f", shown)
            let d = ((c - baseline) * 10).rounded() / 10
            let color = d > 2.0 ? "#ff3b30" : d > 0.5 ? "#ff9500" : d < -0.5 ? "#007aff" : "#8e8e93"
            let bar = high == low ? 0.5 : ((c - low) / (high - low) * 1000).rounded() / 1000
            return ExpectedPoint(
                year: year, celsius: c, value: value, text: value + (fahrenheit ? "°F" : "°C"), color: color,
                deviation: d, bar: bar)
        }
    }

    @Test("Climate subtree computed from the archive and forecast answers", arguments: ["fahrenheit", "celsius"])
    func climateTree(unit: String) async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let sandbox = try AgentSandbox()
            let prefix = "e2e-cl-\(shortID())"
            let today = Day.today(in: Self.berlin)
            let values = Self.climateValues(currentYear: today.year)
            let upstream = sandbox.apis
            upstream.set(.init(celsius: values))
            // Berlin: `auto` is °C; the Fahrenheit case names its unit.
            let unitLine = unit == "fahrenheit" ? ", unit: fahrenheit" : ""
            try sandbox.writeConfig(
                port: port, prefix: prefix,
                """
                homeassistant: {discovery: false}
                locations:
                  - {id: home, latitude: 52.52, longitude: 13.405, timezone: \(Self.berlin)}
                pollen: {enabled: false}
                climate: {years: [\(Self.years.map(String.init).joined(separator: ", "))]\(unitLine)}
                \(upstream.endpointsYAML)
                """)

            #expect(await runAgent("once", sandbox) == 0)

            // The requests: one archive call with the comma list, one forecast call for today.
            let archive = try #require(upstream.trendArchiveRequests.first)
            #expect(upstream.trendArchiveRequests.count == 1)
            func sameDay(_ year: Int) -> String {
                Day(year: year, month: today.month, day: today.day).description
            }
            #expect(archive.queryValue("start_date") == Self.years.map(sameDay).joined(separator: ","))
            #expect(archive.queryValue("timezone") == Self.berlin)
            let forecast = try #require(upstream.requests(path: "/forecast/forecast").first)
            #expect(forecast.queryValue("start_date") == today.description)
            #expect(forecast.queryValue("end_date") == today.description)

            let fahrenheit = unit == "fahrenheit"
            let present = (Self.years + [today.year]).compactMap { year in values[year]!.map { (year, $0) } }
            let points = Self.expectedPoints(present, fahrenheit: fahrenheit)
            // The test's own arithmetic, pinned by hand: 12.4 °C = 54.32 °F; change 2.4 °C = 4.32 °F.
            #expect(points.last?.text == (fahrenheit ? "54.3°F" : "12.4°C"))
            #expect(points.map(\.color) == ["#8e8e93", "#007aff", "#8e8e93", "#ff9500", "#ff3b30", "#ff3b30"])

            let tree = try await BrokerView.snapshot(port: port, ["\(prefix)/#"])
            let base = "\(prefix)/home/climate"
            for point in points {
                #expect(tree["\(base)/\(point.year)"] == point.value, "\(point.year)")
                #expect(tree["\(base)/\(point.year)/text"] == point.text, "\(point.year)")
                #expect(tree["\(base)/\(point.year)/color"] == point.color, "\(point.year)")
            }
            let current = points.last!
            #expect(tree["\(base)/current"] == current.value)
            #expect(tree["\(base)/current/text"] == current.text)
            #expect(tree["\(base)/current/color"] == current.color)
            #expect(tree["\(base)/1985"] == nil)
            #expect(tree["\(base)/1985/text"] == nil)
            let change = 12.4 - 10.0
            let changeShown = String(format: "%.1f", fahrenheit ? change * 9 / 5 : change)
            #expect(changeShown == (fahrenheit ? "4.3" : "2.4"))
            #expect(tree["\(base)/change"] == changeShown)
            #expect(tree["\(base)/change/text"] == "+" + changeShown + (fahrenheit ? "°F" : "°C"))
            #expect(tree["\(base)/change/color"] == "#ff3b30")
            #expect(tree["\(base)/unit"] == (fahrenheit ? "°F" : "°C"))

            let json = try #require(parseJSON(tree[base]) as? [String: Any])
            #expect(json["date"] as? String == today.description)
            #expect(json["unit"] as? String == (fahrenheit ? "°F" : "°C"))
            #expect(json["baseline_year"] as? Int == 1980)
            #expect(json["stale"] as? Bool == false)
            #expect(
                json["attribution"] as? String == "Weather data by Open-Meteo.com (CC BY 4.0, https://open-meteo.com/)")
            #expect(json["updated_at"] is String)
            let changeJSON = try #require(json["change"] as? [String: Any])
            #expect((changeJSON["celsius"] as? NSNumber)?.doubleValue == 2.4)
            #expect(changeJSON["text"] as? String == "+" + changeShown + (fahrenheit ? "°F" : "°C"))
            let jsonPoints = try #require(json["points"] as? [[String: Any]])
            #expect(jsonPoints.count == points.count)
            for (got, want) in zip(jsonPoints, points) {
                #expect(got["year"] as? Int == want.year)
                #expect(got["date"] as? String == sameDay(want.year))
                #expect(((got["celsius"] as? NSNumber)?.doubleValue ?? .nan) == want.celsius)
                #expect(abs(((got["deviation_celsius"] as? NSNumber)?.doubleValue ?? .nan) - want.deviation) < 0.0001)
                #expect(abs(((got["bar"] as? NSNumber)?.doubleValue ?? .nan) - want.bar) < 0.0001, "\(want.year)")
                #expect(got["text"] as? String == want.text)
                #expect(got["color"] as? String == want.color)
                #expect(got["source"] as? String == (want.year == today.year ? "forecast" : "archive"))
            }
        }
    }
}
