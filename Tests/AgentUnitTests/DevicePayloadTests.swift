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

/// The payloads of SPEC §8 as pure functions, their shapes checked against each firmware's
/// documentation (cited per test).
@Suite("Device payloads (SPEC §8)")
struct DevicePayloadTests {
    static let today = CivilDate(year: 2026, month: 6, day: 15)!
    static let now: Int64 = 1_781_517_600
    static let fetchedAt = DaemonInstant(unixSeconds: now)

    /// Today's types plus `plants` plants with long names (the display must not grow with them).
    static func selection(plants: Int, grass: Int? = 4, tree: Int? = 0, weed: Int? = nil) -> PollenSelection {
        var items = [
            PollenItem(code: "GRASS", name: "Grass", isPlant: false, value: grass),
            PollenItem(code: "TREE", name: "Tree", isPlant: false, value: tree),
            PollenItem(code: "WEED", name: "Weed", isPlant: false, value: weed),
        ]
        for index in 0..<plants {
            items.append(
                PollenItem(
                    code: "PLANT_WITH_A_VERY_LONG_CODE_\(index)",
                    name: String(repeating: "Long plant name ", count: 8) + String(index), isPlant: true,
                    value: index % 6))
        }
        let report = PollenReport(source: .google, region: "DE", days: [PollenDay(date: today, items: items)])
        return PollenSelection.select(report: report, today: today, days: 1, fetchedAt: now, now: now, stale: false)
    }

    static func trend(years: [Int], current: Int = 2026) throws -> ClimateTrend {
        let points = ClimateRequestPlan.points(today: CivilDate(year: current, month: 6, day: 15)!, years: years)
        let observations = points.map { ClimateObservation(date: $0.date, tenthsCelsius: 100 + ($0.year - 1940) * 3) }
        return try ClimateTrend.compute(
            today: CivilDate(year: current, month: 6, day: 15)!, points: points, archive: observations.dropLast(),
            forecast: [observations.last!])
    }

    // MARK: display

    @Test(arguments: [1, 20])
    func displayIsCompactWhateverThePlantCount(plants: Int) throws {
        let climate = try Self.trend(years: [1980, 1990, 2000, 2010, 2020])
        let payload = DisplayPayload.json(
            selection: Self.selection(plants: plants), fetchedAt: Self.fetchedAt, climate: climate, climateStale: false,
            unit: .fahrenheit, palette: .standard)
        #expect(payload.utf8.count <= DisplayPayload.maximumBytes)
        // 1980: 22.0 °C, 2026 (forecast): 35.8 °C → +13.8 °C = +24.8 °F, 96.4 °F now.
        #expect(
            payload
                == ##"{"t":1781517600,"stale":false,"max":{"id":"grass","v":4,"l":"High","c":"#ff3b30"},"##
                + ##""types":{"grass":[4,"#ff3b30"],"tree":[0,"#34c759"],"weed":[null,"#8e8e93"]},"##
                + ##""climate":{"now":"96.4°F","change":"+24.8°F","c":"#ff3b30"}}"##)
    }

    /// With `air` enabled the display also carries SPEC §10.1's metrics, and still fits.
    @Test(arguments: [1, 20])
    func displayWithAirStaysUnder1024Bytes(plants: Int) throws {
        let hour = AirReport.Hour(
            instant: Self.now,
            tenths: [.europeanAQI: 280, .usAQI: 450, .pm2_5: 88, .pm10: 121, .uvIndex: 21])
        let reading = AirReading.select(report: AirReport(hours: [hour]), zone: .utc, now: Self.now + 600)
        let payload = DisplayPayload.json(
            selection: Self.selection(plants: plants), fetchedAt: Self.fetchedAt,
            climate: try Self.trend(years: [1980, 2000, 2020]), climateStale: false, unit: .celsius,
            palette: .standard, air: reading, airStale: true)
        #expect(payload.utf8.count <= DisplayPayload.maximumBytes)
        let json = try #require(jsonObject(payload))
        #expect(json["stale"] as? Bool == true, "stale air makes the display stale")
        let air = try #require(json["air"] as? [String: Any])
        #expect((air["eu"] as? [Any])?.first as? Int == 28)
        #expect((air["eu"] as? [Any])?.last as? String == "#50ccaa")
        #expect(air["pm25"] as? Double == 8.8)
    }

    @Test func displayWithoutPollenOrClimateSaysNull() {
        let payload = DisplayPayload.json(
            selection: nil, fetchedAt: nil, climate: nil, climateStale: true, unit: .celsius, palette: .standard)
        #expect(payload == ##"{"t":null,"stale":true,"max":null,"types":{},"climate":null}"##)
    }

    // MARK: WLED

    /// kno.wled.ge/interfaces/json-api ("Setting new values", segment object): `seg` is an
    /// array of segment objects; `id`; `start` and `stop` (exclusive) LED indices; `col` an
    /// array of up to three colors, each `[r,g,b]`; `fx` 0 = Solid; `frz` freezes the segment.
    /// wled00/json.cpp `deserializeSegment`: a segment id the strip does not have is ignored
    /// unless `stop` is given — so `pollen_types` always sends `start` and `stop`.
    @Test(arguments: [3, 10, 60, 61, 16_384])
    func wledTypesCoverTheStripInThirds(leds: Int) throws {
        let payload = WLEDPayloads.state(
            WLEDOutput(show: .pollenTypes, leds: leds, brightness: nil, power: .leave),
            selection: Self.selection(plants: 1), palette: .standard)
        let json = try #require(jsonObject(payload))
        #expect(Set(json.keys) == ["seg"], "no on/bri unless configured")
        let segments = try #require(json["seg"] as? [[String: Any]])
        #expect(segments.map { $0["id"] as? Int } == [0, 1, 2])
        #expect(segments.first?["start"] as? Int == 0)
        #expect(segments.last?["stop"] as? Int == leds)
        for (a, b) in zip(segments, segments.dropFirst()) { #expect(a["stop"] as? Int == b["start"] as? Int) }
        for segment in segments {
            #expect((segment["start"] as? Int ?? -1) < (segment["stop"] as? Int ?? -1))
            #expect(segment["frz"] as? Bool == false)
            #expect(segment["fx"] as? Int == 0)
            let colors = try #require(segment["col"] as? [[Int]])
            #expect(colors.count == 1 && colors[0].count == 3)
        }
        #expect(segments.map { $0["col"] as? [[Int]] } == [[[255, 59, 48]], [[52, 199, 89]], [[142, 142, 147]]])
    }

    @Test func wledMaxMatchesTheSpecShapeAndPowerAndBrightnessOnlyWhenSet() {
        let selection = Self.selection(plants: 0)
        #expect(
            WLEDPayloads.state(
                WLEDOutput(show: .pollenMax, leds: nil, brightness: nil, power: .leave), selection: selection,
                palette: .standard) == ##"{"seg":[{"id":0,"frz":false,"fx":0,"col":[[255,59,48]]}]}"##)
        #expect(
            WLEDPayloads.state(
                WLEDOutput(show: .pollenMax, leds: 30, brightness: 255, power: .on), selection: selection,
                palette: .standard)
                == ##"{"on":true,"bri":255,"seg":[{"id":0,"frz":false,"fx":0,"col":[[255,59,48]]}]}"##)
        // No type has an index: the Unknown color, never a stale one.
        #expect(
            WLEDPayloads.state(
                WLEDOutput(show: .pollenMax, leds: nil, brightness: nil, power: .leave),
                selection: Self.selection(plants: 0, grass: nil, tree: nil, weed: nil), palette: .standard)
                == ##"{"seg":[{"id":0,"frz":false,"fx":0,"col":[[142,142,147]]}]}"##)
    }

    /// 2018…2025 with 2021 left out (fewer than 360 values); year 2018 + k in bin k.
    static let stripes = StripesSeries(
        firstYear: 2018, lastYear: 2025, referenceHundredths: 900, referenceIsStandardPeriod: false,
        years: (2018...2025).filter { $0 != 2021 }.map {
            StripesYear(year: $0, meanHundredths: 900, anomalyHundredths: 0, bin: $0 - 2018)
        }, omittedYears: [2021])

    /// kno.wled.ge/interfaces/json-api ("Per-segment individual LED control"): `"i"` in a
    /// segment object sets single LEDs; a plain list of colors sets consecutive LEDs from the
    /// segment's start, each color a hex string `RRGGBB` (or `[r,g,b]`); setting LEDs this way
    /// freezes the segment, so the next command must send `"frz":false` first (SPEC §8).
    @Test func wledStripesShowTheMostRecentYearsOldestFirstAndMissingYearsBlack() {
        // Fewer LEDs than years: the most recent 5 years, 2021 (left out) black.
        #expect(
            WLEDPayloads.stripes(
                WLEDOutput(show: .climateStripes, leds: 5, brightness: nil, power: .leave), series: Self.stripes)
                == ##"{"seg":[{"id":0,"start":0,"stop":5,"frz":false,"fx":0,"col":[[0,0,0]],"##
                + ##""i":["000000","FDDBC7","F4A582","D6604D","B2182B"]}]}"##)
        // More LEDs than years: every year from LED 0, the rest of the strip solid black.
        #expect(
            WLEDPayloads.stripes(
                WLEDOutput(show: .climateStripes, leds: 60, brightness: 40, power: .on), series: Self.stripes)
                == ##"{"on":true,"bri":40,"seg":[{"id":0,"start":0,"stop":60,"frz":false,"fx":0,"col":[[0,0,0]],"##
                + ##""i":["2166AC","4393C3","92C5DE","000000","FDDBC7","F4A582","D6604D","B2182B"]}]}"##)
        // One LED: only last year.
        #expect(
            WLEDPayloads.stripes(
                WLEDOutput(show: .climateStripes, leds: 1, brightness: nil, power: .leave), series: Self.stripes)
                == ##"{"seg":[{"id":0,"start":0,"stop":1,"frz":false,"fx":0,"col":[[0,0,0]],"i":["B2182B"]}]}"##)
    }

    /// `risk:<profile>`: `pollen_max`'s shape in today's risk color (SPEC §8, §10.2).
    @Test func wledRiskIsTheProfilesColorToday() {
        let selection = Self.selection(plants: 0)  // grass 4 (High), tree 0 (None), weed unknown
        let output = WLEDOutput(show: .risk("trees"), leds: nil, brightness: nil, power: .leave)
        let trees = RiskProfile(id: "trees", name: "Trees", allergens: ["weed", "tree"], alertLevel: .high)
        #expect(
            WLEDPayloads.state(output, selection: selection, palette: .standard, profile: trees)
                == ##"{"seg":[{"id":0,"frz":false,"fx":0,"col":[[52,199,89]]}]}"##)
        let grass = RiskProfile(id: "trees", name: "Trees", allergens: ["tree", "grass"], alertLevel: .high)
        #expect(
            WLEDPayloads.state(output, selection: selection, palette: .standard, profile: grass)
                == ##"{"seg":[{"id":0,"frz":false,"fx":0,"col":[[255,59,48]]}]}"##)
        // No allergen of the profile has a value today: Unknown's color.
        let ragweed = RiskProfile(id: "trees", name: "Trees", allergens: ["ragweed"], alertLevel: .high)
        #expect(
            WLEDPayloads.state(output, selection: selection, palette: .standard, profile: ragweed)
                == ##"{"seg":[{"id":0,"frz":false,"fx":0,"col":[[142,142,147]]}]}"##)
    }

    // MARK: Tasmota

    /// tasmota.github.io/docs/Commands (Light, `Color`): `#RRGGBB` sets the color.
    @Test func tasmotaColorIsHashHex() {
        let color = TasmotaPayloads.color(selection: Self.selection(plants: 0), palette: .standard)
        #expect(color == "#ff3b30")
    }

    @Test func tasmotaRiskIsTheProfilesColorToday() {
        let trees = RiskProfile(id: "trees", name: "Trees", allergens: ["tree"], alertLevel: .high)
        #expect(
            TasmotaPayloads.color(
                selection: Self.selection(plants: 0), palette: .standard, show: .risk("trees"), profile: trees)
                == "#34c759")
    }

    // MARK: Awtrix 3

    /// Blueforcer/awtrix3 docs/api.md, "Display Text in Colored Fragments": `text` is an array
    /// of `{"t": text, "c": hex color}`; "JSON Properties": `bar` is an array of integers, at
    /// most 16 without an icon, `autoscale` a boolean; "Colored Indicators": `{"color":"#32a852"}`.
    @Test func awtrixAppsAndIndicatorFollowTheDocumentedKeys() throws {
        let years = Array(stride(from: 1950, through: 2025, by: 3))  // 26 years: the chart keeps the last 16
        let climate = try Self.trend(years: years)
        let text = try #require(
            AwtrixPayloads.text(
                selection: Self.selection(plants: 3), climate: climate, unit: .celsius, palette: .standard))
        #expect(text == ##"{"text":[{"t":"Grass High","c":"FF3B30"},{"t":" +22.8°C","c":"FF3B30"}]}"##)
        let chart = try #require(AwtrixPayloads.chart(climate: climate))
        let bars = try #require(jsonObject(chart)?["bar"] as? [Int])
        #expect(bars.count == 16)
        #expect(bars == climate.points.suffix(16).map(\.tenthsCelsius))
        #expect(jsonObject(chart)?["autoscale"] as? Bool == true)
        #expect(
            AwtrixPayloads.indicator(selection: Self.selection(plants: 0), palette: .standard)
                == ##"{"color":"#ff3b30"}"##)
        // Climate only (pollen unavailable): the change alone, without a leading space.
        #expect(
            AwtrixPayloads.text(selection: nil, climate: climate, unit: .fahrenheit, palette: .standard)
                == ##"{"text":[{"t":"+41.0°F","c":"FF3B30"}]}"##)
        #expect(AwtrixPayloads.text(selection: nil, climate: nil, unit: .celsius, palette: .standard) == nil)
    }
}

/// A JSON object payload, parsed with Foundation (independent of the agent's own writer).
private func jsonObject(_ text: String?) -> [String: Any]? {
    guard let text else { return nil }
    return (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
}
