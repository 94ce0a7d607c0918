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

@testable import BreezeCore
import Foundation
import Testing

/// The status page renderer (SPEC §13): escaping, size, one bar per climate point, one stripe
/// per year, level words beside colors, self-containment. The browser test
/// (`test/browser/status-page.sh`) checks the same page rendered by Chromium.
@Suite struct StatusPageTests {
    static let hostile = "<script>alert(1)</script>"

    // MARK: sample data

    static func level(_ label: String, _ value: Int?) -> StatusLevel {
        let level = PollenLevel(value: value)
        return StatusLevel(
            label: label, value: value.map { String($0) }, level: level.label,
            color: PollenPalette.standard.color(for: level))
    }

    /// A location with everything shown: 3 types, `plants` plants in season, 5 days, `points`
    /// climate points, `stripeYears` stripes, 6 air metrics, 3 risk profiles.
    static func location(
        id: String, name: String, plants: Int = 15, plantName: String = "Birch", points: Int = 6,
        stripeYears: Int = 46
    ) -> StatusLocation {
        let pollen = StatusPollen(
            source: "Google", updatedAt: "2026-12-01T06:00:00Z", stale: false, max: level("Tree", 4),
            types: [level("Grass", 2), level("Tree", 4), level("Weed", 0)],
            plants: (0..<plants).map { level(plants == 1 ? plantName : "\(plantName) \($0)", $0 % 6) },
            days: [level("Today", 4), level("Wed 2", 3), level("Thu 3", 2), level("Fri 4", nil), level("Sat 5", nil)])
        let bars = (0..<points).map { index in
            StatusBar(
                year: 1980 + 10 * index, text: "5\(index).8°F",
                color: [ClimateColors.gray, ClimateColors.orange, ClimateColors.red, ClimateColors.blue][index % 4],
                barThousandths: index * 1000 / max(1, points - 1))
        }
        let climate = StatusClimate(
            date: date(2026, 12, 1), baselineYear: 1980, changeText: "+2.3°F", changeColor: ClimateColors.red,
            updatedAt: "2026-12-01T06:00:00Z", stale: false, bars: bars)
        let stripes = StatusStripes(
            firstYear: 1980, lastYear: 1980 + stripeYears - 1, years: (0..<stripeYears).map { 1980 + $0 },
            colors: (0..<stripeYears).map { WarmingStripes.palette[$0 * 8 / stripeYears] })
        let air = StatusAir(
            updatedAt: "2026-12-01T12:00:00Z", stale: false,
            metrics: AirMetric.allCases.map { metric in
                let band = metric.band(tenths: 280)
                return StatusLevel(
                    label: metric.displayName, value: AirTopics.text(metric, 280), level: band?.level,
                    color: band?.color)
            })
        let risks = ["Anna", "Ben", "Chris"].map {
            StatusRisk(level: level($0, 4), alert: true, alertLevel: "High")
        }
        return StatusLocation(
            id: id, name: name, pollen: .data(pollen), climate: .data(climate), stripes: .data(stripes),
            air: .data(air), risks: risks, googleCallsToday: 3, openMeteoCallsToday: 12)
    }

    static func page(_ locations: [StatusLocation]) -> StatusPage {
        StatusPage(
            version: "0.1.0", generatedAt: "2026-12-01T12:34:56Z", mqttConnected: true, demo: false,
            locations: locations,
            sources: [
                StatusSource(
                    key: "google_pollen", lastSuccess: "2026-12-01T06:00:00Z",
                    lastError: "2026-12-01T05:00:00Z: HTTP 503", stale: false, callsToday: 30),
                StatusSource(
                    key: "open_meteo_climate", lastSuccess: "2026-12-01T06:00:01Z", lastError: nil, stale: true,
                    callsToday: 20),
            ],
            attributions: [
                PollenSource.google.attribution(year: 2026), ClimateTopics.attribution,
                AirTopics.attribution(year: 2026),
            ])
    }

    /// The largest realistic configuration: 10 locations, Google with 15 plants in season, five
    /// days, 8 climate points (7 decades and this year), stripes since 1940, air, 3 profiles.
    static var largestRealistic: StatusPage {
        page(
            (0..<10).map {
                location(
                    id: "location_\($0)", name: "A rather long location name number \($0)", plants: 15, points: 8,
                    stripeYears: 86)
            })
    }

    // MARK: helpers

    static func count(_ needle: String, in haystack: String) -> Int {
        haystack.split(separator: needle, omittingEmptySubsequences: false).count - 1
    }

    /// The markup of the first `<svg class="<cls>"` element.
    static func svg(_ cls: String, in html: String) throws -> Substring {
        let start = try #require(html.range(of: "<svg class=\"\(cls)\""))
        let end = try #require(html[start.upperBound...].range(of: "</svg>"))
        return html[start.lowerBound..<end.upperBound]
    }

    // MARK: tests

    @Test func documentShape() throws {
        let html = Self.page([Self.location(id: "home", name: "Home")]).html
        #expect(html.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">"))
        #expect(html.contains("<meta http-equiv=\"refresh\" content=\"60\">"))
        #expect(html.contains("<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"))
        #expect(html.contains("<meta charset=\"utf-8\">"))
        #expect(html.hasSuffix("</body></html>\n"))
        // Self-contained: no script, no external style, font, image or frame (images appear only
        // for a location's own rendered ones, everyLinkAndSourceIsRelative). The one `<link>` is
        // the empty icon that keeps a browser from asking for `/favicon.ico`.
        let iconLink = "<link rel=\"icon\" href=\"data:,\">"
        #expect(Self.count(iconLink, in: html) == 1)
        let rest = html.replacingOccurrences(of: iconLink, with: "")
        for forbidden in ["<script", "<link", "<img", "<iframe", "src=", "url(", "@import", "@font-face"] {
            #expect(!rest.contains(forbidden), "found \(forbidden)")
        }
        // Links only to the agent's own paths.
        #expect(!html.contains("href=\"http"))
        #expect(Self.count("<style>", in: html) == 1)
    }

    @Test func contentSecurityPolicyAndTypes() {
        #expect(
            StatusPage.contentSecurityPolicy == "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'")
        #expect(StatusPage.contentType == "text/html; charset=utf-8")
    }

    @Test func locationAndPlantNamesAreText() throws {
        var location = Self.location(id: "home", name: Self.hostile, plants: 1, plantName: Self.hostile)
        location.risks[0].level.value = Self.hostile
        var page = Self.page([location])
        page.sources[0].lastError = "2026-12-01T05:00:00Z: " + Self.hostile
        let html = page.html
        #expect(!html.contains("<script"))
        #expect(!html.contains("alert(1)</"))
        // Name, plant, risk driver and error message: each printed as text.
        #expect(Self.count("&lt;script&gt;alert(1)&lt;/script&gt;", in: html) == 4)
    }

    @Test func escapingCoversAttributesAndControls() {
        #expect(HTMLWriter.escape("a&b<c>d\"e'f") == "a&amp;b&lt;c&gt;d&quot;e&#39;f")
        #expect(HTMLWriter.escape("x\u{0}y\u{1b}z\tw") == "x\u{FFFD}y\u{FFFD}z\tw")
        #expect(HTMLWriter.escape("Gräser °C µg/m³") == "Gräser °C µg/m³")
    }

    @Test func longNamesAreClipped() {
        let long = String(repeating: "x", count: 500)
        let html = Self.page([Self.location(id: "home", name: long)]).html
        #expect(!html.contains(String(repeating: "x", count: StatusPage.maximumTextCharacters + 1)))
        #expect(html.contains(String(repeating: "x", count: StatusPage.maximumTextCharacters - 1) + "…"))
    }

    @Test func oneBarPerClimatePoint() throws {
        for points in [1, 6, 8] {
            let location = Self.location(id: "home", name: "Home", points: points)
            let html = Self.page([location]).html
            let chart = try Self.svg("ch", in: html)
            #expect(Self.count("<rect ", in: String(chart)) == points)
            guard case .data(let climate) = location.climate else { return }
            for bar in climate.bars {
                #expect(chart.contains("fill=\"\(bar.color)\""))
                #expect(chart.contains(">\(bar.text)</text>"))
                #expect(chart.contains(">\(bar.year)</text>"))
            }
            #expect(html.contains("Change since 1980"))
            #expect(html.contains("color:#ff3b30\">+2.3°F</b>"))
        }
    }

    @Test func barHeightsFollowTheNormalisedBar() throws {
        let html = Self.page([Self.location(id: "home", name: "Home", points: 3)]).html
        let chart = String(try Self.svg("ch", in: html))
        // bar 0 → 30, 500 → 80, 1000 → 130 (the seed's 30–130 range), bottoms at 160; three
        // bars centred in six slots.
        #expect(chart.contains("viewBox=\"0 0 384 190\""))
        #expect(chart.contains("<rect x=\"106\" "))
        #expect(chart.contains("y=\"130\" width=\"44\" height=\"30\""))
        #expect(chart.contains("y=\"80\" width=\"44\" height=\"80\""))
        #expect(chart.contains("y=\"30\" width=\"44\" height=\"130\""))
    }

    @Test func oneStripePerYear() throws {
        for years in [1, 46, 86] {
            let location = Self.location(id: "home", name: "Home", stripeYears: years)
            let stripes = String(try Self.svg("st", in: Self.page([location]).html))
            #expect(Self.count("<rect ", in: stripes) == years)
            #expect(stripes.contains("viewBox=\"0 0 \(years) 1\""))
            guard case .data(let data) = location.stripes else { return }
            // In order, oldest first.
            var rest = Substring(stripes)
            for (index, color) in data.colors.enumerated() {
                let rect = "<rect x=\"\(index)\" fill=\"\(color)\"/>"
                let found = try #require(rest.range(of: rect))
                rest = rest[found.upperBound...]
            }
        }
    }

    /// The colors of the page's `.kN` classes: class → (background, text color).
    static func colorClasses(in html: String) -> [String: (background: String, ink: String)] {
        var classes: [String: (String, String)] = [:]
        for match in html.matches(of: /\.(k\d+)\{background:(#[0-9a-f]{6});color:(#[0-9a-f]{3})\}/) {
            classes[String(match.1)] = (String(match.2), String(match.3))
        }
        return classes
    }

    @Test func levelWordsBesideColors() throws {
        let html = Self.page([Self.location(id: "home", name: "Home")]).html
        let classes = Self.colorClasses(in: html)
        // Every colored badge carries a word, and its class is defined.
        var words: [String: String] = [:]
        var badges = 0
        for match in html.matches(of: /<span class="b (k\d+)">([^<]*)<\/span>/) {
            #expect(!match.2.isEmpty)
            let color = try #require(classes[String(match.1)])
            words[String(match.2)] = color.background + " " + color.ink
            badges += 1
        }
        // MQTT ×2, max, 3 types, 15 plants, 5 days, 4 banded air metrics, 3 risks.
        #expect(badges == 2 + 1 + 3 + 15 + 5 + 4 + 3)
        // The SPEC's colors, and the word readable on them: white on the dark red, else black.
        #expect(words["None"] == "#34c759 #000")
        #expect(words["Low"] == "#34c759 #000")
        #expect(words["Moderate"] == "#ff9500 #000")
        #expect(words["High"] == "#ff3b30 #000")
        #expect(words["Very High"] == "#8e0000 #fff")
        #expect(words["Unknown"] == "#8e8e93 #000")
        #expect(words["Fair"] == "#50ccaa #000")
        #expect(words["Extreme"] == "#6b49c8 #fff")
    }

    @Test func footer() {
        let html = Self.page([Self.location(id: "home", name: "Home")]).html
        #expect(
            html.contains(
                "<td>Google Pollen</td><td data-l=\"Last success\">2026-12-01T06:00:00Z</td><td data-l=\"Stale\">no</td>"
                    + "<td data-l=\"Calls today\">30</td>"))
        #expect(
            html.contains(
                "<td>Open-Meteo climate</td><td data-l=\"Last success\">2026-12-01T06:00:01Z</td>"
                    + "<td data-l=\"Stale\"><b>stale</b></td><td data-l=\"Calls today\">20</td>"))
        #expect(html.contains("HTTP 503"))
        #expect(html.contains("breeze-agent 0.1.0"))
        #expect(html.contains("Includes pollen data from Google"))
        #expect(html.contains("Weather data by Open-Meteo.com"))
        #expect(html.contains("Contains modified Copernicus Atmosphere Monitoring Service information 2026"))
        #expect(html.contains(">connected</span>"))
    }

    /// Behind Home Assistant's ingress proxy the page is `/api/hassio_ingress/<token>/` (SPEC
    /// §15): a link or source starting with `/` (or a scheme) would leave that prefix. Checked on
    /// the full page with images and on the compact one that leaves locations out.
    @Test func everyLinkAndSourceIsRelative() {
        var location = Self.location(id: "home", name: "Home")
        location.images = [
            StatusImage(id: "panel", kind: .pollen, width: 296, height: 128, format: .png),
            StatusImage(id: "tag-2", kind: .stripes, width: 400, height: 96, format: .jpeg),
        ]
        let full = Self.page([location]).html
        #expect(
            full.contains(
                "<figure><a href=\"images/home/panel.png\"><img src=\"images/home/panel.png\" width=\"296\" "
                    + "height=\"128\" alt=\"panel: the pollen image\"></a>"
                    + "<figcaption class=\"mu\">panel · pollen · 296×128 PNG</figcaption></figure>"))
        #expect(full.contains("<img src=\"images/home/tag-2.jpg\" width=\"400\" height=\"96\""))
        #expect(full.contains("<a href=\"api/state.json\">/api/state.json</a> · <a href=\"metrics\">/metrics</a>"))
        #expect(full.contains("<link rel=\"icon\" href=\"data:,\">"), "an icon of its own: no /favicon.ico")
        let name = String(repeating: "n", count: 300)
        let compact = Self.page(
            (0..<1000).map { Self.location(id: "l\($0)", name: name, plants: 64, plantName: name, stripeYears: 86) }
        ).html
        #expect(compact.contains("(<a href=\"api/state.json\">list</a>)"))
        #expect(compact.contains("<a href=\"api/state.json\">/api/state.json</a> has every location"))
        for html in [full, compact] {
            let targets = html.matches(of: /(?:href|src)="([^"]*)"/).map { String($0.1) }
            #expect(!targets.isEmpty)
            for target in targets {
                // `data:` loads nothing (the page's empty icon, which keeps the browser from
                // asking for `/favicon.ico`).
                #expect(
                    target == "data:," || (!target.hasPrefix("/") && !target.contains(":")), "not relative: \(target)")
            }
        }
        #expect(!Self.page([Self.location(id: "home", name: "Home")]).html.contains("<figure>"), "no images, no card")
    }

    @Test func sectionsOffWaitingUnavailable() {
        var location = Self.location(id: "home", name: "Home")
        location.pollen = .unavailable("No pollen here: Information is unavailable for this location")
        location.climate = .waiting
        location.stripes = .off
        location.air = .off
        location.risks = []
        let html = Self.page([location]).html
        #expect(html.contains("No pollen here: Information is unavailable for this location"))
        #expect(html.contains("<h3>Local Climate Trend</h3><p class=\"mu\">Waiting for the first fetch.</p>"))
        #expect(!html.contains("Warming stripes"))
        #expect(!html.contains("<h3>Air quality</h3>"))
        #expect(!html.contains("Personal risk"))
    }

    @Test func largestRealisticConfigFitsInFull() {
        let html = Self.largestRealistic.html
        #expect(html.utf8.count <= StatusPage.maximumBytes, "\(html.utf8.count) bytes")
        #expect(Self.count("<section class=\"loc\">", in: html) == 10)
        #expect(Self.count("<h4>In season</h4>", in: html) == 10)
        #expect(!html.contains("not shown"))
    }

    @Test func pastTheBoundPlantsBecomeACountThenLocationsAreLeftOut() {
        // 14 locations: too big in full, fits with the plants counted.
        let compact = Self.page(
            (0..<14).map { Self.location(id: "l\($0)", name: "Location \($0)", plants: 15, points: 8, stripeYears: 86) }
        ).html
        #expect(compact.utf8.count <= StatusPage.maximumBytes, "\(compact.utf8.count) bytes")
        #expect(!compact.contains("<h4>In season</h4>"))
        #expect(compact.contains("15 plants in season"))
        #expect(Self.count("<section class=\"loc\">", in: compact) == 14)

        // 1,000 locations with 64 plants and 80-character names: some are left out, and said so.
        let name = String(repeating: "n", count: 300)
        let huge = Self.page(
            (0..<1000).map { Self.location(id: "l\($0)", name: name, plants: 64, plantName: name, stripeYears: 86) }
        ).html
        #expect(huge.utf8.count <= StatusPage.maximumBytes, "\(huge.utf8.count) bytes")
        let shown = Self.count("<section class=\"loc\">", in: huge)
        #expect(shown > 0 && shown < 1000)
        #expect(huge.contains("\(1000 - shown) more locations are not shown"))
        #expect(huge.hasSuffix("</body></html>\n"))
    }

    @Test func locationsNotModelledAreCountedAmongThoseNotShown() {
        var page = Self.page([Self.location(id: "a", name: "A"), Self.location(id: "b", name: "B")])
        page.omittedLocations = 3
        let html = page.html
        #expect(html.contains("· 5 locations ·"))
        #expect(html.contains("3 more locations are not shown"))
        #expect(Self.count("<section class=\"loc\">", in: html) == 2)
    }

    // MARK: from the domain values

    @Test func pollenFromASelection() {
        let palette = PollenPalette.standard
        func item(_ code: String, _ name: String, plant: Bool, _ value: Int?, inSeason: Bool? = nil) -> PollenItem {
            PollenItem(code: code, name: name, isPlant: plant, inSeason: inSeason, value: value)
        }
        let today = date(2026, 12, 1)
        let report = PollenReport(
            source: .google,
            days: [
                PollenDay(
                    date: today,
                    items: [
                        item("GRASS", "Grass", plant: false, 2), item("TREE", "Tree", plant: false, 4),
                        item("WEED", "Weed", plant: false, nil),
                        item("BIRCH", Self.hostile, plant: true, 4, inSeason: true),
                        item("OAK", "Oak", plant: true, 0, inSeason: false),
                    ]),
                PollenDay(
                    date: today.adding(days: 1),
                    items: [
                        item("GRASS", "Grass", plant: false, 1), item("TREE", "Tree", plant: false, 5),
                        item("WEED", "Weed", plant: false, 0),
                    ]),
            ])
        let selection = PollenSelection.select(
            report: report, today: today, days: 3, fetchedAt: 1_796_100_000, now: 1_796_100_100, stale: false)
        let pollen = StatusPollen(selection: selection, fetchedAt: 1_796_100_000, palette: palette)
        #expect(pollen.max == StatusLevel(label: "Tree", value: "4", level: "High", color: palette.high))
        #expect(pollen.types.map(\.level) == ["Moderate", "High", "Unknown"])
        #expect(pollen.plants.map(\.label) == [Self.hostile])
        #expect(pollen.days.map(\.label) == ["Today", "Wed 2", "Thu 3"])
        #expect(pollen.days.map(\.level) == ["High", "Very High", "Unknown"])
        #expect(pollen.source == "Google")
    }

    @Test func severalSourcesShowEachLevelAndTheConsensus() {
        func item(_ code: String, _ name: String, _ value: Int?) -> PollenItem {
            PollenItem(code: code, name: name, isPlant: false, value: value)
        }
        let sources: [PollenConsensusTopics.SourceToday] = [
            .init(
                source: .openMeteo, items: [item("GRASS", "Grass", 1), item("TREE", "Tree", 0)], updatedAt: 0,
                stale: false),
            .init(
                source: .dwd, items: [item("GRASS", "Grass", 3), item("TREE", "Tree", 0), item("HAZEL", "Hazel", 2)],
                updatedAt: 0, stale: false),
        ]
        let rows = StatusConsensus.rows(PollenConsensusTopics.carried(sources))
        // Hazel is the DWD's alone: no row. Grass: Low against Moderate, the consensus the higher.
        #expect(rows.map(\.label) == ["Grass", "Tree"])
        #expect(rows[0].readings.map(\.label) == ["Open-Meteo", "DWD"])
        #expect(rows[0].readings.map(\.level) == ["Low", "Moderate"])
        #expect(rows[0].consensus.level == "Moderate")
        #expect(rows[0].agree == false)
        #expect(rows[1].agree == true)
        var location = Self.location(id: "berlin", name: "Berlin")
        if case .data(var pollen) = location.pollen {
            pollen.source = "Open-Meteo + DWD"
            pollen.region = "50, Brandenburg und Berlin"
            pollen.consensus = rows
            location.pollen = .data(pollen)
        }
        let html = Self.page([location]).html
        #expect(html.contains("Open-Meteo + DWD · DWD region 50, Brandenburg und Berlin"))
        #expect(html.contains("<th>Open-Meteo</th><th>DWD</th><th>all sources</th>"))
        #expect(Self.count("the sources disagree", in: html) == 1)
    }

    @Test func climateFromATrend() {
        let points = [(1980, 120, 0), (2000, 128, 500), (2026, 140, 1000)].map { year, tenths, bar in
            ClimateTrendPoint(
                year: year, date: date(year, 12, 1), source: year == 2026 ? .forecast : .archive,
                tenthsCelsius: tenths, deviationTenths: tenths - 120,
                color: ClimateColors.deviation(tenthsCelsius: tenths - 120), barThousandths: bar)
        }
        let trend = ClimateTrend(
            date: date(2026, 12, 1), currentYear: 2026, baselineYear: 1980, points: points, changeTenths: 20,
            omittedYears: [])
        let climate = StatusClimate(trend: trend, unit: .celsius, fetchedAt: 0, stale: false)
        #expect(climate.changeText == "+2.0°C")
        #expect(climate.bars.map(\.text) == ["12.0°C", "12.8°C", "14.0°C"])
        #expect(climate.bars.map(\.color) == [ClimateColors.gray, ClimateColors.orange, ClimateColors.orange])
        #expect(StatusPage.monthDay(climate.date) == "1 December")
    }

    @Test func dayLabels() {
        #expect(StatusPage.dayLabel(date(1970, 1, 1)) == "Thu 1")
        #expect(StatusPage.dayLabel(date(2026, 12, 1)) == "Tue 1")
        #expect(StatusPage.dayLabel(date(1969, 12, 28)) == "Sun 28")
    }
}
