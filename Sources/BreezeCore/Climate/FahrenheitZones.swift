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

/// Which display unit `climate.unit: auto` picks for a location: °F where its time zone belongs
/// to a country that uses Fahrenheit, °C everywhere else.
///
/// The zones are tzdata's `zone.tab` rows of those countries (the United States and its
/// territories, Liberia, Myanmar, the Bahamas, Belize, the Cayman Islands, Palau, the Marshall
/// Islands, Micronesia). A table in the code rather than a read of `zone.tab` at start, so the
/// choice does not depend on which tzdata files an image carries; a unit test compares it with
/// the system's `zone.tab` row by row.
public enum FahrenheitZones {
    /// The `zone.tab` country codes of the table.
    public static let countries: Set<String> = [
        "US", "UM", "PR", "GU", "AS", "VI", "MP", "LR", "MM", "BS", "BZ", "KY", "PW", "MH", "FM",
    ]

    /// Canonical zone names (`zone.tab`'s third column) of ``countries``.
    public static let zones: Set<String> = [
        "Africa/Monrovia", "America/Adak", "America/Anchorage", "America/Belize", "America/Boise",
        "America/Cayman", "America/Chicago", "America/Denver", "America/Detroit",
        "America/Indiana/Indianapolis", "America/Indiana/Knox", "America/Indiana/Marengo",
        "America/Indiana/Petersburg", "America/Indiana/Tell_City", "America/Indiana/Vevay",
        "America/Indiana/Vincennes", "America/Indiana/Winamac", "America/Juneau", "America/Kentucky/Louisville",
        "America/Kentucky/Monticello", "America/Los_Angeles", "America/Menominee", "America/Metlakatla",
        "America/Nassau", "America/New_York", "America/Nome", "America/North_Dakota/Beulah",
        "America/North_Dakota/Center", "America/North_Dakota/New_Salem", "America/Phoenix",
        "America/Puerto_Rico", "America/Sitka", "America/St_Thomas", "America/Yakutat", "Asia/Yangon",
        "Pacific/Chuuk", "Pacific/Guam", "Pacific/Honolulu", "Pacific/Kosrae", "Pacific/Kwajalein",
        "Pacific/Majuro", "Pacific/Midway", "Pacific/Pago_Pago", "Pacific/Palau", "Pacific/Pohnpei",
        "Pacific/Saipan", "Pacific/Wake",
    ]

    /// Old names tzdata keeps as links (its `backward` file) whose target is in ``zones``: a
    /// configuration may still say `US/Eastern`, and a static image may lack the link itself.
    public static let backwardPrefixes = ["US/"]
    public static let backwardNames: Set<String> = [
        "Asia/Rangoon", "America/Fort_Wayne", "America/Indianapolis", "America/Knox_IN", "America/Louisville",
        "America/Virgin", "Navajo", "Pacific/Johnston", "Pacific/Ponape", "Pacific/Samoa", "Pacific/Truk",
        "Pacific/Yap", "US/Pacific-New", "Kwajalein",
    ]

    /// The unit `auto` gives a location in the zone `name` (a canonical name or an old alias).
    public static func unit(forZone name: String) -> TemperatureUnit {
        if zones.contains(name) || backwardNames.contains(name) { return .fahrenheit }
        if backwardPrefixes.contains(where: { name.hasPrefix($0) }) { return .fahrenheit }
        return .celsius
    }
}
