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
import CCairo

#if canImport(Glibc)
    import Glibc
#endif

/// An sRGB color as Cairo takes it.
struct RGB: Hashable, Sendable {
    var red: UInt8
    var green: UInt8
    var blue: UInt8

    init(_ red: UInt8, _ green: UInt8, _ blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    init(_ color: HexColor) { self.init(color.red, color.green, color.blue) }

    /// A request's color; the reader has checked it, so a bad one is drawn gray rather than trapping.
    init(hex: String) { self.init(HexColor(hex: hex) ?? HexColor(red: 0x8e, green: 0x8e, blue: 0x93)) }

    static let black = RGB(0, 0, 0)
    static let white = RGB(255, 255, 255)

    /// WCAG relative luminance, 0…1.
    var luminance: Double {
        func linear(_ c: UInt8) -> Double {
            let v = Double(c) / 255
            return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
    }

    /// The word on a level's badge: white as in the app's level capsule when it keeps the WCAG
    /// contrast of 3:1 (the badge text is bold), else black (on green and orange).
    var legibleText: RGB {
        1.05 / (luminance + 0.05) >= 3 ? .white : .black
    }
}

/// A rectangle in device pixels (Cairo's user space is never transformed here).
struct Rect: Sendable {
    var x: Double
    var y: Double
    var width: Double
    var height: Double

    var maxX: Double { x + width }
    var maxY: Double { y + height }
    var midX: Double { x + width / 2 }
    var midY: Double { y + height / 2 }

    func inset(_ d: Double) -> Rect { inset(dx: d, dy: d) }
    func inset(dx: Double, dy: Double) -> Rect {
        Rect(x: x + dx, y: y + dy, width: max(0, width - 2 * dx), height: max(0, height - 2 * dy))
    }
    /// The top `h` pixels and the rest.
    func splitTop(_ h: Double) -> (Rect, Rect) {
        let h = min(max(0, h), height)
        return (Rect(x: x, y: y, width: width, height: h), Rect(x: x, y: y + h, width: width, height: height - h))
    }
    /// The left `w` pixels and the rest.
    func splitLeft(_ w: Double) -> (Rect, Rect) {
        let w = min(max(0, w), width)
        return (Rect(x: x, y: y, width: w, height: height), Rect(x: x + w, y: y, width: width - w, height: height))
    }
    /// Snapped to whole pixels, so fills have crisp edges with antialiasing off.
    var snapped: Rect {
        let x0 = x.rounded()
        let y0 = y.rounded()
        return Rect(x: x0, y: y0, width: (maxX).rounded() - x0, height: (maxY).rounded() - y0)
    }
}

/// The two faces drawn: DejaVu Sans, and its condensed cut when a word must fit a narrow cell.
/// Characters DejaVu has no glyph for (CJK above all) are drawn in `fallbackFamily` when the
/// system has it (docs/images.md, "Fonts").
struct Face: Hashable, Sendable {
    var condensed: Bool
    var bold: Bool

    var family: String { condensed ? "DejaVu Sans Condensed" : "DejaVu Sans" }

    /// Chinese, Japanese (kana) and Korean (Hangul): fonts-wqy-microhei, in the -full image and the add-on.
    /// (Droid Sans Fallback, fonts-droid-fallback, has no Hangul.)
    static let fallbackFamily = "WenQuanYi Micro Hei"

    static let regular = Face(condensed: false, bold: false)
    static let bold = Face(condensed: false, bold: true)
}

/// A Cairo image surface and its context. With `crisp` (e-ink) every shape and glyph is drawn
/// without antialiasing, so only the colors asked for reach the pixels.
final class Canvas {
    let width: Int
    let height: Int
    let crisp: Bool
    let surface: OpaquePointer
    let context: OpaquePointer
    /// Text advance per pixel of font size, by face and text (widths scale linearly: hint metrics off).
    private var unitWidths: [Face: [String: Double]] = [:]
    /// Whether a family (regular or bold) has a glyph for a character, as asked of its font.
    private var coverage: [FamilyKey: [Unicode.Scalar: Bool]] = [:]

    private struct FamilyKey: Hashable {
        var family: String
        var bold: Bool
    }

    /// The smallest font size drawn, in pixels (docs/images.md: text at least 12 px).
    static let minimumFontSize = 12.0

    init(width: Int, height: Int, crisp: Bool) throws(RenderFailure) {
        self.width = width
        self.height = height
        self.crisp = crisp
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(width), Int32(height)) else {
            throw .internalError("cairo: no image surface")
        }
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            throw .internalError("cairo: image surface \(width)×\(height): \(Canvas.describe(status))")
        }
        guard let context = cairo_create(surface) else {
            cairo_surface_destroy(surface)
            throw .internalError("cairo: no context")
        }
        self.surface = surface
        self.context = context
        let options = cairo_font_options_create()
        // Metrics unhinted: a text's width is proportional to its size, so layouts measure once.
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
        if crisp {
            cairo_set_antialias(context, CAIRO_ANTIALIAS_NONE)
            cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_NONE)
            cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_FULL)
        } else {
            cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
        }
        cairo_set_font_options(context, options)
        cairo_font_options_destroy(options)
        cairo_set_line_join(context, CAIRO_LINE_JOIN_MITER)
    }

    deinit {
        cairo_destroy(context)
        cairo_surface_destroy(surface)
    }

    static func describe(_ status: cairo_status_t) -> String {
        String(cString: cairo_status_to_string(status))
    }

    /// Throws Cairo's own message if the context or surface is in an error state.
    func check() throws(RenderFailure) {
        let status = cairo_status(context)
        guard status == CAIRO_STATUS_SUCCESS else { throw .internalError("cairo: \(Canvas.describe(status))") }
        let surfaceStatus = cairo_surface_status(surface)
        guard surfaceStatus == CAIRO_STATUS_SUCCESS else {
            throw .internalError("cairo: \(Canvas.describe(surfaceStatus))")
        }
    }

    // MARK: shapes

    func setColor(_ color: RGB) {
        cairo_set_source_rgb(context, Double(color.red) / 255, Double(color.green) / 255, Double(color.blue) / 255)
    }

    func fill(_ rect: Rect, _ color: RGB) {
        let r = rect.snapped
        guard r.width > 0, r.height > 0 else { return }
        setColor(color)
        cairo_rectangle(context, r.x, r.y, r.width, r.height)
        cairo_fill(context)
    }

    /// A rectangle with rounded corners (color palette; e-ink keeps square corners, which stay crisp).
    func fillRounded(_ rect: Rect, radius: Double, _ color: RGB) {
        let r = rect.snapped
        guard r.width > 0, r.height > 0 else { return }
        let radius = min(radius, r.width / 2, r.height / 2)
        guard !crisp, radius >= 1 else { return fill(r, color) }
        setColor(color)
        cairo_new_sub_path(context)
        cairo_arc(context, r.maxX - radius, r.y + radius, radius, -Double.pi / 2, 0)
        cairo_arc(context, r.maxX - radius, r.maxY - radius, radius, 0, Double.pi / 2)
        cairo_arc(context, r.x + radius, r.maxY - radius, radius, Double.pi / 2, Double.pi)
        cairo_arc(context, r.x + radius, r.y + radius, radius, Double.pi, 3 * Double.pi / 2)
        cairo_close_path(context)
        cairo_fill(context)
    }

    /// A frame `thickness` pixels wide inside `rect`, drawn as four fills (crisp at any width).
    func frame(_ rect: Rect, thickness: Double, _ color: RGB) {
        let r = rect.snapped
        let t = max(1, thickness.rounded())
        guard r.width > 2 * t, r.height > 2 * t else { return fill(r, color) }
        fill(Rect(x: r.x, y: r.y, width: r.width, height: t), color)
        fill(Rect(x: r.x, y: r.maxY - t, width: r.width, height: t), color)
        fill(Rect(x: r.x, y: r.y + t, width: t, height: r.height - 2 * t), color)
        fill(Rect(x: r.maxX - t, y: r.y + t, width: t, height: r.height - 2 * t), color)
    }

    /// `ink` on white at `density` (0…1) by a 4×4 ordered (Bayer) dither aligned to the pixel
    /// grid: the e-ink way to show a lighter or darker tone with two inks.
    func fillDithered(_ rect: Rect, ink: RGB, density: Double, paper: RGB = .white) {
        let r = rect.snapped
        guard r.width > 0, r.height > 0 else { return }
        let level = Int((min(1, max(0, density)) * 16).rounded())
        if level <= 0 { return fill(r, paper) }
        if level >= 16 { return fill(r, ink) }
        guard let tile = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 4, 4) else { return fill(r, ink) }
        defer { cairo_surface_destroy(tile) }
        cairo_surface_flush(tile)
        let stride = Int(cairo_image_surface_get_stride(tile))
        if let data = cairo_image_surface_get_data(tile) {
            for y in 0..<4 {
                for x in 0..<4 {
                    let color = Canvas.bayer4[y][x] < level ? ink : paper
                    let p = data + y * stride + x * 4
                    p[0] = color.blue
                    p[1] = color.green
                    p[2] = color.red
                    p[3] = 255
                }
            }
        }
        cairo_surface_mark_dirty(tile)
        guard let pattern = cairo_pattern_create_for_surface(tile) else { return fill(r, ink) }
        defer { cairo_pattern_destroy(pattern) }
        cairo_pattern_set_extend(pattern, CAIRO_EXTEND_REPEAT)
        cairo_pattern_set_filter(pattern, CAIRO_FILTER_NEAREST)
        cairo_set_source(context, pattern)
        cairo_rectangle(context, r.x, r.y, r.width, r.height)
        cairo_fill(context)
    }

    /// The 4×4 Bayer threshold matrix (values 0…15).
    static let bayer4: [[Int]] = [[0, 8, 2, 10], [12, 4, 14, 6], [3, 11, 1, 9], [15, 7, 13, 5]]

    // MARK: text

    private func select(_ family: String, bold: Bool, size: Double) {
        cairo_select_font_face(
            context, family, CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL
        )
        cairo_set_font_size(context, size)
    }

    /// Whether the font fontconfig gives for `family` has a glyph for `scalar` (glyph 0 is the
    /// missing-glyph box: Cairo's toy font API draws one font and never falls back by itself).
    private func covers(_ family: String, bold: Bool, _ scalar: Unicode.Scalar) -> Bool {
        let key = FamilyKey(family: family, bold: bold)
        if let known = coverage[key]?[scalar] { return known }
        select(family, bold: bold, size: 100)
        var glyphs: UnsafeMutablePointer<cairo_glyph_t>?
        var count: Int32 = 0
        let status = String(Character(scalar)).withCString { utf8 in
            cairo_scaled_font_text_to_glyphs(
                cairo_get_scaled_font(context), 0, 0, utf8, -1, &glyphs, &count, nil, nil, nil
            )
        }
        var found = status == CAIRO_STATUS_SUCCESS && count > 0
        if let glyphs {
            for i in 0..<Int(count) where glyphs[i].index == 0 { found = false }
            cairo_glyph_free(glyphs)
        }
        coverage[key, default: [:]][scalar] = found
        return found
    }

    /// The characters of `text` the face's own family has no glyph for (the fallback family
    /// not asked): what the catalogues' texts must never contain (RenderTests).
    func missingGlyphs(_ text: String, _ face: Face) -> [Unicode.Scalar] {
        text.unicodeScalars.filter { !covers(face.family, bold: face.bold, $0) }
    }

    /// `text` cut into runs of one family each: the face's own, and the fallback family for the
    /// characters the face lacks and the fallback has. A character neither has stays in the
    /// face's run (drawn as its box), so text without such characters is one run, drawn as before.
    func runs(_ text: String, _ face: Face) -> [(text: String, family: String)] {
        var result: [(text: String, family: String)] = []
        for scalar in text.unicodeScalars {
            let family =
                covers(face.family, bold: face.bold, scalar) || !covers(Face.fallbackFamily, bold: face.bold, scalar)
                ? face.family : Face.fallbackFamily
            if let last = result.last, last.family == family {
                result[result.count - 1].text.unicodeScalars.append(scalar)
            } else {
                result.append((String(scalar), family))
            }
        }
        return result
    }

    /// The advance of `text` at font size 1 (multiply by the size).
    func unitWidth(_ text: String, _ face: Face) -> Double {
        if let known = unitWidths[face]?[text] { return known }
        let pieces = runs(text, face)
        var width = 0.0
        for (i, run) in pieces.enumerated() {
            select(run.family, bold: face.bold, size: 100)
            var extents = cairo_text_extents_t()
            cairo_text_extents(context, run.text, &extents)
            // The last run's ink may reach past its advance (an italic-like overhang).
            let isLast = i == pieces.count - 1
            width += isLast ? max(extents.x_advance, extents.width + max(0, extents.x_bearing)) : extents.x_advance
        }
        width /= 100
        unitWidths[face, default: [:]][text] = width
        return width
    }

    func textWidth(_ text: String, _ face: Face, size: Double) -> Double { unitWidth(text, face) * size }

    /// Runs `body` with drawing limited to `rect`.
    func clipped(to rect: Rect, _ body: () -> Void) {
        let r = rect.snapped
        cairo_save(context)
        cairo_rectangle(context, r.x, r.y, r.width, r.height)
        cairo_clip(context)
        body()
        cairo_restore(context)
    }

    enum Alignment { case leading, center, trailing }

    /// Draws one line of text vertically centred in `rect`, aligned horizontally in it.
    func text(
        _ text: String, in rect: Rect, _ face: Face, size: Double, _ color: RGB, align: Alignment = .leading
    ) {
        // Measure first: measuring selects the face at its own size.
        let width = textWidth(text, face, size: size)
        let x: Double
        switch align {
        case .leading: x = rect.x
        case .center: x = rect.midX - width / 2
        case .trailing: x = rect.maxX - width
        }
        // Centre the cap height (≈ 0.73 em for DejaVu) rather than ascent+descent: words look centred.
        let baseline = rect.midY + 0.73 * size / 2
        setColor(color)
        cairo_move_to(context, x.rounded(), baseline.rounded())
        // Each run moves the current point on by its advance, so the next starts where it ends.
        for run in runs(text, face) {
            select(run.family, bold: face.bold, size: size)
            cairo_show_text(context, run.text)
        }
        cairo_new_path(context)
    }

    // MARK: pixels

    /// Replaces every pixel by the nearest of `inks` (squared RGB distance): the final guarantee
    /// that an e-ink image holds only its palette's exact colors, whatever Cairo did.
    func quantize(to inks: [RGB]) {
        cairo_surface_flush(surface)
        guard let data = cairo_image_surface_get_data(surface), !inks.isEmpty else { return }
        let stride = Int(cairo_image_surface_get_stride(surface))
        var cache: [UInt32: RGB] = [:]
        for y in 0..<height {
            let row = data + y * stride
            for x in 0..<width {
                let p = row + x * 4
                let key = UInt32(p[2]) << 16 | UInt32(p[1]) << 8 | UInt32(p[0])
                let ink: RGB
                if let known = cache[key] {
                    ink = known
                } else {
                    ink = Canvas.nearest(RGB(p[2], p[1], p[0]), in: inks)
                    cache[key] = ink
                }
                p[0] = ink.blue
                p[1] = ink.green
                p[2] = ink.red
                p[3] = 255
            }
        }
        cairo_surface_mark_dirty(surface)
    }

    static func nearest(_ color: RGB, in inks: [RGB]) -> RGB {
        var best = inks[0]
        var bestDistance = Int.max
        for ink in inks {
            let dr = Int(color.red) - Int(ink.red)
            let dg = Int(color.green) - Int(ink.green)
            let db = Int(color.blue) - Int(ink.blue)
            let distance = dr * dr + dg * dg + db * db
            if distance < bestDistance {
                best = ink
                bestDistance = distance
            }
        }
        return best
    }

    /// The pixels as packed RGB rows (for the JPEG encoder).
    func rgbBytes() -> [UInt8] {
        cairo_surface_flush(surface)
        var out = [UInt8](repeating: 0, count: width * height * 3)
        guard let data = cairo_image_surface_get_data(surface) else { return out }
        let stride = Int(cairo_image_surface_get_stride(surface))
        out.withUnsafeMutableBufferPointer { buffer in
            var i = 0
            for y in 0..<height {
                let row = data + y * stride
                for x in 0..<width {
                    let p = row + x * 4
                    buffer[i] = p[2]
                    buffer[i + 1] = p[1]
                    buffer[i + 2] = p[0]
                    i += 3
                }
            }
        }
        return out
    }
}
