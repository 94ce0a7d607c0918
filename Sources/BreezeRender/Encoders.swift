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
import CJPEG

/// The bytes Cairo's PNG writer streams out, collected through its `closure` pointer.
private final class ByteSink {
    var bytes: [UInt8] = []
}

enum PNGEncoder {
    /// Cairo's own PNG writer (8-bit RGB for an RGB24 surface).
    static func encode(_ canvas: Canvas) throws(RenderFailure) -> [UInt8] {
        cairo_surface_flush(canvas.surface)
        let sink = ByteSink()
        let box = Unmanaged.passRetained(sink)
        defer { box.release() }
        let status = cairo_surface_write_to_png_stream(
            canvas.surface,
            { closure, data, length in
                guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
                let sink = Unmanaged<ByteSink>.fromOpaque(closure).takeUnretainedValue()
                sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
                return CAIRO_STATUS_SUCCESS
            }, box.toOpaque())
        guard status == CAIRO_STATUS_SUCCESS else { throw .internalError("png: \(Canvas.describe(status))") }
        return sink.bytes
    }
}

enum JPEGEncoder {
    /// libjpeg-turbo: baseline, quality `ImageBounds.jpegQuality`, RGB, no chroma subsampling.
    static func encode(_ canvas: Canvas, quality: Int = ImageBounds.jpegQuality) throws(RenderFailure) -> [UInt8] {
        let rgb = canvas.rgbBytes()
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = rgb.withUnsafeBufferPointer { pixels in
            message.withUnsafeMutableBufferPointer { text in
                cjpeg_encode_rgb(
                    pixels.baseAddress!, UInt32(canvas.width), UInt32(canvas.height), Int32(quality), &output, &size,
                    text.baseAddress!, text.count)
            }
        }
        defer { free(output) }
        guard status == 0, let output else {
            let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw .internalError("jpeg: \(text.isEmpty ? "encoding failed" : text)")
        }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }
}
