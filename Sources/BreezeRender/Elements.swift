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

/// One piece of a vertical layout: the least height it can be drawn in (text ≥ 12 px), how
/// much of the spare height it takes, and how important it is when not everything fits.
struct Block {
    var minHeight: Double
    /// Share of the spare height (0: stays at its minimum).
    var weight: Double
    /// Higher survives longer when the image is too small for everything.
    var priority: Int
    /// At most this tall (the rest of the spare height goes to the others).
    var maxHeight: Double = .infinity
    var draw: (Rect) -> Void
}

/// The drawing vocabulary the four layouts are made of. Sizes adapt to the rectangle they get;
/// a piece whose text would fall under 12 px reports it cannot be drawn instead of shrinking.
struct Elements {
    let canvas: Canvas
    let inks: Inks
    /// The fixed words in the request's language (English unless the request brings others).
    var words = ImageWords.english
    static let minimum = Canvas.minimumFontSize
    /// Line height per pixel of font size.
    static let line = 1.3
    /// A badge's height, and its horizontal padding, per pixel of font size.
    static let badgeHeight = 1.5
    static let badgePadding = 1.1

    /// Stacks blocks top to bottom: drops the least important ones until the rest fit, then
    /// shares the spare height by weight.
    func stack(_ blocks: [Block], in rect: Rect, gap: Double) {
        var kept = Array(blocks.enumerated())
        func needed() -> Double {
            kept.reduce(0) { $0 + $1.element.minHeight } + gap * Double(max(0, kept.count - 1))
        }
        while !kept.isEmpty, needed() > rect.height {
            guard let weakest = kept.indices.min(by: { kept[$0].element.priority < kept[$1].element.priority })
            else { break }
            kept.remove(at: weakest)
        }
        var heights = kept.map(\.element.minHeight)
        var spare = rect.height - needed()
        // Hand out the spare height by weight, capping blocks at their maximum; repeat for what
        // a capped block could not take.
        for _ in 0..<4 where spare > 0.5 {
            let open = kept.indices.filter { kept[$0].element.weight > 0 && heights[$0] < kept[$0].element.maxHeight }
            let total = open.reduce(0) { $0 + kept[$1].element.weight }
            guard total > 0 else { break }
            var given = 0.0
            for i in open {
                let share = spare * kept[i].element.weight / total
                let grown = min(kept[i].element.maxHeight, heights[i] + share)
                given += grown - heights[i]
                heights[i] = grown
            }
            spare -= given
        }
        var y = rect.y
        for (i, block) in kept.enumerated() {
            block.element.draw(Rect(x: rect.x, y: y, width: rect.width, height: heights[i]).snapped)
            y += heights[i] + gap
        }
    }

    // MARK: text

    /// The largest face and size (≤ maxSize) at which `text` plus `padding`·size fits `width`:
    /// the normal cut first, the condensed one when the normal cannot reach 12 px.
    func fit(_ text: String, bold: Bool, width: Double, maxSize: Double, padding: Double = 0) -> (Face, Double)? {
        let maxSize = max(maxSize, Elements.minimum)
        for condensed in [false, true] {
            let face = Face(condensed: condensed, bold: bold)
            let unit = canvas.unitWidth(text, face) + padding
            var size = min(maxSize, unit > 0 ? width / unit : maxSize).rounded(.down)
            while size >= Elements.minimum, unit * size > width - 1 { size -= 1 }
            if size >= Elements.minimum { return (face, size) }
        }
        return nil
    }

    /// `text` cut with "…" to fit `width` at `size` (a long location name); nil if not even one
    /// character fits.
    func truncated(_ text: String, _ face: Face, size: Double, width: Double) -> String? {
        if canvas.textWidth(text, face, size: size) <= width - 1 { return text }
        var characters = Array(text)
        while !characters.isEmpty {
            characters.removeLast()
            let candidate = String(characters).trimmingTrailingSpaces() + "…"
            if canvas.textWidth(candidate, face, size: size) <= width - 1 {
                return characters.isEmpty ? nil : candidate
            }
        }
        return nil
    }

    /// A one-line heading: the location on the left, `title` on the right when both fit.
    func headerBlock(location: String, title: String, size: Double, priority: Int) -> Block {
        Block(minHeight: (size * Elements.line).rounded(.up), weight: 0, priority: priority) { rect in
            let titleWidth = canvas.textWidth(title, .regular, size: size)
            let showTitle = !title.isEmpty && titleWidth + canvas.textWidth("Mm", .bold, size: size) * 2 <= rect.width
            let nameWidth = showTitle ? rect.width - titleWidth - size : rect.width
            if let name = truncated(location, .bold, size: size, width: nameWidth) {
                canvas.text(name, in: rect, .bold, size: size, inks.ink)
            }
            if showTitle { canvas.text(title, in: rect, .regular, size: size, inks.secondary, align: .trailing) }
        }
    }

    /// A caption line (secondary color); false when it cannot be drawn at 12 px.
    @discardableResult
    func caption(_ text: String, in rect: Rect, maxSize: Double, align: Canvas.Alignment = .leading) -> Bool {
        guard let (face, size) = fit(text, bold: false, width: rect.width, maxSize: min(maxSize, rect.height / 1.15))
        else { return false }
        canvas.text(text, in: rect, face, size: size, inks.secondary, align: align)
        return true
    }

    // MARK: level words

    /// A level word on its badge (the level's color, or its e-ink inks), centred in `rect`.
    func badge(_ word: String, color: RGB, in rect: Rect, face: Face, size: Double) {
        let style = inks.badge(color)
        let r = rect.snapped
        canvas.fillRounded(r, radius: size * 0.35, style.fill)
        if let frame = style.frame { canvas.frame(r, thickness: style.frameThickness, frame) }
        if let line = style.innerLine, r.height >= 12 { canvas.frame(r.inset(2), thickness: 1, line) }
        canvas.text(word, in: r, face, size: size, style.text, align: .center)
    }

    /// Today's level word, big: in its color on `color`, on its badge on e-ink. Always printed:
    /// if even 12 px condensed does not fit, it is drawn at 12 px and the image edge clips it.
    func bigLevel(_ cell: LevelCell, in rect: Rect, maxSize: Double, align: Canvas.Alignment) {
        let color = RGB(hex: cell.color)
        let padding = inks.isEInk ? Elements.badgePadding : 0
        let heightFactor = inks.isEInk ? Elements.badgeHeight : 1.2
        let fitted = fit(
            cell.level, bold: true, width: rect.width, maxSize: min(maxSize, rect.height / heightFactor),
            padding: padding)
        // A word too long for any size: its start at 12 px condensed, cut at the rectangle's edge.
        let (face, size) = fitted ?? (Face(condensed: true, bold: true), Elements.minimum)
        let align = fitted == nil ? .leading : align
        let textWidth = canvas.textWidth(cell.level, face, size: size)
        let width = min(rect.width, textWidth + padding * size)
        let height = min(rect.height, (size * heightFactor).rounded())
        let x: Double
        switch align {
        case .leading: x = rect.x
        case .center: x = rect.midX - width / 2
        case .trailing: x = rect.maxX - width
        }
        let box = Rect(x: x, y: rect.midY - height / 2, width: width, height: height)
        canvas.clipped(to: rect) {
            if inks.isEInk {
                badge(cell.level, color: color, in: box, face: face, size: size)
            } else {
                canvas.text(
                    cell.level, in: box, face, size: size, inks.coloredText(color),
                    align: fitted == nil ? .leading : .center)
            }
        }
    }

    /// How a row of labelled level cells (types, days) is laid out.
    struct CellsPlan {
        var columns: Int
        var rows: Int
        var size: Double
        var labelFace: Face
        var wordFace: Face
        /// Label above the badge; else label left, badge right.
        var stacked: Bool
    }

    /// Space between cells: 4 px, more on wide images, so a label never touches the badge before it.
    static func cellGap(_ width: Double) -> Double { max(4, (width * 0.03).rounded()) }

    /// The best arrangement of `cells` in `rect` (fewest rows, unless another has much larger
    /// text), or nil when
    /// none keeps its text at 12 px.
    func planCells(_ cells: [LevelCell], in rect: Rect, maxSize: Double) -> CellsPlan? {
        guard !cells.isEmpty else { return nil }
        var best: CellsPlan?
        let gap = Elements.cellGap(rect.width)
        for columns in stride(from: cells.count, through: 1, by: -1) {
            let rows = (cells.count + columns - 1) / columns
            if columns > 1, (cells.count + columns - 2) / (columns - 1) == rows { continue }  // same rows, narrower
            let cellWidth = (rect.width - gap * Double(columns - 1)) / Double(columns)
            let cellHeight = (rect.height - gap * Double(rows - 1)) / Double(rows)
            guard cellWidth > 0, cellHeight > 0 else { continue }
            for condensed in [false, true] {
                let labelFace = Face(condensed: condensed, bold: false)
                let wordFace = Face(condensed: condensed, bold: true)
                let word = (cells.map { canvas.unitWidth($0.level, wordFace) }.max() ?? 0) + Elements.badgePadding
                // A long label is cut with "…" when drawn: it may not claim more than its badge
                // or six ems, whichever is wider.
                let label = min(cells.map { canvas.unitWidth($0.label, labelFace) }.max() ?? 0, max(word, 6))
                for stacked in [true, false] {
                    let heightLimit =
                        stacked
                        ? cellHeight / (Elements.line + Elements.badgeHeight + 0.1) : cellHeight / Elements.badgeHeight
                    let unit = stacked ? max(label, word) : label + 0.5 + word
                    var size = min(maxSize, heightLimit, (cellWidth - 1) / unit).rounded(.down)
                    size = max(size, 0)
                    guard size >= Elements.minimum else { continue }
                    let plan = CellsPlan(
                        columns: columns, rows: rows, size: size, labelFace: labelFace, wordFace: wordFace,
                        stacked: stacked)
                    if let current = best {
                        if Elements.prefers(plan, over: current) { best = plan }
                    } else {
                        best = plan
                    }
                }
                if best != nil { break }  // the condensed cut only when the normal one fails
            }
        }
        return best
    }

    /// One row reads better than a grid: fewer rows win unless the other arrangement's text is
    /// more than 15 % larger.
    static func prefers(_ a: CellsPlan, over b: CellsPlan) -> Bool {
        if a.rows == b.rows { return a.size > b.size }
        if a.rows < b.rows { return a.size * 1.15 >= b.size }
        return a.size > b.size * 1.15
    }

    /// The least height at which `cells` fit `width` at 12 px; nil if they never do.
    func minimumCellsHeight(_ cells: [LevelCell], width: Double) -> Double? {
        guard !cells.isEmpty else { return nil }
        var low = Elements.minimum * Elements.badgeHeight
        let high = Double(cells.count) * (Elements.minimum * 3 + Elements.cellGap(width))
        guard planCells(cells, in: Rect(x: 0, y: 0, width: width, height: high), maxSize: Elements.minimum) != nil
        else { return nil }
        while planCells(cells, in: Rect(x: 0, y: 0, width: width, height: low), maxSize: Elements.minimum) == nil {
            low += 2
        }
        return low
    }

    func cellsBlock(_ cells: [LevelCell], width: Double, maxSize: Double, weight: Double, priority: Int) -> Block? {
        guard let minimum = minimumCellsHeight(cells, width: width) else { return nil }
        return Block(minHeight: minimum, weight: weight, priority: priority) { rect in
            drawCells(cells, in: rect, maxSize: maxSize)
        }
    }

    func drawCells(_ cells: [LevelCell], in rect: Rect, maxSize: Double) {
        guard let plan = planCells(cells, in: rect, maxSize: maxSize) else { return }
        let gap = Elements.cellGap(rect.width)
        let cellWidth = (rect.width - gap * Double(plan.columns - 1)) / Double(plan.columns)
        let cellHeight = (rect.height - gap * Double(plan.rows - 1)) / Double(plan.rows)
        let s = plan.size
        let badgeWidth = min(
            cellWidth,
            ((cells.map { canvas.unitWidth($0.level, plan.wordFace) }.max() ?? 0) + Elements.badgePadding) * s)
        let badgeHeight = (s * Elements.badgeHeight).rounded()
        for (index, cell) in cells.enumerated() {
            let column = index % plan.columns
            let row = index / plan.columns
            let cellRect = Rect(
                x: rect.x + Double(column) * (cellWidth + gap), y: rect.y + Double(row) * (cellHeight + gap),
                width: cellWidth, height: cellHeight)
            if plan.stacked {
                let content = (s * Elements.line + s * 0.1 + badgeHeight)
                let top = cellRect.midY - content / 2
                let labelRect = Rect(x: cellRect.x, y: top, width: cellWidth, height: s * Elements.line)
                if let label = truncated(cell.label, plan.labelFace, size: s, width: cellWidth) {
                    canvas.text(label, in: labelRect, plan.labelFace, size: s, inks.ink, align: .center)
                }
                let badgeRect = Rect(
                    x: cellRect.midX - badgeWidth / 2, y: top + s * Elements.line + s * 0.1, width: badgeWidth,
                    height: badgeHeight)
                badge(cell.level, color: RGB(hex: cell.color), in: badgeRect, face: plan.wordFace, size: s)
            } else {
                let labelRect = Rect(x: cellRect.x, y: cellRect.y, width: cellWidth - badgeWidth, height: cellHeight)
                if let label = truncated(cell.label, plan.labelFace, size: s, width: cellWidth - badgeWidth - s * 0.5) {
                    canvas.text(label, in: labelRect, plan.labelFace, size: s, inks.ink)
                }
                let badgeRect = Rect(
                    x: cellRect.maxX - badgeWidth, y: cellRect.midY - badgeHeight / 2, width: badgeWidth,
                    height: badgeHeight)
                badge(cell.level, color: RGB(hex: cell.color), in: badgeRect, face: plan.wordFace, size: s)
            }
        }
    }

    // MARK: climate

    /// The change text big in its color, its caption ("Change since 1980") above or beside it.
    func changeBlock(_ climate: ClimatePanel, width: Double, maxSize: Double, priority: Int, weight: Double) -> Block? {
        guard fit(climate.changeText, bold: true, width: width, maxSize: Elements.minimum) != nil else { return nil }
        return Block(minHeight: (Elements.minimum * 1.2).rounded(.up), weight: weight, priority: priority) { rect in
            drawChange(climate, in: rect, maxSize: maxSize, largest: maxSize, align: .leading)
        }
    }

    func changeCaption(_ climate: ClimatePanel, short: Bool) -> String {
        guard let first = climate.bars.first?.label else { return words.change }
        return Catalogue.fill(short ? words.since : words.changeSince, ["year": first])
    }

    /// A caption's size over a big word in `rect`, the same for today's level and the change.
    static func captionSize(in rect: Rect, largest: Double) -> Double {
        max(Elements.minimum, min(largest * 0.22, (rect.height * 0.22).rounded(.down)))
    }

    func drawChange(_ climate: ClimatePanel, in rect: Rect, maxSize: Double, largest: Double, align: Canvas.Alignment) {
        let color = inks.coloredText(RGB(hex: climate.changeColor))
        var textRect = rect
        if rect.height >= Elements.minimum * (Elements.line + Elements.badgeHeight) + 4 {
            let captionSize = Elements.captionSize(in: rect, largest: largest)
            let (captionRect, rest) = rect.splitTop((captionSize * Elements.line).rounded(.up))
            let long = changeCaption(climate, short: false)
            if !caption(long, in: captionRect, maxSize: captionSize, align: align) {
                caption(changeCaption(climate, short: true), in: captionRect, maxSize: captionSize, align: align)
            }
            textRect = rest
        }
        guard
            let (face, size) = fit(
                climate.changeText, bold: true, width: textRect.width, maxSize: min(maxSize, textRect.height / 1.2))
        else { return }
        canvas.text(climate.changeText, in: textRect, face, size: size, color, align: align)
    }

    /// The seed's bar chart: one bar per point, its value above and its year below when they
    /// fit at 12 px (year labels thinned to every n-th when the bars are narrow).
    func drawBars(_ climate: ClimatePanel, in rect: Rect, maxSize: Double) {
        let bars = climate.bars
        guard !bars.isEmpty else {
            placeholder(in: rect, title: nil)
            return
        }
        let slot = rect.width / Double(bars.count)
        let gap = max(1, (slot * 0.2).rounded())
        let textSize = min(maxSize, max(Elements.minimum, (rect.height * 0.09).rounded(.down)))
        let lineHeight = (textSize * Elements.line).rounded(.up)
        // Year labels: every n-th, so each has its width plus a space.
        let yearFace = Face.regular
        let widestYear = bars.map { canvas.unitWidth($0.label, yearFace) }.max() ?? 0
        let yearStep = max(1, Int(((widestYear * textSize + textSize * 0.5) / slot).rounded(.up)))
        let showYears = rect.height >= lineHeight * 2 + 8 && yearStep <= max(1, bars.count / 2)
        let valueFace = Face(condensed: true, bold: false)
        let widestValue = bars.map { canvas.unitWidth($0.value, valueFace) }.max() ?? 0
        let showValues = widestValue * textSize <= slot - 2 && rect.height >= lineHeight * 3 + 8
        var chart = rect
        if showYears { chart.height -= lineHeight }
        if showValues {
            chart.y += lineHeight
            chart.height -= lineHeight
        }
        // The lowest bar keeps a sliver (the seed: 30 of 130 points), so every point is visible.
        let floor = 0.15
        for (index, bar) in bars.enumerated() {
            let x = rect.x + Double(index) * slot
            let fraction = floor + (1 - floor) * Double(bar.heightThousandths) / 1000
            let height = max(2, (chart.height * fraction).rounded())
            let barRect = Rect(x: x + gap / 2, y: chart.maxY - height, width: slot - gap, height: height).snapped
            let style = inks.bar(RGB(hex: bar.color))
            switch style.fill {
            case .solid(let color): canvas.fillRounded(barRect, radius: min(4, barRect.width / 4), color)
            case .dithered(let ink, let density): canvas.fillDithered(barRect, ink: ink, density: density)
            }
            if style.outlined { canvas.frame(barRect, thickness: 1, inks.ink) }
            if showValues {
                let valueRect = Rect(x: x, y: barRect.y - lineHeight, width: slot, height: lineHeight)
                canvas.text(bar.value, in: valueRect, valueFace, size: textSize, inks.secondary, align: .center)
            }
            if showYears, index % yearStep == 0 || (index == bars.count - 1 && index % yearStep >= yearStep / 2 + 1) {
                let yearRect = Rect(x: x - slot, y: chart.maxY, width: slot * 3, height: lineHeight)
                canvas.text(bar.label, in: yearRect, yearFace, size: textSize, inks.secondary, align: .center)
            }
        }
        // The baseline under the bars.
        canvas.fill(Rect(x: rect.x, y: chart.maxY, width: rect.width, height: 1), inks.rule)
    }

    // MARK: stripes

    /// One stripe per year across `rect`, each pixel column taking the year under its centre
    /// (so 80 years fit 64 px and 46 years fill 1600 px), edges on whole pixels.
    func drawStripes(_ colors: [String], in rect: Rect) {
        let r = rect.snapped
        guard !colors.isEmpty, r.width >= 1, r.height >= 1 else { return }
        let columns = Int(r.width)
        var start = 0
        while start < columns {
            let year = min(colors.count - 1, (2 * start + 1) * colors.count / (2 * columns))
            var end = start + 1
            while end < columns, min(colors.count - 1, (2 * end + 1) * colors.count / (2 * columns)) == year {
                end += 1
            }
            let stripe = Rect(x: r.x + Double(start), y: r.y, width: Double(end - start), height: r.height)
            switch inks.stripe(RGB(hex: colors[year])) {
            case .solid(let color): canvas.fill(stripe, color)
            case .dithered(let ink, let density): canvas.fillDithered(stripe, ink: ink, density: density)
            }
            start = end
        }
    }

    /// The stripes with their first and last year under them when there is room for 12 px text.
    func drawStripesWithYears(_ stripes: StripesPanel, in rect: Rect, maxSize: Double, middle: String? = nil) {
        let first = String(stripes.firstYear)
        let last = String(stripes.lastYear)
        let size = min(maxSize, max(Elements.minimum, (rect.height * 0.22).rounded(.down)))
        let band = (size * Elements.line).rounded(.up)
        let yearsWidth = canvas.textWidth(first + "  " + last, .regular, size: size)
        guard stripes.colors.isEmpty == false else {
            placeholder(in: rect, title: nil)
            return
        }
        guard rect.height >= band + 8, yearsWidth <= rect.width - 2 else {
            drawStripes(stripes.colors, in: rect)
            return
        }
        let (top, bottom) = rect.splitTop(rect.height - band)
        drawStripes(stripes.colors, in: top)
        canvas.text(first, in: bottom, .regular, size: size, inks.secondary)
        canvas.text(last, in: bottom, .regular, size: size, inks.secondary, align: .trailing)
        if let middle {
            let room = rect.width - yearsWidth - size * 2
            if room > 0, let name = truncated(middle, .bold, size: size, width: room) {
                canvas.text(name, in: bottom, .bold, size: size, inks.ink, align: .center)
            }
        }
    }

    // MARK: no data

    /// "No data yet" in a thin frame, with what is missing above it when there is room.
    func placeholder(in rect: Rect, title: String?) {
        let r = rect.snapped
        guard r.width >= 4, r.height >= 4 else { return }
        canvas.frame(r, thickness: 1, inks.rule)
        let inner = r.inset(3)
        var messageRect = inner
        if let title, inner.height >= Elements.minimum * Elements.line * 2.5 {
            let (top, rest) = inner.splitTop(inner.height / 2)
            let titleSize = min(24, top.height / Elements.line)
            if let (face, size) = fit(title, bold: true, width: top.width, maxSize: titleSize) {
                canvas.text(title, in: top.splitTop(top.height).0, face, size: size, inks.ink, align: .center)
                messageRect = rest
            }
        }
        let maxSize = min(28, messageRect.height / Elements.line)
        let message = words.noData
        let (face, size) =
            fit(message, bold: false, width: messageRect.width, maxSize: maxSize)
            ?? (Face(condensed: true, bold: false), Elements.minimum)
        canvas.text(message, in: messageRect, face, size: size, inks.secondary, align: .center)
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var s = self
        while s.last == " " { s.removeLast() }
        return s
    }
}
