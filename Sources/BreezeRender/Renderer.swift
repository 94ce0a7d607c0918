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

/// Draws a checked `RenderRequest` and encodes it: the whole job of `breeze-agent-render`.
public enum Renderer {
    /// The image file's bytes (PNG or JPEG as the request says).
    public static func render(_ request: RenderRequest) throws(RenderFailure) -> [UInt8] {
        try RenderRequestReader.validate(request)
        let inks = Inks(palette: request.palette, format: request.format)
        let canvas = try Canvas(width: request.width, height: request.height, crisp: inks.isEInk)
        canvas.fill(Rect(x: 0, y: 0, width: Double(request.width), height: Double(request.height)), inks.paper)
        Layouts(
            request: request, elements: Elements(canvas: canvas, inks: inks, words: request.content.words ?? .english)
        ).draw()
        try canvas.check()
        // Antialiasing is off for e-ink, and every fill is an ink: this only guarantees it.
        if let exact = inks.exact { canvas.quantize(to: exact) }
        switch request.format {
        case .png: return try PNGEncoder.encode(canvas)
        case .jpeg: return try JPEGEncoder.encode(canvas)
        }
    }

    /// The helper's protocol: request bytes in, image bytes out, or the failure to report.
    public static func run(input: [UInt8]) throws(RenderFailure) -> [UInt8] {
        try render(RenderRequestReader.read(input))
    }
}
