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

// The status page (docs/http.md) as a value: words, numbers and colors already decided by the core
// (the same level words, formats and colors as the broker's topics). ``StatusPage/html`` turns
// it into one self-contained HTML document; the agent builds it from its state at a request.

/// The status page of `GET /` (docs/http.md): what the hub owner sees.
public struct StatusPage: Sendable, Equatable {
    /// The agent's version (`--version`).
    public var version: String
    /// RFC 3339 UTC time the page was made.
    public var generatedAt: String
    public var mqttConnected: Bool
    /// `--demo`: the page says the data is made up.
    public var demo: Bool
    public var locations: [StatusLocation]
    /// Configured locations past ``StatusPage/maximumModelledLocations``, not even modelled
    /// (the page counts them among those not shown).
    public var omittedLocations = 0
    /// Per source (`google_pollen`, `open_meteo_climate`, …): health for the footer.
    public var sources: [StatusSource]
    /// The attributions the data shown requires (Google, Open-Meteo, Copernicus), deduplicated.
    public var attributions: [String]
    /// The language of the page's own words, numbers and times (the top-level `language`).
    public var language: Language = .english
    /// The zone the header's and the footer's times are shown in (the first location's); nil:
    /// those times as they are given (RFC 3339 UTC).
    public var zone: ZoneRules?

    public init(
        version: String, generatedAt: String, mqttConnected: Bool, demo: Bool, locations: [StatusLocation],
        sources: [StatusSource], attributions: [String]
    ) {
        self.version = version
        self.generatedAt = generatedAt
        self.mqttConnected = mqttConnected
        self.demo = demo
        self.locations = locations
        self.sources = sources
        self.attributions = attributions
    }
}

/// What the page knows about one part of a location (pollen, climate, …).
public enum StatusSection<Content: Sendable & Equatable>: Sendable, Equatable {
    /// Turned off in the config: the part is not shown.
    case off
    /// On, but nothing fetched or stored yet.
    case waiting
    /// On, but the source has nothing here (e.g. pollen outside the source's area): the reason.
    case unavailable(String)
    case data(Content)
}

/// One configured location.
public struct StatusLocation: Sendable, Equatable {
    public var id: String
    /// The display name from the config (escaped when rendered, like every value).
    public var name: String
    public var pollen: StatusSection<StatusPollen>
    public var climate: StatusSection<StatusClimate>
    public var stripes: StatusSection<StatusStripes>
    public var air: StatusSection<StatusAir>
    /// One per `profiles:` entry; empty without profiles or without pollen data.
    public var risks: [StatusRisk]
    /// API calls made today (the location's local day), for its header.
    public var googleCallsToday: Int
    public var openMeteoCallsToday: Int
    /// The location's rendered images (docs/images.md) this run has drawn, in config order.
    public var images: [StatusImage]
    /// The location's time zone: its "updated" times are shown in it; nil: as they are given
    /// (RFC 3339 UTC).
    public var zone: ZoneRules?

    public init(
        id: String, name: String, pollen: StatusSection<StatusPollen>, climate: StatusSection<StatusClimate>,
        stripes: StatusSection<StatusStripes>, air: StatusSection<StatusAir>, risks: [StatusRisk],
        googleCallsToday: Int = 0, openMeteoCallsToday: Int = 0, images: [StatusImage] = []
    ) {
        self.id = id
        self.name = name
        self.pollen = pollen
        self.climate = climate
        self.stripes = stripes
        self.air = air
        self.risks = risks
        self.googleCallsToday = googleCallsToday
        self.openMeteoCallsToday = openMeteoCallsToday
        self.images = images
    }
}

/// A rendered image of a location, shown as the agent serves it at
/// `images/<location>/<id>.<png|jpg>` (a link relative to the page: docs/home-assistant.md, Add-on, ingress).
public struct StatusImage: Sendable, Equatable {
    /// `[a-z0-9_-]{1,32}` (config-checked), so it is safe in a path as it is.
    public var id: String
    public var kind: ImageKind
    public var width: Int
    public var height: Int
    public var format: ImageFormat

    public init(id: String, kind: ImageKind, width: Int, height: Int, format: ImageFormat) {
        self.id = id
        self.kind = kind
        self.width = width
        self.height = height
        self.format = format
    }
}

/// A labelled value with its level word and color (docs/reference.md, Pollen levels and colors; docs/reference.md, Air quality bands): the word is always printed
/// beside the color, never the color alone.
public struct StatusLevel: Sendable, Equatable {
    /// What it is of: a pollen type or plant name, a day, an air metric.
    public var label: String
    /// The value as published (`3`, `28`, `2.1`); nil when unknown.
    public var value: String?
    /// The level word (`Moderate`, `Good`); nil for a value-only metric (PM2.5).
    public var level: String?
    public var color: HexColor?

    public init(label: String, value: String?, level: String?, color: HexColor?) {
        self.label = label
        self.value = value
        self.level = level
        self.color = color
    }
}

/// Today's pollen (docs/reference.md, Pollen levels and colors): the maximum, the three types, the plants in season, the days.
public struct StatusPollen: Sendable, Equatable {
    /// The sources read, in order: `Google`, `Open-Meteo`, `Open-Meteo + DWD`.
    public var source: String
    public var updatedAt: String
    public var stale: Bool
    /// The type with the highest value today (label: its name, or `Pollen` when Unknown).
    public var max: StatusLevel
    public var types: [StatusLevel]
    /// Plants in season today (`in_season: true`; Open-Meteo says null, so there: a value above 0).
    public var plants: [StatusLevel]
    /// One per selected day, today first: the day's maximum over the types.
    public var days: [StatusLevel]
    /// The types in the current local hour (docs/reference.md, The hour to air out, Open-Meteo only; empty for Google).
    public var now: [StatusLevel]
    /// The best time to air out, as a sentence (`15:00–17:00 today, Low`), or why there is
    /// none; nil for Google.
    public var airOut: String?
    /// Today against the recent season (docs/reference.md, The hour to air out, Open-Meteo only): one line per type, e.g.
    /// `Tree: 73rd percentile of the last 92 days; in season since 2026-06-04`.
    public var season: [String]
    /// The DWD region read (`DWD region 50, Brandenburg und Berlin`); nil without the DWD.
    public var region: String?
    /// The items two or more sources carry today, with each source's level and the consensus
    /// (docs/reference.md, "Several sources").
    public var consensus: [StatusConsensus] = []

    public init(
        source: String, updatedAt: String, stale: Bool, max: StatusLevel, types: [StatusLevel],
        plants: [StatusLevel], days: [StatusLevel], now: [StatusLevel] = [], airOut: String? = nil,
        season: [String] = []
    ) {
        self.season = season
        self.source = source
        self.updatedAt = updatedAt
        self.stale = stale
        self.max = max
        self.types = types
        self.plants = plants
        self.days = days
        self.now = now
        self.airOut = airOut
    }
}

/// One item several sources carry: each source's level and the higher one (the consensus).
public struct StatusConsensus: Sendable, Equatable {
    /// The item's name.
    public var label: String
    /// Each source's reading: label the source's name (`DWD`).
    public var readings: [StatusLevel]
    /// The consensus: label `all sources` in the page's language.
    public var consensus: StatusLevel
    /// Every known level is the same.
    public var agree: Bool

    public init(label: String, readings: [StatusLevel], consensus: StatusLevel, agree: Bool) {
        self.label = label
        self.readings = readings
        self.consensus = consensus
        self.agree = agree
    }

    /// The rows of `carried` (``PollenConsensusTopics/carried(_:)``) in `palette` and `language`.
    public static func rows(
        _ carried: [PollenConsensusTopics.Carried], palette: PollenPalette = .standard,
        language: Language = .english
    ) -> [StatusConsensus] {
        func cell(_ label: String, _ value: Int?) -> StatusLevel {
            let level = PollenLevel(value: value)
            return StatusLevel(
                label: label, value: value.map { String($0) }, level: language.levelWord(level.label),
                color: palette.color(for: level))
        }
        return carried.map { item in
            StatusConsensus(
                label: item.readings.first?.item.name ?? item.id,
                readings: item.readings.map { cell($0.source.source.displayName, $0.item.value) },
                consensus: cell(language.text(.pageAllSources), item.consensus.value),
                agree: item.consensus.agree)
        }
    }
}

/// The climate trend (docs/reference.md, Climate arithmetic), as the seed's "Local Climate Trend" chart.
public struct StatusClimate: Sendable, Equatable {
    public var date: CivilDate
    public var baselineYear: Int
    /// `+2.3°F`; nil when there is no change (baseline or current year missing).
    public var changeText: String?
    public var changeColor: HexColor
    public var updatedAt: String
    public var stale: Bool
    public var bars: [StatusBar]

    public init(
        date: CivilDate, baselineYear: Int, changeText: String?, changeColor: HexColor, updatedAt: String,
        stale: Bool, bars: [StatusBar]
    ) {
        self.date = date
        self.baselineYear = baselineYear
        self.changeText = changeText
        self.changeColor = changeColor
        self.updatedAt = updatedAt
        self.stale = stale
        self.bars = bars
    }
}

/// One point of the climate chart.
public struct StatusBar: Sendable, Equatable {
    public var year: Int
    /// `53.8°F`, in the location's display unit.
    public var text: String
    public var color: HexColor
    /// docs/reference.md, Climate arithmetic `bar` in thousandths (0…1000).
    public var barThousandths: Int

    public init(year: Int, text: String, color: HexColor, barThousandths: Int) {
        self.year = year
        self.text = text
        self.color = color
        self.barThousandths = barThousandths
    }
}

/// The warming stripes (docs/reference.md, Warming stripes): one color per year kept, oldest first.
public struct StatusStripes: Sendable, Equatable {
    public var firstYear: Int
    public var lastYear: Int
    public var years: [Int]
    public var colors: [HexColor]

    public init(firstYear: Int, lastYear: Int, years: [Int], colors: [HexColor]) {
        self.firstYear = firstYear
        self.lastYear = lastYear
        self.years = years
        self.colors = colors
    }
}

/// Air quality and UV for the current local hour (docs/reference.md, Air quality bands).
public struct StatusAir: Sendable, Equatable {
    public var updatedAt: String
    public var stale: Bool
    public var metrics: [StatusLevel]

    public init(updatedAt: String, stale: Bool, metrics: [StatusLevel]) {
        self.updatedAt = updatedAt
        self.stale = stale
        self.metrics = metrics
    }
}

/// One personal risk profile today (docs/reference.md, Personal risk).
public struct StatusRisk: Sendable, Equatable {
    /// Label: the profile's name; value: the driving allergen's name.
    public var level: StatusLevel
    public var alert: Bool
    public var alertLevel: String
    /// The profile's best time to air out (docs/reference.md, The hour to air out), as ``StatusPollen/airOut``.
    public var airOut: String?

    public init(level: StatusLevel, alert: Bool, alertLevel: String, airOut: String? = nil) {
        self.level = level
        self.alert = alert
        self.alertLevel = alertLevel
        self.airOut = airOut
    }
}

/// The health of one source, for the footer.
public struct StatusSource: Sendable, Equatable {
    /// The key of `<p>/diagnostics` (`google_pollen`, `open_meteo_air`, …).
    public var key: String
    public var lastSuccess: String?
    /// `2026-12-01T05:00:00Z: HTTP 503`.
    public var lastError: String?
    /// Whether any location's data from this source is stale now.
    public var stale: Bool
    /// Calls today: Google's billed calls (all locations), or Open-Meteo requests since UTC midnight.
    public var callsToday: Int

    public init(key: String, lastSuccess: String?, lastError: String?, stale: Bool, callsToday: Int) {
        self.key = key
        self.lastSuccess = lastSuccess
        self.lastError = lastError
        self.stale = stale
        self.callsToday = callsToday
    }

    /// The name a person reads (`Google Pollen`, `Open-Meteo climate`).
    public var displayName: String { displayName(in: .english) }

    /// The name a person reads, in a language.
    public func displayName(in language: Language) -> String {
        switch key {
        case "google_pollen": return language.text(.sourceGooglePollen)
        case "open_meteo_pollen": return language.text(.sourceOpenMeteoPollen)
        case "open_meteo_climate": return language.text(.sourceOpenMeteoClimate)
        case "open_meteo_stripes": return language.text(.sourceOpenMeteoStripes)
        case "open_meteo_air": return language.text(.sourceOpenMeteoAir)
        default: return key
        }
    }
}

// MARK: from the domain values (the same decisions as the topic builders)

extension StatusPollen {
    /// Today's and the forecast days' pollen of a selection (``PollenSelection``), in `palette`.
    /// With an hourly view (Open-Meteo), the types' current hour and the best time to air out.
    public init(
        selection: PollenSelection, fetchedAt: Int64, palette: PollenPalette = .standard,
        view: PollenHourlyView? = nil, airOut: AirOutSettings = AirOutSettings(),
        season: PollenSeasonStanding? = nil, language: Language = .english
    ) {
        func cell(_ item: PollenItem) -> StatusLevel {
            let level = item.level
            return StatusLevel(
                label: item.name, value: item.value.map { String($0) }, level: language.levelWord(level.label),
                color: palette.color(for: level))
        }
        let items = selection.items
        let types = items.filter { !$0.isPlant }
        let plants = items.filter { item in
            guard item.isPlant else { return false }
            if let inSeason = item.inSeason { return inSeason }
            return (item.value ?? 0) > 0
        }
        let maxCell =
            selection.max.map(cell)
            ?? StatusLevel(
                label: language.text(.pollen), value: nil, level: language.levelWord(PollenLevel.unknown.label),
                color: palette.color(for: .unknown))
        let days = selection.days.enumerated().map { index, day in
            let level = PollenLevel(value: day.max?.value)
            return StatusLevel(
                label: index == 0 ? language.text(.today) : language.weekdayAndDay(day.date),
                value: day.max?.value.map { String($0) }, level: language.levelWord(level.label),
                color: palette.color(for: level))
        }
        self.init(
            source: selection.source.displayName,
            updatedAt: UTCTimestamp.rfc3339(unixSeconds: fetchedAt), stale: selection.stale, max: maxCell,
            types: types.map(cell), plants: plants.map(cell), days: days,
            now: view.map { view in
                types.map { item in
                    let value = view.nowValue(of: item.topicID)
                    let level = PollenLevel(value: value)
                    return StatusLevel(
                        label: item.name, value: value.map { String($0) }, level: language.levelWord(level.label),
                        color: palette.color(for: level))
                }
            } ?? [],
            airOut: view.map {
                AirOutAssessment.assess(allergens: AirOutAssessment.locationAllergens, view: $0, settings: airOut)
                    .summary(view: $0, language: language)
            },
            season: selection.source == .openMeteo
                ? types.compactMap { item in
                    season?.item(item.topicID).map { Self.seasonLine(item.name, $0, language: language) }
                } : [])
    }

    /// One type's line of ``season``.
    static func seasonLine(_ name: String, _ item: PollenSeasonStanding.Item, language: Language = .english)
        -> String
    {
        let days = String(PollenSeason.windowDays)
        let standing: String
        switch item.percentile {
        case .percent(let n): standing = language.text(.seasonPercentile, ["n": String(n), "days": days])
        case .offSeason: standing = language.text(.seasonOff, ["days": days])
        case .insufficient(let count): standing = language.text(.seasonInsufficient, ["days": String(count)])
        case .unknown: standing = language.text(.seasonUnknown)
        }
        let since = item.seasonStart.map { language.text(.seasonSince, ["date": $0.description]) } ?? ""
        return language.text(.seasonLine, ["item": name, "standing": standing]) + since
    }
}

extension StatusClimate {
    /// The chart of a trend in `unit` (the texts and colors of ``ClimateTopics``).
    public init(
        trend: ClimateTrend, unit: TemperatureUnit, fetchedAt: Int64, stale: Bool, language: Language = .english
    ) {
        self.init(
            date: trend.date, baselineYear: trend.baselineYear,
            changeText: trend.changeTenths.map {
                language.decimal(ClimateFormat.changeText(tenthsCelsius: $0, unit: unit))
            },
            changeColor: trend.changeColor, updatedAt: UTCTimestamp.rfc3339(unixSeconds: fetchedAt),
            stale: stale || trend.changeTenths == nil,
            bars: trend.points.map {
                StatusBar(
                    year: $0.year,
                    text: language.decimal(ClimateFormat.temperatureText(tenthsCelsius: $0.tenthsCelsius, unit: unit)),
                    color: $0.color, barThousandths: $0.barThousandths)
            })
    }
}

extension StatusStripes {
    public init(series: StripesSeries) {
        self.init(
            firstYear: series.firstYear, lastYear: series.lastYear, years: series.years.map(\.year),
            colors: series.years.map(\.color))
    }
}

extension StatusAir {
    /// The metrics of a reading (the levels and colors of ``AirTopics``).
    public init(reading: AirReading, fetchedAt: Int64, stale: Bool, language: Language = .english) {
        let metrics = AirMetric.allCases.map { metric in
            let tenths = reading.value(metric)
            let band = metric.band(tenths: tenths)
            return StatusLevel(
                label: metric.displayName(in: language),
                value: tenths.map { language.decimal(AirTopics.text(metric, $0)) },
                level: band.map { language.levelWord($0.level) }, color: band?.color)
        }
        self.init(
            updatedAt: UTCTimestamp.rfc3339(unixSeconds: fetchedAt), stale: stale || reading.hour == nil,
            metrics: metrics)
    }
}

extension StatusRisk {
    /// A profile assessed on today's selection (``RiskAssessment``).
    /// With an hourly view (Open-Meteo), the profile's best time to air out too.
    public init(
        assessment: RiskAssessment, palette: PollenPalette = .standard, view: PollenHourlyView? = nil,
        airOut: AirOutSettings = AirOutSettings(), language: Language = .english
    ) {
        let today = assessment.today
        self.init(
            level: StatusLevel(
                label: assessment.profile.name, value: today.driverName ?? today.driver,
                level: language.levelWord(today.level.label), color: assessment.color(palette: palette)),
            alert: assessment.alert, alertLevel: language.levelWord(assessment.profile.alertLevel.label),
            airOut: view.map {
                AirOutAssessment.assess(allergens: assessment.profile.allergens, view: $0, settings: airOut)
                    .summary(view: $0, language: language)
            })
    }
}

extension StatusPage {
    /// `Wed 3`: the weekday and day of month of a forecast day (English; the page itself uses
    /// its language's ``Language/weekdayAndDay(_:)``).
    public static func dayLabel(_ date: CivilDate) -> String { Language.english.weekdayAndDay(date) }
}
