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
@testable import BreezeRender
import Testing

/// Every catalogue's text renders with the fonts the -full image and the add-on carry (issue 51,
/// docs/images.md "Fonts"): DejaVu Sans and its condensed cut, regular and bold, have a glyph
/// for every character of every language, Polish and Czech diacritics included, asked of the
/// font fontconfig gives Cairo (glyph 0 is the missing-glyph box). Then each language's longest
/// label is drawn.
@Suite("Images: every language's glyphs")
struct LanguageGlyphTests {
    static let faces = [
        Face.regular, Face.bold, Face(condensed: true, bold: false), Face(condensed: true, bold: true),
    ]

    /// The texts an image of `language` can draw: the helper's words, today, weekdays, level
    /// words, type and plant names, and a number with the decimal separator.
    static func imageTexts(_ language: Language) -> [String] {
        var texts = ImageWords(language).all.map { Catalogue.fill($0, ["year": "1980"]) }
        texts.append(language.text(.today))
        texts += (0..<7).map { language.weekday(CivilDate(year: 2026, month: 12, day: 7 + $0)!) }
        texts += PollenLevel.allCases.map { language.levelWord($0.label) }
        texts += CatalogueKey.allCases.filter { $0.rawValue.hasPrefix("plant.") }.map { language.text($0) }
        texts.append(language.decimal("+2.3°C"))
        return texts
    }

    /// The check can see a missing glyph: the Private Use Area is in no font, CJK not in DejaVu.
    @Test func theCheckSeesMissingGlyphs() throws {
        let canvas = try Canvas(width: 64, height: 64, crisp: false)
        #expect(canvas.missingGlyphs("a\u{E000}", .regular) == ["\u{E000}"])
        #expect(canvas.missingGlyphs("東", .bold) == ["東"])
        #expect(canvas.missingGlyphs("Zürich", .regular) == [])
    }

    @Test(arguments: Language.allCases)
    func everyCatalogueTextHasDejaVuGlyphs(_ language: Language) throws {
        let canvas = try Canvas(width: 64, height: 64, crisp: false)
        let texts = Catalogue.table(language).values.sorted() + Self.imageTexts(language)
        for face in Self.faces {
            var missing: Set<Unicode.Scalar> = []
            for text in texts { missing.formUnion(canvas.missingGlyphs(text, face)) }
            let names: [String] = missing.map { scalar in
                let code: String = String(scalar.value, radix: 16, uppercase: true)
                return "U+\(code) \(String(scalar))"
            }
            let weight = face.bold ? " Bold" : ""
            let list = names.sorted().joined(separator: ", ")
            #expect(missing.isEmpty, "\(language.rawValue), \(face.family)\(weight): no glyph for \(list)")
        }
    }

    @Test func polishAndCzechDiacriticsAreThere() throws {
        let canvas = try Canvas(width: 64, height: 64, crisp: false)
        for face in Self.faces {
            #expect(canvas.missingGlyphs("ąćęłńóśźż ĄĆĘŁŃÓŚŹŻ ěščřžýáíéůúďťň ĚŠČŘŽÝÁÍÉŮÚĎŤŇ", face) == [])
        }
        #expect(Language.pl.plantName(code: "RYE") == "Żyto")
        #expect(Language.cs.plantName(code: "BIRCH") == "Bříza")
    }

    /// Each language's longest label, drawn where labels are drawn (today's caption, a type
    /// cell, the helper's words) in a colour tag and an e-ink one.
    @Test(arguments: Language.allCases)
    func theLongestLabelIsDrawn(_ language: Language) throws {
        let texts = Self.imageTexts(language)
        let longest = try #require(texts.max { $0.count < $1.count })
        var content = DemoContent.content
        content.words = ImageWords(language)
        content.pollen = PollenPanel(
            today: DemoContent.cell(longest, "High"),
            types: [
                DemoContent.cell(language.plantName(code: "GRASS")!, "High"),
                DemoContent.cell(longest, "Moderate"),
                DemoContent.cell(language.plantName(code: "WEED")!, "Low"),
            ],
            days: (0..<4).map {
                DemoContent.cell(language.weekday(CivilDate(year: 2026, month: 12, day: 8 + $0)!), "Low")
            })
        content.climate?.changeText = language.decimal("+7.0°F")
        for (width, height, palette) in [(296, 128, ImagePalette.bwr), (400, 300, .color)] {
            for kind in ImageKind.allCases {
                let request = RenderRequest(
                    kind: kind, width: width, height: height, palette: palette, format: .png, content: content)
                try RenderRequestReader.validate(request)
                let image = try decodePNG(try Renderer.render(request))
                #expect(image.width == width && image.height == height)
            }
        }
        // A placeholder in the language: nothing known yet.
        var empty = ImageContent(locationName: "Łódź")
        empty.words = ImageWords(language)
        let request = RenderRequest(kind: .summary, width: 296, height: 128, palette: .bw, format: .png, content: empty)
        #expect(try decodePNG(try Renderer.render(request)).width == 296)
    }
}
