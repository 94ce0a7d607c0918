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

/// What an Awtrix 3 clock is sent (docs/displays.md): its text and chart apps and an indicator.
package enum AwtrixPayloads {
    /// Awtrix draws at most 16 bars without an icon (Awtrix 3 docs, api.md "JSON Properties", `bar`).
    static let maximumBars = 16

    /// `RRGGBB` without `#`: the fragment color format of Awtrix 3 (api.md, "Display Text in
    /// Colored Fragments").
    static func fragmentColor(_ color: HexColor) -> String {
        String(color.description.dropFirst()).uppercased()
    }

    /// The text app: the max pollen type and its level in the level color, then the climate
    /// change in its color; nil when there is nothing to show.
    static func text(
        selection: PollenSelection?, climate: ClimateTrend?, unit: TemperatureUnit, palette: PollenPalette
    ) -> String? {
        var fragments: [JSONValue] = []
        if let selection {
            let max = selection.max
            let level = PollenLevel(value: max?.value)
            fragments.append(
                .object([
                    "t": .string((max?.name ?? "Pollen") + " " + level.label),
                    "c": .string(fragmentColor(palette.color(for: level))),
                ]))
        }
        if let climate, let change = climate.changeTenths {
            let text = ClimateFormat.changeText(tenthsCelsius: change, unit: unit)
            fragments.append(
                .object([
                    "t": .string(fragments.isEmpty ? text : " " + text),
                    "c": .string(fragmentColor(climate.changeColor)),
                ]))
        }
        guard !fragments.isEmpty else { return nil }
        return JSONValue.object(["text": .array(fragments)]).serialized
    }

    /// The chart app: the most recent 16 climate points as integers (`celsius` × 10), scaled
    /// by the clock (`"autoscale":true`); nil without points.
    static func chart(climate: ClimateTrend) -> String? {
        let points = climate.points.sorted { $0.year < $1.year }.suffix(maximumBars)
        guard !points.isEmpty else { return nil }
        return JSONValue.object([
            "bar": .array(points.map { .integer($0.tenthsCelsius) }),
            "autoscale": .bool(true),
        ]).serialized
    }

    /// `<prefix>/indicator<N>`: `{"color":"#rrggbb"}` in the max pollen color.
    static func indicator(selection: PollenSelection, palette: PollenPalette) -> String {
        JSONValue.object(["color": .string(DevicePayloads.maxColor(selection, palette: palette).description)])
            .serialized
    }
}
