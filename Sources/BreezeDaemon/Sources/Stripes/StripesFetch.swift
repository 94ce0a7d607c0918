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
package import BreezeCore

/// The warming stripes of a location (docs/reference.md, Warming stripes) and when they were fetched.
package struct StripesData: Sendable, Equatable {
    package var series: StripesSeries
    var tallies: [StripesYearTally]
    var fetchedAt: DaemonInstant

    /// The years the data was fetched for.
    var range: ClosedRange<Int> { series.firstYear...max(series.firstYear, series.lastYear) }
}

/// What `state_dir` keeps of the stripes: the yearly tallies, from which the stripes are
/// computed again at start.
package struct StoredStripes: Codable, Sendable, Equatable {
    var firstYear: Int
    var lastYear: Int
    var tallies: [StripesYearTally]

    enum CodingKeys: String, CodingKey {
        case firstYear = "first_year"
        case lastYear = "last_year"
        case tallies
    }

    /// The stripes these tallies make; nil when they make none (a damaged or foreign file).
    func data(fetchedAt: DaemonInstant) -> StripesData? {
        guard
            let series = try? WarmingStripes.compute(tallies: tallies, firstYear: firstYear, lastYear: lastYear)
        else { return nil }
        return StripesData(series: series, tallies: tallies, fetchedAt: fetchedAt)
    }
}

/// A stripes answer (a failure, transport or HTTP status, keeps what is stored and published
/// and is retried with backoff).
package enum StripesAnswer: Sendable {
    case stripes(StripesData)
    /// A 200 whose body makes no stripes (malformed, no complete year): retried the next day,
    /// not within the hour, since every try weighs ≈ 120 calls.
    case unusable(message: String)
}

/// The years a stripes request asks for.
package struct StripesYears: Sendable, Equatable {
    var first: Int
    var last: Int
}

/// The stripes' yearly archive request and how its answer reads.
package enum StripesFetch {
    /// The archive's daily means of `firstYear`…`lastYear`; none when the range holds no
    /// complete year (interpret(_:firstYear:lastYear:fetchedAt:) then says so).
    static func gets(_ location: LocationConfig, firstYear: Int, lastYear: Int, endpoints: Endpoints) -> [HTTPGet] {
        guard
            let query = StripesRequest.query(
                firstYear: firstYear, lastYear: lastYear, latitude: location.latitude,
                longitude: location.longitude, timeZone: location.timezone)
        else { return [] }
        return [HTTPGet(url: endpoints.climateArchive + query.path, query: query.parameters)]
    }

    /// The answer (none: there was no request to make).
    static func interpret(_ responses: [FetchedResponse], firstYear: Int, lastYear: Int, fetchedAt: DaemonInstant)
        -> FetchResult<StripesAnswer>
    {
        guard let response = responses.first else {
            return .failure(message: "no complete year from \(firstYear) to \(lastYear)", retryAfter: nil)
        }
        guard response.status == 200 else { return response.refusal { _ = try StripesDecoder.decode($0) } }
        return compute(response.body, firstYear: firstYear, lastYear: lastYear, fetchedAt: fetchedAt)
    }

    /// Decodes an archive body and computes the stripes of `firstYear`…`lastYear`.
    static func compute(_ body: [UInt8], firstYear: Int, lastYear: Int, fetchedAt: DaemonInstant)
        -> FetchResult<StripesAnswer>
    {
        do {
            let observations = try StripesDecoder.decode(body)
            let tallies = WarmingStripes.tallies(observations, years: firstYear...max(firstYear, lastYear))
            let series = try WarmingStripes.compute(tallies: tallies, firstYear: firstYear, lastYear: lastYear)
            return .answer(.stripes(StripesData(series: series, tallies: tallies, fetchedAt: fetchedAt)))
        } catch {
            return .answer(.unusable(message: error.description))
        }
    }
}
