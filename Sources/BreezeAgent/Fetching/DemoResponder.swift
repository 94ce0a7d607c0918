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
import BreezeDaemon
import BreezeHTTP

/// `--demo`: synthetic responses in the real formats of the three APIs, generated for the
/// dates each request asks for, so the whole pipeline (decode → domain → topics) runs with no
/// network and no key. The values are made up; the shapes, quirks included (later forecast
/// days with codes and names only, proto3-omitted color channels), are those of the fixtures.
struct DemoResponder: HTTPFetching {
    /// The local date the demo takes as "today" for pollen (Google labels days by date).
    private let today: @Sendable () -> CivilDate

    init(today: @escaping @Sendable () -> CivilDate) {
        self.today = today
    }

    func get(
        _ url: String, query: [QueryParameter], headers: [(name: String, value: String)]
    ) async throws(CurlError) -> FetchedResponse {
        func value(_ name: String) -> String? { query.first { $0.name == name }?.value }
        let body: String
        if url.hasSuffix("/forecast:lookup") {
            body = Self.googlePollen(start: today(), days: Int(value("days") ?? "5") ?? 5)
        } else if url.hasSuffix("/archive"), value("daily") == "temperature_2m_mean",
            let start = value("start_date").flatMap({ CivilDate(iso: $0) }),
            let end = value("end_date").flatMap({ CivilDate(iso: $0) })
        {
            body = Self.dailyMeans(from: start, through: end, timezone: value("timezone") ?? "GMT")
        } else if url.hasSuffix("/archive") || url.hasSuffix("/forecast") {
            let starts = (value("start_date") ?? "").split(separator: ",").compactMap { CivilDate(iso: $0) }
            body = Self.climate(dates: starts, timezone: value("timezone") ?? "GMT")
        } else if url.hasSuffix("/air-quality"), value("hourly")?.contains("european_aqi") == true {
            body = Self.airIndexes(today: today(), timezone: value("timezone") ?? "GMT")
        } else if url.hasSuffix("/air-quality") {
            // The day's season call asks for `past_days` before today (docs/reference.md, The hour to air out).
            let past = min(max(Int(value("past_days") ?? "0") ?? 0, 0), PollenSeason.pastDays)
            body = Self.airQuality(start: today().adding(days: -past), past: past, timezone: value("timezone") ?? "GMT")
        } else {
            return FetchedResponse(status: 404, body: Array(#"{"error":true,"reason":"Not found"}"#.utf8))
        }
        return FetchedResponse(status: 200, body: Array(body.utf8))
    }

    private static func color(forValue value: Int) -> String {
        switch value {
        case 0: return #"{}"#
        case 1: return #"{"green":0.61960787,"blue":0.22745098}"#
        case 2: return #"{"red":0.5176471,"green":0.8117647,"blue":0.2}"#
        case 3: return #"{"red":1,"green":1}"#
        case 4: return #"{"red":1,"green":0.54901963}"#
        default: return #"{"red":0.8,"blue":0.2}"#
        }
    }

    private static let categories = ["None", "Very Low", "Low", "Moderate", "High", "Very High"]

    private static func index(_ value: Int) -> String {
        let valueKey = value == 0 ? "" : #""value":\#(value),"#
        return
            #"{"code":"UPI","displayName":"Universal Pollen Index",\#(valueKey)"category":"\#(categories[value])","indexDescription":"Demo data: not a real measurement","color":\#(color(forValue: value))}"#
    }

    /// A Google `forecast:lookup` body: three days with data, later days with codes and names only.
    static func googlePollen(start: CivilDate, days: Int) -> String {
        let types: [(String, String, [Int])] = [
            ("GRASS", "Grass", [2, 3, 1]), ("TREE", "Tree", [4, 3, 2]), ("WEED", "Weed", [0, 1, 1]),
        ]
        let plants: [(code: String, name: String, type: String, values: [Int], family: String, picture: String)] = [
            ("BIRCH", "Birch", "TREE", [4, 3, 2], "Betulaceae", "birch"),
            ("OAK", "Oak", "TREE", [2, 2, 1], "Fagaceae", "oak"),
            ("GRAMINALES", "Grasses", "GRASS", [2, 3, 1], "Poaceae", "grass"),
            ("RAGWEED", "Ragweed", "WEED", [0, 1, 1], "Asteraceae", "ragweed"),
            ("HAZEL", "Hazel", "TREE", [], "", ""),
        ]
        var dayTexts: [String] = []
        for offset in 0..<max(1, min(days, 5)) {
            let date = start.adding(days: offset)
            let typeTexts = types.map { code, name, values in
                guard offset < values.count else { return #"{"code":"\#(code)","displayName":"\#(name)"}"# }
                return
                    #"{"code":"\#(code)","displayName":"\#(name)","inSeason":true,"indexInfo":\#(index(values[offset])),"healthRecommendations":["Demo data: keep windows closed in the morning when levels are high."]}"#
            }
            let plantTexts = plants.map { p in
                guard offset < p.values.count else { return #"{"code":"\#(p.code)","displayName":"\#(p.name)"}"# }
                let description =
                    #"{"type":"\#(p.type)","family":"\#(p.family)","season":"Demo season","specialColors":"Demo colors","specialShapes":"Demo shapes","crossReaction":"Demo cross reactions","picture":"https://storage.googleapis.com/pollen-pictures/\#(p.picture)_full.jpg","pictureCloseup":"https://storage.googleapis.com/pollen-pictures/\#(p.picture)_closeup.jpg"}"#
                return
                    #"{"code":"\#(p.code)","displayName":"\#(p.name)","inSeason":true,"indexInfo":\#(index(p.values[offset])),"plantDescription":\#(description)}"#
            }
            dayTexts.append(
                #"{"date":{"year":\#(date.year),"month":\#(date.month),"day":\#(date.day)},"pollenTypeInfo":[\#(typeTexts.joined(separator: ","))],"plantInfo":[\#(plantTexts.joined(separator: ","))]}"#
            )
        }
        return #"{"regionCode":"DE","dailyInfo":[\#(dayTexts.joined(separator: ","))]}"#
    }

    /// An Open-Meteo daily body (archive or forecast); several dates → one object per date, as
    /// the archive answers comma-separated date lists. The demo warms by 0.3 °C a decade.
    static func climate(dates: [CivilDate], timezone: String) -> String {
        let objects = dates.map { date -> String in
            let wobble = (date.year * 7) % 11 - 5
            let tenths = 118 + (date.year - 1980) * 3 / 10 + wobble
            return
                #"{"latitude":52.52,"longitude":13.419998,"generationtime_ms":0.5,"utc_offset_seconds":0,"timezone":"\#(timezone)","timezone_abbreviation":"GMT","elevation":38.0,"daily_units":{"time":"iso8601","temperature_2m_max":"°C"},"daily":{"time":["\#(date)"],"temperature_2m_max":[\#(FixedPoint.format(tenths, scale: 1))]}}"#
        }
        return objects.count == 1 ? objects[0] : "[" + objects.joined(separator: ",") + "]"
    }

    /// An archive body with `temperature_2m_mean` for every day of a range (the warming
    /// stripes' request): a seasonal swing around an annual mean that warms by about 0.3 °C a
    /// decade, with a year-to-year wobble so the stripes are not a plain gradient.
    static func dailyMeans(from start: CivilDate, through end: CivilDate, timezone: String) -> String {
        var times: [String] = []
        var values: [String] = []
        var date = start
        // At most 60 000 days: the decoder's bound (a range the config cannot ask for anyway).
        while date <= end, times.count < 60_000 {
            let yearTenths = 95 + (date.year - 1980) * 3 / 10 + ((date.year * 37) % 13 - 6)
            let dayOfYear = date.daysSinceEpoch - CivilDate(year: date.year, month: 1, day: 1)!.daysSinceEpoch
            // A triangle wave: coldest mid-January, warmest mid-July, ±9 °C.
            let phase = (dayOfYear + 365 - 15) % 365
            let swing = (phase < 183 ? phase : 365 - phase) * 180 / 182 - 90
            times.append("\"\(date)\"")
            values.append(FixedPoint.format(yearTenths + swing, scale: 1))
            date = date.adding(days: 1)
        }
        return
            #"{"latitude":52.52,"longitude":13.419998,"generationtime_ms":0.5,"utc_offset_seconds":0,"timezone":"\#(timezone)","timezone_abbreviation":"GMT","elevation":38.0,"daily_units":{"time":"iso8601","temperature_2m_mean":"°C"},"daily":{"time":[\#(times.joined(separator: ","))],"temperature_2m_mean":[\#(values.joined(separator: ","))]}}"#
    }

    /// An Open-Meteo air-quality body for the air source (docs/reference.md, Air quality bands): AQI, PM and UV with a daily
    /// cycle, written in UTC from yesterday to tomorrow so that every local hour of today is in it
    /// whatever the zone (the agent matches hours by instant, not by text).
    static func airIndexes(today: CivilDate, timezone: String) -> String {
        let start = today.adding(days: -1)
        var times: [String] = []
        var eaqi: [String] = []
        var usaqi: [String] = []
        var pm25: [String] = []
        var pm10: [String] = []
        var uv: [String] = []
        for i in 0..<72 {
            let hour = i % 24
            times.append("\"\(start.adding(days: i / 24))T\(hour < 10 ? "0" : "")\(hour):00\"")
            let traffic = hour >= 7 && hour <= 19 ? 12 : 0
            eaqi.append(String(22 + traffic + hour % 5))
            usaqi.append(String(38 + traffic * 2 + hour % 7))
            pm25.append(FixedPoint.format(64 + traffic * 5 + hour, scale: 1))
            pm10.append(FixedPoint.format(98 + traffic * 7 + hour * 2, scale: 1))
            let sun = max(0, 36 - (hour - 12) * (hour - 12))  // a noon peak of 2.1 (UTC)
            uv.append(FixedPoint.format(sun * 6 / 10, scale: 1))
        }
        return
            #"{"latitude":52.5,"longitude":13.4,"generationtime_ms":1.0,"utc_offset_seconds":0,"timezone":"\#(timezone)","timezone_abbreviation":"GMT","elevation":38.0,"hourly_units":{"time":"iso8601","european_aqi":"EAQI","us_aqi":"USAQI","pm2_5":"μg/m³","pm10":"μg/m³","uv_index":""},"hourly":{"time":[\#(times.joined(separator: ","))],"european_aqi":[\#(eaqi.joined(separator: ","))],"us_aqi":[\#(usaqi.joined(separator: ","))],"pm2_5":[\#(pm25.joined(separator: ","))],"pm10":[\#(pm10.joined(separator: ","))],"uv_index":[\#(uv.joined(separator: ","))]}}"#
    }

    /// An Open-Meteo air-quality body: `past` days then 4 local days of hourly pollen, with a
    /// daily cycle; the past days rise into a season (none in the first 30, then 40–120 % of
    /// today's level, varying by day, and 70–79 % in the last 10), so the season topics have
    /// something to say.
    static func airQuality(start: CivilDate, past: Int = 0, timezone: String) -> String {
        let plants: [(String, Int)] = [
            ("alder_pollen", 80), ("birch_pollen", 320), ("grass_pollen", 25), ("mugwort_pollen", 7),
            ("olive_pollen", 0), ("ragweed_pollen", 9),
        ]
        var times: [String] = []
        let days = past + 4
        for day in 0..<days {
            for hour in 0..<24 {
                times.append("\"\(start.adding(days: day))T\(hour < 10 ? "0" : "")\(hour):00\"")
            }
        }
        let series = plants.map { name, peakTenths in
            let values = (0..<(days * 24)).map { i -> String in
                let (day, hour) = (i / 24, i % 24)
                let shape = hour < 6 || hour > 20 ? 2 : (hour < 12 ? 6 : 10)
                let percent =
                    day >= past
                    ? 100 : day < past - 62 ? 0 : day >= past - 10 ? 80 + day - past : 40 + 8 * ((day * 37) % 11)
                return FixedPoint.format(peakTenths * shape * percent / 1000, scale: 1)
            }
            return "\"\(name)\":[\(values.joined(separator: ","))]"
        }
        let units = plants.map { "\"\($0.0)\":\"grains/m³\"" }.joined(separator: ",")
        return
            #"{"latitude":52.5,"longitude":13.4,"generationtime_ms":1.0,"utc_offset_seconds":0,"timezone":"\#(timezone)","timezone_abbreviation":"GMT","elevation":38.0,"hourly_units":{"time":"iso8601",\#(units)},"hourly":{"time":[\#(times.joined(separator: ","))],\#(series.joined(separator: ","))}}"#
    }
}
