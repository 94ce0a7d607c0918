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

/// The climate part of the topic tree (docs/reference.md, Topics) for one location.
///
/// When a value is absent (no change because the baseline or the current year is missing, or no
/// forecast for the current year) the scalar topics carry `None` — what Home Assistant and
/// rtl_433-style consumers read as "unknown" — and the color topic carries the neutral gray
/// `#8e8e93`, so an LED or e-ink display always receives a drawable color. In the JSON a missing
/// value is `null`, except the change color, which is the same gray for the same reason.
public enum ClimateTopics {
    public static let attribution = "Weather data by Open-Meteo.com (CC BY 4.0, https://open-meteo.com/)"
    /// The scalar payload for an absent value.
    public static let absent = "None"

    /// Builds `<prefix>/<location>/climate…`.
    ///
    /// - Parameters:
    ///   - updatedAt: RFC 3339 UTC time of the fetch behind the data (``UTCTimestamp/rfc3339(unixSeconds:)``).
    ///   - stale: the runtime's flag (last fetch failed); the JSON also says `stale: true` when
    ///     there is no change (docs/reference.md, Climate arithmetic).
    public static func tree(
        topics: LocationTopics, trend: ClimateTrend, unit: TemperatureUnit, updatedAt: String, stale: Bool
    ) -> TopicTree {
        var tree = TopicTree()
        tree.set(topics.climate, json: json(trend: trend, unit: unit, updatedAt: updatedAt, stale: stale))

        if let change = trend.changeTenths {
            tree.set(topics.climateChange, ClimateFormat.changeValue(tenthsCelsius: change, unit: unit))
            tree.set(
                ScalarTopics.text(topics.climateChange), ClimateFormat.changeText(tenthsCelsius: change, unit: unit))
        } else {
            tree.set(topics.climateChange, absent)
            tree.set(ScalarTopics.text(topics.climateChange), absent)
        }
        tree.set(ScalarTopics.color(topics.climateChange), trend.changeColor.description)

        for point in trend.points {
            setPoint(&tree, topics.climateYear(point.year), point, unit)
        }
        setPoint(&tree, topics.climateCurrent, trend.current, unit)
        tree.set(topics.climateUnit, unit.symbol)
        return tree
    }

    private static func setPoint(
        _ tree: inout TopicTree, _ topic: Topic, _ point: ClimateTrendPoint?, _ unit: TemperatureUnit
    ) {
        if let point {
            tree.set(topic, ClimateFormat.temperatureValue(tenthsCelsius: point.tenthsCelsius, unit: unit))
            tree.set(
                ScalarTopics.text(topic), ClimateFormat.temperatureText(tenthsCelsius: point.tenthsCelsius, unit: unit))
            tree.set(ScalarTopics.color(topic), point.color.description)
        } else {
            tree.set(topic, absent)
            tree.set(ScalarTopics.text(topic), absent)
            tree.set(ScalarTopics.color(topic), ClimateColors.gray.description)
        }
    }

    /// The `<p>/<loc>/climate` document, keys in the documented order.
    public static func json(trend: ClimateTrend, unit: TemperatureUnit, updatedAt: String, stale: Bool) -> JSONValue {
        let change: JSONValue
        if let delta = trend.changeTenths {
            change = .object([
                "celsius": .fixed(delta, scale: 1),
                "value": .number(ClimateFormat.changeValue(tenthsCelsius: delta, unit: unit)),
                "text": .string(ClimateFormat.changeText(tenthsCelsius: delta, unit: unit)),
                "color": .string(trend.changeColor.description),
            ])
        } else {
            change = .object([
                "celsius": .null, "value": .null, "text": .null, "color": .string(trend.changeColor.description),
            ])
        }
        let points: [JSONValue] = trend.points.map { point in
            .object([
                "year": .integer(point.year),
                "date": .string(point.date.description),
                "celsius": .fixed(point.tenthsCelsius, scale: 1),
                "value": .number(ClimateFormat.temperatureValue(tenthsCelsius: point.tenthsCelsius, unit: unit)),
                "text": .string(ClimateFormat.temperatureText(tenthsCelsius: point.tenthsCelsius, unit: unit)),
                "color": .string(point.color.description),
                "deviation_celsius": .fixed(point.deviationTenths, scale: 1),
                "bar": .fixed(point.barThousandths, scale: 3),
                "source": .string(point.source.rawValue),
            ])
        }
        return .object([
            "date": .string(trend.date.description),
            "unit": .string(unit.symbol),
            "baseline_year": .integer(trend.baselineYear),
            "updated_at": .string(updatedAt),
            "stale": .bool(stale || trend.changeTenths == nil),
            "attribution": .string(attribution),
            "change": change,
            "points": .array(points),
        ])
    }
}
