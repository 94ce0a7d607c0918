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

/// Turns a location's state into what an image shows (docs/images.md): words and colors decided
/// here, in the core, so the render helper draws and decides nothing.
///
/// Only the panels the image's kind draws are filled (`pollen`: pollen; `climate`: climate;
/// `stripes`: stripes; `summary`: all three), so a change the picture does not show does not
/// re-render it.
public enum ImageContentBuilder {
    /// What the builder reads of a location.
    public struct Input: Sendable {
        public var locationName: String
        /// Today's and the forecast days' pollen; nil when not known or unavailable.
        public var pollen: PollenSelection?
        public var palette: PollenPalette
        public var climate: ClimateTrend?
        public var unit: TemperatureUnit
        public var stripes: StripesSeries?
        /// The language of the picture's words, weekdays and numbers (the top-level `language`).
        public var language: Language

        public init(
            locationName: String, pollen: PollenSelection?, palette: PollenPalette, climate: ClimateTrend?,
            unit: TemperatureUnit, stripes: StripesSeries?, language: Language = .english
        ) {
            self.locationName = locationName
            self.pollen = pollen
            self.palette = palette
            self.climate = climate
            self.unit = unit
            self.stripes = stripes
            self.language = language
        }
    }

    /// The color of a stripes year the series left out (fewer than 360 daily means).
    public static let missingYearColor = "#ffffff"

    public static func content(kind: ImageKind, _ input: Input) -> ImageContent {
        var content = ImageContent(locationName: ImageBounds.clippedText(input.locationName))
        let language = input.language
        if kind == .pollen || kind == .summary {
            content.pollen = input.pollen.map { pollenPanel($0, palette: input.palette, language: language) }
        }
        if kind == .climate || kind == .summary {
            content.climate = input.climate.map { climatePanel($0, unit: input.unit, language: language) }
        }
        // English needs no words: the helper's own are English, and the request stays as it was.
        if language != .english { content.words = ImageWords(language) }
        if kind == .stripes || kind == .summary {
            content.stripes = input.stripes.map(stripesPanel)
        }
        return content
    }

    /// Today's max (label "Today", the level word of the highest general type), the three types
    /// (grass, tree, weed, those the source has), and each forecast day's max (label: weekday),
    /// the words in `language`.
    public static func pollenPanel(
        _ selection: PollenSelection, palette: PollenPalette, language: Language = .english
    ) -> PollenPanel {
        let today = cell(
            language.text(.today), level: PollenLevel(value: selection.max?.value), palette: palette,
            language: language)
        var types: [LevelCell] = []
        for code in GooglePollen.typeCodes {
            guard let item = selection.items.first(where: { !$0.isPlant && $0.code == code }) else { continue }
            types.append(cell(item.name, level: item.level, palette: palette, language: language))
        }
        let days = selection.days.dropFirst().map { day in
            cell(
                language.weekday(day.date), level: PollenLevel(value: day.max?.value), palette: palette,
                language: language)
        }
        return PollenPanel(today: today, types: types, days: days)
    }

    /// The change text and color as `climate/change/text` shows them (`—` and gray without a
    /// change), and one bar per point, oldest first, its temperature in the display unit; the
    /// numbers with `language`'s decimal separator.
    public static func climatePanel(
        _ trend: ClimateTrend, unit: TemperatureUnit, language: Language = .english
    ) -> ClimatePanel {
        let change =
            trend.changeTenths.map { language.decimal(ClimateFormat.changeText(tenthsCelsius: $0, unit: unit)) } ?? "—"
        let bars = trend.points.sorted { $0.year < $1.year }.map { point in
            ClimateBar(
                label: String(point.year),
                value: language.decimal(ClimateFormat.temperatureText(tenthsCelsius: point.tenthsCelsius, unit: unit)),
                heightThousandths: point.barThousandths, color: point.color.description)
        }
        return ClimatePanel(changeText: change, changeColor: trend.changeColor.description, bars: bars)
    }

    /// One color per year from the first to the last year of the series, oldest first; a year
    /// the series left out is ``missingYearColor``.
    public static func stripesPanel(_ series: StripesSeries) -> StripesPanel {
        var colors: [Int: String] = [:]
        for year in series.years { colors[year.year] = year.color.description }
        let last = max(series.firstYear, series.lastYear)
        return StripesPanel(
            firstYear: series.firstYear, lastYear: last,
            colors: (series.firstYear...last).map { colors[$0] ?? missingYearColor })
    }

    /// The English short weekday of a date.
    public static func weekday(_ date: CivilDate) -> String { Language.english.weekday(date) }

    private static func cell(_ label: String, level: PollenLevel, palette: PollenPalette, language: Language)
        -> LevelCell
    {
        // Labels may come from the API (Google's displayName): clipped to what the helper takes.
        LevelCell(
            label: ImageBounds.clippedText(label), level: language.levelWord(level.label),
            color: palette.color(for: level).description)
    }
}
