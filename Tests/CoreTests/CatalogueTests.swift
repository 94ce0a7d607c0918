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
import Testing

/// Every catalogue is complete (issue 51): the keys of ``CatalogueKey``, no more, no fewer, each
/// text with exactly the placeholders of its English text, none empty. A key added to English
/// and forgotten in one language fails here, naming the language and the key.
@Suite("Catalogues: every key in every language")
struct CatalogueTests {
    static let keys = Set(CatalogueKey.allCases.map(\.rawValue))

    @Test func englishHasExactlyTheKeys() {
        let english = Set(Catalogue.table(.en).keys)
        #expect(english.subtracting(Self.keys).sorted() == [], "keys English has that CatalogueKey lacks")
        #expect(Self.keys.subtracting(english).sorted() == [], "keys CatalogueKey has that English lacks")
    }

    @Test(arguments: Language.allCases)
    func noKeyMissingOrExtra(_ language: Language) {
        let table = Set(Catalogue.table(language).keys)
        let missing = Self.keys.subtracting(table).sorted()
        let extra = table.subtracting(Self.keys).sorted()
        #expect(missing == [], "\(language.rawValue): missing keys")
        #expect(extra == [], "\(language.rawValue): extra keys")
    }

    @Test(arguments: Language.allCases)
    func placeholdersMatchEnglish(_ language: Language) {
        let english = Catalogue.table(.en)
        for (key, text) in Catalogue.table(language).sorted(by: { $0.key < $1.key }) {
            guard let reference = english[key] else { continue }
            #expect(
                Catalogue.placeholders(text) == Catalogue.placeholders(reference),
                "\(language.rawValue) \(key): \"\(text)\" against English \"\(reference)\"")
            #expect(!text.isEmpty, "\(language.rawValue) \(key) is empty")
            #expect(text.unicodeScalars.allSatisfy { $0.value >= 0x20 }, "\(language.rawValue) \(key): a control")
        }
    }

    /// The placeholder check itself: a misspelt or missing placeholder is seen.
    @Test func placeholdersAreRead() {
        #expect(Catalogue.placeholders("{item} pollen level") == ["item"])
        #expect(Catalogue.placeholders("{start}–{end} {day}, {level}") == ["start", "end", "day", "level"])
        #expect(Catalogue.placeholders("no placeholder") == [])
        #expect(Catalogue.placeholders("Pollen {itme}") != Catalogue.placeholders("{item} pollen"))
    }

    @Test func fillReplacesNamedPlaceholdersOnly() {
        #expect(Catalogue.fill("{item} pollen", ["item": "Grass"]) == "Grass pollen")
        #expect(Catalogue.fill("{a}{b} {c}", ["a": "1", "b": "2"]) == "12 {c}")
        #expect(Catalogue.fill("a { b", ["b": "x"]) == "a { b")
        // A value that looks like a placeholder is not filled again.
        #expect(Catalogue.fill("{a} {b}", ["a": "{b}", "b": "x"]) == "{b} x")
    }

    /// Every type and plant the agent names itself has a name in every language: Open-Meteo's
    /// six and the types, and DWD's eight species (SPEC §22).
    @Test(arguments: Language.allCases)
    func everyAgentNamedPlantHasAName(_ language: Language) {
        let dwd = ["HAZEL", "ALDER", "ASH", "BIRCH", "GRAMINALES", "RYE", "MUGWORT", "RAGWEED"]
        let codes = ["GRASS", "TREE", "WEED"] + OpenMeteoPollen.plants.map(\.code) + dwd
        for code in codes {
            #expect(language.plantName(code: code) != nil, "\(language.rawValue): no name for \(code)")
        }
        // Google's own codes are not the agent's to name.
        #expect(language.plantName(code: "JAPANESE_CEDAR") == nil)
    }

    @Test func englishNamesAreTheSourcesOriginalOnes() {
        for plant in OpenMeteoPollen.plants {
            #expect(Language.en.plantName(code: plant.code) == plant.name)
        }
        #expect(Language.en.plantName(code: "GRASS") == "Grass")
    }

    @Test func germanBotanicalNames() {
        let names = ["HAZEL", "ALDER", "ASH", "BIRCH", "GRAMINALES", "RYE", "MUGWORT", "RAGWEED"].map {
            Language.de.plantName(code: $0)
        }
        #expect(names == ["Hasel", "Erle", "Esche", "Birke", "Gräser", "Roggen", "Beifuß", "Ambrosia"])
    }

    /// The type and plant names of one language differ from each other: two entities in Home
    /// Assistant never share a name (Grass and Grasses are two sensors).
    @Test(arguments: Language.allCases)
    func typeAndPlantNamesAreDistinct(_ language: Language) {
        let keys = CatalogueKey.allCases.filter { $0.rawValue.hasPrefix("plant.") }
        let names = keys.map { language.text($0) }
        #expect(Set(names).count == names.count, "\(language.rawValue): \(names)")
    }

    @Test(arguments: Language.allCases)
    func weekdaysAndMonthsAreDistinct(_ language: Language) {
        let weekdays = Language.weekdayKeys.map { language.text($0) }
        let months = Language.monthKeys.map { language.text($0) }
        #expect(Set(weekdays).count == 7 && Set(months).count == 12, "\(language.rawValue)")
    }
}

@Suite("Languages: tags, plurals, times and numbers")
struct LanguageTests {
    @Test(arguments: [
        ("en", Language.en), ("de", .de), ("de-AT", .de), ("DE", .de), ("pt-BR", .pt), ("pt-PT", .pt),
        ("nb", .nb), ("no", .nb), ("nb-NO", .nb), ("cs", .cs), ("fi", .fi), ("sv-FI", .sv),
    ])
    func tags(_ tag: String, _ language: Language) {
        #expect(Language(tag: tag) == language)
    }

    @Test(arguments: ["", "ja", "zh-Hant", "english", "nn", "-de"])
    func tagsWithoutACatalogue(_ tag: String) {
        #expect(Language(tag: tag) == nil)
    }

    @Test func theListNamesThemAll() {
        #expect(Language.supportedList == "en, de, fr, it, es, nl, pl, sv, da, nb, fi, pt, cs")
        #expect(Language.allCases.count == 13)
    }

    @Test func pluralCategories() {
        #expect([0, 1, 2, 5].map(Language.en.pluralCategory) == [.other, .one, .other, .other])
        #expect([0, 1, 2].map(Language.fr.pluralCategory) == [.one, .one, .other])
        #expect(
            [1, 2, 4, 5, 12, 14, 21, 22, 25, 112, 122].map(Language.pl.pluralCategory) == [
                .one, .few, .few, .other, .other, .other, .other, .few, .other, .other, .few,
            ])
        #expect([1, 2, 4, 5, 22].map(Language.cs.pluralCategory) == [.one, .few, .few, .other, .other])
        #expect(
            Language.pl.text(one: .pageLocationsOne, few: .pageLocationsFew, other: .pageLocationsOther, count: 3)
                == "3 lokalizacje")
        #expect(
            Language.pl.text(one: .pageLocationsOne, few: .pageLocationsFew, other: .pageLocationsOther, count: 5)
                == "5 lokalizacji")
        #expect(
            Language.en.text(one: .pageLocationsOne, few: .pageLocationsFew, other: .pageLocationsOther, count: 1)
                == "1 location")
    }

    @Test func decimalCommasWhereTheLanguageWritesThem() {
        #expect(Language.en.decimal("+2.3°C") == "+2.3°C")
        #expect(Language.de.decimal("+2.3°C") == "+2,3°C")
        #expect(Language.fr.decimal("-0.5") == "-0,5")
        #expect(Language.cs.decimal("14.2°F") == "14,2°F")
        // Only a point between digits is a decimal point.
        #expect(Language.de.decimal("v1.2.3 ends.") == "v1,2,3 ends.")
        #expect(Language.de.decimal(".5 and 5.") == ".5 and 5.")
        for language in Language.allCases where language != .en {
            #expect(language.text(.formatDecimalSeparator) == ",", "\(language.rawValue)")
        }
    }

    /// 11:20 UTC is 12:20 in Berlin in December (CET) and 13:20 in June (CEST).
    @Test func clockInTheLocationsZone() throws {
        let berlin = try zoneInfo("Europe/Berlin")
        let december = utc(2026, 12, 7, 11, 20)
        #expect(Language.en.clock(december, zone: berlin) == "12:20")
        #expect(Language.de.clock(december, zone: berlin) == "12:20")
        #expect(Language.fi.clock(december, zone: berlin) == "12.20")
        #expect(Language.de.clock(utc(2026, 6, 7, 7, 5), zone: berlin) == "09:05")
        #expect(Language.en.clock(december, zone: .utc) == "11:20")
    }

    @Test func weekdaysAndDates() {
        // 7 December 2026 is a Monday.
        let monday = date(2026, 12, 7)
        #expect(Language.en.weekdayAndDay(monday) == "Mon 7")
        #expect(Language.de.weekdayAndDay(monday) == "Mo 7")
        #expect(Language.fr.weekdayAndDay(monday) == "Lun. 7")
        #expect(Language.en.weekday(date(2026, 12, 13)) == "Sun")
        #expect(Language.de.dayAndMonth(monday) == "7. Dezember")
        #expect(Language.pl.dayAndMonth(monday) == "7 grudnia")
        #expect(Language.cs.dayAndMonth(monday) == "7. prosince")
        #expect(Language.en.dayAndMonth(date(2026, 3, 1)) == "1 March")
        // English weekdays are the ones the page and the images always had.
        #expect(StatusPage.dayLabel(date(2026, 12, 2)) == "Wed 2")
        #expect(ImageContentBuilder.weekday(date(2026, 12, 8)) == "Tue")
    }

    @Test func momentsTodayAndBefore() throws {
        let berlin = try zoneInfo("Europe/Berlin")
        let at = utc(2026, 12, 7, 11, 20)
        #expect(Language.de.moment(at, zone: berlin, today: date(2026, 12, 7)) == "12:20")
        #expect(Language.de.moment(at, zone: berlin, today: date(2026, 12, 8)) == "Mo 7, 12:20")
        #expect(Language.en.moment(at, zone: berlin, today: date(2026, 12, 8)) == "Mon 7 12:20")
        #expect(Language.da.moment(at, zone: berlin, today: nil) == "Man 7 kl. 12.20")
    }

    @Test func levelWordsForPeopleOnly() {
        #expect(Language.en.levelWord("Very High") == "Very High")
        #expect(Language.de.levelWord("Very High") == "Sehr hoch")
        #expect(Language.de.levelWord("Very high") == "Sehr hoch")
        #expect(Language.de.levelWord("None") == "Keine")
        #expect(Language.pl.levelWord("Unhealthy for sensitive groups") == "Niezdrowy dla wrażliwych")
        #expect(Language.de.levelWord("Whatever") == "Whatever")
        // Every level word the agent publishes has a translation.
        let words = PollenLevel.allCases.map(\.label) + AirMetric.allCases.flatMap(AirBand.levels(of:))
        for language in Language.allCases where language != .en {
            for word in words {
                #expect(
                    CatalogueKey(rawValue: "level." + word.lowercased().split(separator: " ").joined(separator: "_"))
                        != nil, "\(language.rawValue): \(word)")
            }
        }
    }
}
