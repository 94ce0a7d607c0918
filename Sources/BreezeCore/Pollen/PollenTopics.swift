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

/// The pollen part of the topic tree for one location (docs/reference.md, Topics).
///
/// ```
/// <p>/<loc>/pollen                      JSON summary (items without their forecast; days[] has it)
/// <p>/<loc>/pollen/<id>                 JSON item with forecast[]
/// <p>/<loc>/pollen/<id>/value|level|color
/// <p>/<loc>/pollen/<id>/d<N>/value|level|color
/// <p>/<loc>/pollen/<id>/trend           rising | falling | steady | unknown (d1 against today)
/// <p>/<loc>/pollen/max                  JSON {id, name, value, level, color, color_rgb, trend}
/// <p>/<loc>/pollen/max/value|level|color|trend
/// <p>/<loc>/pollen/peak                 JSON {date, id, name, value, level, color}
/// <p>/<loc>/pollen/peak/date|level|color
/// <p>/<loc>/pollen/updated_at|stale
/// ```
///
/// Open-Meteo only (hourly data, docs/reference.md, The hour to air out; ``hourlyTree(topics:selection:view:airOut:palette:)``):
///
/// ```
/// <p>/<loc>/pollen/<id>/now/value|level|color   the current local hour
/// <p>/<loc>/pollen/<id>/peak_at                 today's highest hour, ISO 8601 local time
/// <p>/<loc>/pollen/air_out                      JSON {start, end, level, value, allergens, window_h, stale, reason}
/// <p>/<loc>/pollen/air_out/now                  ON | OFF
/// ```
public enum PollenTopics {
    /// The `…/value` scalar of "no index": Home Assistant reads `None` as unknown.
    public static let noValue = "None"

    /// Selects the days (``PollenSelection/select(report:today:days:fetchedAt:now:stale:)``) and
    /// builds the tree.
    public static func tree(
        topics: LocationTopics, report: PollenReport, today: CivilDate, days: Int,
        fetchedAt: Int64, now: Int64, stale: Bool, palette: PollenPalette = .standard
    ) -> TopicTree {
        let selection = PollenSelection.select(
            report: report, today: today, days: days, fetchedAt: fetchedAt, now: now, stale: stale)
        return tree(topics: topics, selection: selection, fetchedAt: fetchedAt, palette: palette)
    }

    /// Builds the tree from an already selected set of days.
    public static func tree(
        topics: LocationTopics, selection: PollenSelection, fetchedAt: Int64,
        palette: PollenPalette = .standard
    ) -> TopicTree {
        let updatedAt = UTCTimestamp.rfc3339(unixSeconds: fetchedAt)
        var tree = TopicTree()
        let today = selection.items
        let forecastDays = Array(selection.days.dropFirst())
        let maxTrend = PollenTrend(today: selection.max?.value, tomorrow: forecastDays.first?.max?.value)

        let summary: JSONValue = .object([
            "date": .string(selection.today.description),
            "region": .optional(selection.region),
            "source": .string(selection.source.rawValue),
            "updated_at": .string(updatedAt),
            "stale": .bool(selection.stale),
            "attribution": .string(selection.source.attribution(year: selection.today.year)),
            "max": maxJSON(selection.max, trend: maxTrend, palette: palette),
            "items": .array(today.map { itemJSON($0, forecast: nil, source: selection.source, palette: palette) }),
            "days": .array(
                selection.days.map { day in
                    .object([
                        "date": .string(day.date.description),
                        "items": .array(
                            day.items.map { item in
                                .object([
                                    "id": .string(item.topicID),
                                    "value": valueJSON(item.value),
                                    "level": .string(item.level.label),
                                    "color": .string(palette.color(for: item.level).description),
                                ])
                            }),
                    ])
                }),
        ])
        tree.set(topics.pollen, json: summary)

        for (index, item) in today.enumerated() {
            let topic = topics.pollenItem(item.topicID)
            let forecast = forecastDays.map { ($0.date, $0.items[index]) }
            tree.set(topic, json: itemJSON(item, forecast: forecast, source: selection.source, palette: palette))
            setScalars(&tree, topic, item.value, palette: palette)
            let trend = PollenTrend(today: item.value, tomorrow: forecastDays.first?.items[index].value)
            tree.set(ScalarTopics.trend(topic), trend.rawValue)
            for (n, day) in forecastDays.enumerated() {
                setScalars(&tree, topics.pollenItem(item.topicID, day: n + 1), day.items[index].value, palette: palette)
            }
        }

        tree.set(topics.pollenMax, json: maxJSON(selection.max, trend: maxTrend, palette: palette))
        setScalars(&tree, topics.pollenMax, selection.max?.value, palette: palette)
        tree.set(ScalarTopics.trend(topics.pollenMax), maxTrend.rawValue)

        // The expected peak (docs/reference.md, Max, trend and peak): the highest `max` over the days that have one.
        let peak = selection.peak
        let peakLevel = PollenLevel(value: peak?.item.value)
        let peakColor = palette.color(for: peakLevel).description
        tree.set(
            topics.pollenPeak,
            json: .object([
                "date": .optional(peak?.date.description),
                "id": .optional(peak?.item.topicID),
                "name": .optional(peak?.item.name),
                "value": valueJSON(peak?.item.value),
                "level": .string(peakLevel.label),
                "color": .string(peakColor),
            ]))
        tree.set(ScalarTopics.date(topics.pollenPeak), peak?.date.description ?? noValue)
        tree.set(ScalarTopics.level(topics.pollenPeak), peakLevel.label)
        tree.set(ScalarTopics.color(topics.pollenPeak), peakColor)
        tree.set(topics.pollenUpdatedAt, updatedAt)
        tree.set(topics.pollenStale, selection.stale ? "true" : "false")
        return tree
    }

    /// The hourly topics of an Open-Meteo selection at the view's moment: per item `now` and
    /// `peak_at` (left out when today has no hour above zero: the topic is cleared), and the
    /// location's `air_out` over its three types. Empty when the selection has no hourly data
    /// (Google): these topics do not exist there.
    public static func hourlyTree(
        topics: LocationTopics, selection: PollenSelection, view: PollenHourlyView?, airOut: AirOutSettings,
        palette: PollenPalette = .standard
    ) -> TopicTree {
        var tree = TopicTree()
        guard let view else { return tree }
        for item in selection.items where PollenHourly.carries(item.topicID) {
            setScalars(&tree, topics.pollenNow(item.topicID), view.nowValue(of: item.topicID), palette: palette)
            if let peak = view.peakAt(of: item.topicID) {
                tree.set(topics.pollenPeakAt(item.topicID), view.localTimeText(peak))
            }
        }
        let assessment = AirOutAssessment.assess(
            allergens: AirOutAssessment.locationAllergens, view: view, settings: airOut)
        setAirOut(&tree, topics.pollenAirOut, assessment)
        return tree
    }

    /// The season topics of an Open-Meteo location (docs/reference.md, The hour to air out "today against the recent
    /// season"): per item the key-free source carries, `percentile` and `season_start` (empty
    /// when there is none) as of the standing's day, the local date of the last good season
    /// call (a failed call keeps them; the pollen tree's `stale` says so). No standing (Google,
    /// or no season call yet): no topics.
    public static func seasonTree(
        topics: LocationTopics, standing: PollenSeasonStanding?, itemIDs: [String]
    ) -> TopicTree {
        var tree = TopicTree()
        guard let standing else { return tree }
        for id in itemIDs {
            guard let item = standing.item(id) else { continue }
            tree.set(topics.pollenPercentile(id), item.percentile.payload)
            tree.set(topics.pollenSeasonStart(id), item.seasonStart?.description ?? "")
        }
        return tree
    }

    /// `air_out` (JSON) and `air_out/now` under `topic` (a location's or a profile's).
    public static func setAirOut(_ tree: inout TopicTree, _ topic: Topic, _ assessment: AirOutAssessment) {
        tree.set(topic, json: assessment.json)
        tree.set(ScalarTopics.now(topic), assessment.nowPayload)
    }

    /// `value`, `level` and `color` under `topic`.
    private static func setScalars(_ tree: inout TopicTree, _ topic: Topic, _ value: Int?, palette: PollenPalette) {
        let level = PollenLevel(value: value)
        tree.set(ScalarTopics.value(topic), value.map { String($0) } ?? noValue)
        tree.set(ScalarTopics.level(topic), level.label)
        tree.set(ScalarTopics.color(topic), palette.color(for: level).description)
    }

    private static func valueJSON(_ value: Int?) -> JSONValue { value.map { .integer($0) } ?? .null }

    private static func maxJSON(_ item: PollenItem?, trend: PollenTrend, palette: PollenPalette) -> JSONValue {
        let level = PollenLevel(value: item?.value)
        let color = palette.color(for: level)
        return .object([
            "id": .optional(item?.topicID),
            "name": .optional(item?.name),
            "value": valueJSON(item?.value),
            "level": .string(level.label),
            "color": .string(color.description),
            // `[r, g, b]`, ready for Home Assistant's `light.turn_on` `rgb_color` (docs/reference.md, Topics).
            "color_rgb": color.json,
            "trend": .string(trend.rawValue),
        ])
    }

    /// One item with every docs/reference.md, Pollen levels and colors field; `forecast` nil leaves the key out (summary payload).
    /// `source`: the report's; an item merged from another source (DWD) names its own.
    static func itemJSON(
        _ item: PollenItem, forecast: [(CivilDate, PollenItem)]?, source: PollenSource, palette: PollenPalette
    ) -> JSONValue {
        let level = item.level
        let color = palette.color(for: level)
        var members: [JSONMember] = [
            JSONMember("id", .string(item.topicID)),
            JSONMember("name", .string(item.name)),
            JSONMember("value", valueJSON(item.value)),
            JSONMember("level", .string(level.label)),
            JSONMember("color", .string(color.description)),
            JSONMember("color_rgb", color.json),
            JSONMember("category", .optional(item.category)),
            JSONMember("is_plant", .bool(item.isPlant)),
            JSONMember("in_season", item.inSeason.map(JSONValue.bool) ?? .null),
            JSONMember("image_url", .optional(item.imageURL)),
            JSONMember("image_closeup_url", .optional(item.imageCloseupURL)),
            JSONMember("family", .optional(item.family)),
            JSONMember("season", .optional(item.season)),
            JSONMember("appearance", .optional(item.appearance)),
            JSONMember("cross_reaction", .optional(item.crossReaction)),
            JSONMember(
                "health_recommendations",
                item.healthRecommendations.map { .array($0.map(JSONValue.string)) } ?? .null),
            JSONMember("index_category", .optional(item.indexCategory)),
            JSONMember("index_description", .optional(item.indexDescription)),
            JSONMember("index_color", .optional(item.indexColor?.description)),
            JSONMember(
                "grains_per_m3",
                item.grainsPerCubicMetre.map {
                    .object([
                        "mean": .fixed($0.meanTenths, scale: 1),
                        "max": .fixed($0.maxTenths, scale: 1),
                    ])
                } ?? .null),
            JSONMember("source", .string((item.source ?? source).rawValue)),
        ]
        if (item.source ?? source) == .dwd {
            // The DWD's own reading (docs/reference.md, "DWD"): the index string, 0–3 in half
            // steps, the German description (`index_description`) and the region it is for.
            let index = DWDPollen.Index(item.indexCategory)
            members.append(JSONMember("dwd_index", .optional(item.indexCategory)))
            members.append(JSONMember("dwd_value", index.dwdValueText.map(JSONValue.number) ?? .null))
            members.append(JSONMember("region", item.dwdRegion.map { .integer($0) } ?? .null))
        }
        if let forecast {
            members.append(
                JSONMember(
                    "forecast",
                    .array(
                        forecast.map { date, day in
                            let dayLevel = day.level
                            return .object([
                                "date": .string(date.description),
                                "value": valueJSON(day.value),
                                "level": .string(dayLevel.label),
                                "color": .string(palette.color(for: dayLevel).description),
                            ])
                        })))
        }
        return .object(members)
    }
}
