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

import BreezeConfig
import BreezeCore

/// A usable climate answer: the trend, with the bodies so it can be stored and recomputed
/// after a restart.
package struct ClimateAnswer: Sendable {
    var trend: ClimateTrend
    var bodies: ClimateBodies
    var fetchedAt: DaemonInstant
}

/// The bodies a trend was computed from, as `state_dir` keeps them.
package struct ClimateBodies: Sendable, Equatable, Codable {
    var date: String
    var archive: String?
    var forecast: String
}

/// The daily climate's requests (the archive's years, when any, then the forecast) and how
/// their answers read (docs/architecture.md).
package enum ClimateFetch {
    static func gets(_ location: LocationConfig, today: CivilDate, years: [Int], endpoints: Endpoints) -> [HTTPGet] {
        let points = ClimateRequestPlan.points(today: today, years: years)
        var gets: [HTTPGet] = []
        if let query = ClimateRequestPlan.archiveQuery(
            points: points, latitude: location.latitude, longitude: location.longitude, timeZone: location.timezone)
        {
            gets.append(HTTPGet(url: endpoints.climateArchive + query.path, query: query.parameters))
        }
        let forecast = ClimateRequestPlan.forecastQuery(
            today: today, latitude: location.latitude, longitude: location.longitude, timeZone: location.timezone)
        gets.append(HTTPGet(url: endpoints.climateForecast + forecast.path, query: forecast.parameters))
        return gets
    }

    /// The answers to gets(_:today:years:endpoints:), in order; the runner stops at the
    /// first that is not a 200, and that one is the failure.
    static func interpret(_ responses: [FetchedResponse], today: CivilDate, years: [Int], fetchedAt: DaemonInstant)
        -> FetchResult<ClimateAnswer>
    {
        if let refused = responses.first(where: { $0.status != 200 }) {
            return refused.refusal { _ = try OpenMeteoDailyDecoder.decode($0) }
        }
        guard let forecast = responses.last else { return .failure(message: "no answer", retryAfter: nil) }
        let archive = responses.count > 1 ? responses.first : nil
        let bodies = ClimateBodies(
            date: today.description, archive: archive.map { String(decoding: $0.body, as: UTF8.self) },
            forecast: String(decoding: forecast.body, as: UTF8.self))
        return compute(bodies, today: today, years: years, fetchedAt: fetchedAt)
    }

    /// The line saying which years had no value, if any.
    static func omittedYearsNote(_ trend: ClimateTrend, location: String) -> String? {
        guard !trend.omittedYears.isEmpty else { return nil }
        let years = trend.omittedYears.map(String.init).joined(separator: ", ")
        return "climate[\(location)]: no value for \(years); left out"
    }

    /// Decodes and computes; also used for stored bodies at start (ClimateRules).
    static func compute(_ bodies: ClimateBodies, today: CivilDate, years: [Int], fetchedAt: DaemonInstant)
        -> FetchResult<ClimateAnswer>
    {
        let points = ClimateRequestPlan.points(today: today, years: years)
        do {
            let archive =
                try bodies.archive.map { body throws(ClimateDecodeError) in
                    try OpenMeteoDailyDecoder.decode(Array(body.utf8))
                } ?? []
            let forecast = try OpenMeteoDailyDecoder.decode(Array(bodies.forecast.utf8))
            let trend = try ClimateTrend.compute(today: today, points: points, archive: archive, forecast: forecast)
            return .answer(ClimateAnswer(trend: trend, bodies: bodies, fetchedAt: fetchedAt))
        } catch let error as ClimateDecodeError {
            return .failure(message: error.description, retryAfter: nil)
        } catch let error as ClimateTrendError {
            return .failure(message: error.description, retryAfter: nil)
        } catch {
            return .failure(message: "\(error)", retryAfter: nil)
        }
    }
}
