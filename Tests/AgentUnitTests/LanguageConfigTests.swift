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

@testable import BreezeAgent
@testable import BreezeDaemon
@testable import BreezeConfig
import BreezeCore
import Foundation
import Testing

/// The `language` setting (issue 51): the top-level key, `pollen.language` following it, the
/// error for a language without a catalogue, `check-config`, and the add-on's choice.
@Suite("Configuration: language")
struct LanguageConfigTests {
    static let oneLocation = """
        locations:
          - id: home
            name: Home
            latitude: 52.52
            longitude: 13.405
            timezone: Europe/Berlin
        """

    @Test func englishByDefault() throws {
        let sandbox = try ConfigSandbox()
        let config = try sandbox.load(Self.oneLocation)
        #expect(config.language == .en)
        #expect(config.languageTag == "en")
        #expect(config.pollen.language == "en")
        #expect(config.pollen.names == .en)
    }

    @Test(arguments: [
        ("de", Language.de), ("de-AT", .de), ("pt-BR", .pt), ("FR", .fr), ("nb", .nb), ("no", .nb), ("cs", .cs),
    ])
    func aLanguageWithACatalogue(tag: String, expected: Language) throws {
        let sandbox = try ConfigSandbox()
        let config = try sandbox.load("language: \(tag)\n" + Self.oneLocation)
        #expect(config.language == expected)
        #expect(config.languageTag == tag)
        // Google's texts follow it, region and all.
        #expect(config.pollen.language == tag)
        #expect(config.pollen.names == expected)
    }

    @Test func pollenLanguageStaysGooglesWhenSet() throws {
        let sandbox = try ConfigSandbox()
        let config = try sandbox.load("language: de\npollen:\n  language: ja\n" + Self.oneLocation)
        #expect(config.language == .de)
        #expect(config.pollen.language == "ja")
        #expect(config.pollen.names == .de)
    }

    @Test(arguments: ["ja", "xx", "zh-Hant", "de_DE", "\"\""])
    func anUnknownLanguageNamesTheOnesThereAre(tag: String) throws {
        let sandbox = try ConfigSandbox()
        let error = try #require(sandbox.failure("language: \(tag)\n" + Self.oneLocation))
        #expect(error.keyPath == "language")
        #expect(error.line == 1)
        if tag != "\"\"" {
            #expect(error.message.contains("en, de, fr, it, es, nl, pl, sv, da, nb, fi, pt, cs"), "\(error)")
        }
        #expect(error.description.hasPrefix(sandbox.root.path))
    }

    @Test func checkConfigShowsIt() throws {
        let sandbox = try ConfigSandbox()
        let text = renderEffective(try sandbox.load("language: pt-BR\n" + Self.oneLocation))
        #expect(text.contains("\nlanguage: \"pt-BR\""))
        #expect(text.contains("\n  language: \"pt-BR\""))
        // And it loads again.
        #expect(try sandbox.load(text).language == .pt)
    }

    // MARK: the add-on

    static let broker = AddonConfig.Broker(host: "core-mosquitto", port: 1883)
    static func home(language: String?) -> AddonConfig.Home {
        AddonConfig.Home(
            latitude: "52.52", longitude: "13.405", timeZone: "Europe/Berlin", name: "Zuhause", temperatureUnit: "°C",
            language: language)
    }

    func addon(_ options: String, homeLanguage: String?) throws -> (config: AgentConfig, text: String) {
        let parsed = try AddonConfig.parseOptions(options)
        let plan = try AddonConfig.plan(
            options: parsed, broker: Self.broker, home: Self.home(language: homeLanguage), stateDir: "/data")
        let config = try AddonEntry.check(plan, file: "/data/breeze-agent.yaml", currentYear: 2026, hostname: "addon")
        return (config, plan.text)
    }

    @Test func theAddonSpeaksHomeAssistantsLanguage() throws {
        let (config, text) = try addon("{}", homeLanguage: "de")
        #expect(config.language == .de)
        #expect(config.pollen.language == "de")
        #expect(text.contains("\nlanguage: \"de\"\n"))
        // `pollen.language` is not written: it follows the top-level one.
        #expect(!text.contains("  language:"))
    }

    @Test func theOptionWinsOverHomeAssistant() throws {
        let (config, _) = try addon(#"{"language": "fr"}"#, homeLanguage: "de")
        #expect(config.language == .fr)
        #expect(config.pollen.language == "fr")
    }

    @Test func aLanguageWithoutACatalogueReachesGoogleAlone() throws {
        // Home Assistant in Japanese: the agent's words stay English, Google answers in Japanese.
        let fromHome = try addon("{}", homeLanguage: "ja")
        #expect(fromHome.config.language == .en)
        #expect(fromHome.config.pollen.language == "ja")
        let fromOption = try addon(#"{"language": "zh-Hant"}"#, homeLanguage: "de")
        #expect(fromOption.config.language == .en)
        #expect(fromOption.config.pollen.language == "zh-Hant")
    }

    @Test func noLanguageAnywhereIsEnglish() throws {
        let (config, text) = try addon("{}", homeLanguage: nil)
        #expect(config.language == .en)
        #expect(config.pollen.language == "en")
        #expect(!text.contains("language"))
    }

    // MARK: through the daemon

    /// A German agent with key-free pollen, through the daemon's state: the stored or fetched
    /// Open-Meteo body gets German names, Home Assistant gets German entity names with the
    /// English ids, the status page speaks German in the location's zone.
    @Test func aGermanAgent() throws {
        typealias T = DaemonStateTests
        func state(_ language: String) throws -> (DaemonState, [DaemonAction]) {
            let config = try T.config(
                "language: \(language)", pollen: "source: open-meteo",
                locations: """
                    locations:
                      - {id: home, name: Zuhause, latitude: 52.52, longitude: 13.405, timezone: Europe/Berlin}
                    """)
            let berlin = try ZoneRules(
                tzif: [UInt8](try Data(contentsOf: URL(fileURLWithPath: "/usr/share/zoneinfo/Europe/Berlin"))))
            var (state, _) = T.started(config, zones: ["home": berlin])
            let now = T.t0 + 7
            let body = DemoResponder.airQuality(start: CivilDate(year: 2026, month: 6, day: 15)!, timezone: "UTC")
            let result = PollenFetch.interpret(
                FetchedResponse(status: 200, body: Array(body.utf8)), source: .openMeteo,
                fetchedAt: DaemonInstant(unixSeconds: now),
                names: config.pollen.names)
            guard case .answer(let answer) = result else { return (state, []) }
            let actions = state.handle(.fetched(T.pollenKey, .answer(.pollen, answer)), at: T.at(now))
            return (state, actions)
        }
        func discovery(_ actions: [DaemonAction]) -> [String: [String: Any]] {
            let payloads = T.scopes(actions).compactMap { $0.tree?["homeassistant/device/breeze_home/config"] }
            let root = payloads.last.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) }
            return (root as? [String: Any])?["components"] as? [String: [String: Any]] ?? [:]
        }
        let (german, germanActions) = try state("de")
        let (_, englishActions) = try state("en")
        let de = discovery(germanActions)
        let en = discovery(englishActions)
        #expect(!en.isEmpty)
        #expect(Set(de.keys) == Set(en.keys))
        #expect(de["pollen_alder"]?["name"] as? String == "Pollen Erle")
        #expect(en["pollen_alder"]?["name"] as? String == "Alder pollen")
        #expect(de["pollen_graminales_level"]?["name"] as? String == "Pollenbelastung Gräser")
        for (metric, component) in en {
            #expect(de[metric]?["unique_id"] as? String == component["unique_id"] as? String)
            #expect(de[metric]?["default_entity_id"] as? String == component["default_entity_id"] as? String)
        }
        // The topics' JSON names the plants in German too; ids and levels stay.
        let alders = T.scopes(germanActions).compactMap { $0.tree?["breeze/home/pollen/alder"] }
        let alder = try #require(alders.last)
        #expect(alder.contains(#""id":"alder","name":"Erle""#))
        let levels = T.scopes(germanActions).compactMap { $0.tree?["breeze/home/pollen/alder/level"] }
        let level = try #require(levels.last)
        #expect(["None", "Low", "Moderate", "High", "Very High", "Unknown"].contains(level))

        let page = StatusSnapshot(
            serve: german.serveSnapshot(at: T.at(T.t0 + 8), publishedTopics: 0), config: german.config, demo: false
        ).page.html
        #expect(page.contains("<html lang=\"de\">"))
        // t0 + 7 is 2026-06-15T10:00:07Z: 12:00 in Berlin (CEST).
        #expect(page.contains("Open-Meteo · aktualisiert 12:00"), "\(page)")
        #expect(page.contains("<span>Erle</span>") || page.contains("Erle"))
    }
}
