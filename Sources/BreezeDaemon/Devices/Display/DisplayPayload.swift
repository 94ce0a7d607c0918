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

/// What a microcontroller reads (docs/displays.md): one compact JSON on `<p>/<loc>/display`.
package enum DisplayPayload {
    /// The largest `<p>/<loc>/display` payload (docs/displays.md): small enough for an ESP8266's MQTT buffer.
    static let maximumBytes = 1024

    /// `<p>/<loc>/display` (docs/displays.md): `t` (the pollen fetch time), `stale`, `max`, the three
    /// types as `[value, color]` and the climate texts. Its size does not grow with the number
    /// of plants (only the three types are in it), so it stays under
    /// ``maximumBytes`` whatever the source returns.
    static func json(
        selection: PollenSelection?, fetchedAt: DaemonInstant?, climate: ClimateTrend?, climateStale: Bool,
        unit: TemperatureUnit, palette: PollenPalette, air: AirReading? = nil, airStale: Bool = false
    ) -> String {
        var members: [JSONMember] = [
            JSONMember("t", fetchedAt.map { .integer(Int($0.unixSeconds)) } ?? .null),
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
            for code in DevicePayloads.typeCodes {
                guard let item = DevicePayloads.typeItem(code, in: selection) else { continue }
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
        // docs/reference.md, Air quality bands's metrics, only when `air` is enabled (and known).
        if let air { members.append(JSONMember("air", AirTopics.displayJSON(reading: air))) }
        return JSONValue.object(members).serialized
    }
}
