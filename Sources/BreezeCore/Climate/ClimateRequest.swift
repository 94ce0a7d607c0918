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

/// Where a climate point's value comes from: the historical archive or today's forecast.
public enum ClimateSource: String, Sendable, Equatable {
    case archive
    case forecast
}

/// One year of the trend: the calendar date asked for in that year and the API that answers it.
public struct ClimatePoint: Sendable, Equatable {
    public var year: Int
    /// Today's month/day in `year`; 28 February when today is 29 February and `year` has none.
    public var date: CivilDate
    public var source: ClimateSource

    public init(year: Int, date: CivilDate, source: ClimateSource) {
        self.year = year
        self.date = date
        self.source = source
    }
}

/// A request without I/O: the path to append to the configured base URL and the parameters.
/// The HTTP layer percent-encodes the values (the time zone and the comma lists need it).
public struct ClimateQuery: Sendable, Equatable {
    /// `/archive` or `/forecast`.
    public var path: String
    public var parameters: [QueryParameter]

    public init(path: String, parameters: [QueryParameter]) {
        self.path = path
        self.parameters = parameters
    }
}

/// Which dates the climate trend asks for (docs/reference.md, Climate arithmetic), as pure values.
///
/// Past years go to the archive in **one** request with comma-separated `start_date`/`end_date`
/// lists (API-FACTS §2.4): one round-trip instead of five, the same quota; the decoder accepts the
/// array the server answers with (or a single object when only one year is asked for).
public enum ClimateRequestPlan {
    /// The points for today's local date: each configured year (sorted, deduplicated, kept only when
    /// 1940 ≤ year < today's year) from the archive, then the current year from the forecast.
    public static func points(today: CivilDate, years: [Int]) -> [ClimatePoint] {
        let past = Set(years.filter { $0 >= 1940 && $0 < today.year }).sorted()
        var points = past.map { ClimatePoint(year: $0, date: sameDay(as: today, in: $0), source: .archive) }
        points.append(ClimatePoint(year: today.year, date: today, source: .forecast))
        return points
    }

    /// Today's month and day in `year`, 29 February falling back to 28 February.
    public static func sameDay(as today: CivilDate, in year: Int) -> CivilDate {
        CivilDate(year: year, month: today.month, day: today.day)
            ?? CivilDate(year: year, month: today.month, day: today.day - 1)!
    }

    /// The archive request for the archive points, or nil when there are none.
    public static func archiveQuery(
        points: [ClimatePoint], latitude: Double, longitude: Double, timeZone: String
    ) -> ClimateQuery? {
        let dates = points.filter { $0.source == .archive }.map { $0.date.description }
        guard !dates.isEmpty else { return nil }
        let list = dates.joined(separator: ",")
        return ClimateQuery(
            path: "/archive",
            parameters: common(
                latitude: latitude, longitude: longitude, startDate: list, endDate: list, timeZone: timeZone))
    }

    /// The forecast request for today (start and end date both today).
    public static func forecastQuery(today: CivilDate, latitude: Double, longitude: Double, timeZone: String)
        -> ClimateQuery
    {
        ClimateQuery(
            path: "/forecast",
            parameters: common(
                latitude: latitude, longitude: longitude, startDate: today.description, endDate: today.description,
                timeZone: timeZone))
    }

    private static func common(
        latitude: Double, longitude: Double, startDate: String, endDate: String, timeZone: String
    ) -> [QueryParameter] {
        [
            QueryParameter("latitude", FixedPoint.coordinate(latitude)),
            QueryParameter("longitude", FixedPoint.coordinate(longitude)),
            QueryParameter("start_date", startDate),
            QueryParameter("end_date", endDate),
            QueryParameter("daily", "temperature_2m_max"),
            QueryParameter("timezone", timeZone),
        ]
    }
}
