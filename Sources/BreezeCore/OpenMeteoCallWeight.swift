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

/// Open-Meteo's "weighted calls" (API-FACTS §2.7), computed exactly.
///
/// The server weighs each location/date range of a request as
/// `max(1, max(variables / 10, variables / 10 × days / 14))`, where `days` is the range's length
/// in whole days, and sums the ranges. Its fair-use limits (600/minute, 5,000/hour, 10,000/day)
/// count these weights, not HTTP requests. The server computes in `Float`; here the weight is a
/// whole number of 1/140 calls (140 = 10 variables × 14 days), so sums over a fleet are exact and
/// a total is compared with a limit without rounding noise.
public struct OpenMeteoCallWeight: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The weight in 1/140 of a call.
    public var units: Int

    /// One call (`units` 140).
    public static let unitsPerCall = 140

    public init(units: Int) { self.units = units }

    public static let zero = OpenMeteoCallWeight(units: 0)

    /// A whole number of calls (an error answer counts one).
    public static func calls(_ n: Int) -> OpenMeteoCallWeight {
        let (product, overflow) = Swift.max(0, n).multipliedReportingOverflow(by: unitsPerCall)
        return OpenMeteoCallWeight(units: overflow ? Int.max : product)
    }

    /// One location and one date range: `max(1, variables/10 × max(1, days/14))`.
    ///
    /// `max(v/10, v/10 × d/14)` is `v/10 × max(1, d/14)` = `v × max(14, d) / 140`. Counts below
    /// one are taken as one (a request always costs at least one call); huge counts saturate.
    public static func request(variables: Int, days: Int) -> OpenMeteoCallWeight {
        let v = Swift.max(1, variables)
        let d = Swift.max(14, days)
        let (product, overflow) = v.multipliedReportingOverflow(by: d)
        return OpenMeteoCallWeight(units: overflow ? Int.max : Swift.max(unitsPerCall, product))
    }

    /// Several date ranges (or locations) in one request: the weights add up, each at least one
    /// call (API-FACTS §2.4: comma lists save round-trips, not quota).
    public static func request(variables: Int, rangesOfDays: [Int]) -> OpenMeteoCallWeight {
        rangesOfDays.reduce(.zero) { $0 + request(variables: variables, days: $1) }
    }

    /// The number of days from `start` to `end`, both included (an archive range's length).
    public static func days(from start: CivilDate, through end: CivilDate) -> Int {
        Swift.max(1, end.daysSinceEpoch - start.daysSinceEpoch + 1)
    }

    /// Saturating sum.
    public static func + (a: OpenMeteoCallWeight, b: OpenMeteoCallWeight) -> OpenMeteoCallWeight {
        let (sum, overflow) = a.units.addingReportingOverflow(b.units)
        return OpenMeteoCallWeight(units: overflow ? Int.max : sum)
    }

    public static func += (a: inout OpenMeteoCallWeight, b: OpenMeteoCallWeight) { a = a + b }

    /// Saturating multiple: `n` requests of this weight.
    public static func * (a: OpenMeteoCallWeight, n: Int) -> OpenMeteoCallWeight {
        let (product, overflow) = a.units.multipliedReportingOverflow(by: Swift.max(0, n))
        return OpenMeteoCallWeight(units: overflow ? Int.max : product)
    }

    public static func < (a: OpenMeteoCallWeight, b: OpenMeteoCallWeight) -> Bool { a.units < b.units }

    /// The weight in hundredths of a call, rounded half up (for JSON: `.fixed(hundredths, scale: 2)`).
    public var hundredths: Int {
        let (scaled, overflow) = units.multipliedReportingOverflow(by: 100)
        return overflow ? Int.max / Self.unitsPerCall : FixedPoint.roundedDivision(scaled, Self.unitsPerCall)
    }

    /// Two decimals: `1.00`, `120.01`.
    public var description: String { FixedPoint.format(hundredths, scale: 2) }

    /// How many times a fetch on a fixed `interval` (seconds) runs in a day: ⌈86 400 / interval⌉,
    /// at least one (an interval of a day or more still fetches once on its day).
    public static func fetchesPerDay(intervalSeconds: Int) -> Int {
        guard intervalSeconds > 0 else { return 86_400 }
        return Swift.max(1, (86_400 + intervalSeconds - 1) / intervalSeconds)
    }
}
