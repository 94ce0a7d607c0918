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

/// Odd `timezone:` values shared by the config loader's tests and the binary's: the loader is
/// the only place a zone is checked and loaded, so `check-config` and `once` agree on each.
public enum TimeZoneNameCases {
    /// Names refused although a lenient path join would find a file for most of them.
    public static let refused = [
        "Europe//Berlin", "./Europe/Berlin", "Europe/./Berlin", "Europe/Berlin/", "Europe/../Europe/Berlin",
        "../zoneinfo/Europe/Berlin", "/usr/share/zoneinfo/Europe/Berlin", "Europe", "Europe/Berlin ",
        "europe/berlin", "Mars/Base", "Broken/Zone",
    ]
    public static let accepted = ["Europe/Berlin", "America/New_York", "UTC"]

    /// A `locations:` block with one location in `zone`.
    public static func locationYAML(_ zone: String) -> String {
        "locations:\n  - {id: home, latitude: 52.5, longitude: 13.4, timezone: \"\(zone)\"}\n"
    }
}
