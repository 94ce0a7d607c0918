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

/// The texts of every language: one table per language, a key to a text with `{name}`
/// placeholders, each in its own file (`Catalogue+de.swift`, …). Swift source rather than a
/// resource bundle: a bundle would bring `import Foundation` into the agent (STYLE.md).
///
/// Every table has exactly the keys of ``CatalogueKey`` and each text the placeholders of its
/// English text (CoreTests' `CatalogueTests`). A table is built the first time its language is
/// asked for, so a running agent holds English and its own language only.
public enum Catalogue {
    /// The table of a language.
    public static func table(_ language: Language) -> [String: String] {
        switch language {
        case .en: return en
        case .de: return de
        case .fr: return fr
        case .it: return it
        case .es: return es
        case .nl: return nl
        case .pl: return pl
        case .sv: return sv
        case .da: return da
        case .nb: return nb
        case .fi: return fi
        case .pt: return pt
        case .cs: return cs
        }
    }

    /// `template` with each `{name}` that `values` has replaced by its value; other braces stay.
    public static func fill(_ template: String, _ values: [String: String]) -> String {
        var out = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            out += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else {
                rest = rest[open...]
                break
            }
            let name = String(rest[rest.index(after: open)..<close])
            if let value = values[name] {
                out += value
            } else {
                out += rest[open...close]
            }
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }

    /// The placeholder names of a text (`{item} pollen` → `["item"]`), for the completeness test.
    public static func placeholders(_ template: String) -> Set<String> {
        var names: Set<String> = []
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            names.insert(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return names
    }
}

/// Every key a catalogue has, by what it names: `ha.` Home Assistant entity names, `plant.`
/// pollen type and plant names by code, `level.` level words as people read them, `air.` air
/// metrics, `page.` the status page, `image.` the rendered images, `format.`, `weekday.` and
/// `month.` how times and dates are written.
public enum CatalogueKey: String, Sendable, CaseIterable {
    // MARK: how times, dates and numbers are written
    case formatDecimalSeparator = "format.decimal_separator"
    case formatClock = "format.clock"
    case formatWeekdayDay = "format.weekday_day"
    case formatDayMonth = "format.day_month"
    case formatDayClock = "format.day_clock"
    case weekdayMon = "weekday.mon"
    case weekdayTue = "weekday.tue"
    case weekdayWed = "weekday.wed"
    case weekdayThu = "weekday.thu"
    case weekdayFri = "weekday.fri"
    case weekdaySat = "weekday.sat"
    case weekdaySun = "weekday.sun"
    case month1 = "month.1"
    case month2 = "month.2"
    case month3 = "month.3"
    case month4 = "month.4"
    case month5 = "month.5"
    case month6 = "month.6"
    case month7 = "month.7"
    case month8 = "month.8"
    case month9 = "month.9"
    case month10 = "month.10"
    case month11 = "month.11"
    case month12 = "month.12"

    // MARK: pollen types and plants (Open-Meteo's and DWD's; Google names its own)
    case plantGrass = "plant.grass"
    case plantTree = "plant.tree"
    case plantWeed = "plant.weed"
    case plantAlder = "plant.alder"
    case plantBirch = "plant.birch"
    case plantOlive = "plant.olive"
    case plantGraminales = "plant.graminales"
    case plantMugwort = "plant.mugwort"
    case plantRagweed = "plant.ragweed"
    case plantHazel = "plant.hazel"
    case plantAsh = "plant.ash"
    case plantRye = "plant.rye"

    // MARK: level words (the page and the images only)
    case levelNone = "level.none"
    case levelLow = "level.low"
    case levelModerate = "level.moderate"
    case levelHigh = "level.high"
    case levelVeryHigh = "level.very_high"
    case levelUnknown = "level.unknown"
    case levelGood = "level.good"
    case levelFair = "level.fair"
    case levelPoor = "level.poor"
    case levelVeryPoor = "level.very_poor"
    case levelExtremelyPoor = "level.extremely_poor"
    case levelUnhealthyForSensitiveGroups = "level.unhealthy_for_sensitive_groups"
    case levelUnhealthy = "level.unhealthy"
    case levelVeryUnhealthy = "level.very_unhealthy"
    case levelHazardous = "level.hazardous"
    case levelExtreme = "level.extreme"

    // MARK: air metrics
    case airEuropeanAQI = "air.european_aqi"
    case airUSAQI = "air.us_aqi"
    case airPM2_5 = "air.pm2_5"
    case airPM10 = "air.pm10"
    case airUVIndex = "air.uv_index"
    case airUVIndexMax = "air.uv_index_max"

    // MARK: Home Assistant entity names (discovery `name`)
    case haPollenMax = "ha.pollen_max"
    case haPollenMaxLevel = "ha.pollen_max_level"
    case haPollenTrend = "ha.pollen_trend"
    case haPollenPeak = "ha.pollen_peak"
    case haItem = "ha.item"
    case haItemLevel = "ha.item_level"
    case haItemTomorrow = "ha.item_tomorrow"
    case haItemConsensus = "ha.item_consensus"
    case haItemDisagree = "ha.item_disagree"
    case haItemNow = "ha.item_now"
    case haItemPercentile = "ha.item_percentile"
    case haItemSeasonStart = "ha.item_season_start"
    case haAirOut = "ha.air_out"
    case haAirOutNow = "ha.air_out_now"
    case haProfileAirOut = "ha.profile_air_out"
    case haProfileAirOutNow = "ha.profile_air_out_now"
    case haTemperatureCurrent = "ha.temperature_current"
    case haTemperatureBaseline = "ha.temperature_baseline"
    case haTemperatureChange = "ha.temperature_change"
    case haAirMetricLevel = "ha.air_metric_level"
    case haAirUpdatedAt = "ha.air_updated_at"
    case haAirStale = "ha.air_stale"
    case haRisk = "ha.risk"
    case haRiskAlert = "ha.risk_alert"
    case haImage = "ha.image"
    case haRefresh = "ha.refresh"
    case haTemperatureUnit = "ha.temperature_unit"
    case haPollenUpdatedAt = "ha.pollen_updated_at"
    case haPollenStale = "ha.pollen_stale"
    case haClimateStale = "ha.climate_stale"
    case haAPICallsToday = "ha.api_calls_today"

    // MARK: shared by the page and the images
    case today = "common.today"
    case pollen = "common.pollen"

    // MARK: the status page
    case pageTitle = "page.title"
    case pageConnected = "page.connected"
    case pageDisconnected = "page.disconnected"
    case pageLocationsOne = "page.locations_one"
    case pageLocationsFew = "page.locations_few"
    case pageLocationsOther = "page.locations_other"
    case pageDemo = "page.demo"
    case pageHiddenOne = "page.hidden_one"
    case pageHiddenFew = "page.hidden_few"
    case pageHiddenOther = "page.hidden_other"
    case pageHiddenLink = "page.hidden_link"
    case pageAPICalls = "page.api_calls"
    case pageSectionPollen = "page.section_pollen"
    case pageSectionClimate = "page.section_climate"
    case pageSectionStripes = "page.section_stripes"
    case pageSectionAir = "page.section_air"
    case pageSectionRisk = "page.section_risk"
    case pageSectionImages = "page.section_images"
    case pageRiskFrom = "page.risk_from"
    case pageRiskAlert = "page.risk_alert"
    case pageRiskAlertsAt = "page.risk_alerts_at"
    case pageRiskAirOut = "page.risk_air_out"
    case pageWaiting = "page.waiting"
    case pageNoPollen = "page.no_pollen"
    case pageNoPollenBecause = "page.no_pollen_because"
    case pageNow = "page.now"
    case pageBestAirOut = "page.best_air_out"
    case pageAgainstSeason = "page.against_season"
    case pageInSeason = "page.in_season"
    case pagePlantsInSeasonOne = "page.plants_in_season_one"
    case pagePlantsInSeasonFew = "page.plants_in_season_few"
    case pagePlantsInSeasonOther = "page.plants_in_season_other"
    case pageList = "page.list"
    case pageForecast = "page.forecast"
    case pageAllSources = "page.all_sources"
    case pageDWDRegion = "page.dwd_region"
    case pageSourcesDisagree = "page.sources_disagree"
    case pageUpdated = "page.updated"
    case pageStale = "page.stale"
    case pageTemperatureOn = "page.temperature_on"
    case pageChangeSince = "page.change_since"
    case pageNoChange = "page.no_change"
    case pageChartLabel = "page.chart_label"
    case pageStripesCaption = "page.stripes_caption"
    case pageImageAlt = "page.image_alt"
    case pageKindPollen = "page.kind_pollen"
    case pageKindClimate = "page.kind_climate"
    case pageKindStripes = "page.kind_stripes"
    case pageKindSummary = "page.kind_summary"
    case pageSources = "page.sources"
    case pageColumnSource = "page.column_source"
    case pageColumnLastSuccess = "page.column_last_success"
    case pageColumnStale = "page.column_stale"
    case pageColumnCalls = "page.column_calls"
    case pageColumnLastError = "page.column_last_error"
    case pageNever = "page.never"
    case pageNo = "page.no"
    case pageNone = "page.none"
    case pageNoFetchYet = "page.no_fetch_yet"
    case sourceGooglePollen = "source.google_pollen"
    case sourceOpenMeteoPollen = "source.open_meteo_pollen"
    case sourceOpenMeteoClimate = "source.open_meteo_climate"
    case sourceOpenMeteoStripes = "source.open_meteo_stripes"
    case sourceOpenMeteoAir = "source.open_meteo_air"
    case seasonLine = "season.line"
    case seasonPercentile = "season.percentile"
    case seasonOff = "season.off"
    case seasonInsufficient = "season.insufficient"
    case seasonUnknown = "season.unknown"
    case seasonSince = "season.since"
    case airOutWindow = "airout.window"
    case airOutToday = "airout.today"
    case airOutTomorrow = "airout.tomorrow"
    case airOutNoAllergens = "airout.none_allergens"
    case airOutNoHours = "airout.none_hours"
    case airOutNoData = "airout.none"

    // MARK: the rendered images
    case imageClimateTrend = "image.climate_trend"
    case imageClimate = "image.climate"
    case imageNoData = "image.no_data"
    case imageChange = "image.change"
    case imageSince = "image.since"
    case imagePollenToday = "image.pollen_today"
}
