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
import BreezeRender
import Testing

/// Location names beyond DejaVu's glyphs (SPEC §16 allows any 256 UTF-8 bytes): CJK characters
/// are drawn in the fallback family (WenQuanYi Micro Hei, fonts-wqy-microhei) instead of as
/// missing-glyph boxes. A box looks the same for every missing character, so two names made of
/// the same missing characters in another order render alike; real glyphs do not.
@Suite struct FontFallbackTests {
    static func render(_ name: String, palette: ImagePalette = .color) throws -> DecodedImage {
        var content = DemoContent.content
        content.locationName = name
        let request = RenderRequest(
            kind: .stripes, width: 400, height: 300, palette: palette, format: .png, content: content)
        return try decodePNG(try Renderer.render(request))
    }

    /// Two characters in the Private Use Area: no font here has them, so they are drawn as boxes.
    static let boxes = ("\u{E000}\u{E001}", "\u{E001}\u{E000}")

    @Test func missingGlyphsAreBoxesThatLookAlike() throws {
        // The control the CJK checks stand on: swapped unknown characters give the same pixels.
        let alike = try Self.render("Ort " + Self.boxes.0).pixels == Self.render("Ort " + Self.boxes.1).pixels
        #expect(alike, "swapped missing characters render differently: the check below would prove nothing")
    }

    @Test(arguments: [("東京", "京東"), ("서울", "울서"), ("とうきょう", "きょうとう")])
    func cjkNamesAreDrawnWithGlyphs(_ names: (String, String)) throws {
        // Booleans, not the pixel arrays: a failure names the names, not a million numbers.
        let a = try Self.render("Ort " + names.0).pixels
        let swappedAlike = a == (try Self.render("Ort " + names.1)).pixels
        let likeBoxes = a == (try Self.render("Ort " + Self.boxes.0)).pixels
        #expect(!swappedAlike, "\(names.0) and \(names.1) render alike: boxes (is fonts-wqy-microhei installed?)")
        #expect(!likeBoxes, "\(names.0) renders as the missing-glyph boxes")
    }

    @Test(arguments: [ImagePalette.bw, .bwr])
    func cjkOnEInkKeepsOnlyTheInks(_ palette: ImagePalette) throws {
        let image = try Self.render("東京 Zürich", palette: palette)
        let inks = try #require(palette.inks)
        #expect(image.colors.isSubset(of: Set(inks.map { rgbValue($0.description) })))
    }

    @Test func latinNamesWithAccentsUseDejaVu() throws {
        // Accents are DejaVu's: "Zürich" differs from "Zurich" only where the umlaut is.
        let accented = try Self.render("Zürich Ærøskøbing").pixels
        let differs = accented != (try Self.render("Zurich AEroskobing")).pixels
        let likeBoxes = accented == (try Self.render("Z\u{E000}rich \u{E001}r\u{E000}sk\u{E000}bing")).pixels
        #expect(differs && !likeBoxes, "accented letters drawn as unaccented ones or as boxes")
    }
}
