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

public import BreezeConfig
public import BreezeCore
import BreezeHTTP

/// What one climate fetch for one location came to.
public enum ClimateFetchResult: Sendable {
    /// A trend, with the bodies so it can be stored and recomputed after a restart.
    case trend(ClimateTrend, bodies: ClimateBodies, fetchedAt: Int64)
    /// Keep the last good data, mark it stale and retry with backoff.
    case failed(message: String, retryAfter: Int64?)
}

/// The two responses behind a trend, and the local date they were asked for.
public struct ClimateBodies: Sendable, Equatable, Codable {
    public var date: String
    public var archive: String?
    public var forecast: String
    public init(date: String, archive: String?, forecast: String) {
        self.date = date
        self.archive = archive
        self.forecast = forecast
    }
}

/// Fetches the climate trend for one location and local date (SPEC §2): past years from the
/// archive in one request (comma-separated date lists), the current year from the forecast.
public struct ClimateFetcher: Sendable {
    public var http: any HTTPFetching
    public var endpoints: Endpoints
    public var years: [Int]

    public init(http: any HTTPFetching, endpoints: Endpoints, years: [Int]) {
        self.http = http
        self.endpoints = endpoints
        self.years = years
    }

    public func fetch(_ location: LocationConfig, today: CivilDate, now: Int64, log: Log) async -> ClimateFetchResult {
        let points = ClimateRequestPlan.points(today: today, years: years)
        var archiveBody: [UInt8]?
        if let query = ClimateRequestPlan.archiveQuery(
            points: points, latitude: location.latitude, longitude: location.longitude, timeZone: location.timezone)
        {
            switch await get(endpoints.climateArchive, query) {
            case .success(let body): archiveBody = body
            case .failure(let failure): return failure.result
            }
        }
        let forecastQuery = ClimateRequestPlan.forecastQuery(
            today: today, latitude: location.latitude, longitude: location.longitude, timeZone: location.timezone)
        let forecastBody: [UInt8]
        switch await get(endpoints.climateForecast, forecastQuery) {
        case .success(let body): forecastBody = body
        case .failure(let failure): return failure.result
        }
        let bodies = ClimateBodies(
            date: today.description, archive: archiveBody.map { String(decoding: $0, as: UTF8.self) },
            forecast: String(decoding: forecastBody, as: UTF8.self))
        return Self.compute(bodies, today: today, years: years, fetchedAt: now, log: log, location: location.id)
    }

    /// The line saying which years had no value, if any.
    static func omittedYearsNote(_ trend: ClimateTrend, location: String) -> String? {
        guard !trend.omittedYears.isEmpty else { return nil }
        let years = trend.omittedYears.map(String.init).joined(separator: ", ")
        return "climate[\(location)]: no value for \(years); left out"
    }

    /// Decodes and computes; also used for stored bodies at start (``ClimateRules``, with no
    /// `log`: the state logs ``omittedYearsNote(_:location:)`` itself).
    public static func compute(
        _ bodies: ClimateBodies, today: CivilDate, years: [Int], fetchedAt: Int64, log: Log?, location: String
    ) -> ClimateFetchResult {
        let points = ClimateRequestPlan.points(today: today, years: years)
        do {
            let archive =
                try bodies.archive.map { body throws(ClimateDecodeError) in
                    try OpenMeteoDailyDecoder.decode(Array(body.utf8))
                } ?? []
            let forecast = try OpenMeteoDailyDecoder.decode(Array(bodies.forecast.utf8))
            let trend = try ClimateTrend.compute(today: today, points: points, archive: archive, forecast: forecast)
            if let log, let note = omittedYearsNote(trend, location: location) { log.info(note) }
            return .trend(trend, bodies: bodies, fetchedAt: fetchedAt)
        } catch let error as ClimateDecodeError {
            return .failed(message: error.description, retryAfter: nil)
        } catch let error as ClimateTrendError {
            return .failed(message: error.description, retryAfter: nil)
        } catch {
            return .failed(message: "\(error)", retryAfter: nil)
        }
    }

    private struct Failure: Error {
        var result: ClimateFetchResult
    }

    private func get(_ base: String, _ query: ClimateQuery) async -> Result<[UInt8], Failure> {
        let response: FetchedResponse
        do {
            response = try await http.get(
                base + query.path, query: query.parameters, headers: [])
        } catch {
            return .failure(Failure(result: .failed(message: error.description, retryAfter: nil)))
        }
        guard response.status == 200 else {
            // Open-Meteo explains its 4xx/429/503 in {"error":true,"reason":…}; the decoder reads it.
            let reason: String
            do {
                _ = try OpenMeteoDailyDecoder.decode(response.body)
                reason = "HTTP \(response.status)"
            } catch {
                reason = "HTTP \(response.status): \(error.description)"
            }
            return .failure(
                Failure(result: .failed(message: reason, retryAfter: response.retryAfterSeconds.map(Int64.init))))
        }
        return .success(response.body)
    }
}
