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

extension HTTPClient {
    /// `base` with `query` appended as `name=value` pairs, each percent-encoded (RFC 3986).
    ///
    /// Only unreserved characters and `,` pass through: Open-Meteo takes comma lists
    /// (`hourly=birch_pollen,grass_pollen`) and a literal comma is legal in a query. Everything
    /// else, `+` included (some servers read a raw `+` as a space), is `%XX` of its UTF-8 bytes.
    public static func urlWithQuery(_ base: String, _ query: [(name: String, value: String)]) -> String {
        guard !query.isEmpty else { return base }
        var url = base
        if !url.contains("?") {
            url += "?"
        } else if !url.hasSuffix("?") && !url.hasSuffix("&") {
            url += "&"
        }
        for (index, item) in query.enumerated() {
            if index > 0 { url += "&" }
            url += percentEncode(item.name)
            url += "="
            url += percentEncode(item.value)
        }
        return url
    }

    /// Percent-encodes every byte of `text`'s UTF-8 except RFC 3986 unreserved characters and `,`.
    public static func percentEncode(_ text: String) -> String {
        let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: ","):
                out.append(byte)
            default:
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
