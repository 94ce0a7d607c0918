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

/// An sRGB color as published on `…/color` topics (`#rrggbb`) and as `color_rgb` (`[r, g, b]`).
public struct HexColor: Sendable, Hashable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// Parses `#rrggbb` (case-insensitive); nil for anything else.
    public init?(hex: String) {
        let digits = Array(hex.utf8)
        let isHexDigit = { (c: UInt8) in (48...57).contains(c) || (65...70).contains(c) || (97...102).contains(c) }
        guard digits.count == 7, digits[0] == UInt8(ascii: "#"), digits.dropFirst().allSatisfy(isHexDigit),
            let value = UInt32(String(decoding: digits[1...], as: UTF8.self), radix: 16)
        else { return nil }
        self.init(red: UInt8(value >> 16 & 0xff), green: UInt8(value >> 8 & 0xff), blue: UInt8(value & 0xff))
    }

    /// `#rrggbb`, lower case.
    public var description: String {
        let hex = "0123456789abcdef".map { $0 }
        var s = "#"
        for c in [red, green, blue] {
            s.append(hex[Int(c >> 4)])
            s.append(hex[Int(c & 0xf)])
        }
        return s
    }

    /// `[r, g, b]` for JSON payloads.
    public var json: JSONValue { .array([.integer(Int(red)), .integer(Int(green)), .integer(Int(blue))]) }
}
