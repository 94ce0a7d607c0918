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

/// The archive request behind the warming stripes and when to repeat it (docs/reference.md, Warming stripes), as values.
///
/// One request covers every year: `start_date=<first>-01-01&end_date=<last>-12-31` with
/// `daily=temperature_2m_mean`. It is heavy in Open-Meteo's accounting (a variable over d days
/// weighs d / 140 calls: ≈ 120 for 46 years), so the result is kept and the request repeated
/// only when a new year has become complete in the archive.
public enum StripesRequest {
    /// `climate.stripes.first_year` when the config does not set it.
    public static let defaultFirstYear = 1980
    /// The archive's first year (API-FACTS §2.2: 1940-01-01 ≤ date).
    public static let earliestYear = 1940
    /// The day of January from which last year counts as complete in the archive (ERA5 lags
    /// about five days); each installation adds its own 0…``spreadDays`` days after it.
    public static let firstRefetchDay = 10
    /// Installations spread their yearly refetch over 10–31 January.
    public static let spreadDays = 21

    /// The request for `firstYear…lastYear`, or nil when the range is empty.
    public static func query(
        firstYear: Int, lastYear: Int, latitude: Double, longitude: Double, timeZone: String
    ) -> ClimateQuery? {
        guard firstYear <= lastYear else { return nil }
        return ClimateQuery(
            path: "/archive",
            parameters: [
                QueryParameter("latitude", FixedPoint.coordinate(latitude)),
                QueryParameter("longitude", FixedPoint.coordinate(longitude)),
                QueryParameter("start_date", CivilDate(year: firstYear, month: 1, day: 1)!.description),
                QueryParameter("end_date", CivilDate(year: lastYear, month: 12, day: 31)!.description),
                QueryParameter("daily", "temperature_2m_mean"),
                QueryParameter("timezone", timeZone),
            ])
    }

    /// Open-Meteo's weight of the request (API-FACTS §2.7: one variable over d days weighs
    /// d/140, at least 1): 120.01 calls for 1980–2025 (16 802 days); zero for an empty range.
    public static func weight(firstYear: Int, lastYear: Int) -> OpenMeteoCallWeight {
        guard firstYear <= lastYear else { return .zero }
        let days = OpenMeteoCallWeight.days(
            from: CivilDate(year: firstYear, month: 1, day: 1)!, through: CivilDate(year: lastYear, month: 12, day: 31)!
        )
        return OpenMeteoCallWeight.request(variables: 1, days: days)
    }

    /// This installation's offset into the refetch window, 0…``spreadDays``, stable across
    /// restarts: FNV-1a of `seed` (the runtime passes something per installation and location).
    public static func spread(seed: String) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in seed.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return Int(hash % UInt64(spreadDays + 1))
    }

    /// The last year the stripes should reach on `today` (local date): last year from
    /// 10 January + `spread` days on, the year before until then.
    public static func targetLastYear(today: CivilDate, spread: Int) -> Int {
        let due = CivilDate(year: today.year, month: 1, day: firstRefetchDay)!.adding(days: spread)
        return today >= due ? today.year - 1 : today.year - 2
    }

    /// Whether the stored stripes (the range they were fetched for, nil when none are stored)
    /// must be fetched again: none stored, another first year configured, or a newer complete
    /// year due. A target range that is empty (first year after the target) is never due.
    public static func isDue(
        stored: ClosedRange<Int>?, firstYear: Int, today: CivilDate, spread: Int
    ) -> Bool {
        let target = targetLastYear(today: today, spread: spread)
        guard firstYear <= target else { return false }
        guard let stored else { return true }
        return stored.lowerBound != firstYear || stored.upperBound < target
    }
}
