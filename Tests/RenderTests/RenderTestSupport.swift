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
import BreezeTestSupport
import CCairo
import CJPEG
import Foundation
import Testing

/// Demo-like content: High pollen, the three types, five days, ten climate bars, 46 stripes.
enum DemoContent {
    static let levelColors = [
        "None": "#34c759", "Low": "#34c759", "Moderate": "#ff9500", "High": "#ff3b30", "Very High": "#8e0000",
        "Unknown": "#8e8e93",
    ]
    static let ramp = ["#2166ac", "#4393c3", "#92c5de", "#d1e5f0", "#fddbc7", "#f4a582", "#d6604d", "#b2182b"]

    static func cell(_ label: String, _ level: String) -> LevelCell {
        LevelCell(label: label, level: level, color: levelColors[level]!)
    }

    static var pollen: PollenPanel {
        PollenPanel(
            today: cell("Today", "High"),
            types: [cell("Grass", "High"), cell("Tree", "Moderate"), cell("Weed", "Low")],
            days: [
                cell("Tue", "High"), cell("Wed", "Very High"), cell("Thu", "Moderate"), cell("Fri", "Low"),
                cell("Sat", "Unknown"),
            ])
    }

    static var climate: ClimatePanel {
        // Celsius tenths per year; colors by deviation from the first (SPEC §2), °F text.
        let points: [(Int, Int)] = [
            (1980, 121), (1985, 114), (1990, 129), (1995, 130), (2000, 122), (2005, 138), (2010, 146), (2015, 133),
            (2020, 151), (2026, 160),
        ]
        let low = points.map(\.1).min()!
        let high = points.map(\.1).max()!
        let base = points[0].1
        func color(_ d: Int) -> String { d > 20 ? "#ff3b30" : d > 5 ? "#ff9500" : d < -5 ? "#007aff" : "#8e8e93" }
        func fahrenheit(_ tenths: Int) -> String {
            let f = (tenths * 9 + 1600)  // tenths of °F × 5
            let whole = (f + 2) / 5
            return "\(whole / 10).\(whole % 10)°F"
        }
        let bars = points.map { year, tenths in
            ClimateBar(
                label: String(year), value: fahrenheit(tenths),
                heightThousandths: (tenths - low) * 1000 / (high - low), color: color(tenths - base))
        }
        return ClimatePanel(changeText: "+7.0°F", changeColor: "#ff3b30", bars: bars)
    }

    static var stripes: StripesPanel {
        // A warming series with year-to-year noise across the whole ramp.
        var generator = SplitMix64(seed: 4)
        let colors = (0..<46).map { i -> String in
            let noise = Int(generator.next() % 5) - 2
            let bin = min(7, max(0, i * 8 / 46 + noise))
            return ramp[bin]
        }
        return StripesPanel(firstYear: 1980, lastYear: 2025, colors: colors)
    }

    static var content: ImageContent {
        ImageContent(locationName: "Berlin (demo)", pollen: pollen, climate: climate, stripes: stripes)
    }

    static func request(
        _ kind: ImageKind, _ width: Int, _ height: Int, _ palette: ImagePalette, _ format: ImageFormat
    ) -> RenderRequest {
        RenderRequest(kind: kind, width: width, height: height, palette: palette, format: format, content: content)
    }
}

/// A decoded image: its size and its pixels as 0xRRGGBB.
struct DecodedImage {
    var width: Int
    var height: Int
    var pixels: [UInt32]

    var colors: Set<UInt32> { Set(pixels) }
}

func rgbValue(_ hex: String) -> UInt32 {
    let color = HexColor(hex: hex)!
    return UInt32(color.red) << 16 | UInt32(color.green) << 8 | UInt32(color.blue)
}

private final class ByteSource {
    let bytes: [UInt8]
    var offset = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
}

struct DecodeFailure: Error, CustomStringConvertible {
    var description: String
}

/// Reads a PNG back through Cairo's own PNG reader.
func decodePNG(_ bytes: [UInt8]) throws -> DecodedImage {
    let source = ByteSource(bytes)
    let box = Unmanaged.passRetained(source)
    defer { box.release() }
    guard
        let surface = cairo_image_surface_create_from_png_stream(
            { closure, data, length in
                guard let closure, let data else { return CAIRO_STATUS_READ_ERROR }
                let source = Unmanaged<ByteSource>.fromOpaque(closure).takeUnretainedValue()
                let count = Int(length)
                guard source.offset + count <= source.bytes.count else { return CAIRO_STATUS_READ_ERROR }
                source.bytes.withUnsafeBufferPointer { buffer in
                    data.update(from: buffer.baseAddress! + source.offset, count: count)
                }
                source.offset += count
                return CAIRO_STATUS_SUCCESS
            }, box.toOpaque())
    else { throw DecodeFailure(description: "cairo: no surface") }
    defer { cairo_surface_destroy(surface) }
    let status = cairo_surface_status(surface)
    guard status == CAIRO_STATUS_SUCCESS else {
        throw DecodeFailure(description: "png: " + String(cString: cairo_status_to_string(status)))
    }
    let width = Int(cairo_image_surface_get_width(surface))
    let height = Int(cairo_image_surface_get_height(surface))
    let stride = Int(cairo_image_surface_get_stride(surface))
    let format = cairo_image_surface_get_format(surface)
    guard format == CAIRO_FORMAT_RGB24 else { throw DecodeFailure(description: "png: not opaque RGB (\(format))") }
    cairo_surface_flush(surface)
    let data = cairo_image_surface_get_data(surface)!
    var pixels = [UInt32](repeating: 0, count: width * height)
    for y in 0..<height {
        let row = UnsafeRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
        for x in 0..<width { pixels[y * width + x] = row[x] & 0xff_ffff }
    }
    return DecodedImage(width: width, height: height, pixels: pixels)
}

/// A decoded JPEG: its pixels, and whether libjpeg saw it as progressive.
struct DecodedJPEG {
    var image: DecodedImage
    var components: Int
    var progressive: Bool
}

/// Reads a JPEG back through libjpeg-turbo.
func decodeJPEG(_ bytes: [UInt8]) throws -> DecodedJPEG {
    var info = cjpeg_info()
    var rgb: UnsafeMutablePointer<UInt8>?
    var message = [CChar](repeating: 0, count: 256)
    let status = bytes.withUnsafeBufferPointer { buffer in
        message.withUnsafeMutableBufferPointer { text in
            cjpeg_decode_rgb(buffer.baseAddress!, UInt(buffer.count), &info, &rgb, text.baseAddress!, text.count)
        }
    }
    defer { free(rgb) }
    guard status == 0, let rgb else {
        let text = message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        throw DecodeFailure(description: "jpeg: " + String(decoding: text, as: UTF8.self))
    }
    let width = Int(info.width)
    let height = Int(info.height)
    var pixels = [UInt32](repeating: 0, count: width * height)
    for i in 0..<(width * height) {
        pixels[i] = UInt32(rgb[3 * i]) << 16 | UInt32(rgb[3 * i + 1]) << 8 | UInt32(rgb[3 * i + 2])
    }
    return DecodedJPEG(
        image: DecodedImage(width: width, height: height, pixels: pixels), components: Int(info.components),
        progressive: info.progressive != 0)
}

/// The JPEG's frame markers (SOFn, 0xC0…0xCF less DHT/JPG/DAC), walking the segments from SOI
/// to the first SOS.
func jpegFrameMarkers(_ bytes: [UInt8]) -> [UInt8] {
    guard bytes.count > 4, bytes[0] == 0xff, bytes[1] == 0xd8 else { return [] }
    var markers: [UInt8] = []
    var i = 2
    while i + 4 <= bytes.count {
        guard bytes[i] == 0xff else { break }
        let marker = bytes[i + 1]
        if marker == 0xda { break }  // start of scan: the headers are over
        let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
        if (0xc0...0xcf).contains(marker), ![0xc4, 0xc8, 0xcc].contains(marker) { markers.append(marker) }
        i += 2 + length
    }
    return markers
}

/// The helper binary `swift build` puts in `<repo>/.build/debug`.
func renderBinary() throws -> String {
    var root = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { root.deleteLastPathComponent() }
    let candidates = [
        root.appendingPathComponent(".build/debug/breeze-agent-render").path,
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("breeze-agent-render").path,
    ]
    let found = candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    return try #require(found, "breeze-agent-render not built (run `swift build`); looked in \(candidates)")
}

/// What the helper did with one stdin.
struct HelperRun {
    var status: Int32
    var stdout: [UInt8]
    var stderr: String
}

/// Runs the built helper with `input` on stdin (from a file, so an early exit cannot SIGPIPE us).
func runHelper(_ input: [UInt8]) throws -> HelperRun {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "breeze-render-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let inPath = directory.appendingPathComponent("stdin")
    let outPath = directory.appendingPathComponent("stdout")
    let errPath = directory.appendingPathComponent("stderr")
    try Data(input).write(to: inPath)
    _ = FileManager.default.createFile(atPath: outPath.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errPath.path, contents: nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try renderBinary())
    process.standardInput = try FileHandle(forReadingFrom: inPath)
    process.standardOutput = try FileHandle(forWritingTo: outPath)
    process.standardError = try FileHandle(forWritingTo: errPath)
    try process.run()
    try #require(process.waitForTermination(timeout: .seconds(60)), "the helper did not exit within 60 s")
    return HelperRun(
        status: process.terminationStatus, stdout: [UInt8](try Data(contentsOf: outPath)),
        stderr: String(decoding: try Data(contentsOf: errPath), as: UTF8.self))
}

func encodedJSON(_ request: RenderRequest) throws -> [UInt8] {
    [UInt8](try JSONEncoder().encode(request))
}
