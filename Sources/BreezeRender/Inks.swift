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

/// What a request's color means, read from the color itself (so `pollen.colors` overrides in
/// the config still land on a sensible ink): the documented greens are calm, orange is mid, red is
/// high, dark red severe, blue cool, grays neutral (Unknown, "no change").
enum Tone: Sendable, Equatable {
    case calm, mid, high, severe, cool, neutral

    init(_ color: RGB) {
        let r = Double(color.red)
        let g = Double(color.green)
        let b = Double(color.blue)
        let high = max(r, g, b)
        let low = min(r, g, b)
        let chroma = high - low
        guard chroma >= 40 else {
            self = .neutral
            return
        }
        var hue: Double
        if high == r {
            hue = 60 * ((g - b) / chroma)
        } else if high == g {
            hue = 60 * ((b - r) / chroma + 2)
        } else {
            hue = 60 * ((r - g) / chroma + 4)
        }
        if hue < 0 { hue += 360 }
        switch hue {
        case 25..<75: self = .mid
        case 75..<165: self = .calm
        case 165..<290: self = .cool
        default: self = high < 180 ? .severe : .high
        }
    }
}

/// How a surface is filled: one ink, or an ink dithered on white.
enum Fill: Sendable, Equatable {
    case solid(RGB)
    case dithered(RGB, density: Double)
}

/// A level word's badge: its fill, an optional frame, and the ink of the word on it.
struct Badge: Sendable, Equatable {
    var fill: RGB
    var frame: RGB?
    var frameThickness: Double
    var text: RGB
    /// A 1 px line 2 px inside the edge (bw "Very High": told apart from "High" without color).
    var innerLine: RGB? = nil
}

/// The palette of one render: the request's colors for `color`, a deliberate choice of exact
/// inks for e-ink (docs/images.md has the table).
struct Inks: Sendable {
    let palette: ImagePalette
    /// Whether tones may be dithered. Not for JPEG: a dot pattern costs megabytes there (a
    /// dithered 1600×1200 stripes JPEG was 2.3 MB) and OpenEPaperLink quantizes the JPEG to its
    /// inks itself; each fill is then thresholded to one solid ink instead.
    let dithers: Bool

    init(palette: ImagePalette, format: ImageFormat) {
        self.palette = palette
        self.dithers = format == .png
    }

    /// A dithered fill as drawn: itself, or with dithering off its ink at density ≥ ½, else paper.
    private func settled(_ fill: Fill) -> Fill {
        guard !dithers, case .dithered(let ink, let density) = fill else { return fill }
        return .solid(density >= 0.5 ? ink : .white)
    }

    private static let red = RGB(255, 0, 0)
    private static let yellow = RGB(255, 255, 0)

    /// Every pixel's allowed colors; nil for `color`.
    var exact: [RGB]? { palette.inks.map { $0.map(RGB.init) } }
    var isEInk: Bool { palette != .color }

    var paper: RGB { .white }
    /// Body text (names, labels).
    var ink: RGB { .black }
    /// Secondary text (captions, bar values): gray in color, black on e-ink (no grays there).
    var secondary: RGB { isEInk ? .black : RGB(0x6e, 0x6e, 0x73) }
    /// Hairlines and placeholder frames.
    var rule: RGB { isEInk ? .black : RGB(0xc7, 0xc7, 0xcc) }

    /// Text drawn in a request's color on paper (today's big level word on `color`, the change
    /// text): on e-ink, red where red ink exists and the tone is warm, else black.
    func coloredText(_ color: RGB) -> RGB {
        guard isEInk else { return color }
        let tone = Tone(color)
        if palette == .bwr, tone == .high || tone == .severe { return Inks.red }
        return .black
    }

    /// A level word's badge. The word is black or white, never the only carrier of the level.
    func badge(_ color: RGB) -> Badge {
        let tone = Tone(color)
        switch palette {
        case .color:
            return Badge(fill: color, frame: nil, frameThickness: 0, text: color.legibleText)
        case .bw:
            switch tone {
            case .high: return Badge(fill: .black, frame: nil, frameThickness: 0, text: .white)
            case .severe: return Badge(fill: .black, frame: nil, frameThickness: 0, text: .white, innerLine: .white)
            case .mid: return Badge(fill: .white, frame: .black, frameThickness: 3, text: .black)
            case .calm, .cool, .neutral: return Badge(fill: .white, frame: .black, frameThickness: 1, text: .black)
            }
        case .bwr:
            switch tone {
            case .high: return Badge(fill: Inks.red, frame: nil, frameThickness: 0, text: .white)
            case .severe: return Badge(fill: .black, frame: Inks.red, frameThickness: 3, text: .white)
            case .mid: return Badge(fill: .white, frame: Inks.red, frameThickness: 3, text: .black)
            case .cool: return Badge(fill: .black, frame: nil, frameThickness: 0, text: .white)
            case .calm, .neutral: return Badge(fill: .white, frame: .black, frameThickness: 1, text: .black)
            }
        case .bwy:
            switch tone {
            case .high, .cool: return Badge(fill: .black, frame: nil, frameThickness: 0, text: .white)
            case .severe: return Badge(fill: .black, frame: Inks.yellow, frameThickness: 3, text: Inks.yellow)
            case .mid: return Badge(fill: Inks.yellow, frame: .black, frameThickness: 1, text: .black)
            case .calm, .neutral: return Badge(fill: .white, frame: .black, frameThickness: 1, text: .black)
            }
        }
    }

    /// A chart bar's fill, and whether it needs an outline to be seen (a white or dithered bar).
    func bar(_ color: RGB) -> (fill: Fill, outlined: Bool) {
        let style = eInkBar(color)
        return (settled(style.fill), style.outlined)
    }

    private func eInkBar(_ color: RGB) -> (fill: Fill, outlined: Bool) {
        guard isEInk else { return (.solid(color), false) }
        let tone = Tone(color)
        switch (palette, tone) {
        case (.bwr, .high), (.bwr, .severe): return (.solid(Inks.red), false)
        case (.bwr, .mid): return (.dithered(Inks.red, density: 0.5), true)
        case (.bwr, .cool): return (.solid(.black), false)
        case (.bwy, .mid): return (.solid(Inks.yellow), true)
        case (.bwy, .cool): return (.dithered(.black, density: 0.5), true)
        case (_, .high), (_, .severe): return (.solid(.black), false)
        case (_, .mid): return (.dithered(.black, density: 0.5), true)
        case (_, .cool): return (.dithered(.black, density: 0.25), true)
        case (_, .calm), (_, .neutral): return (.dithered(.black, density: 0.125), true)
        }
    }

    /// A warming stripe's fill. E-ink: cold stripes in black, warm ones in red (bwr) or yellow
    /// (bwy), each dithered at the color's strength (1 − its darkest channel), so the faint
    /// middle of the ramp stays light and the ends go solid; bw is one white-to-black ramp.
    func stripe(_ color: RGB) -> Fill { settled(eInkStripe(color)) }

    private func eInkStripe(_ color: RGB) -> Fill {
        guard isEInk else { return .solid(color) }
        let strength = 1 - Double(min(color.red, color.green, color.blue)) / 255
        let warm = color.red > color.blue
        switch palette {
        case .bwr where warm: return .dithered(Inks.red, density: strength)
        case .bwy where warm:
            // Yellow on white is faint: warm stripes reach solid yellow sooner.
            return .dithered(Inks.yellow, density: min(1, strength * 1.5))
        case .bw:
            // One ink: a single ramp from white (coldest) to black (warmest), cold stripes in
            // the light half and warm ones in the dark half.
            return .dithered(.black, density: warm ? 0.5 + strength / 2 : 0.5 - strength / 2)
        default: return .dithered(.black, density: strength)
        }
    }
}
