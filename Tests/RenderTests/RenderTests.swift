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
import Foundation
import Testing

/// Every kind × palette × format at the smallest, a middle (the 296×128 e-ink tag) and the
/// largest size, read back through Cairo's PNG reader and libjpeg.
@Suite struct RenderMatrixTests {
    static let sizes = [(64, 64), (296, 128), (1600, 1200)]

    struct Case: CustomTestStringConvertible, Sendable {
        var kind: ImageKind
        var palette: ImagePalette
        var format: ImageFormat
        var width: Int
        var height: Int
        var testDescription: String { "\(kind) \(width)×\(height) \(palette) \(format)" }
    }

    static let cases: [Case] = ImageKind.allCases.flatMap { kind in
        ImagePalette.allCases.flatMap { palette in
            ImageFormat.allCases.flatMap { format in
                sizes.map { Case(kind: kind, palette: palette, format: format, width: $0.0, height: $0.1) }
            }
        }
    }

    @Test(arguments: cases)
    func rendersAtItsSize(_ c: Case) throws {
        let bytes = try Renderer.render(DemoContent.request(c.kind, c.width, c.height, c.palette, c.format))
        switch c.format {
        case .png:
            #expect(bytes.starts(with: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
            let image = try decodePNG(bytes)
            #expect(image.width == c.width)
            #expect(image.height == c.height)
            if let inks = c.palette.inks {
                let allowed = Set(inks.map { rgbValue($0.description) })
                let stray = image.colors.subtracting(allowed)
                let sample = stray.prefix(5).map { String($0, radix: 16) }
                #expect(stray.count == 0, "\(stray.count) colors outside \(c.palette), e.g. \(sample)")
                // The image is not blank: both paper and ink are there.
                #expect(image.colors.count >= 2)
            } else {
                try expectRequestColors(image, c)
            }
        case .jpeg:
            #expect(bytes.starts(with: [0xff, 0xd8, 0xff]))
            #expect(jpegFrameMarkers(bytes) == [0xc0], "baseline: one SOF0 frame")
            let decoded = try decodeJPEG(bytes)
            #expect(decoded.image.width == c.width)
            #expect(decoded.image.height == c.height)
            #expect(decoded.components == 3)
            #expect(!decoded.progressive)
        }
    }

    /// `color` draws the request's colors: today's level always, the types' and the change's
    /// from the middle size up, every bar, the stripes (all 46 at 1600 px).
    private func expectRequestColors(_ image: DecodedImage, _ c: Case) throws {
        let colors = image.colors
        let content = DemoContent.content
        func expectColor(_ hex: String, _ what: String) {
            #expect(colors.contains(rgbValue(hex)), "\(what) \(hex) missing")
        }
        let roomy = c.width >= 296
        switch c.kind {
        case .pollen:
            expectColor(content.pollen!.today.color, "today's level")
            if roomy { for cell in content.pollen!.types { expectColor(cell.color, "type \(cell.label)") } }
        case .summary:
            expectColor(content.pollen!.today.color, "today's level")
            if roomy { for cell in content.pollen!.types { expectColor(cell.color, "type \(cell.label)") } }
            expectColor(content.stripes!.colors.first!, "the first stripe")
            expectColor(content.stripes!.colors.last!, "the last stripe")
        case .climate:
            for bar in content.climate!.bars { expectColor(bar.color, "bar \(bar.label)") }
            expectColor(content.climate!.changeColor, "the change")
        case .stripes:
            let expected =
                c.width >= content.stripes!.colors.count ? content.stripes!.colors : [content.stripes!.colors[0]]
            for hex in expected { expectColor(hex, "stripe") }
        }
    }

    /// Extreme aspect ratios still draw inside the bounds with only the palette's inks.
    @Test(arguments: [(64, 1200), (1600, 64), (128, 296), (800, 480), (400, 300)])
    func eInkExtremes(_ size: (Int, Int)) throws {
        for kind in ImageKind.allCases {
            for palette in [ImagePalette.bw, .bwr, .bwy] {
                let image = try decodePNG(Renderer.render(DemoContent.request(kind, size.0, size.1, palette, .png)))
                #expect(image.width == size.0 && image.height == size.1)
                let allowed = Set(palette.inks!.map { rgbValue($0.description) })
                let strayCount = image.colors.subtracting(allowed).count
                #expect(strayCount == 0, "\(kind) \(palette) \(size): \(strayCount) colors outside the inks")
            }
        }
    }
}

/// The e-ink inks are chosen per level, not left to the nearest-color guarantee.
@Suite struct EInkInkTests {
    @Test func bwrPrintsHighPollenInRed() throws {
        let image = try decodePNG(Renderer.render(DemoContent.request(.pollen, 296, 128, .bwr, .png)))
        #expect(image.colors.contains(0xff0000))
        #expect(image.colors.contains(0x000000))
    }

    @Test func bwyPrintsModerateInYellow() throws {
        let image = try decodePNG(Renderer.render(DemoContent.request(.summary, 400, 300, .bwy, .png)))
        #expect(image.colors.contains(0xffff00))
    }

    @Test func lowPollenOnBwrHasNoRed() throws {
        var request = DemoContent.request(.pollen, 296, 128, .bwr, .png)
        let low = DemoContent.cell("Today", "Low")
        request.content.pollen = PollenPanel(today: low, types: [DemoContent.cell("Grass", "Low")], days: [])
        let image = try decodePNG(Renderer.render(request))
        #expect(!image.colors.contains(0xff0000))
        #expect(image.colors == [0x000000, 0xffffff])
    }

    /// The stripes' cold end is black and the warm end red on bwr (dithered in between).
    @Test func bwrStripesAreBlackToRed() throws {
        var request = DemoContent.request(.stripes, 160, 100, .bwr, .png)
        request.content.stripes = StripesPanel(firstYear: 2000, lastYear: 2001, colors: ["#2166ac", "#b2182b"])
        let image = try decodePNG(Renderer.render(request))
        // Sample the middle of each half, above the years band.
        let left = Set((20..<60).map { image.pixels[30 * image.width + $0] })
        let right = Set((100..<140).map { image.pixels[30 * image.width + $0] })
        #expect(left.contains(0x000000) && !left.contains(0xff0000))
        #expect(right.contains(0xff0000) && !right.contains(0x000000))
    }
}

/// E-ink JPEGs are thresholded, not dithered: a dot pattern would cost megabytes in JPEG.
@Suite struct JPEGSizeTests {
    @Test(arguments: ImageKind.allCases)
    func largestEInkJPEGStaysPublishable(_ kind: ImageKind) throws {
        for palette in [ImagePalette.bw, .bwr, .bwy] {
            let bytes = try Renderer.render(DemoContent.request(kind, 1600, 1200, palette, .jpeg))
            #expect(bytes.count <= ImageBounds.maximumBytes, "\(kind) \(palette): \(bytes.count) bytes")
        }
    }
}

/// The most a request may hold (16 types and days, 256 bars, 1024 stripes, 256-byte texts)
/// still renders inside its bounds, with only the inks on e-ink.
@Suite struct LargestContentTests {
    static var content: ImageContent {
        let long = String(repeating: "Ragweed ", count: 32).prefix(256)
        let cells = (0..<16).map { i in
            LevelCell(
                label: i == 0 ? String(long) : "Plant \(i)", level: i % 2 == 0 ? "Very High" : "Low",
                color: i % 2 == 0 ? "#8e0000" : "#34c759")
        }
        let bars = (0..<256).map { i in
            ClimateBar(
                label: String(1770 + i), value: "\(i).0°C", heightThousandths: i * 1000 / 255,
                color: i % 3 == 0 ? "#ff3b30" : "#007aff")
        }
        let stripes = (0..<1024).map { DemoContent.ramp[$0 % 8] }
        return ImageContent(
            locationName: String(long),
            pollen: PollenPanel(
                today: LevelCell(label: "Today", level: String(long), color: "#ff9500"),
                types: cells, days: cells),
            climate: ClimatePanel(changeText: "+12.3°F", changeColor: "#ff3b30", bars: bars),
            stripes: StripesPanel(firstYear: 1001, lastYear: 2024, colors: stripes))
    }

    @Test(arguments: [(64, 64), (296, 128), (1600, 1200)])
    func rendersTheLargestRequest(_ size: (Int, Int)) throws {
        for kind in ImageKind.allCases {
            for palette in ImagePalette.allCases {
                let request = RenderRequest(
                    kind: kind, width: size.0, height: size.1, palette: palette, format: .png, content: Self.content)
                let image = try decodePNG(Renderer.render(request))
                #expect(image.width == size.0 && image.height == size.1)
                if let inks = palette.inks {
                    let allowed = Set(inks.map { rgbValue($0.description) })
                    #expect(image.colors.subtracting(allowed).count == 0, "\(kind) \(palette) \(size)")
                }
            }
        }
    }
}

/// A panel the agent has no data for yet draws a placeholder, not an error.
@Suite struct PlaceholderTests {
    @Test(arguments: ImageKind.allCases)
    func emptyContentRenders(_ kind: ImageKind) throws {
        for palette in ImagePalette.allCases {
            let request = RenderRequest(
                kind: kind, width: 296, height: 128, palette: palette, format: .png,
                content: ImageContent(locationName: "Nowhere"))
            let image = try decodePNG(Renderer.render(request))
            #expect(image.width == 296)
            // Text and a frame: more than the paper.
            #expect(image.colors.count >= 2, "\(kind) \(palette) is blank")
        }
    }
}

/// The helper's protocol, through the built executable: stdin → stdout, 65 with one line.
@Suite struct HelperProtocolTests {
    @Test func rendersAValidRequest() throws {
        let run = try runHelper(encodedJSON(DemoContent.request(.summary, 296, 128, .bwr, .png)))
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty)
        let image = try decodePNG(run.stdout)
        #expect(image.width == 296 && image.height == 128)
    }

    @Test func writesJPEG() throws {
        let run = try runHelper(encodedJSON(DemoContent.request(.climate, 296, 128, .bw, .jpeg)))
        #expect(run.status == 0)
        #expect(jpegFrameMarkers(run.stdout) == [0xc0])
    }

    static let badRequests: [(String, String)] = [
        (
            #"{"kind":"summary","width":1601,"height":128,"palette":"bw","format":"png","content":{"locationName":"x"}}"#,
            "width: 1601"
        ),
        (
            #"{"kind":"summary","width":63,"height":128,"palette":"bw","format":"png","content":{"locationName":"x"}}"#,
            "width: 63"
        ),
        (
            #"{"kind":"summary","width":296,"height":1201,"palette":"bw","format":"png","content":{"locationName":"x"}}"#,
            "height: 1201"
        ),
        (
            #"{"kind":"summary","width":296,"height":"tall","palette":"bw","format":"png","content":{"locationName":"x"}}"#,
            "height"
        ),
        (
            #"{"kind":"map","width":296,"height":128,"palette":"bw","format":"png","content":{"locationName":"x"}}"#,
            "kind"
        ),
        (#"{"kind":"summary","width":296,"height":128,"palette":"bw","format":"png"}"#, "content"),
        (
            #"{"kind":"summary","width":296,"height":128,"palette":"bw","format":"png","content":{"locationName":"x","climate":{"changeText":"+1.0°C","changeColor":"red","bars":[]}}}"#,
            "content.climate.changeColor"
        ),
        (#"{"kind":"summary","width":296,"height":128"#, "JSON"),
        ("", "empty"),
    ]

    @Test(arguments: badRequests)
    func refusesABadRequest(_ input: String, _ named: String) throws {
        let run = try runHelper(Array(input.utf8))
        #expect(run.status == 65)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains(named), "stderr: \(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "one line: \(run.stderr)")
    }

    @Test func refusesAnOversizedStdin() throws {
        // A valid request padded with whitespace past 1 MiB: refused for its size alone.
        var input = try encodedJSON(DemoContent.request(.summary, 296, 128, .bw, .png))
        input += [UInt8](repeating: 0x20, count: RenderRequestReader.maximumRequestBytes + 1 - input.count)
        let run = try runHelper(input)
        #expect(run.status == 65)
        #expect(run.stderr.contains("over 1048576 bytes"), "stderr: \(run.stderr)")
    }

    @Test func acceptsExactlyTheLimit() throws {
        var input = try encodedJSON(DemoContent.request(.stripes, 64, 64, .bw, .png))
        input += [UInt8](repeating: 0x20, count: RenderRequestReader.maximumRequestBytes - input.count)
        let run = try runHelper(input)
        #expect(run.status == 0, "stderr: \(run.stderr)")
    }
}

/// Bounds of the request beyond the image size (docs/operations.md, "Render helper").
@Suite struct RenderRequestBoundsTests {
    private func failure(_ request: RenderRequest) -> RenderFailure? {
        do {
            try RenderRequestReader.validate(request)
            return nil
        } catch { return error }
    }

    @Test func namesTheBadField() {
        var request = DemoContent.request(.summary, 296, 128, .bw, .png)
        request.content.stripes!.colors[3] = "#12345"
        #expect(failure(request)?.message == ##"content.stripes.colors[3]: "#12345" is not a #rrggbb color"##)
        // The message stays one line (the agent logs the helper's first stderr line): controls escaped.
        request.content.stripes!.colors[3] = "#12\n\u{1b}[31m"
        #expect(failure(request)?.message == ##"content.stripes.colors[3]: "#12\n\u{1b}[31m" is not a #rrggbb color"##)
        request = DemoContent.request(.summary, 296, 128, .bw, .png)
        request.content.climate!.bars[0].heightThousandths = 1001
        #expect(failure(request)?.message == "content.climate.bars[0].heightThousandths: 1001 is outside 0…1000")
        request = DemoContent.request(.summary, 296, 128, .bw, .png)
        request.content.pollen!.types = Array(repeating: DemoContent.cell("Grass", "Low"), count: 17)
        #expect(failure(request)?.message == "content.pollen.types: 17 cells, at most 16")
        request = DemoContent.request(.summary, 296, 128, .bw, .png)
        request.content.locationName = String(repeating: "x", count: 257)
        #expect(failure(request)?.message == "content.locationName: 257 bytes, at most 256")
        request = DemoContent.request(.summary, 296, 128, .bw, .png)
        request.content.pollen!.today.level = " "
        #expect(failure(request)?.kind == .badRequest)
        request = DemoContent.request(.summary, 296, 128, .bw, .png)
        request.content.stripes = StripesPanel(firstYear: 2025, lastYear: 1980, colors: [])
        #expect(failure(request)?.exitStatus == 65)
        #expect(failure(DemoContent.request(.summary, 1600, 1200, .bw, .png)) == nil)
    }
}
