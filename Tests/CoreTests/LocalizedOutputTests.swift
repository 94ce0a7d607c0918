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

/// What `language` changes (issue 51) and what it must not: Home Assistant's names but not its
/// ids, options or templates; Open-Meteo's plant names but not Google's; the status page's
/// words, times and numbers; the images' words.
@Suite("Localized output")
struct LocalizedOutputTests {
    // MARK: Home Assistant discovery

    static func input(_ language: Language) -> DiscoveryInput {
        var input = DiscoveryInput(
            agentVersion: "1.2.3", location: .init(id: "home", name: "Zuhause"), pollenAvailable: true,
            pollenItems: [
                .init(id: "grass", name: language.plantName(code: "GRASS")!, isPlant: false, hasIndex: true),
                .init(id: "tree", name: language.plantName(code: "TREE")!, isPlant: false, hasIndex: true),
                .init(id: "weed", name: language.plantName(code: "WEED")!, isPlant: false, hasIndex: true),
                .init(id: "alder", name: language.plantName(code: "ALDER")!, isPlant: true, hasIndex: true),
            ], climateEnabled: true, pollenForecast: true)
        input.airEnabled = true
        input.hourlyPollen = true
        input.profiles = [.init(id: "anna", name: "Anna")]
        input.images = [.init(id: "hall", format: .png)]
        input.language = language
        return input
    }

    static func components(_ language: Language) throws -> [String: [String: Any]] {
        try discoveryComponents(decodeDiscovery(HomeAssistantDiscovery.deviceConfig(for: input(language))))
    }

    @Test func englishIsTheDefault() throws {
        let plain = DiscoveryInput(
            agentVersion: "1", location: .init(id: "x", name: "x"), pollenAvailable: false, pollenItems: [],
            climateEnabled: false)
        #expect(plain.language == .en)
        let comps = try Self.components(.en)
        #expect(comps["pollen_grass_level"]?["name"] as? String == "Grass pollen level")
        #expect(comps["pollen_alder"]?["name"] as? String == "Alder pollen")
        #expect(comps["risk_anna_air_out"]?["name"] as? String == "Anna Best time to air out")
        #expect(comps["air_uv_index_level"]?["name"] as? String == "UV index level")
    }

    @Test func germanNames() throws {
        let comps = try Self.components(.de)
        #expect(comps["pollen_grass_level"]?["name"] as? String == "Pollenbelastung Gras")
        #expect(comps["pollen_alder"]?["name"] as? String == "Pollen Erle")
        #expect(comps["pollen_tree_tomorrow"]?["name"] as? String == "Pollen Bäume morgen")
        #expect(comps["pollen_air_out"]?["name"] as? String == "Beste Zeit zum Lüften")
        #expect(comps["climate_change"]?["name"] as? String == "Temperaturänderung")
        #expect(comps["air_uv_index_level"]?["name"] as? String == "UV-Index Stufe")
        #expect(comps["refresh"]?["name"] as? String == "Aktualisieren")
        #expect(comps["image_hall"]?["name"] as? String == "Bild hall")
    }

    /// Changing the language changes `name` and nothing else: the same components, ids, entity
    /// ids, topics, options and templates in every language, so Home Assistant renames its
    /// entities instead of making new ones.
    @Test(arguments: Language.allCases.filter { $0 != .en })
    func onlyNamesChange(_ language: Language) throws {
        let english = try Self.components(.en)
        let other = try Self.components(language)
        #expect(Set(english.keys) == Set(other.keys))
        var renamed = 0
        for (metric, component) in english {
            let translated = try #require(other[metric])
            for key in Set(component.keys).union(translated.keys) where key != "name" {
                #expect(
                    String(describing: component[key]) == String(describing: translated[key]),
                    "\(language.rawValue) \(metric).\(key)")
            }
            if component["name"] as? String != translated["name"] as? String { renamed += 1 }
        }
        // PM10 and a few others may be spelt alike; most names are the language's own.
        #expect(renamed >= english.count - 4, "\(language.rawValue): only \(renamed) of \(english.count) renamed")
        // The device keeps its identity (and its brand name).
        let root = try decodeDiscovery(HomeAssistantDiscovery.deviceConfig(for: Self.input(language)))
        let device = try #require(root["device"] as? [String: Any])
        #expect(device["identifiers"] as? [String] == ["breeze_home"])
        #expect(device["name"] as? String == "Breeze Zuhause")
    }

    @Test func statesStayEnglish() throws {
        let comps = try Self.components(.fr)
        let level = try #require(comps["pollen_grass_level"])
        #expect(level["options"] as? [String] == HomeAssistantDiscovery.levelOptions)
        #expect(level["value_template"] as? String == HomeAssistantDiscovery.levelTemplate)
        #expect(comps["pollen_trend"]?["options"] as? [String] == ["rising", "falling", "steady"])
    }

    // MARK: plant names

    @Test func openMeteoNamesFollowTheLanguageGooglesDoNot() throws {
        guard
            case .report(let report) = OpenMeteoPollen.interpret(httpStatus: 200, body: PollenHourlyTopicsTests.body())
        else {
            Issue.record("expected a report")
            return
        }
        let german = report.naming(in: .de)
        let names = Dictionary(uniqueKeysWithValues: german.days[0].items.map { ($0.code, $0.name) })
        #expect(names["GRASS"] == "Gras" && names["ALDER"] == "Erle" && names["MUGWORT"] == "Beifuß")
        #expect(german.days[0].items.map(\.code) == report.days[0].items.map(\.code))
        #expect(report.naming(in: .en) == report)

        let google = PollenReport(
            source: .google, region: "DE",
            days: [
                PollenDay(date: date(2026, 6, 1), items: [PollenItem(code: "GRASS", name: "Gräser", isPlant: false)])
            ]
        )
        #expect(google.naming(in: .fr) == google)
    }

    // MARK: the status page

    static func germanPage() throws -> String {
        let berlin = try zoneInfo("Europe/Berlin")
        let now = utc(2026, 12, 7, 11, 20)
        let report = PollenReport(
            source: .openMeteo, region: nil,
            days: (0..<3).map { day in
                PollenDay(
                    date: date(2026, 12, 7).adding(days: day),
                    items: [
                        PollenItem(code: "GRASS", name: "Grass", isPlant: false, value: 4),
                        PollenItem(code: "ALDER", name: "Alder", isPlant: true, category: "TREE", value: 2),
                    ])
            }
        ).naming(in: .de)
        let selection = PollenSelection.select(
            report: report, today: date(2026, 12, 7), days: 3, fetchedAt: now - 3_600, now: now, stale: false)
        let pollen = StatusPollen(selection: selection, fetchedAt: now - 3_600, language: .de)
        let trend = try ImageContentTests.trend()
        let climate = StatusClimate(trend: trend, unit: .celsius, fetchedAt: now - 86_400, stale: false, language: .de)
        var location = StatusLocation(
            id: "home", name: "Zuhause", pollen: .data(pollen), climate: .data(climate), stripes: .waiting,
            air: .off, risks: [])
        location.zone = berlin
        var page = StatusPage(
            version: "1", generatedAt: UTCTimestamp.rfc3339(unixSeconds: now), mqttConnected: true, demo: false,
            locations: [location],
            sources: [
                StatusSource(
                    key: "open_meteo_pollen", lastSuccess: UTCTimestamp.rfc3339(unixSeconds: now - 3_600),
                    lastError: UTCTimestamp.rfc3339(unixSeconds: now - 7_200) + ": HTTP 503", stale: false,
                    callsToday: 3)
            ], attributions: [])
        page.language = .de
        page.zone = berlin
        return page.html
    }

    @Test func theStatusPageInGerman() throws {
        let html = try Self.germanPage()
        #expect(html.hasPrefix("<!DOCTYPE html>\n<html lang=\"de\">"))
        #expect(html.contains("<title>breeze-agent Status</title>"))
        // Times in Berlin (11:20 UTC is 12:20 CET), the pollen fetched an hour before.
        #expect(html.contains("Open-Meteo · aktualisiert 11:20"))
        #expect(html.contains(" · 1 Standort · 12:20"))
        // The climate yesterday: the weekday and day before the time.
        #expect(html.contains("Open-Meteo · aktualisiert So 6, 12:20"))
        #expect(html.contains("<td data-l=\"Letzter Erfolg\">11:20</td>"))
        #expect(html.contains("<td data-l=\"Letzter Fehler\">10:20: HTTP 503</td>"))
        // Forecast days, words, plant names and level words.
        #expect(html.contains(">Heute</span>") || html.contains("<p class=\"big\">Heute "))
        #expect(html.contains(">Di 8</span>"))
        #expect(html.contains("<span>Gras</span>"))
        #expect(html.contains(">Hoch</span>"))
        #expect(html.contains("<h3>Pollenflug</h3>") && html.contains("<h4>Vorhersage</h4>"))
        // Decimal commas in the climate texts.
        #expect(html.contains("+2,5°C"))
        #expect(html.contains("Änderung seit 1980"))
        #expect(html.contains("Temperatur am 15. Juni über die Jahrzehnte"))
        // No English word of the page's own is left.
        for english in ["updated", "Today", "Forecast", "Waiting", "Sources", "Last success", "connected", "stale"] {
            #expect(!html.contains(english), "\(english) in the German page")
        }
    }

    /// An English page with its location's zone shows local times too (the issue's complaint:
    /// `updated 2026-12-06T11:20:15Z` under a Berlin location).
    @Test func englishTimesAreLocalWithAZone() throws {
        let berlin = try zoneInfo("Europe/Berlin")
        let now = utc(2026, 12, 6, 11, 20) + 15
        var location = StatusLocation(
            id: "home", name: "Home",
            pollen: .data(
                StatusPollen(
                    source: "Open-Meteo", updatedAt: UTCTimestamp.rfc3339(unixSeconds: now), stale: false,
                    max: .init(label: "Grass", value: "1", level: "Low", color: nil), types: [], plants: [], days: [])),
            climate: .off, stripes: .off, air: .off, risks: [])
        let page = StatusPage(
            version: "1", generatedAt: UTCTimestamp.rfc3339(unixSeconds: now), mqttConnected: true, demo: false,
            locations: [location], sources: [], attributions: [])
        #expect(page.html.contains("Open-Meteo · updated 2026-12-06T11:20:15Z"))
        location.zone = berlin
        var zoned = page
        zoned.locations = [location]
        #expect(zoned.html.contains("Open-Meteo · updated 12:20"))
    }

    @Test(arguments: Language.allCases)
    func everyLanguagesPageFitsAndEscapes(_ language: Language) throws {
        var page = StatusPageTests.largestRealistic
        page.language = language
        page.zone = try zoneInfo("Europe/Berlin")
        let html = page.html
        #expect(html.utf8.count <= StatusPage.maximumBytes)
        #expect(html.contains("<html lang=\"\(language.rawValue)\">"))
        #expect(!html.contains(/\{[a-z_]+\}/), "an unfilled placeholder")
    }

    // MARK: the images

    @Test func imagesInGerman() throws {
        var input = try ImageContentTests.input()
        input.language = .de
        let content = ImageContentBuilder.content(kind: .summary, input)
        #expect(content.pollen?.today == LevelCell(label: "Heute", level: "Hoch", color: "#ff3b30"))
        #expect(content.pollen?.days.map(\.label) == ["Di", "Mi"])
        #expect(content.climate?.changeText == "+2,5°C")
        #expect(content.climate?.bars.first?.value == "14,0°C")
        #expect(content.words == ImageWords(.de))
        #expect(content.words?.noData == "Noch keine Daten")
        // English sends no words: the request is the one an English agent always sent.
        let english = ImageContentBuilder.content(kind: .summary, try ImageContentTests.input())
        #expect(english.words == nil)
        #expect(ImageWords.english.changeSince == "Change since {year}")
    }
}
