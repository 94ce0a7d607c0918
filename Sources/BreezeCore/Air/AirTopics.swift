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

/// The air part of the topic tree for one location (docs/reference.md, Air quality bands).
///
/// ```
/// <p>/<loc>/air                               JSON {date, hour, updated_at, stale, attribution, <metric>{…}…}
/// <p>/<loc>/air/<metric>/value|level|color    european_aqi, us_aqi, uv_index, uv_index_max
/// <p>/<loc>/air/<metric>/value                pm2_5, pm10 (value only)
/// <p>/<loc>/air/updated_at|stale              as under pollen
/// ```
///
/// An Unknown metric publishes value `None` (Home Assistant reads it as unknown), level `Unknown`
/// and the gray `#8e8e93`; in the JSON its value is `null`.
public enum AirTopics {
    /// The scalar payload of an Unknown value.
    public static let noValue = "None"

    /// Open-Meteo's licence (CC BY 4.0) and the Copernicus notice CAMS data requires; `year` is the
    /// location's current year.
    public static func attribution(year: Int) -> String {
        "Air quality data by Open-Meteo.com (CC BY 4.0, https://open-meteo.com/). "
            + "Contains modified Copernicus Atmosphere Monitoring Service information \(year). "
            + "Neither the European Commission nor ECMWF is responsible for any use that may be made "
            + "of the information it contains."
    }

    /// Selects the current hour (``AirReading/select(report:zone:now:)``) and builds the tree.
    public static func tree(
        topics: LocationTopics, report: AirReport, zone: ZoneRules, fetchedAt: Int64, now: Int64, stale: Bool
    ) -> TopicTree {
        tree(
            topics: topics, reading: AirReading.select(report: report, zone: zone, now: now), fetchedAt: fetchedAt,
            stale: stale)
    }

    /// Builds the tree from a reading. `stale` is the runtime's flag (last fetch failed); the
    /// payloads also say stale when the data has no entry for the current hour.
    public static func tree(topics: LocationTopics, reading: AirReading, fetchedAt: Int64, stale: Bool) -> TopicTree {
        let base = topics.air
        let updatedAt = UTCTimestamp.rfc3339(unixSeconds: fetchedAt)
        let isStale = stale || reading.hour == nil
        var tree = TopicTree()
        tree.set(base, json: json(reading: reading, updatedAt: updatedAt, stale: isStale))
        for metric in AirMetric.allCases {
            let topic = topics.airMetric(metric)
            let value = reading.value(metric)
            tree.set(ScalarTopics.value(topic), value.map { text(metric, $0) } ?? noValue)
            if let band = metric.band(tenths: value) {
                tree.set(ScalarTopics.level(topic), band.level)
                tree.set(ScalarTopics.color(topic), band.color.description)
            }
        }
        tree.set(topics.airUpdatedAt, updatedAt)
        tree.set(topics.airStale, isStale ? "true" : "false")
        return tree
    }

    /// The `<p>/<loc>/air` document.
    public static func json(reading: AirReading, updatedAt: String, stale: Bool) -> JSONValue {
        var members: [JSONMember] = [
            JSONMember("date", .string(reading.today.description)),
            JSONMember("hour", reading.hour.map { .string(UTCTimestamp.rfc3339(unixSeconds: $0)) } ?? .null),
            JSONMember("updated_at", .string(updatedAt)),
            JSONMember("stale", .bool(stale)),
            JSONMember("attribution", .string(attribution(year: reading.today.year))),
        ]
        for metric in AirMetric.allCases {
            members.append(JSONMember(metric.rawValue, metricJSON(metric, reading.value(metric))))
        }
        return .object(members)
    }

    /// `{value, level, color}` for a banded metric, `{value, unit}` for a particulate one.
    static func metricJSON(_ metric: AirMetric, _ tenths: Int?) -> JSONValue {
        let value = tenths.map { number(metric, $0) } ?? .null
        guard let band = metric.band(tenths: tenths) else {
            return .object(["value": value, "unit": .string(AirMetric.microgramsPerCubicMetre)])
        }
        return .object(["value": value, "level": .string(band.level), "color": .string(band.color.description)])
    }

    /// The compact `air` member of `<p>/<loc>/display` (docs/displays.md, for microcontrollers):
    /// `{"eu":[v,"#c"],"us":[v,"#c"],"uv":[v,"#c"],"uvmax":[v,"#c"],"pm25":v,"pm10":v}`, null for
    /// an Unknown value (its color stays the gray, so a display always has something to draw).
    public static func displayJSON(reading: AirReading) -> JSONValue {
        func pair(_ metric: AirMetric) -> JSONValue {
            let tenths = reading.value(metric)
            let band = metric.band(tenths: tenths) ?? .unknown
            return .array([tenths.map { number(metric, $0) } ?? .null, .string(band.color.description)])
        }
        return .object([
            "eu": pair(.europeanAQI),
            "us": pair(.usAQI),
            "uv": pair(.uvIndex),
            "uvmax": pair(.uvIndexMax),
            "pm25": reading.value(.pm2_5).map { number(.pm2_5, $0) } ?? .null,
            "pm10": reading.value(.pm10).map { number(.pm10, $0) } ?? .null,
        ])
    }

    /// The scalar text of a value: a whole AQI or UV index (`28`, `2`) or one decimal (`8.8`).
    public static func text(_ metric: AirMetric, _ tenths: Int) -> String {
        metric.isWholeNumber ? String(FixedPoint.roundedDivision(tenths, 10)) : FixedPoint.format(tenths, scale: 1)
    }

    static func number(_ metric: AirMetric, _ tenths: Int) -> JSONValue { .number(text(metric, tenths)) }
}
