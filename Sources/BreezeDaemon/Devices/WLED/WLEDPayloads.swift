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

/// What a WLED strip is sent (docs/displays.md): its JSON state API, `<topic>/api`.
package enum WLEDPayloads {
    /// `<topic>/api`: WLED's JSON state API (docs/displays.md). `"on":true` only with `power: on`, `"bri"`
    /// only when set; `"frz":false` because a segment frozen (by `"i"`, or the user) ignores
    /// new colors; explicit `start`/`stop` for `pollen_types`, because WLED ignores a segment id
    /// it does not have yet unless `stop` is given (wled00/json.cpp, `deserializeSegment`).
    ///
    /// `risk:<profile>` is `pollen_max` in today's risk color of the profile (nil `profile`:
    /// the profile is gone, which config validation rules out; Unknown's color then).
    /// `climate_stripes` is built by ``stripes(_:series:)`` instead.
    static func state(
        _ output: WLEDOutput, selection: PollenSelection, palette: PollenPalette, profile: RiskProfile? = nil
    ) -> String {
        var segments: [JSONValue] = []
        switch output.show {
        case .pollenMax, .climateStripes:
            segments = [solidSegment(DevicePayloads.maxColor(selection, palette: palette))]
        case .risk:
            segments = [solidSegment(DevicePayloads.riskColor(profile, selection: selection, palette: palette))]
        case .pollenTypes:
            let leds = output.leds ?? 3
            let bounds = [0, leds / 3, 2 * leds / 3, leds]
            for (index, code) in DevicePayloads.typeCodes.enumerated() {
                let color = palette.color(for: PollenLevel(value: DevicePayloads.typeItem(code, in: selection)?.value))
                segments.append(
                    .object([
                        "id": .integer(index), "start": .integer(bounds[index]), "stop": .integer(bounds[index + 1]),
                        "frz": .bool(false), "fx": .integer(0), "col": .array([color.json]),
                    ]))
            }
        }
        return wledState(output, segments: segments)
    }

    /// `climate_stripes` (docs/displays.md; docs/reference.md, Warming stripes): segment 0 over all `leds` (explicit `start`/`stop`,
    /// `"frz":false`, solid black), then `"i"` with one LED per year for the most recent
    /// min(`leds`, years of the range) years, oldest first from LED 0; a year the series left
    /// out is black. `"i"` as a plain color list sets consecutive LEDs from the segment's
    /// start, colors as `RRGGBB` hex strings (WLED docs, JSON API, "Per-segment individual
    /// LED control"); WLED freezes a segment set this way, hence `"frz":false` first.
    static func stripes(_ output: WLEDOutput, series: StripesSeries) -> String {
        let leds = output.leds ?? 1
        let black = HexColor(red: 0, green: 0, blue: 0)
        var colors: [Int: HexColor] = [:]
        for year in series.years { colors[year.year] = year.color }
        let lastYear = max(series.firstYear, series.lastYear)
        let firstShown = max(series.firstYear, lastYear - leds + 1)
        let individual = (firstShown...lastYear).map { year -> JSONValue in
            .string(hex(colors[year] ?? black))
        }
        let segment = JSONValue.object([
            "id": .integer(0), "start": .integer(0), "stop": .integer(leds), "frz": .bool(false), "fx": .integer(0),
            "col": .array([black.json]), "i": .array(individual),
        ])
        return wledState(output, segments: [segment])
    }

    /// `RRGGBB` without `#`, as WLED's `"i"` takes it.
    static func hex(_ color: HexColor) -> String {
        String(color.description.dropFirst()).uppercased()
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
}
