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

/// The one-pass reader of the usual Open-Meteo daily shape (OpenMeteoDailyScan.swift): where it
/// answers, the same observations as `JSONDecoder`; everything else goes to `JSONDecoder`, so
/// results and errors of ``OpenMeteoDailyDecoder/decode(_:variable:)`` do not change.
@Suite struct OpenMeteoDailyScanTests {
    static let mean = "temperature_2m_mean"
    static let max = "temperature_2m_max"

    private func scan(_ body: String, _ variable: String = Self.mean) -> [ClimateObservation]? {
        OpenMeteoDailyScan.decode(Array(body.utf8), variable: variable)
    }

    private func general(_ body: String, _ variable: String = Self.mean) -> Result<
        [ClimateObservation], ClimateDecodeError
    > {
        Result { () throws(ClimateDecodeError) in
            try OpenMeteoDailyDecoder.decodeGenerally(Array(body.utf8), variable: variable)
        }
    }

    private func decoded(_ body: String, _ variable: String = Self.mean) -> Result<
        [ClimateObservation], ClimateDecodeError
    > {
        Result { () throws(ClimateDecodeError) in
            try OpenMeteoDailyDecoder.decode(Array(body.utf8), variable: variable)
        }
    }

    private static func daily(_ times: String, _ values: String, units: String = #""°C""#) -> String {
        #"{"latitude":52.52,"longitude":13.419998,"generationtime_ms":0.5,"utc_offset_seconds":3600,"timezone":"Europe/Berlin","timezone_abbreviation":"GMT+1","elevation":38.0,"daily_units":{"time":"iso8601","temperature_2m_mean":"#
            + units + #"},"daily":{"time":["# + times + "],\"temperature_2m_mean\":[" + values + "]}}"
    }

    @Test func usualShapeIsReadInOnePassWithNullsLeapDayAndSigns() throws {
        let body = Self.daily(
            #""2024-02-28","2024-02-29","2024-03-01","2024-03-02","2024-03-03","2024-03-04","2024-03-05""#,
            "-0.4,null,0,-0.0,999.9,-999.9,12")
        let fast = try #require(scan(body))
        #expect(
            fast == [
                ClimateObservation(date: date(2024, 2, 28), tenthsCelsius: -4),
                ClimateObservation(date: date(2024, 2, 29), tenthsCelsius: nil),
                ClimateObservation(date: date(2024, 3, 1), tenthsCelsius: 0),
                ClimateObservation(date: date(2024, 3, 2), tenthsCelsius: 0),
                ClimateObservation(date: date(2024, 3, 3), tenthsCelsius: 9999),
                ClimateObservation(date: date(2024, 3, 4), tenthsCelsius: -9999),
                ClimateObservation(date: date(2024, 3, 5), tenthsCelsius: 120),
            ])
        #expect(general(body) == .success(fast))
    }

    @Test func everyTenthFromMinus100To100MatchesJSONDecoder() throws {
        let values = (-1000...1000).map { FixedPoint.format($0, scale: 1) }
        let start = CivilDate(year: 2020, month: 1, day: 1)!
        let times = (0..<values.count).map { "\"\(start.adding(days: $0))\"" }
        let body = Self.daily(times.joined(separator: ","), values.joined(separator: ","))
        let fast = try #require(scan(body))
        #expect(fast.map(\.tenthsCelsius) == (-1000...1000).map { $0 })
        #expect(general(body) == .success(fast))
    }

    @Test func generatedDecadesMatchJSONDecoder() throws {
        let archive = DailyMeanArchive(
            firstYear: 1940, lastYear: 2025, meanHundredths: DailyMeanArchive.warming(), nullDays: [2025: 40])
        let body = archive.body()
        let fast = try #require(scan(body))
        #expect(fast.count == (1940...2025).map(DailyMeanArchive.daysIn(year:)).reduce(0, +))
        #expect(general(body) == .success(fast))
    }

    @Test func arrayOfRangesAndWhitespace() throws {
        let one =
            #"{"daily_units":{"temperature_2m_max":"°C"},"#
            + #""daily":{"time":["1980-01-05"],"temperature_2m_max":[-0.4]}}"#
        let two =
            #"{ "utc_offset_seconds" : null , "#
            + #""daily" : { "time" : [ "2000-01-05" ] , "temperature_2m_max" : [ null ] } }"#
        let body = "\n[ " + one + " ,\r\n\t" + two + " ]\n"
        let fast = try #require(scan(body, Self.max))
        #expect(
            fast == [
                ClimateObservation(date: date(1980, 1, 5), tenthsCelsius: -4),
                ClimateObservation(date: date(2000, 1, 5), tenthsCelsius: nil),
            ])
        #expect(general(body, Self.max) == .success(fast))
    }

    /// Shapes the scan does not vouch for: nil, and the decoder's answer is JSONDecoder's —
    /// accepted ones and errors alike.
    @Test(arguments: [
        // Accepted by JSONDecoder, not by the scan.
        daily(#""2024-01-01""#, "1.96e1"),
        daily(#""2024-01-01""#, "19.60"),
        #"{"utc_offset_seconds":3600,"daily":{"time":[1704063600],"temperature_2m_mean":[1.5]}}"#,
        #"{"daily":{"time":["2024-01-01"],"temperature_2m_mean_era5_best_match":[1.5]}}"#,
        #"{"timezone":"Europe\/Berlin","daily":{"time":["2024-01-01"],"temperature_2m_mean":[1.5]}}"#,
        #"{"error":false,"daily":{"time":["2024-01-01"],"temperature_2m_mean":[1.5]}}"#,
        #"{"daily":{"time":[],"temperature_2m_mean":[]}}"#,
        "[]",
        // Errors: each must stay JSONDecoder's.
        #"{"error":true,"reason":"Parameter 'end_date' is out of allowed range"}"#,
        daily(#""2023-02-29""#, "1.0"),
        daily(#""2024-1-01""#, "1.0"),
        daily(#""2024-+1-01""#, "1.0"),
        daily(#""2024-01-01","2024-01-02""#, "1.0"),
        daily(#""2024-01-01""#, "1000.0"),
        daily(#""2024-01-01""#, "-1000"),
        // Found by `make fuzz`: long digit runs overflowed the scan's accumulator (a trap).
        daily(#""2024-01-01""#, String(repeating: "1", count: 110) + "59.1"),
        daily(#""2024-01-01""#, "-" + String(repeating: "9", count: 40)),
        daily(#""2024-01-01""#, "01.0"),
        daily(#""2024-01-01""#, "1."),
        daily(#""2024-01-01""#, ".5"),
        daily(#""2024-01-01""#, "\"1.0\""),
        daily(#""2024-01-01""#, "1.0", units: #""°F""#),
        daily(#""2024-01-01""#, "1.0", units: "5"),
        #"{"daily":{"time":["2024-01-01"],"temperature_2m_mean":[1.0],"time":["2024-01-02"]}}"#,
        #"{"daily":{"time":["2024-01-01"]},"daily":{"time":["2024-01-01"],"temperature_2m_mean":[1.0]}}"#,
        #"{"utc_offset_seconds":"3600","daily":{"time":["2024-01-01"],"temperature_2m_mean":[1.0]}}"#,
        #"{"utc_offset_seconds":3600.5,"daily":{"time":["2024-01-01"],"temperature_2m_mean":[1.0]}}"#,
        #"{"daily":{"time":["2024-01-01"],"temperature_2m_max":[1.0]}}"#,
        #"{"daily":null}"#,
        #"{"latitude":nan,"daily":{"time":["2024-01-01"],"temperature_2m_mean":[1.0]}}"#,
        #"{"x":[01],"daily":{"time":["2024-01-01"],"temperature_2m_mean":[1.0]}}"#,
        daily(#""2024-01-01""#, "1.0") + "x",
        String(daily(#""2024-01-01""#, "1.0").dropLast(3)),
        "\u{FEFF}" + daily(#""2024-01-01""#, "1.0"),
        "", "null", "[1,2]", "<html>502</html>",
        String(repeating: "[", count: 40) + daily(#""2024-01-01""#, "1.0") + String(repeating: "]", count: 40),
    ])
    func otherShapesGoTheGeneralWay(_ body: String) {
        #expect(scan(body) == nil, "\(body)")
        #expect(decoded(body) == general(body), "\(body)")
    }

    /// Bytes changed, dropped or inserted at every position of a small real-shaped body: wherever
    /// the scan answers, JSONDecoder answers the same; the decoder's result equals JSONDecoder's.
    @Test func mutationsAgreeWithJSONDecoder() {
        let body = Array(Self.daily(#""2024-02-28","2024-02-29","2024-03-01""#, "-0.4,null,12.5").utf8)
        let replacements: [UInt8] = Array(#"0 9-.,:"[]{}\ne"#.utf8) + [0x00, 0xC3, 0xFF]
        var mutants: [[UInt8]] = []
        for i in body.indices {
            var dropped = body
            dropped.remove(at: i)
            mutants.append(dropped)
            for byte in replacements where byte != body[i] {
                var changed = body
                changed[i] = byte
                mutants.append(changed)
            }
            var inserted = body
            inserted.insert(UInt8(ascii: "1"), at: i)
            mutants.append(inserted)
        }
        var answered = 0
        for mutant in mutants {
            let slow = Result { () throws(ClimateDecodeError) in
                try OpenMeteoDailyDecoder.decodeGenerally(mutant, variable: Self.mean)
            }
            if let fast = OpenMeteoDailyScan.decode(mutant, variable: Self.mean) {
                answered += 1
                #expect(slow == .success(fast), "\(String(decoding: mutant, as: UTF8.self))")
            }
            let both = Result { () throws(ClimateDecodeError) in
                try OpenMeteoDailyDecoder.decode(mutant, variable: Self.mean)
            }
            #expect(both == slow, "\(String(decoding: mutant, as: UTF8.self))")
        }
        // Some mutants are still the usual shape (another digit, a space): the scan answered those.
        #expect(answered > 50)
    }

    @Test func civilDateISOFastPathMatchesTheGeneralReading() {
        #expect(CivilDate(iso: "2024-02-29") == date(2024, 2, 29))
        #expect(CivilDate(iso: "2023-02-29") == nil)
        #expect(CivilDate(iso: "0000-01-01") == CivilDate(year: 0, month: 1, day: 1))
        for text in ["2024-1-01", "2024-01-1", "2024/01/01", "2024-13-01", "2024-00-10", "20240101", "2024-01-010", ""]
        {
            #expect(CivilDate(iso: text) == nil, "\(text)")
        }
        // The general reading accepts what Int() accepts in a two-character field.
        #expect(CivilDate(iso: "2024-+1-01") == date(2024, 1, 1))
        #expect(CivilDate(iso: "2024-01-01"[...]) == date(2024, 1, 1))
    }
}
