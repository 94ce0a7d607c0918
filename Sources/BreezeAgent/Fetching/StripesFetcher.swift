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

/// The warming stripes of one location as the runtime keeps them: the series for the range
/// fetched, and the per-year tallies behind it (what `state_dir` stores: a few kB instead of
/// the ~300 kB archive response).
public struct StripesData: Sendable, Equatable {
    public var series: StripesSeries
    public var tallies: [StripesYearTally]
    public var fetchedAt: Int64

    public init(series: StripesSeries, tallies: [StripesYearTally], fetchedAt: Int64) {
        self.series = series
        self.tallies = tallies
        self.fetchedAt = fetchedAt
    }

    /// The years the data was fetched for.
    public var range: ClosedRange<Int> { series.firstYear...max(series.firstYear, series.lastYear) }
}

/// `responses/<loc>.stripes.json`: the range asked for and the tallies of its years.
public struct StoredStripes: Codable, Sendable, Equatable {
    public var firstYear: Int
    public var lastYear: Int
    public var tallies: [StripesYearTally]

    public init(firstYear: Int, lastYear: Int, tallies: [StripesYearTally]) {
        self.firstYear = firstYear
        self.lastYear = lastYear
        self.tallies = tallies
    }

    enum CodingKeys: String, CodingKey {
        case firstYear = "first_year"
        case lastYear = "last_year"
        case tallies
    }

    /// The stripes these tallies make; nil when they make none (a damaged or foreign file).
    public func data(fetchedAt: Int64) -> StripesData? {
        guard
            let series = try? WarmingStripes.compute(tallies: tallies, firstYear: firstYear, lastYear: lastYear)
        else { return nil }
        return StripesData(series: series, tallies: tallies, fetchedAt: fetchedAt)
    }
}

/// What one stripes fetch came to.
public enum StripesFetchResult: Sendable {
    case stripes(StripesData)
    /// No usable answer (transport, HTTP status): keep what is stored and published; retry with backoff.
    case failed(message: String, retryAfter: Int64?)
    /// A 200 whose body makes no stripes (malformed, no complete year): retried the next day,
    /// not within the hour, since every try weighs ≈ 120 calls.
    case unusable(message: String)
}

/// Fetches the annual means behind the warming stripes (SPEC §9.1): one archive request for
/// `firstYear`…`lastYear` with `daily=temperature_2m_mean`. The daemon asks for it once a year
/// (``StripesRequest/isDue(stored:firstYear:today:spread:)``), never on `refresh`: it weighs
/// about 120 of Open-Meteo's calls.
public struct StripesFetcher: Sendable {
    public var http: any HTTPFetching
    public var endpoints: Endpoints

    public init(http: any HTTPFetching, endpoints: Endpoints) {
        self.http = http
        self.endpoints = endpoints
    }

    public func fetch(_ location: LocationConfig, firstYear: Int, lastYear: Int, now: Int64) async
        -> StripesFetchResult
    {
        guard
            let query = StripesRequest.query(
                firstYear: firstYear, lastYear: lastYear, latitude: location.latitude,
                longitude: location.longitude, timeZone: location.timezone)
        else { return .failed(message: "no complete year from \(firstYear) to \(lastYear)", retryAfter: nil) }
        let response: FetchedResponse
        do {
            response = try await http.get(endpoints.climateArchive + query.path, query: query.parameters, headers: [])
        } catch {
            return .failed(message: error.description, retryAfter: nil)
        }
        guard response.status == 200 else {
            // Open-Meteo explains its 4xx/429/503 in {"error":true,"reason":…}; the decoder reads it.
            let reason: String
            do {
                _ = try StripesDecoder.decode(response.body)
                reason = "HTTP \(response.status)"
            } catch {
                reason = "HTTP \(response.status): \(error.description)"
            }
            return .failed(message: reason, retryAfter: response.retryAfterSeconds.map(Int64.init))
        }
        return Self.compute(response.body, firstYear: firstYear, lastYear: lastYear, fetchedAt: now)
    }

    /// Decodes an archive body and computes the stripes of `firstYear`…`lastYear`.
    public static func compute(_ body: [UInt8], firstYear: Int, lastYear: Int, fetchedAt: Int64)
        -> StripesFetchResult
    {
        do {
            let observations = try StripesDecoder.decode(body)
            let tallies = WarmingStripes.tallies(observations, years: firstYear...max(firstYear, lastYear))
            let series = try WarmingStripes.compute(tallies: tallies, firstYear: firstYear, lastYear: lastYear)
            return .stripes(StripesData(series: series, tallies: tallies, fetchedAt: fetchedAt))
        } catch {
            return .unusable(message: error.description)
        }
    }
}
