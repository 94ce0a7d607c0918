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

// The contract between the agent and its render helper (docs/images.md, docs/images.md): the agent
// turns a location's state into a `RenderRequest` (plain words, numbers and colors, everything
// already decided by the core), writes it as JSON to `breeze-agent-render`'s stdin and reads
// the image bytes from its stdout. The helper draws; it decides nothing about pollen or climate.

/// What an image shows (docs/images.md `kind`).
public enum ImageKind: String, Sendable, Codable, CaseIterable {
    case pollen, climate, stripes, summary

    /// Kinds that draw climate data (a config error with climate off, docs/images.md).
    public var needsClimate: Bool { self != .pollen }
}

/// The colors an image may contain (docs/images.md `palette`).
public enum ImagePalette: String, Sendable, Codable, CaseIterable {
    /// The documented colors, anti-aliased.
    case color
    /// E-ink: black and white only.
    case bw
    /// E-ink: black, white and red only.
    case bwr
    /// E-ink: black, white and yellow only.
    case bwy

    /// The exact colors an e-ink palette allows (every pixel is one of them); `nil` for `color`.
    public var inks: [HexColor]? {
        let black = HexColor(red: 0, green: 0, blue: 0)
        let white = HexColor(red: 255, green: 255, blue: 255)
        switch self {
        case .color: return nil
        case .bw: return [black, white]
        case .bwr: return [black, white, HexColor(red: 255, green: 0, blue: 0)]
        case .bwy: return [black, white, HexColor(red: 255, green: 255, blue: 0)]
        }
    }
}

/// The file format of an image (docs/images.md `format`).
public enum ImageFormat: String, Sendable, Codable, CaseIterable {
    case png, jpeg

    /// The extension of its HTTP path (`/images/<loc>/<id>.png|.jpg`).
    public var fileExtension: String { self == .png ? "png" : "jpg" }
    /// Its MIME type (HTTP `Content-Type`, Home Assistant `content_type`).
    public var contentType: String { self == .png ? "image/png" : "image/jpeg" }
}

/// The bounds of an image (docs/images.md).
public enum ImageBounds {
    public static let width = 64...1600
    public static let height = 64...1200
    /// The largest image published on MQTT (bytes); a bigger one is not published (logged).
    public static let maximumBytes = 256 * 1024
    /// JPEG quality the helper writes (docs/images.md: ≥ 90 for OpenEPaperLink).
    public static let jpegQuality = 92
    /// The longest text the helper draws (a location name, a label, a level word), in UTF-8
    /// bytes. The helper refuses a request with a longer one; the configuration refuses longer
    /// names (docs/operations.md, Limits "Names") and ``clippedText(_:)`` shortens labels an API supplies.
    public static let maximumTextBytes = 256

    /// A label the agent did not choose (a Google `displayName`) made fit for the helper:
    /// control characters become spaces, and past ``maximumTextBytes`` it is cut on a character
    /// boundary and ends with `…`, the whole at most ``maximumTextBytes`` bytes.
    public static func clippedText(_ text: String) -> String {
        var clean = text
        if clean.unicodeScalars.contains(where: isControl) {
            clean = String(String.UnicodeScalarView(clean.unicodeScalars.map { isControl($0) ? " " : $0 }))
        }
        guard clean.utf8.count > maximumTextBytes else { return clean }
        let ellipsis = "\u{2026}"
        let budget = maximumTextBytes - ellipsis.utf8.count
        var kept = ""
        var bytes = 0
        for character in clean {
            let size = character.utf8.count
            guard bytes + size <= budget else { break }
            kept.append(character)
            bytes += size
        }
        return kept + ellipsis
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool { scalar.value < 0x20 || scalar.value == 0x7f }
}

/// One request to the render helper: the picture's frame and its content.
public struct RenderRequest: Sendable, Codable, Equatable {
    public var kind: ImageKind
    public var width: Int
    public var height: Int
    public var palette: ImagePalette
    public var format: ImageFormat
    public var content: ImageContent

    public init(
        kind: ImageKind, width: Int, height: Int, palette: ImagePalette, format: ImageFormat,
        content: ImageContent
    ) {
        self.kind = kind
        self.width = width
        self.height = height
        self.palette = palette
        self.format = format
        self.content = content
    }
}

/// What a picture shows, decided by the core: words to print and `#rrggbb` colors to fill.
/// A `nil` panel is data not known yet: the helper draws a "no data" placeholder in its place.
public struct ImageContent: Sendable, Codable, Equatable {
    /// The location's display name (from the config).
    public var locationName: String
    public var pollen: PollenPanel?
    public var climate: ClimatePanel?
    public var stripes: StripesPanel?
    /// The helper's own words in the image's language; nil: English (the helper's built-in
    /// words, and the request an English agent has always sent).
    public var words: ImageWords?

    public init(
        locationName: String, pollen: PollenPanel? = nil, climate: ClimatePanel? = nil,
        stripes: StripesPanel? = nil, words: ImageWords? = nil
    ) {
        self.locationName = locationName
        self.pollen = pollen
        self.climate = climate
        self.stripes = stripes
        self.words = words
    }
}

/// The fixed words the helper draws around the data (titles, captions, placeholders), decided
/// by the core in the image's language (issue 51). `{year}` in ``changeSince`` and ``since``
/// is the first year of the chart.
public struct ImageWords: Sendable, Codable, Equatable {
    public var pollen: String
    public var pollenToday: String
    public var climate: String
    public var climateTrend: String
    public var warmingStripes: String
    public var noData: String
    public var change: String
    public var changeSince: String
    public var since: String

    public init(
        pollen: String, pollenToday: String, climate: String, climateTrend: String, warmingStripes: String,
        noData: String, change: String, changeSince: String, since: String
    ) {
        self.pollen = pollen
        self.pollenToday = pollenToday
        self.climate = climate
        self.climateTrend = climateTrend
        self.warmingStripes = warmingStripes
        self.noData = noData
        self.change = change
        self.changeSince = changeSince
        self.since = since
    }

    /// The words of a language's catalogue.
    public init(_ language: Language) {
        self.init(
            pollen: language.text(.pollen), pollenToday: language.text(.imagePollenToday),
            climate: language.text(.imageClimate), climateTrend: language.text(.imageClimateTrend),
            warmingStripes: language.text(.pageSectionStripes), noData: language.text(.imageNoData),
            change: language.text(.imageChange), changeSince: language.text(.pageChangeSince),
            since: language.text(.imageSince))
    }

    /// The helper's built-in words (English).
    public static let english = ImageWords(.english)

    /// Every word, for the fonts test and the size check.
    public var all: [String] {
        [pollen, pollenToday, climate, climateTrend, warmingStripes, noData, change, changeSince, since]
    }
}

/// A level printed as its word in its color (docs/reference.md, Pollen levels and colors: "Very High", `#ff0000`).
public struct LevelCell: Sendable, Codable, Equatable {
    /// What the level is of: "Today", a type name ("Grass"), a plant name, a day ("Tue").
    public var label: String
    /// The level word (docs/reference.md, Pollen levels and colors), never shown by color alone.
    public var level: String
    public var color: String

    public init(label: String, level: String, color: String) {
        self.label = label
        self.level = level
        self.color = color
    }
}

/// Today's pollen: the maximum, the three types, the forecast days.
public struct PollenPanel: Sendable, Codable, Equatable {
    public var today: LevelCell
    public var types: [LevelCell]
    public var days: [LevelCell]

    public init(today: LevelCell, types: [LevelCell], days: [LevelCell]) {
        self.today = today
        self.types = types
        self.days = days
    }
}

/// The climate trend (docs/reference.md, Climate arithmetic): the change text and one bar per point.
public struct ClimatePanel: Sendable, Codable, Equatable {
    /// The change text as published (`climate/change_text`).
    public var changeText: String
    /// The change's color (`climate/change_color`).
    public var changeColor: String
    public var bars: [ClimateBar]

    public init(changeText: String, changeColor: String, bars: [ClimateBar]) {
        self.changeText = changeText
        self.changeColor = changeColor
        self.bars = bars
    }
}

/// One bar of the climate chart.
public struct ClimateBar: Sendable, Codable, Equatable {
    /// The year printed under the bar.
    public var label: String
    /// The temperature printed on it, in the configured unit ("14.2°C").
    public var value: String
    /// Its height, 0…1000 thousandths of the chart (docs/reference.md, Climate arithmetic `bar`).
    public var heightThousandths: Int
    public var color: String

    public init(label: String, value: String, heightThousandths: Int, color: String) {
        self.label = label
        self.value = value
        self.heightThousandths = heightThousandths
        self.color = color
    }
}

/// The warming stripes (docs/reference.md, Warming stripes): one color per year, oldest first.
public struct StripesPanel: Sendable, Codable, Equatable {
    public var firstYear: Int
    public var lastYear: Int
    public var colors: [String]

    public init(firstYear: Int, lastYear: Int, colors: [String]) {
        self.firstYear = firstYear
        self.lastYear = lastYear
        self.colors = colors
    }
}
