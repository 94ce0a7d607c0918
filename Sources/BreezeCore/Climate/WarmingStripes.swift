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

/// One calendar year of daily mean temperatures as summed from the archive: everything the
/// stripes need from that year, small enough to keep in `state_dir` instead of the raw response.
public struct StripesYearTally: Sendable, Equatable, Codable {
    public var year: Int
    /// Days with a value (nulls are not counted).
    public var days: Int
    /// Exact sum of the daily means, tenths of °C.
    public var sumTenths: Int

    public init(year: Int, days: Int, sumTenths: Int) {
        self.year = year
        self.days = days
        self.sumTenths = sumTenths
    }

    enum CodingKeys: String, CodingKey {
        case year, days
        case sumTenths = "sum_tenths"
    }
}

/// One stripe: a year kept in the series, in hundredths of °C.
public struct StripesYear: Sendable, Equatable {
    public var year: Int
    /// Annual mean, hundredths of °C (halves rounded away from zero).
    public var meanHundredths: Int
    /// Mean − reference, hundredths of °C (exact).
    public var anomalyHundredths: Int
    /// 0 (coldest) … 7 (warmest): the index into ``WarmingStripes/palette``.
    public var bin: Int

    public init(year: Int, meanHundredths: Int, anomalyHundredths: Int, bin: Int) {
        self.year = year
        self.meanHundredths = meanHundredths
        self.anomalyHundredths = anomalyHundredths
        self.bin = bin
    }

    public var color: HexColor { WarmingStripes.palette[bin] }
}

/// The warming stripes of one location (docs/reference.md, Warming stripes).
public struct StripesSeries: Sendable, Equatable {
    /// The range asked for: the configured first year and the last complete year. Years of it
    /// that were left out (fewer than ``WarmingStripes/minimumDays`` values) are absent from `years`.
    public var firstYear: Int
    public var lastYear: Int
    /// Hundredths of °C.
    public var referenceHundredths: Int
    /// True when the reference is the mean of 1981–2010 (≥ 20 of those years present); false
    /// when too few of them were present and it is the mean of all years.
    public var referenceIsStandardPeriod: Bool
    /// The years kept, ascending.
    public var years: [StripesYear]
    /// Years of the range left out, ascending: the runtime logs them.
    public var omittedYears: [Int]

    public init(
        firstYear: Int, lastYear: Int, referenceHundredths: Int, referenceIsStandardPeriod: Bool,
        years: [StripesYear], omittedYears: [Int]
    ) {
        self.firstYear = firstYear
        self.lastYear = lastYear
        self.referenceHundredths = referenceHundredths
        self.referenceIsStandardPeriod = referenceIsStandardPeriod
        self.years = years
        self.omittedYears = omittedYears
    }
}

/// The stripes arithmetic of docs/reference.md, Warming stripes, all on exact integers.
///
/// Means are hundredths of °C computed from exact sums of the tenths the API prints. The bin
/// `⌊(a/σ + 2.6) / 0.65⌋` is never evaluated in floating point: in doubles `(1.95 + 2.6) / 0.65`
/// is 6.999999999999999 and a year exactly 1.95 σ above the reference would get bin 6 instead
/// of 7. With `n` anomalies, `V = n·Σa² − (Σa)²` is `n²σ²`, and `k ≤ (a/σ + 2.6)/0.65` becomes
/// `20·n·a ≥ (13k − 52)·√V`, which is decided on signs and then on squares in 128-bit integers.
public enum WarmingStripes {
    /// ColorBrewer RdBu, 8 classes, cold to warm.
    public static let palette: [HexColor] = [
        HexColor(red: 0x21, green: 0x66, blue: 0xac),
        HexColor(red: 0x43, green: 0x93, blue: 0xc3),
        HexColor(red: 0x92, green: 0xc5, blue: 0xde),
        HexColor(red: 0xd1, green: 0xe5, blue: 0xf0),
        HexColor(red: 0xfd, green: 0xdb, blue: 0xc7),
        HexColor(red: 0xf4, green: 0xa5, blue: 0x82),
        HexColor(red: 0xd6, green: 0x60, blue: 0x4d),
        HexColor(red: 0xb2, green: 0x18, blue: 0x2b),
    ]
    /// The bin of every year when all anomalies are equal (σ = 0): `#d1e5f0`.
    public static let flatBin = 3
    /// A year with fewer values than this is left out.
    public static let minimumDays = 360
    /// The reference period, used when at least ``minimumReferenceYears`` of it are present.
    public static let referencePeriod = 1981...2010
    public static let minimumReferenceYears = 20

    /// Sums daily values per calendar year of `years`; dates outside it and nulls are skipped.
    public static func tallies(_ observations: [ClimateObservation], years: ClosedRange<Int>) -> [StripesYearTally] {
        var byYear: [Int: StripesYearTally] = [:]
        for observation in observations where years.contains(observation.date.year) {
            guard let tenths = observation.tenthsCelsius else { continue }
            let year = observation.date.year
            var tally = byYear[year] ?? StripesYearTally(year: year, days: 0, sumTenths: 0)
            tally.days += 1
            tally.sumTenths += tenths
            byYear[year] = tally
        }
        return byYear.values.sorted { $0.year < $1.year }
    }

    /// The stripes for `firstYear…lastYear` from per-year tallies (tallies outside the range are
    /// ignored; a year without a tally counts as missing).
    ///
    /// Throws when no year of the range has ``minimumDays`` values: there is nothing to draw.
    public static func compute(
        tallies: [StripesYearTally], firstYear: Int, lastYear: Int
    ) throws(WarmingStripesError) -> StripesSeries {
        let range = firstYear...max(firstYear, lastYear)
        var means: [(year: Int, hundredths: Int)] = []
        var seen = Set<Int>()
        for tally in tallies.sorted(by: { $0.year < $1.year })
        where range.contains(tally.year) && tally.days >= minimumDays && seen.insert(tally.year).inserted {
            // Tenths × 10 over the count: hundredths, halves away from zero (−0.125 → −0.13).
            means.append((tally.year, FixedPoint.roundedDivision(tally.sumTenths * 10, tally.days)))
        }
        guard !means.isEmpty, lastYear >= firstYear else {
            throw .noCompleteYear(firstYear: firstYear, lastYear: lastYear)
        }
        let inPeriod = means.filter { referencePeriod.contains($0.year) }
        let standard = inPeriod.count >= minimumReferenceYears
        let basis = standard ? inPeriod : means
        let reference = FixedPoint.roundedDivision(basis.reduce(0) { $0 + $1.hundredths }, basis.count)

        let anomalies = means.map { $0.hundredths - reference }
        let moments = StripesMoments(anomalies)
        let years = zip(means, anomalies).map { entry, anomaly in
            StripesYear(
                year: entry.year, meanHundredths: entry.hundredths, anomalyHundredths: anomaly,
                bin: bin(anomaly: anomaly, moments: moments))
        }
        let kept = Set(means.map(\.year))
        return StripesSeries(
            firstYear: firstYear, lastYear: lastYear, referenceHundredths: reference,
            referenceIsStandardPeriod: standard, years: years, omittedYears: range.filter { !kept.contains($0) })
    }

    /// The bin of anomaly `a` among the anomalies summarized by `moments`: the largest k in
    /// 0…7 with `20·n·a ≥ (13k − 52)·√V` (k = 0 always holds); ``flatBin`` when V = 0.
    public static func bin(anomaly a: Int, moments: StripesMoments) -> Int {
        let v = moments.v
        guard v > 0 else { return flatBin }
        let lhs = 20 * Int128(moments.count) * Int128(a)
        for k in stride(from: 7, to: 0, by: -1) where atLeast(lhs, coefficient: Int128(13 * k - 52), rootOf: v) {
            return k
        }
        return 0
    }

    /// `lhs ≥ c·√v` for `v > 0`, without a square root: compare signs, then squares.
    static func atLeast(_ lhs: Int128, coefficient c: Int128, rootOf v: Int128) -> Bool {
        if c == 0 { return lhs >= 0 }
        if c < 0 {
            // The right side is negative: any lhs ≥ 0 holds; a negative lhs must be smaller in size.
            return lhs >= 0 || lhs * lhs <= c * c * v
        }
        // The right side is positive: lhs must be positive and at least as large in size.
        return lhs > 0 && lhs * lhs >= c * c * v
    }
}

/// `n`, `Σa` and `Σa²` of the anomalies, and `V = n·Σa² − (Σa)²` (= n²σ², σ the population
/// standard deviation), in 128-bit integers.
///
/// Why 128 bits: with the decoder's bound (|value| < 1000 °C, so |a| < 2·10⁵ hundredths) and a
/// few hundred years, `(13k − 52)²·V` reaches about 10¹⁹, past `Int64.max`. In `Int128` the
/// largest product stays below 10²⁰ even for a thousand years; Swift traps on overflow anyway,
/// so a result is never silently wrong.
public struct StripesMoments: Sendable, Equatable {
    public var count: Int
    public var sum: Int128
    public var sumOfSquares: Int128

    public init(_ anomalies: [Int]) {
        count = anomalies.count
        sum = anomalies.reduce(Int128(0)) { $0 + Int128($1) }
        sumOfSquares = anomalies.reduce(Int128(0)) { $0 + Int128($1) * Int128($1) }
    }

    /// `n·Σa² − (Σa)²`, never negative (Cauchy–Schwarz).
    public var v: Int128 { Int128(count) * sumOfSquares - sum * sum }
}
