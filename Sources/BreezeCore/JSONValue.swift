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

/// A JSON document built by the core and serialized byte-for-byte deterministically.
///
/// The core writes its own JSON instead of using `JSONEncoder` so that key order follows the
/// docs (consumers and humans read these payloads), and numbers are written exactly as the
/// docs fix them (`celsius` with one decimal, `bar` with three) without binary-float noise.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case string(String)
    /// A number already written as a JSON literal (see ``JSONValue/integer(_:)`` and
    /// ``JSONValue/fixed(_:scale:)``), so the writer never formats a binary float.
    case number(String)
    case array([JSONValue])
    case object([JSONMember])

    /// An integer number.
    public static func integer(_ value: Int) -> JSONValue { .number(String(value)) }

    /// A fixed-point number: `units` of `10^-scale`, e.g. `fixed(123, scale: 1)` is `12.3`.
    public static func fixed(_ units: Int, scale: Int) -> JSONValue {
        .number(FixedPoint.format(units, scale: scale))
    }

    /// `.string(s)` when `s` is present, else `.null`.
    public static func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }

    /// Compact serialization (no spaces), keys in the order they were given.
    public var serialized: String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let literal): out += literal
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, member) in members.enumerated() {
                if i > 0 { out += "," }
                JSONValue.writeString(member.key, to: &out)
                out += ":"
                member.value.write(to: &out)
            }
            out += "}"
        }
    }

    private static func writeString(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

/// One key/value pair of a JSON object; objects keep their members in order.
public struct JSONMember: Sendable, Equatable {
    public var key: String
    public var value: JSONValue
    public init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}

extension JSONValue {
    /// Builds an object from ordered pairs: `.object(["a": .null])` reads naturally at call sites.
    public static func object(_ pairs: KeyValuePairs<String, JSONValue>) -> JSONValue {
        .object(pairs.map { JSONMember($0.key, $0.value) })
    }
}

/// Fixed-point decimal text written by hand: the Foundation formatters pull ICU into the binary.
public enum FixedPoint {
    /// Writes `units × 10^-scale` with exactly `scale` decimals: `format(-4, scale: 1)` is `-0.4`.
    public static func format(_ units: Int, scale: Int) -> String {
        guard scale > 0 else { return String(units) }
        var divisor = 1
        for _ in 0..<scale { divisor *= 10 }
        let magnitude = units.magnitude
        let whole = magnitude / UInt(divisor)
        let fraction = String(magnitude % UInt(divisor))
        let padded = String(repeating: "0", count: scale - fraction.count) + fraction
        return (units < 0 ? "-" : "") + String(whole) + "." + padded
    }

    /// Divides and rounds half away from zero: `roundedDivision(25, 10)` is 3, `(-25, 10)` is -3.
    public static func roundedDivision(_ numerator: Int, _ denominator: Int) -> Int {
        precondition(denominator > 0, "denominator must be positive")
        let q = numerator / denominator
        let r = numerator % denominator
        if 2 * r.magnitude >= UInt(denominator) { return q + (numerator < 0 ? -1 : 1) }
        return q
    }

    /// Decimal degrees for query strings, never in exponent notation (`Double.description`
    /// writes `1e-05`): at most six decimals (about 0.1 m), trailing zeros trimmed.
    public static func coordinate(_ degrees: Double) -> String {
        guard degrees.isFinite else { return "0" }
        var text = format(Int((degrees * 1_000_000).rounded()), scale: 6)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }
}
