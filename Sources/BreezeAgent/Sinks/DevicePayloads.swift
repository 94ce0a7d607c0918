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

/// The payloads of SPEC §8, as pure functions of a location's snapshot: what a WLED strip, an
/// Awtrix clock, a Tasmota light and a microcontroller are sent. The sinks decide when and
/// where; these only say what.
enum DevicePayloads {
    /// The largest `<p>/<loc>/display` payload (SPEC §8): small enough for an ESP8266's MQTT buffer.
    static let maximumDisplayBytes = 1024
    /// Awtrix draws at most 16 bars without an icon (Awtrix 3 docs, api.md "JSON Properties", `bar`).
    static let awtrixMaximumBars = 16

    /// The three general types, in the order WLED's `pollen_types` segments and the display JSON use.
    static let typeCodes = GooglePollen.typeCodes

    // MARK: pollen colors

    /// The max pollen level's color of a selection (Unknown's color when no type has an index).
    static func maxColor(_ selection: PollenSelection, palette: PollenPalette) -> HexColor {
        palette.color(for: PollenLevel(value: selection.max?.value))
    }

    /// Today's item of a general type (GRASS, TREE, WEED), when the source has it.
    static func typeItem(_ code: String, in selection: PollenSelection) -> PollenItem? {
        selection.items.first { !$0.isPlant && $0.code == code }
    }

    // MARK: WLED

    /// `<topic>/api`: WLED's JSON state API (SPEC §8). `"on":true` only with `power: on`, `"bri"`
    /// only when set; `"frz":false` because a segment frozen (by `"i"`, or the user) ignores
    /// new colors; explicit `start`/`stop` for `pollen_types`, because WLED ignores a segment id
    /// it does not have yet unless `stop` is given (wled00/json.cpp, `deserializeSegment`).
    ///
    /// `risk:<profile>` is `pollen_max` in today's risk color of the profile (nil `profile`:
    /// the profile is gone, which config validation rules out; Unknown's color then).
    /// `climate_stripes` is built by ``wledStripes(_:series:)`` instead.
    static func wled(
        _ output: WLEDOutput, selection: PollenSelection, palette: PollenPalette, profile: RiskProfile? = nil
    ) -> String {
        var segments: [JSONValue] = []
        switch output.show {
        case .pollenMax, .climateStripes:
            segments = [solidSegment(maxColor(selection, palette: palette))]
        case .risk:
            segments = [solidSegment(riskColor(profile, selection: selection, palette: palette))]
        case .pollenTypes:
            let leds = output.leds ?? 3
            let bounds = [0, leds / 3, 2 * leds / 3, leds]
            for (index, code) in typeCodes.enumerated() {
                let color = palette.color(for: PollenLevel(value: typeItem(code, in: selection)?.value))
                segments.append(
                    .object([
                        "id": .integer(index), "start": .integer(bounds[index]), "stop": .integer(bounds[index + 1]),
                        "frz": .bool(false), "fx": .integer(0), "col": .array([color.json]),
                    ]))
            }
        }
        return wledState(output, segments: segments)
    }

    /// `climate_stripes` (SPEC §8, §9.1): segment 0 over all `leds` (explicit `start`/`stop`,
    /// `"frz":false`, solid black), then `"i"` with one LED per year for the most recent
    /// min(`leds`, years of the range) years, oldest first from LED 0; a year the series left
    /// out is black. `"i"` as a plain color list sets consecutive LEDs from the segment's
    /// start, colors as `RRGGBB` hex strings (WLED docs, JSON API, "Per-segment individual
    /// LED control"); WLED freezes a segment set this way, hence `"frz":false` first.
    static func wledStripes(_ output: WLEDOutput, series: StripesSeries) -> String {
        let leds = output.leds ?? 1
        let black = HexColor(red: 0, green: 0, blue: 0)
        var colors: [Int: HexColor] = [:]
        for year in series.years { colors[year.year] = year.color }
        let lastYear = max(series.firstYear, series.lastYear)
        let firstShown = max(series.firstYear, lastYear - leds + 1)
        let individual = (firstShown...lastYear).map { year -> JSONValue in
            .string(wledHex(colors[year] ?? black))
        }
        let segment = JSONValue.object([
            "id": .integer(0), "start": .integer(0), "stop": .integer(leds), "frz": .bool(false), "fx": .integer(0),
            "col": .array([black.json]), "i": .array(individual),
        ])
        return wledState(output, segments: [segment])
    }

    /// `RRGGBB` without `#`, as WLED's `"i"` takes it.
    static func wledHex(_ color: HexColor) -> String {
        String(color.description.dropFirst()).uppercased()
    }

    /// Today's risk color of `profile` on `selection` (Unknown's color without a profile).
    static func riskColor(_ profile: RiskProfile?, selection: PollenSelection, palette: PollenPalette) -> HexColor {
        guard let profile else { return palette.color(for: .unknown) }
        return RiskAssessment.evaluate(profile: profile, selection: selection).color(palette: palette)
    }

    private static func solidSegment(_ color: HexColor) -> JSONValue {
        .object(["id": .integer(0), "frz": .bool(false), "fx": .integer(0), "col": .array([color.json])])
    }

    private static func wledState(_ output: WLEDOutput, segments: [JSONValue]) -> String {
        var members: [JSONMember] = []
        if output.power == .on { members.append(JSONMember("on", .bool(true))) }
        if let brightness = output.brightness { members.append(JSONMember("bri", .integer(brightness))) }
        members.append(JSONMember("seg", .array(segments)))
        return JSONValue.object(members).serialized
    }

    // MARK: Tasmota

    /// `Color` takes `#rrggbb` (Tasmota docs, Commands → Light, `Color`).
    /// With `show: risk:<profile>`, today's risk color of `profile` instead of the max pollen color.
    static func tasmotaColor(
        selection: PollenSelection, palette: PollenPalette, show: TasmotaShow = .pollenMax, profile: RiskProfile? = nil
    ) -> String {
        switch show {
        case .pollenMax: maxColor(selection, palette: palette).description
        case .risk: riskColor(profile, selection: selection, palette: palette).description
        }
    }

    // MARK: Awtrix 3

    /// `RRGGBB` without `#`: the fragment color format of Awtrix 3 (api.md, "Display Text in
    /// Colored Fragments").
    static func awtrixFragmentColor(_ color: HexColor) -> String {
        String(color.description.dropFirst()).uppercased()
    }

    /// The text app: the max pollen type and its level in the level color, then the climate
    /// change in its color; nil when there is nothing to show.
    static func awtrixText(
        selection: PollenSelection?, climate: ClimateTrend?, unit: TemperatureUnit, palette: PollenPalette
    ) -> String? {
        var fragments: [JSONValue] = []
        if let selection {
            let max = selection.max
            let level = PollenLevel(value: max?.value)
            fragments.append(
                .object([
                    "t": .string((max?.name ?? "Pollen") + " " + level.label),
                    "c": .string(awtrixFragmentColor(palette.color(for: level))),
                ]))
        }
        if let climate, let change = climate.changeTenths {
            let text = ClimateFormat.changeText(tenthsCelsius: change, unit: unit)
            fragments.append(
                .object([
                    "t": .string(fragments.isEmpty ? text : " " + text),
                    "c": .string(awtrixFragmentColor(climate.changeColor)),
                ]))
        }
        guard !fragments.isEmpty else { return nil }
        return JSONValue.object(["text": .array(fragments)]).serialized
    }

    /// The chart app: the most recent 16 climate points as integers (`celsius` × 10), scaled
    /// by the clock (`"autoscale":true`); nil without points.
    static func awtrixChart(climate: ClimateTrend) -> String? {
        let points = climate.points.sorted { $0.year < $1.year }.suffix(awtrixMaximumBars)
        guard !points.isEmpty else { return nil }
        return JSONValue.object([
            "bar": .array(points.map { .integer($0.tenthsCelsius) }),
            "autoscale": .bool(true),
        ]).serialized
    }

    /// `<prefix>/indicator<N>`: `{"color":"#rrggbb"}` in the max pollen color.
    static func awtrixIndicator(selection: PollenSelection, palette: PollenPalette) -> String {
        JSONValue.object(["color": .string(maxColor(selection, palette: palette).description)]).serialized
    }

    // MARK: microcontrollers

    /// `<p>/<loc>/display` (SPEC §8): `t` (the pollen fetch time), `stale`, `max`, the three
    /// types as `[value, color]` and the climate texts. Its size does not grow with the number
    /// of plants (only the three types are in it), so it stays under
    /// ``maximumDisplayBytes`` whatever the source returns.
    static func display(
        selection: PollenSelection?, fetchedAt: Int64?, climate: ClimateTrend?, climateStale: Bool,
        unit: TemperatureUnit, palette: PollenPalette, air: AirReading? = nil, airStale: Bool = false
    ) -> String {
        var members: [JSONMember] = [
            JSONMember("t", fetchedAt.map { .integer(Int($0)) } ?? .null),
            JSONMember("stale", .bool((selection?.stale ?? false) || climateStale || (air != nil && airStale))),
        ]
        if let selection {
            let max = selection.max
            let level = PollenLevel(value: max?.value)
            members.append(
                JSONMember(
                    "max",
                    .object([
                        "id": .optional(max?.topicID), "v": max?.value.map { .integer($0) } ?? .null,
                        "l": .string(level.label), "c": .string(palette.color(for: level).description),
                    ])))
            var types: [JSONMember] = []
            for code in typeCodes {
                guard let item = typeItem(code, in: selection) else { continue }
                types.append(
                    JSONMember(
                        item.topicID,
                        .array([
                            item.value.map { .integer($0) } ?? .null,
                            .string(palette.color(for: item.level).description),
                        ])))
            }
            members.append(JSONMember("types", .object(types)))
        } else {
            members.append(JSONMember("max", .null))
            members.append(JSONMember("types", .object([JSONMember]())))
        }
        if let climate {
            members.append(
                JSONMember(
                    "climate",
                    .object([
                        "now": .optional(
                            climate.current.map {
                                ClimateFormat.temperatureText(tenthsCelsius: $0.tenthsCelsius, unit: unit)
                            }
                        ),
                        "change": .optional(
                            climate.changeTenths.map { ClimateFormat.changeText(tenthsCelsius: $0, unit: unit) }),
                        "c": .string(climate.changeColor.description),
                    ])))
        } else {
            members.append(JSONMember("climate", .null))
        }
        // SPEC §10.1's metrics, only when `air` is enabled (and known).
        if let air { members.append(JSONMember("air", AirTopics.displayJSON(reading: air))) }
        return JSONValue.object(members).serialized
    }
}
