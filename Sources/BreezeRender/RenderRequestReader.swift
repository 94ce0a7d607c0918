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

public import BreezeCore
import FoundationEssentials

/// Turns the bytes the agent wrote on stdin into a checked `RenderRequest`: every bound of
/// docs/operations.md ("Render helper") is enforced here, each failure names the field.
public enum RenderRequestReader {
    /// The largest request read from stdin (a real one is a few KiB: 100 stripes, 16 bars).
    public static let maximumRequestBytes = 1024 * 1024
    /// The longest text field (a location name, a label, a level word, a change text), in UTF-8 bytes.
    /// The agent checks names and clips labels against the same constant.
    public static let maximumTextBytes = ImageBounds.maximumTextBytes
    /// At most this many pollen types, and forecast days, in a pollen panel.
    public static let maximumCells = 16
    /// At most this many climate bars.
    public static let maximumBars = 256
    /// At most this many stripes (years).
    public static let maximumStripes = 1024

    /// Decodes and checks a request.
    public static func read(_ bytes: [UInt8]) throws(RenderFailure) -> RenderRequest {
        guard bytes.count <= maximumRequestBytes else {
            throw .badRequest("stdin: the request is over \(maximumRequestBytes) bytes")
        }
        guard bytes.contains(where: { !isJSONWhitespace($0) }) else {
            throw .badRequest("stdin: empty, expected one JSON render request")
        }
        let request: RenderRequest
        do {
            request = try JSONDecoder().decode(RenderRequest.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw .badRequest(describe(error))
        } catch {
            throw .badRequest("request: not a JSON render request (\(error))")
        }
        try validate(request)
        return request
    }

    /// Checks the bounds a decoded request must keep.
    public static func validate(_ request: RenderRequest) throws(RenderFailure) {
        guard ImageBounds.width.contains(request.width) else {
            throw .badRequest(
                "width: \(request.width) is outside \(ImageBounds.width.lowerBound)…\(ImageBounds.width.upperBound)")
        }
        guard ImageBounds.height.contains(request.height) else {
            throw .badRequest(
                "height: \(request.height) is outside \(ImageBounds.height.lowerBound)…\(ImageBounds.height.upperBound)"
            )
        }
        let content = request.content
        try checkText(content.locationName, "content.locationName")
        for (index, word) in (content.words?.all ?? []).enumerated() { try checkText(word, "content.words[\(index)]") }
        if let pollen = content.pollen {
            try checkCell(pollen.today, "content.pollen.today")
            guard pollen.types.count <= maximumCells else {
                throw .badRequest("content.pollen.types: \(pollen.types.count) cells, at most \(maximumCells)")
            }
            guard pollen.days.count <= maximumCells else {
                throw .badRequest("content.pollen.days: \(pollen.days.count) cells, at most \(maximumCells)")
            }
            for (index, cell) in pollen.types.enumerated() { try checkCell(cell, "content.pollen.types[\(index)]") }
            for (index, cell) in pollen.days.enumerated() { try checkCell(cell, "content.pollen.days[\(index)]") }
        }
        if let climate = content.climate {
            try checkText(climate.changeText, "content.climate.changeText")
            try checkColor(climate.changeColor, "content.climate.changeColor")
            guard climate.bars.count <= maximumBars else {
                throw .badRequest("content.climate.bars: \(climate.bars.count) bars, at most \(maximumBars)")
            }
            for (index, bar) in climate.bars.enumerated() {
                let path = "content.climate.bars[\(index)]"
                try checkText(bar.label, path + ".label")
                try checkText(bar.value, path + ".value")
                try checkColor(bar.color, path + ".color")
                guard (0...1000).contains(bar.heightThousandths) else {
                    throw .badRequest("\(path).heightThousandths: \(bar.heightThousandths) is outside 0…1000")
                }
            }
        }
        if let stripes = content.stripes {
            guard stripes.colors.count <= maximumStripes else {
                throw .badRequest("content.stripes.colors: \(stripes.colors.count) stripes, at most \(maximumStripes)")
            }
            guard (1...9999).contains(stripes.firstYear), (1...9999).contains(stripes.lastYear),
                stripes.firstYear <= stripes.lastYear
            else {
                throw .badRequest(
                    "content.stripes: firstYear \(stripes.firstYear) and lastYear \(stripes.lastYear) "
                        + "are not years in order (1…9999)")
            }
            for (index, color) in stripes.colors.enumerated() {
                try checkColor(color, "content.stripes.colors[\(index)]")
            }
        }
    }

    private static func checkCell(_ cell: LevelCell, _ path: String) throws(RenderFailure) {
        try checkText(cell.label, path + ".label")
        try checkText(cell.level, path + ".level")
        guard !cell.level.allSatisfy(\.isWhitespace) else {
            throw .badRequest("\(path).level: empty (a level is always printed as its word)")
        }
        try checkColor(cell.color, path + ".color")
    }

    private static func checkText(_ text: String, _ path: String) throws(RenderFailure) {
        guard text.utf8.count <= maximumTextBytes else {
            throw .badRequest("\(path): \(text.utf8.count) bytes, at most \(maximumTextBytes)")
        }
        guard !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else {
            throw .badRequest("\(path): contains a control character")
        }
    }

    private static func checkColor(_ color: String, _ path: String) throws(RenderFailure) {
        guard HexColor(hex: color) != nil else {
            throw .badRequest("\(path): \(quotedForLog(color)) is not a #rrggbb color")
        }
    }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0a || byte == 0x0d || byte == 0x09
    }

    /// `content.pollen.today: missing key "color"`: the decoder's path, then what is wrong.
    private static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            var text = ""
            for key in keys {
                if let index = key.intValue {
                    text += "[\(index)]"
                } else {
                    text += (text.isEmpty ? "" : ".") + key.stringValue
                }
            }
            return text.isEmpty ? "request" : text
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath)): missing key \"\(key.stringValue)\""
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)): expected \(type)"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)): expected \(type), found null"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "request: not valid JSON (\(context.debugDescription))" }
            return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "request: \(error)"
        }
    }
}
