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

private func decode(_ text: String) throws(WarmingStripesError) -> [ClimateObservation] {
    try StripesDecoder.decode(Array(text.utf8))
}

@Suite struct StripesDecodeTests {
    /// The shape of a real archive answer (header keys as the server writes them, compact).
    static let threeDays =
        #"{"latitude":52.52,"longitude":13.419998,"generationtime_ms":0.5,"utc_offset_seconds":3600,"timezone":"Europe/Berlin","timezone_abbreviation":"GMT+1","elevation":38.0,"daily_units":{"time":"iso8601","temperature_2m_mean":"°C"},"daily":{"time":["2024-12-30","2024-12-31","2025-01-01"],"temperature_2m_mean":[-0.4,null,3.0]}}"#

    @Test func realFormat() throws {
        #expect(
            try decode(Self.threeDays) == [
                ClimateObservation(date: date(2024, 12, 30), tenthsCelsius: -4),
                ClimateObservation(date: date(2024, 12, 31), tenthsCelsius: nil),
                ClimateObservation(date: date(2025, 1, 1), tenthsCelsius: 30),
            ])
    }

    /// 46 generated years (1980–2025): every day present, the annual means as generated.
    @Test func decadesOfGeneratedData() throws {
        let warming = DailyMeanArchive.warming(base: 950, baseYear: 1980, perDecade: 30)
        let archive = DailyMeanArchive(firstYear: 1980, lastYear: 2025, meanHundredths: warming)
        let body = archive.body()
        #expect(body.hasPrefix(#"{"latitude":52.52,"longitude":13.419998,"generationtime_ms":"#))
        let observations = try decode(body)
        #expect(observations.count == 46 * 365 + 12)
        #expect(observations.first?.date == date(1980, 1, 1))
        #expect(observations.last?.date == date(2025, 12, 31))
        let tallies = WarmingStripes.tallies(observations, years: 1980...2025)
        #expect(tallies.map(\.year) == Array(1980...2025))
        #expect(tallies.first { $0.year == 2024 }?.days == 366)
        let series = try WarmingStripes.compute(tallies: tallies, firstYear: 1980, lastYear: 2025)
        // 9.50 °C in 1980, +0.30 °C a decade, truncated: 2025 is 950 + 30·45/10 = 1085.
        #expect(series.years.first?.meanHundredths == 950)
        #expect(series.years.last?.meanHundredths == 1085)
        #expect(series.years.map(\.meanHundredths) == (1980...2025).map(warming))
        // Reference: the mean of 1981–2010 (9.53 … 10.40) = 29 895 / 30 = 996.5 → 9.97.
        #expect(series.referenceHundredths == 997)
        // A warming series runs from blue to red.
        #expect(series.years.first!.bin < 3)
        #expect(series.years.last!.bin == 7)
    }

    @Test func unixTimeIsShiftedByTheOffset() throws {
        let archive = DailyMeanArchive(
            firstYear: 2023, lastYear: 2023, meanHundredths: { _ in 1000 }, timeFormat: .unixtime,
            timezone: "America/New_York", utcOffsetSeconds: -18_000, timezoneAbbreviation: "GMT-5")
        let observations = try decode(archive.body())
        #expect(observations.count == 365)
        #expect(observations.first?.date == date(2023, 1, 1))
        #expect(observations.last?.date == date(2023, 12, 31))
    }

    @Test func suffixedBestMatchIsAccepted() throws {
        let body =
            #"{"daily_units":{"time":"iso8601","temperature_2m_mean_archive_best_match":"°C"},"daily":{"time":["2024-01-01"],"temperature_2m_mean_archive_best_match":[1.5],"temperature_2m_mean_era5":[1.4]}}"#
        #expect(try decode(body) == [ClimateObservation(date: date(2024, 1, 1), tenthsCelsius: 15)])
    }

    @Test func errorBodyInEitherKeyOrder() {
        let reason = "Parameter 'start_date' is out of allowed range from 1940-01-01 to 2026-07-27"
        #expect(throws: WarmingStripesError.api(reason: reason)) {
            try decode(#"{"reason":"\#(reason)","error":true}"#)
        }
        #expect(throws: WarmingStripesError.api(reason: reason)) {
            try decode(#"{"error":true,"reason":"\#(reason)"}"#)
        }
    }

    @Test func maxInsteadOfMeanIsMissingVariable() {
        #expect(throws: WarmingStripesError.missingVariable) {
            try decode(#"{"daily":{"time":["2024-01-01"],"temperature_2m_max":[1.5]}}"#)
        }
        #expect(throws: WarmingStripesError.missingVariable) { try decode(#"{"latitude":1.0}"#) }
    }

    @Test func fahrenheitIsRejected() {
        #expect(throws: WarmingStripesError.unsupportedUnit("°F")) {
            try decode(
                #"{"daily_units":{"temperature_2m_mean":"°F"},"daily":{"time":["2024-01-01"],"temperature_2m_mean":[34.7]}}"#
            )
        }
    }

    @Test func repeatedOrBackwardDatesAreRejected() {
        #expect(throws: WarmingStripesError.datesOutOfOrder("2024-01-01")) {
            try decode(#"{"daily":{"time":["2024-01-01","2024-01-01"],"temperature_2m_mean":[1.0,1.0]}}"#)
        }
        #expect(throws: WarmingStripesError.datesOutOfOrder("2023-12-31")) {
            try decode(#"{"daily":{"time":["2024-01-01","2023-12-31"],"temperature_2m_mean":[1.0,1.0]}}"#)
        }
    }

    @Test func badShapes() {
        #expect(throws: WarmingStripesError.lengthMismatch(times: 2, values: 1)) {
            try decode(#"{"daily":{"time":["2024-01-01","2024-01-02"],"temperature_2m_mean":[1.0]}}"#)
        }
        #expect(throws: WarmingStripesError.invalidDate("2023-02-29")) {
            try decode(#"{"daily":{"time":["2023-02-29"],"temperature_2m_mean":[1.0]}}"#)
        }
        #expect(throws: WarmingStripesError.implausibleValue(1000)) {
            try decode(#"{"daily":{"time":["2024-01-01"],"temperature_2m_mean":[1000.0]}}"#)
        }
        let truncated = String(
            DailyMeanArchive(firstYear: 2020, lastYear: 2020, meanHundredths: { _ in 0 }).body()
                .dropLast(40))
        #expect {
            try decode(truncated)
        } throws: { error in
            guard case .malformed = error as? WarmingStripesError else { return false }
            return true
        }
        let streamFailure = Self.threeDays + "Unexpected error while streaming data: timeout"
        #expect {
            try decode(streamFailure)
        } throws: { error in
            guard case .malformed = error as? WarmingStripesError else { return false }
            return true
        }
    }

    @Test func tooManyDaysIsBounded() {
        let times = [String](repeating: "\"2024-01-01\"", count: StripesDecoder.maximumDays + 1)
        let values = [String](repeating: "1.0", count: StripesDecoder.maximumDays + 1)
        let body =
            #"{"daily":{"time":["# + times.joined(separator: ",") + #"],"temperature_2m_mean":["#
            + values.joined(separator: ",") + "]}}"
        #expect(throws: WarmingStripesError.tooManyDays(StripesDecoder.maximumDays + 1)) { try decode(body) }
    }

    @Test func errorsNameWhatIsWrong() {
        #expect(
            WarmingStripesError.noCompleteYear(firstYear: 1980, lastYear: 2025).description
                == "no year from 1980 to 2025 has 360 daily means in the Open-Meteo archive")
        #expect(
            WarmingStripesError.datesOutOfOrder("2024-01-01").description
                == "Open-Meteo archive response has the date 2024-01-01 out of order (dates must increase)")
        #expect(
            WarmingStripesError.missingVariable.description
                == "Open-Meteo archive response has no daily temperature_2m_mean")
    }
}

@Suite struct StripesRequestTests {
    @Test func oneArchiveRequestForEveryYear() throws {
        let query = try #require(
            StripesRequest.query(
                firstYear: 1980, lastYear: 2025, latitude: 52.52, longitude: 13.405, timeZone: "Europe/Berlin"))
        #expect(query.path == "/archive")
        #expect(
            query.parameters == [
                QueryParameter("latitude", "52.52"), QueryParameter("longitude", "13.405"),
                QueryParameter("start_date", "1980-01-01"), QueryParameter("end_date", "2025-12-31"),
                QueryParameter("daily", "temperature_2m_mean"), QueryParameter("timezone", "Europe/Berlin"),
            ])
        #expect(
            StripesRequest.query(firstYear: 2026, lastYear: 2025, latitude: 0, longitude: 0, timeZone: "UTC") == nil)
    }

    /// API-FACTS §2.7: one variable over d days weighs d / 140 calls.
    @Test func weightedCalls() {
        // 16 802 / 140 = 120.014…; 365 / 140 = 2.607…; 31 412 / 140 = 224.371…
        #expect(StripesRequest.weight(firstYear: 1980, lastYear: 2025).description == "120.01")
        #expect(StripesRequest.weight(firstYear: 2025, lastYear: 2025).description == "2.61")
        #expect(StripesRequest.weight(firstYear: 1940, lastYear: 2025).description == "224.37")
        #expect(StripesRequest.weight(firstYear: 2026, lastYear: 2025) == .zero)
    }

    @Test func lastYearCountsFromTenJanuaryPlusTheSpread() {
        #expect(StripesRequest.targetLastYear(today: date(2026, 1, 9), spread: 0) == 2024)
        #expect(StripesRequest.targetLastYear(today: date(2026, 1, 10), spread: 0) == 2025)
        #expect(StripesRequest.targetLastYear(today: date(2026, 1, 30), spread: 21) == 2024)
        #expect(StripesRequest.targetLastYear(today: date(2026, 1, 31), spread: 21) == 2025)
        #expect(StripesRequest.targetLastYear(today: date(2026, 12, 31), spread: 21) == 2025)
    }

    @Test func spreadIsStableAndCoversTheWindow() {
        let values = (0..<500).map { StripesRequest.spread(seed: "location-\($0)") }
        #expect(values.allSatisfy { (0...21).contains($0) })
        #expect(Set(values).count == 22)
        #expect(StripesRequest.spread(seed: "home") == StripesRequest.spread(seed: "home"))
    }

    @Test func dueOnlyWhenSomethingNewIsComplete() {
        let jan5 = date(2026, 1, 5)
        let jan20 = date(2026, 1, 20)
        // Nothing stored: fetch what is complete now (up to 2024 before the window, 2025 after).
        #expect(StripesRequest.isDue(stored: nil, firstYear: 1980, today: jan5, spread: 3))
        // Stored up to 2024: not before 13 January (10 + 3), then due.
        #expect(!StripesRequest.isDue(stored: 1980...2024, firstYear: 1980, today: jan5, spread: 3))
        #expect(StripesRequest.isDue(stored: 1980...2024, firstYear: 1980, today: jan20, spread: 3))
        #expect(!StripesRequest.isDue(stored: 1980...2024, firstYear: 1980, today: jan20, spread: 15))
        // Stored up to 2025: nothing until next January.
        #expect(!StripesRequest.isDue(stored: 1980...2025, firstYear: 1980, today: jan20, spread: 3))
        #expect(!StripesRequest.isDue(stored: 1980...2025, firstYear: 1980, today: date(2026, 12, 31), spread: 0))
        #expect(StripesRequest.isDue(stored: 1980...2025, firstYear: 1980, today: date(2027, 1, 10), spread: 0))
        // Another first year configured: refetch now.
        #expect(StripesRequest.isDue(stored: 1980...2025, firstYear: 1990, today: jan20, spread: 3))
        // A first year after the last complete one: nothing to ask for.
        #expect(!StripesRequest.isDue(stored: nil, firstYear: 2025, today: jan5, spread: 0))
    }
}
