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

/// The four pictures (docs/images.md `kind`), each a stack of blocks that drops its least
/// important parts when the image is too small for 12 px text, never the level words.
struct Layouts {
    let request: RenderRequest
    let elements: Elements

    var width: Double { Double(request.width) }
    var height: Double { Double(request.height) }
    var content: ImageContent { request.content }
    /// The image less its margin.
    var frame: Rect {
        let margin = max(2, (min(width, height) * 0.04).rounded())
        return Rect(x: 0, y: 0, width: width, height: height).inset(margin)
    }
    /// Gap between blocks.
    var gap: Double { max(2, (min(width, height) * 0.025).rounded()) }
    /// Heading size: grows with the image, from 12 px.
    var headerSize: Double { min(48, max(Elements.minimum, (min(height * 0.06, width * 0.05)).rounded(.down))) }
    /// The largest text; keeps a 1600×1200 image from drawing 300 px words.
    var largest: Double { max(Elements.minimum, min(height * 0.3, width * 0.16)) }
    var showsHeader: Bool { height >= 150 && width >= 150 }
    var words: ImageWords { elements.words }

    func draw() {
        switch request.kind {
        case .pollen: pollen()
        case .climate: climate()
        case .stripes: stripes()
        case .summary: summary()
        }
    }

    private func header(_ title: String) -> Block? {
        guard showsHeader else { return nil }
        return elements.headerBlock(location: content.locationName, title: title, size: headerSize, priority: 0)
    }

    private func placeholderBlock(title: String, priority: Int, weight: Double = 1) -> Block {
        Block(minHeight: (Elements.minimum * Elements.line).rounded(.up) + 6, weight: weight, priority: priority) {
            rect in elements.placeholder(in: rect, title: title)
        }
    }

    /// Today's level: a "Pollen today" caption above the big word when there is room.
    private func todayBlock(_ today: LevelCell, caption: String, priority: Int, weight: Double) -> Block {
        let minimum = (Elements.minimum * Elements.badgeHeight).rounded(.up)
        return Block(minHeight: minimum, weight: weight, priority: priority) { rect in
            drawToday(today, caption: caption, in: rect, align: .leading)
        }
    }

    private func drawToday(_ today: LevelCell, caption: String, in rect: Rect, align: Canvas.Alignment) {
        var wordRect = rect
        if rect.height >= Elements.minimum * (Elements.line + Elements.badgeHeight) + 4 {
            let captionSize = Elements.captionSize(in: rect, largest: largest)
            let (top, rest) = rect.splitTop((captionSize * Elements.line).rounded(.up))
            if elements.caption(caption, in: top, maxSize: captionSize, align: align) { wordRect = rest }
        }
        elements.bigLevel(today, in: wordRect, maxSize: largest, align: align)
    }

    // MARK: pollen

    private func pollen() {
        var blocks: [Block] = []
        if let header = header(words.pollen) { blocks.append(header) }
        guard let pollen = content.pollen else {
            blocks.append(placeholderBlock(title: words.pollen, priority: 10, weight: 1))
            elements.stack(blocks, in: frame, gap: gap)
            return
        }
        let area = frame
        let cellSize = max(Elements.minimum, largest * 0.45)
        // Wide and short (a 296×128 tag): today on the left, types and days on the right.
        if width >= 1.6 * height, width >= 200 {
            let headerHeight = showsHeader ? (headerSize * Elements.line).rounded(.up) + gap : 0
            let (top, body) = area.splitTop(headerHeight)
            if showsHeader, let header = header(words.pollen) { header.draw(top.splitTop(top.height - gap).0) }
            let (left, right) = body.splitLeft((body.width * 0.36).rounded())
            drawToday(pollen.today, caption: pollen.today.label, in: left.inset(dx: 0, dy: 0), align: .leading)
            let column = right.inset(dx: gap / 2, dy: 0)
            var rows: [Block] = []
            if let types = elements.cellsBlock(
                pollen.types, width: column.width, maxSize: cellSize, weight: 1, priority: 5)
            {
                rows.append(types)
            }
            if let days = elements.cellsBlock(
                pollen.days, width: column.width, maxSize: cellSize, weight: 1, priority: 4)
            {
                rows.append(days)
            }
            elements.stack(rows, in: column, gap: gap)
            return
        }
        blocks.append(todayBlock(pollen.today, caption: pollen.today.label, priority: 10, weight: 1.3))
        if let types = elements.cellsBlock(pollen.types, width: area.width, maxSize: cellSize, weight: 1, priority: 5) {
            blocks.append(types)
        }
        if let days = elements.cellsBlock(pollen.days, width: area.width, maxSize: cellSize, weight: 1, priority: 4) {
            blocks.append(days)
        }
        elements.stack(blocks, in: area, gap: gap)
    }

    // MARK: climate

    private func climate() {
        var blocks: [Block] = []
        if let header = header(words.climateTrend) { blocks.append(header) }
        guard let climate = content.climate else {
            blocks.append(placeholderBlock(title: words.climate, priority: 10))
            elements.stack(blocks, in: frame, gap: gap)
            return
        }
        let changeSize = max(Elements.minimum, largest * 0.6)
        // The seed's summary line: "Change since 1980" on the left, the change big on the right.
        let rowHeight = (min(changeSize, max(Elements.minimum, height * 0.16)) * 1.25).rounded(.up)
        blocks.append(
            Block(minHeight: (Elements.minimum * 1.3).rounded(.up), weight: 0.25, priority: 9, maxHeight: rowHeight) {
                rect in
                let textSize = min(changeSize, rect.height / 1.25)
                guard
                    let (face, size) = elements.fit(
                        climate.changeText, bold: true, width: rect.width * 0.6, maxSize: textSize)
                else {
                    // Too narrow for the caption: the change alone.
                    if let (face, size) = elements.fit(
                        climate.changeText, bold: true, width: rect.width, maxSize: textSize)
                    {
                        elements.canvas.text(
                            climate.changeText, in: rect, face, size: size,
                            elements.inks.coloredText(RGB(hex: climate.changeColor)), align: .center)
                    }
                    return
                }
                let textWidth = elements.canvas.textWidth(climate.changeText, face, size: size)
                let (left, _) = rect.splitLeft(rect.width - textWidth - size * 0.5)
                let captionSize = max(Elements.minimum, min(size * 0.55, 28))
                if !elements.caption(elements.changeCaption(climate, short: false), in: left, maxSize: captionSize) {
                    elements.caption(elements.changeCaption(climate, short: true), in: left, maxSize: captionSize)
                }
                elements.canvas.text(
                    climate.changeText, in: rect, face, size: size,
                    elements.inks.coloredText(RGB(hex: climate.changeColor)), align: .trailing)
            })
        blocks.append(
            Block(minHeight: 16, weight: 1, priority: 8) { rect in
                elements.drawBars(climate, in: rect, maxSize: max(Elements.minimum, min(22, largest * 0.25)))
            })
        elements.stack(blocks, in: frame, gap: gap)
    }

    // MARK: stripes

    private func stripes() {
        guard let stripes = content.stripes, !stripes.colors.isEmpty else {
            elements.placeholder(in: frame, title: words.warmingStripes)
            return
        }
        // Edge to edge, as Ed Hawkins draws them; the years (and the place) on a band below.
        let full = Rect(x: 0, y: 0, width: width, height: height)
        let size = min(28, max(Elements.minimum, (height * 0.1).rounded(.down)))
        let band = (size * Elements.line).rounded(.up) + 2
        let yearsWidth = elements.canvas.textWidth("\(stripes.firstYear)  \(stripes.lastYear)", .regular, size: size)
        guard height >= band + 16, yearsWidth <= width - 4 else {
            elements.drawStripes(stripes.colors, in: full)
            return
        }
        let (top, bottom) = full.splitTop(height - band)
        elements.drawStripes(stripes.colors, in: top)
        elements.drawStripesWithYears(
            StripesPanel(firstYear: stripes.firstYear, lastYear: stripes.lastYear, colors: []), inBandOnly: bottom,
            size: size, middle: content.locationName)
    }

    // MARK: summary

    private func summary() {
        var blocks: [Block] = []
        if let header = header("") { blocks.append(header) }
        let area = frame
        let bigSize = largest
        let cellSize = max(Elements.minimum, largest * 0.4)
        // Today's pollen and the climate change side by side when both fit at 12 px.
        let half = (area.width - gap) / 2
        let sideBySide =
            width >= height * 0.9
            && elements.fit(content.pollen?.today.level ?? words.noData, bold: true, width: half, maxSize: 12)
                != nil
            && elements.fit(content.climate?.changeText ?? words.noData, bold: true, width: half, maxSize: 12) != nil
        if sideBySide {
            let minimum = (Elements.minimum * Elements.badgeHeight).rounded(.up)
            blocks.append(
                Block(minHeight: minimum, weight: 2, priority: 10) { rect in
                    let (left, rest) = rect.splitLeft(half)
                    let right = rest.splitLeft(gap).1
                    if let pollen = content.pollen {
                        drawToday(pollen.today, caption: pollenTodayCaption(pollen), in: left, align: .leading)
                    } else {
                        elements.placeholder(in: left, title: words.pollen)
                    }
                    if let climate = content.climate {
                        elements.drawChange(
                            climate, in: right, maxSize: bigSize * 0.8, largest: largest, align: .trailing)
                    } else {
                        elements.placeholder(in: right, title: words.climate)
                    }
                })
        } else {
            if let pollen = content.pollen {
                blocks.append(
                    todayBlock(pollen.today, caption: pollenTodayCaption(pollen), priority: 10, weight: 1.2))
            } else {
                blocks.append(placeholderBlock(title: words.pollen, priority: 10))
            }
            if let climate = content.climate {
                if let change = elements.changeBlock(
                    climate, width: area.width, maxSize: bigSize * 0.7, priority: 7, weight: 0.8)
                {
                    blocks.append(change)
                }
            } else {
                blocks.append(placeholderBlock(title: words.climate, priority: 7))
            }
        }
        if let pollen = content.pollen,
            let types = elements.cellsBlock(pollen.types, width: area.width, maxSize: cellSize, weight: 1, priority: 6)
        {
            blocks.append(types)
        }
        if let stripes = content.stripes, !stripes.colors.isEmpty {
            blocks.append(
                Block(minHeight: 8, weight: 0.8, priority: 5) { rect in
                    elements.drawStripesWithYears(stripes, in: rect, maxSize: max(Elements.minimum, largest * 0.25))
                })
        } else {
            blocks.append(placeholderBlock(title: words.warmingStripes, priority: 5, weight: 0.8))
        }
        elements.stack(blocks, in: area, gap: gap)
    }

    /// "Pollen today" over the summary's big word: the request's words, or (English, no words
    /// sent) made from today's label as it always was.
    private func pollenTodayCaption(_ pollen: PollenPanel) -> String {
        content.words == nil ? "Pollen \(pollen.today.label.lowercased())" : words.pollenToday
    }
}

extension Elements {
    /// The years band of the `stripes` kind: first year left, place in the middle, last year right.
    func drawStripesWithYears(_ stripes: StripesPanel, inBandOnly band: Rect, size: Double, middle: String) {
        let text = band.inset(dx: 2, dy: 0)
        canvas.text(String(stripes.firstYear), in: text, .regular, size: size, inks.ink)
        canvas.text(String(stripes.lastYear), in: text, .regular, size: size, inks.ink, align: .trailing)
        // Centred between the years: as wide as the widest year leaves free on both sides.
        let widestYear = max(
            canvas.textWidth(String(stripes.firstYear), .regular, size: size),
            canvas.textWidth(String(stripes.lastYear), .regular, size: size))
        let room = text.width - 2 * widestYear - size
        if room > 0, let name = truncated(middle, .bold, size: size, width: room) {
            canvas.text(name, in: text, .bold, size: size, inks.ink, align: .center)
        }
    }
}
