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

import BreezeCore
import Foundation
import Testing

/// What an image shows, decided by the core (SPEC §9.2): words and colors per panel, only the
/// panels of the image's kind, temperatures in the display unit.
@Suite("Images: render request content")
struct ImageContentTests {
    static let monday = date(2026, 6, 15)

    static func selection() -> PollenSelection {
        let report = PollenReport(
            source: .google, region: "DE",
            days: [
                PollenDay(
                    date: monday,
                    items: [
                        PollenItem(code: "GRASS", name: "Grass", isPlant: false, value: 4),
                        PollenItem(code: "TREE", name: "Tree", isPlant: false, value: 1),
                        PollenItem(code: "WEED", name: "Weed", isPlant: false, value: nil),
                        PollenItem(code: "BIRCH", name: "Birch", isPlant: true, value: 5),
                    ]),
                PollenDay(
                    date: date(2026, 6, 16),
                    items: [
                        PollenItem(code: "GRASS", name: "Grass", isPlant: false, value: 2),
                        PollenItem(code: "TREE", name: "Tree", isPlant: false, value: 5),
                    ]),
                PollenDay(date: date(2026, 6, 17), items: [PollenItem(code: "GRASS", name: "Grass", isPlant: false)]),
            ])
        return PollenSelection.select(report: report, today: monday, days: 3, fetchedAt: 0, now: 60, stale: false)
    }

    static func trend() throws -> ClimateTrend {
        let points = ClimateRequestPlan.points(today: monday, years: [1980, 2000])
        // 1980: 14.0 °C, 2000: 15.0 °C, 2026 (forecast): 16.5 °C.
        let values = [1980: 140, 2000: 150, 2026: 165]
        let observations = points.map { ClimateObservation(date: $0.date, tenthsCelsius: values[$0.year]!) }
        return try ClimateTrend.compute(
            today: monday, points: points, archive: observations.dropLast(), forecast: [observations.last!])
    }

    static let stripes = StripesSeries(
        firstYear: 2020, lastYear: 2023, referenceHundredths: 1000, referenceIsStandardPeriod: false,
        years: [
            StripesYear(year: 2020, meanHundredths: 900, anomalyHundredths: -100, bin: 0),
            StripesYear(year: 2022, meanHundredths: 1000, anomalyHundredths: 0, bin: 3),
            StripesYear(year: 2023, meanHundredths: 1100, anomalyHundredths: 100, bin: 7),
        ], omittedYears: [2021])

    static func input(unit: TemperatureUnit = .celsius) throws -> ImageContentBuilder.Input {
        .init(
            locationName: "Home", pollen: selection(), palette: .standard, climate: try trend(), unit: unit,
            stripes: stripes)
    }

    @Test func pollenPanelHasTodaysMaxTheThreeTypesAndTheForecastDays() throws {
        let content = ImageContentBuilder.content(kind: .pollen, try Self.input())
        #expect(content.locationName == "Home")
        #expect(content.climate == nil)
        #expect(content.stripes == nil)
        let pollen = try #require(content.pollen)
        // The max is over the general types only (the plant at 5 does not count).
        #expect(pollen.today == LevelCell(label: "Today", level: "High", color: "#ff3b30"))
        #expect(
            pollen.types == [
                LevelCell(label: "Grass", level: "High", color: "#ff3b30"),
                LevelCell(label: "Tree", level: "Low", color: "#34c759"),
                LevelCell(label: "Weed", level: "Unknown", color: "#8e8e93"),
            ])
        #expect(
            pollen.days == [
                LevelCell(label: "Tue", level: "Very High", color: "#8e0000"),
                LevelCell(label: "Wed", level: "Unknown", color: "#8e8e93"),
            ])
    }

    @Test func climatePanelInTheDisplayUnit() throws {
        let celsius = try #require(ImageContentBuilder.content(kind: .climate, try Self.input()).climate)
        #expect(celsius.changeText == "+2.5°C")
        #expect(celsius.changeColor == "#ff3b30")
        #expect(celsius.bars.map(\.label) == ["1980", "2000", "2026"])
        #expect(celsius.bars.map(\.value) == ["14.0°C", "15.0°C", "16.5°C"])
        let trend = try Self.trend()
        #expect(
            celsius.bars.map(\.heightThousandths) == trend.points.sorted { $0.year < $1.year }.map(\.barThousandths))
        #expect(celsius.bars.last?.heightThousandths == 1000)
        let fahrenheit = try #require(
            ImageContentBuilder.content(kind: .climate, try Self.input(unit: .fahrenheit)).climate)
        #expect(fahrenheit.changeText == "+4.5°F")
        #expect(fahrenheit.bars.map(\.value) == ["57.2°F", "59.0°F", "61.7°F"])
        // A unit change changes the request, so the image is rendered again.
        #expect(celsius != fahrenheit)
    }

    @Test func stripesPanelHasOneColorPerYearWithMissingYearsWhite() throws {
        let stripes = try #require(ImageContentBuilder.content(kind: .stripes, try Self.input()).stripes)
        #expect(stripes.firstYear == 2020)
        #expect(stripes.lastYear == 2023)
        #expect(stripes.colors == ["#2166ac", "#ffffff", "#d1e5f0", "#b2182b"])
    }

    @Test func summaryHasAllThreeAndAbsentDataIsNil() throws {
        let full = ImageContentBuilder.content(kind: .summary, try Self.input())
        #expect(full.pollen != nil && full.climate != nil && full.stripes != nil)
        let empty = ImageContentBuilder.content(
            kind: .summary,
            .init(locationName: "Home", pollen: nil, palette: .standard, climate: nil, unit: .celsius, stripes: nil))
        #expect(empty == ImageContentInput.empty)
    }

    @Test func weekdays() {
        #expect(ImageContentBuilder.weekday(date(1970, 1, 1)) == "Thu")
        #expect(ImageContentBuilder.weekday(date(2026, 6, 15)) == "Mon")
        #expect(ImageContentBuilder.weekday(date(2026, 6, 21)) == "Sun")
        #expect(ImageContentBuilder.weekday(date(1969, 12, 31)) == "Wed")
    }

    @Test func requestEncodesAsTheHelperReadsIt() throws {
        let request = RenderRequest(
            kind: .stripes, width: 296, height: 128, palette: .bwr, format: .png,
            content: ImageContentBuilder.content(kind: .stripes, try Self.input()))
        let json = try JSONEncoder().encode(request)
        #expect(try JSONDecoder().decode(RenderRequest.self, from: json) == request)
    }
}

enum ImageContentInput {
    static let empty = ImageContent(locationName: "Home")
}
