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
            url += QueryParameter.percentEncode(item.name)
            url += "="
            url += QueryParameter.percentEncode(item.value)
        }
        return url
    }
}
