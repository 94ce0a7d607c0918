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

/// The air request of docs/reference.md, Air quality bands as a pure value: `GET {endpoints.air_quality}/air-quality?…`.
public enum AirQualityRequest {
    /// Appended to the configured `endpoints.air_quality` base URL.
    public static let path = "/air-quality"

    /// Days asked for: today only (the current hour and today's UV maximum need nothing more).
    public static let forecastDays = 1

    /// `latitude`, `longitude`, `hourly=european_aqi,us_aqi,pm2_5,pm10,uv_index`, `forecast_days=1`,
    /// `timezone=<IANA>`, `timeformat=iso8601`. No `domains`: the default (`auto`) is CAMS global
    /// merged with CAMS Europe, so the request works worldwide.
    public static func query(latitude: Double, longitude: Double, timezone: String) -> [QueryParameter] {
        [
            QueryParameter("latitude", FixedPoint.coordinate(latitude)),
            QueryParameter("longitude", FixedPoint.coordinate(longitude)),
            QueryParameter("hourly", AirMetric.hourlyVariables.map(\.rawValue).joined(separator: ",")),
            QueryParameter("forecast_days", String(forecastDays)),
            QueryParameter("timezone", timezone),
            QueryParameter("timeformat", "iso8601"),
        ]
    }

    /// The request's weight in Open-Meteo's accounting (API-FACTS §2.7): five variables over one
    /// day, which the minimum raises to one call.
    public static var weight: OpenMeteoCallWeight {
        .request(variables: AirMetric.hourlyVariables.count, days: forecastDays)
    }
}
