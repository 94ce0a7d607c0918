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

/// RFC 3339 UTC timestamps (`2026-11-30T03:06:23Z`), the form every `updated_at` takes (docs/reference.md, Topics).
public enum UTCTimestamp {
    /// Formats seconds since the Unix epoch.
    public static func rfc3339(unixSeconds: Int64) -> String {
        let days = unixSeconds >= 0 ? unixSeconds / 86_400 : (unixSeconds - 86_399) / 86_400
        let secondOfDay = Int(unixSeconds - days * 86_400)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : String(v) }
        let date = CivilDate(daysSinceEpoch: Int(days))
        return "\(date)T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))Z"
    }

    /// Parses the form written by ``rfc3339(unixSeconds:)`` (UTC, `Z`, whole seconds).
    public static func parse(_ text: String) -> Int64? {
        let parts = text.split(separator: "T")
        guard parts.count == 2, text.hasSuffix("Z"), let date = CivilDate(iso: parts[0]) else { return nil }
        let time = parts[1].dropLast().split(separator: ":")
        guard time.count == 3, let h = Int(time[0]), let m = Int(time[1]), let s = Int(time[2]),
            (0..<24).contains(h), (0..<60).contains(m), (0..<61).contains(s)
        else { return nil }
        return Int64(date.daysSinceEpoch) * 86_400 + Int64(h * 3600 + m * 60 + s)
    }
}
