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

import BreezeTestSupport
import Testing

@testable import BreezeCore

/// Runs a generated archive body through the decoder and the arithmetic, as the runtime will.
private func stripes(_ archive: DailyMeanArchive) throws -> StripesSeries {
    let observations = try StripesDecoder.decode(Array(archive.body().utf8))
    let range = archive.firstYear...archive.lastYear
    return try WarmingStripes.compute(
        tallies: WarmingStripes.tallies(observations, years: range), firstYear: archive.firstYear,
        lastYear: archive.lastYear)
}

private let blue0 = "#2166ac"
private let blue1 = "#4393c3"
private let blue2 = "#92c5de"
private let blue3 = "#d1e5f0"
private let red4 = "#fddbc7"
private let red5 = "#f4a582"
private let red6 = "#d6604d"
private let red7 = "#b2182b"

@Suite struct StripesArithmeticTests {
    @Test func paletteIsColorBrewerRdBu8ColdToWarm() {
        #expect(
            WarmingStripes.palette.map(\.description) == [blue0, blue1, blue2, blue3, red4, red5, red6, red7])
    }

    // MARK: annual means

    @Test(arguments: [
        // (days, sum of tenths) → hundredths: exact sum × 10 / days, halves away from zero.
        (360, -450, -13),  // −0.125 °C → −0.13
        (360, 450, 13),  // 0.125 °C → 0.13
        (360, -449, -12),  // −0.12472… → −0.12
        (365, 36_500, 1000),
        (366, 36_610, 1000),  // 10.0027… → 10.00
        (365, 36_520, 1001),  // 10.0054… → 10.01
        (364, -18, 0),  // −0.0049… → 0.00 (never −0.00)
    ])
    func annualMeanInHundredths(days: Int, sum: Int, hundredths: Int) throws {
        let series = try WarmingStripes.compute(
            tallies: [StripesYearTally(year: 2000, days: days, sumTenths: sum)], firstYear: 2000, lastYear: 2000)
        #expect(series.years.map(\.meanHundredths) == [hundredths])
        #expect(series.referenceHundredths == hundredths)
    }

    @Test func minusOneEighthPrintsAsMinusPointThirteen() throws {
        let series = try WarmingStripes.compute(
            tallies: [StripesYearTally(year: 2000, days: 360, sumTenths: -450)], firstYear: 2000, lastYear: 2000)
        #expect(
            StripesTopics.json(series).serialized
                == ##"{"reference":-0.13,"first_year":2000,"last_year":2000,"years":[{"year":2000,"mean_celsius":-0.13,"anomaly_celsius":0.00,"color":"#d1e5f0"}]}"##
        )
    }

    // MARK: hand-computed series

    /// All years 10.00 °C: σ = 0, every stripe `#d1e5f0`.
    @Test func flatSeriesIsAllTheMiddleBlue() throws {
        let series = try stripes(DailyMeanArchive(firstYear: 1980, lastYear: 2025, meanHundredths: { _ in 1000 }))
        #expect(series.years.count == 46)
        #expect(series.referenceHundredths == 1000)
        #expect(series.referenceIsStandardPeriod)
        #expect(series.years.allSatisfy { $0.meanHundredths == 1000 && $0.anomalyHundredths == 0 })
        #expect(Set(series.years.map(\.color.description)) == [blue3])
        #expect(series.omittedYears.isEmpty)
    }

    @Test func singleYearHasNoSpreadAndIsTheMiddleBlue() throws {
        let series = try stripes(DailyMeanArchive(firstYear: 2024, lastYear: 2024, meanHundredths: { _ in 1234 }))
        #expect(series.years == [StripesYear(year: 2024, meanHundredths: 1234, anomalyHundredths: 0, bin: 3)])
    }

    /// 1981–2010 rising 0.10 °C a year from 10.00 °C. Reference = 11.45, anomalies −1.45 … +1.45
    /// in steps of 0.10, σ = 0.10·√(899/12) ≈ 0.8655, so the edges sit at ±0.5626, ±1.1252,
    /// ±1.6878: 4 years in bin 1, 5 in 2, 6 in 3, 6 in 4, 5 in 5, 4 in 6, none in 0 or 7.
    @Test func linearTrend() throws {
        let series = try stripes(
            DailyMeanArchive(firstYear: 1981, lastYear: 2010, meanHundredths: { 1000 + 10 * ($0 - 1981) }))
        #expect(series.referenceHundredths == 1145)
        #expect(series.referenceIsStandardPeriod)
        #expect(series.years.map(\.anomalyHundredths) == Array(stride(from: -145, through: 145, by: 10)))
        let expected =
            [Int](repeating: 1, count: 4) + [Int](repeating: 2, count: 5) + [Int](repeating: 3, count: 6)
            + [Int](repeating: 4, count: 6) + [Int](repeating: 5, count: 5) + [Int](repeating: 6, count: 4)
        #expect(series.years.map(\.bin) == expected)
        let tree = StripesTopics.tree(topics: TopicLayout(prefix: "breeze").location("home"), series: series)
        // Built in steps: Swift 6.2.3 (the arm64 cross compiler) cannot type-check the one long
        // chained concatenation in reasonable time.
        var colors = [String](repeating: blue1, count: 4)
        colors += [String](repeating: blue2, count: 5)
        colors += [String](repeating: blue3, count: 6)
        colors += [String](repeating: red4, count: 6)
        colors += [String](repeating: red5, count: 5)
        colors += [String](repeating: red6, count: 4)
        #expect(tree["breeze/home/climate/stripes/colors"] == colors.joined(separator: ","))
    }

    /// 2015–2020 with 2017 missing (nulls only). Means 10.39, 9.82, 9.91, 9.93, 9.95: fewer than
    /// 20 years of 1981–2010, so the reference is the mean of all years, exactly 10.00;
    /// anomalies 39, −18, −9, −7, −5 hundredths: Σa = 0, Σa² = 2000, V = 5·2000 = 100², σ = 0.20.
    /// 2015 sits at exactly 1.95 σ: bin 7 (doubles say 6). −0.90 σ → 2; −0.45, −0.35, −0.25 σ → 3.
    @Test func missingYearAndAYearAtExactlyOnePointNineFiveSigma() throws {
        let means = [2015: 1039, 2016: 982, 2017: 1500, 2018: 991, 2019: 993, 2020: 995]
        let series = try stripes(
            DailyMeanArchive(firstYear: 2015, lastYear: 2020, meanHundredths: { means[$0]! }, nullDays: [2017: 366]))
        #expect(series.omittedYears == [2017])
        #expect(!series.referenceIsStandardPeriod)
        #expect(series.referenceHundredths == 1000)
        #expect(series.years.map(\.year) == [2015, 2016, 2018, 2019, 2020])
        #expect(series.years.map(\.anomalyHundredths) == [39, -18, -9, -7, -5])
        #expect(series.years.map(\.bin) == [7, 2, 3, 3, 3])
        // What floating point would have said for 2015 (σ = √V / n = 100 / 5 = 20 hundredths).
        let sigma = Double(100) / 5
        #expect(Int(((39.0 / sigma) + 2.6) / 0.65) == 6)

        let tree = StripesTopics.tree(topics: TopicLayout(prefix: "breeze").location("home"), series: series)
        #expect(tree.topics == ["breeze/home/climate/stripes", "breeze/home/climate/stripes/colors"])
        #expect(tree["breeze/home/climate/stripes/colors"] == "\(red7),\(blue2),\(blue3),\(blue3),\(blue3)")
        #expect(
            tree["breeze/home/climate/stripes"]
                == ##"{"reference":10.00,"first_year":2015,"last_year":2020,"years":["##
                + ##"{"year":2015,"mean_celsius":10.39,"anomaly_celsius":0.39,"color":"#b2182b"},"##
                + ##"{"year":2016,"mean_celsius":9.82,"anomaly_celsius":-0.18,"color":"#92c5de"},"##
                + ##"{"year":2018,"mean_celsius":9.91,"anomaly_celsius":-0.09,"color":"#d1e5f0"},"##
                + ##"{"year":2019,"mean_celsius":9.93,"anomaly_celsius":-0.07,"color":"#d1e5f0"},"##
                + ##"{"year":2020,"mean_celsius":9.95,"anomaly_celsius":-0.05,"color":"#d1e5f0"}]}"##)
    }

    /// 2000–2002 at 10.00, 20.00, 10.00 °C. With 359 values (6 nulls in 365 days) 2001 is left
    /// out and the rest is flat; with 360 (5 nulls) it stays: reference round(13.333…) = 13.33,
    /// anomalies −3.33, 6.67, −3.33, V = 3·666 667 − 1 = 2 000 000, σ ≈ 4.714:
    /// 6.67 / σ ≈ 1.415 → bin 6, −3.33 / σ ≈ −0.706 → bin 2.
    @Test func aYearNeedsThreeHundredSixtyValues() throws {
        let means = [2000: 1000, 2001: 2000, 2002: 1000]
        let short = try stripes(
            DailyMeanArchive(firstYear: 2000, lastYear: 2002, meanHundredths: { means[$0]! }, nullDays: [2001: 6]))
        #expect(short.omittedYears == [2001])
        #expect(short.years.map(\.year) == [2000, 2002])
        #expect(short.years.map(\.color.description) == [blue3, blue3])

        let kept = try stripes(
            DailyMeanArchive(firstYear: 2000, lastYear: 2002, meanHundredths: { means[$0]! }, nullDays: [2001: 5]))
        #expect(kept.omittedYears.isEmpty)
        #expect(kept.years.map(\.meanHundredths) == [1000, 2000, 1000])
        #expect(kept.referenceHundredths == 1333)
        #expect(kept.years.map(\.anomalyHundredths) == [-333, 667, -333])
        #expect(StripesMoments([-333, 667, -333]).v == 2_000_000)
        #expect(kept.years.map(\.color.description) == [blue2, red6, blue2])
    }

    @Test func yearAbsentFromTheResponseIsLeftOut() throws {
        let series = try stripes(
            DailyMeanArchive(firstYear: 2000, lastYear: 2003, meanHundredths: { _ in 800 }, absentYears: [2001, 2003]))
        #expect(series.years.map(\.year) == [2000, 2002])
        #expect(series.omittedYears == [2001, 2003])
        #expect(series.firstYear == 2000)
        #expect(series.lastYear == 2003)
    }

    // MARK: reference

    /// 1960–1980 at 5.00 °C and 1981–2010 at 10.00 °C: the reference is 1981–2010 only.
    @Test func referenceIsNineteenEightyOneToTwoThousandTen() throws {
        let series = try stripes(
            DailyMeanArchive(firstYear: 1960, lastYear: 2010, meanHundredths: { $0 <= 1980 ? 500 : 1000 }))
        #expect(series.referenceIsStandardPeriod)
        #expect(series.referenceHundredths == 1000)
        #expect(series.years.first?.anomalyHundredths == -500)
    }

    /// Only 19 years of 1981–2010 (1981–1999) beside 21 at 5.00 °C: the mean of all 40 years,
    /// (21·500 + 19·1000) / 40 = 737.5 → 7.38; negated, −737.5 → −7.38 (halves away from zero).
    @Test(arguments: [1, -1])
    func fewerThanTwentyReferenceYearsUseAllYears(sign: Int) throws {
        let tallies = (1960...1999).map { year in
            StripesYearTally(year: year, days: 365, sumTenths: sign * (year <= 1980 ? 18_250 : 36_500))
        }
        let series = try WarmingStripes.compute(tallies: tallies, firstYear: 1960, lastYear: 1999)
        #expect(!series.referenceIsStandardPeriod)
        #expect(series.referenceHundredths == sign * 738)
    }

    @Test func exactlyTwentyReferenceYearsAreEnough() throws {
        let tallies = (1970...2000).map { year in
            StripesYearTally(year: year, days: 365, sumTenths: year <= 1980 ? 18_250 : 36_500)
        }
        let series = try WarmingStripes.compute(tallies: tallies, firstYear: 1970, lastYear: 2000)
        #expect(series.referenceIsStandardPeriod)
        #expect(series.referenceHundredths == 1000)
    }

    @Test func talliesOutsideTheRangeAreIgnored() throws {
        let tallies = [
            StripesYearTally(year: 1999, days: 365, sumTenths: 99_999),
            StripesYearTally(year: 2000, days: 365, sumTenths: 36_500),
            StripesYearTally(year: 2001, days: 365, sumTenths: 99_999),
        ]
        let series = try WarmingStripes.compute(tallies: tallies, firstYear: 2000, lastYear: 2000)
        #expect(series.years == [StripesYear(year: 2000, meanHundredths: 1000, anomalyHundredths: 0, bin: 3)])
    }

    @Test func noCompleteYearIsAnError() {
        #expect(throws: WarmingStripesError.noCompleteYear(firstYear: 2000, lastYear: 2001)) {
            try WarmingStripes.compute(
                tallies: [StripesYearTally(year: 2000, days: 359, sumTenths: 0)], firstYear: 2000, lastYear: 2001)
        }
        #expect(throws: WarmingStripesError.noCompleteYear(firstYear: 2000, lastYear: 2001)) {
            try stripes(
                DailyMeanArchive(
                    firstYear: 2000, lastYear: 2001, meanHundredths: { _ in 0 }, nullDays: [2000: 366, 2001: 365]))
        }
    }

    // MARK: bin edges

    /// Two anomalies x and x − 40: V = 40², σ = 20 hundredths. x = 13k − 52 is exactly
    /// (0.65k − 2.6) σ, the lower edge of bin k; one hundredth less is bin k − 1.
    @Test(arguments: 1...7)
    func everyBinEdgeIsDecidedExactly(k: Int) {
        let atEdge = 13 * k - 52
        let moments = StripesMoments([atEdge, atEdge - 40])
        #expect(moments.v == 1600)
        #expect(WarmingStripes.bin(anomaly: atEdge, moments: moments) == k)
        let below = StripesMoments([atEdge - 1, atEdge - 41])
        #expect(WarmingStripes.bin(anomaly: atEdge - 1, moments: below) == k - 1)
    }

    /// One outlier among twenty zeros sits √20·21/20 ≈ 4.7 σ out: ⌊(±4.7 + 2.6) / 0.65⌋ is 11
    /// or −4, clamped to 7 and 0.
    @Test func binsAreClampedToTheRamp() {
        let warm = StripesMoments([10_000] + [Int](repeating: 0, count: 20))
        #expect(WarmingStripes.bin(anomaly: 10_000, moments: warm) == 7)
        #expect(WarmingStripes.bin(anomaly: 0, moments: warm) == 4)
        let cold = StripesMoments([-10_000] + [Int](repeating: 0, count: 20))
        #expect(WarmingStripes.bin(anomaly: -10_000, moments: cold) == 0)
        #expect(WarmingStripes.bin(anomaly: 0, moments: cold) == 4)
    }

    @Test func zeroSpreadIsTheMiddleBlue() {
        #expect(WarmingStripes.bin(anomaly: 5, moments: StripesMoments([5, 5, 5])) == WarmingStripes.flatBin)
        #expect(WarmingStripes.palette[WarmingStripes.flatBin].description == blue3)
    }

    /// Far from an edge, floating point gives the same bin: a cross-check of the squared form
    /// on 2 000 pseudo-random series (values whose double result lies within 1e-9 of an integer
    /// are skipped — those are the cases doubles cannot be trusted with).
    @Test func agreesWithFloatingPointAwayFromTheEdges() {
        var state: UInt64 = 0x9e37_79b9_7f4a_7c15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var compared = 0
        for _ in 0..<2000 {
            let anomalies = (0..<(2 + next(60))).map { _ in next(801) - 400 }
            let moments = StripesMoments(anomalies)
            guard moments.v > 0 else { continue }
            let sigma = Double(moments.v).squareRoot() / Double(anomalies.count)
            for a in anomalies {
                let x = (Double(a) / sigma + 2.6) / 0.65
                guard abs(x - x.rounded()) > 1e-9 else { continue }
                #expect(WarmingStripes.bin(anomaly: a, moments: moments) == min(7, max(0, Int(x.rounded(.down)))))
                compared += 1
            }
        }
        #expect(compared > 30_000)
    }

    /// Large inputs stay exact: the products pass `Int64.max` and 128 bits hold them.
    @Test func wideArithmeticBeyondSixtyFourBits() {
        // 400 years alternating ±199 999 hundredths (the decoder's bound is |value| < 1000 °C).
        let anomalies = (0..<400).map { $0 % 2 == 0 ? 199_999 : -199_999 }
        let moments = StripesMoments(anomalies)
        #expect(moments.v == Int128(400) * 400 * 199_999 * 199_999)
        #expect(moments.v * 39 * 39 > Int128(Int64.max))
        // a = σ exactly: (1 + 2.6) / 0.65 = 5.54 → 5.
        #expect(WarmingStripes.bin(anomaly: 199_999, moments: moments) == 5)
        #expect(WarmingStripes.bin(anomaly: -199_999, moments: moments) == 2)
    }
}
