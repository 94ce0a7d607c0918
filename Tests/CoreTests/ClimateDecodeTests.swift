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

import Foundation
import Testing

@testable import BreezeCore

private func decode(_ text: String) throws(ClimateDecodeError) -> [ClimateObservation] {
    try OpenMeteoDailyDecoder.decode(Array(text.utf8))
}

@Suite struct ClimateDecodeTests {
    // Real compact bodies quoted in public code (fixtures/open-meteo/observed-snippets.md).
    static let forecastGalicia =
        #"{"latitude":42.5625,"longitude":-8.8125,"generationtime_ms":0.033020973205566406,"utc_offset_seconds":0,"timezone":"GMT","timezone_abbreviation":"GMT","elevation":2.0,"daily_units":{"time":"iso8601","temperature_2m_max":"°C"},"daily":{"time":["2024-11-09"],"temperature_2m_max":[20.6]}}"#
    static let forecastUtrecht =
        #"{"latitude":52.1,"longitude":5.1199994,"generationtime_ms":0.6630420684814453,"utc_offset_seconds":7200,"timezone":"Europe/Amsterdam","timezone_abbreviation":"CEST","elevation":10.0,"daily_units":{"time":"iso8601","temperature_2m_max":"°C"},"daily":{"time":["2023-09-13"],"temperature_2m_max":[19.6]}}"#
    static let fahrenheit =
        #"{"latitude":33.993935,"longitude":-81.068756,"generationtime_ms":0.9579658508300781,"utc_offset_seconds":-14400,"timezone":"America/New_York","timezone_abbreviation":"EDT","elevation":85.0,"daily_units":{"time":"iso8601","weathercode":"wmo code","temperature_2m_max":"°F"},"daily":{"time":["2023-03-28","2023-03-29"],"weathercode":[45,3],"temperature_2m_max":[74.5,59.1]}}"#
    static let missingDay =
        #"{"daily": {"time": ["2026-08-30"], "temperature_2m_max": [null], "temperature_2m_min": [null]}}"#

    @Test func realForecastBodies() throws {
        #expect(try decode(Self.forecastGalicia) == [ClimateObservation(date: date(2024, 11, 9), tenthsCelsius: 206)])
        #expect(try decode(Self.forecastUtrecht) == [ClimateObservation(date: date(2023, 9, 13), tenthsCelsius: 196)])
    }

    @Test func nullIsAMissingValueNotAnError() throws {
        #expect(try decode(Self.missingDay) == [ClimateObservation(date: date(2026, 8, 30), tenthsCelsius: nil)])
    }

    @Test func fahrenheitIsRejected() {
        #expect(throws: ClimateDecodeError.unsupportedUnit("°F")) { try decode(Self.fahrenheit) }
    }

    @Test func arrayOfDateRanges() throws {
        let body = """
            [{"latitude":52.52,"longitude":13.419998,"utc_offset_seconds":3600,"timezone":"Europe/Berlin","daily_units":{"time":"iso8601","temperature_2m_max":"°C"},"daily":{"time":["1980-01-05"],"temperature_2m_max":[-0.4]}},
             {"latitude":52.52,"longitude":13.419998,"utc_offset_seconds":3600,"timezone":"Europe/Berlin","daily_units":{"time":"iso8601","temperature_2m_max":"°C"},"daily":{"time":["2000-01-05"],"temperature_2m_max":[null]}},
             {"latitude":52.52,"longitude":13.419998,"utc_offset_seconds":3600,"timezone":"Europe/Berlin","daily_units":{"time":"iso8601","temperature_2m_max":"°C"},"daily":{"time":["2020-01-05"],"temperature_2m_max":[-12.3]}}]
            """
        #expect(
            try decode(body) == [
                ClimateObservation(date: date(1980, 1, 5), tenthsCelsius: -4),
                ClimateObservation(date: date(2000, 1, 5), tenthsCelsius: nil),
                ClimateObservation(date: date(2020, 1, 5), tenthsCelsius: -123),
            ])
    }

    @Test func unixTimeIsLocalMidnight() throws {
        // Pacific/Kiritimati (+14): local midnight of 2026-12-01 is 2026-11-30T10:00Z = 1_796_032_800.
        let body =
            #"{"utc_offset_seconds":50400,"daily_units":{"time":"unixtime","temperature_2m_max":"°C"},"daily":{"time":[1796032800,1796119200],"temperature_2m_max":[30.1,29.9]}}"#
        #expect(
            try decode(body) == [
                ClimateObservation(date: date(2026, 12, 1), tenthsCelsius: 301),
                ClimateObservation(date: date(2026, 12, 2), tenthsCelsius: 299),
            ])
        // Pago Pago (−11): local midnight of 2026-11-30 is 2026-11-30T11:00Z = 1_796_036_400.
        let west = #"{"utc_offset_seconds":-39600,"daily":{"time":[1796036400],"temperature_2m_max":[28.0]}}"#
        #expect(try decode(west) == [ClimateObservation(date: date(2026, 11, 30), tenthsCelsius: 280)])
    }

    @Test(arguments: [
        #"{"error":true,"reason":"Parameter 'end_date' is out of allowed range from 1940-01-01 to 2026-09-29"}"#,
        #"{"reason":"Parameter 'end_date' is out of allowed range from 1940-01-01 to 2026-09-29","error":true}"#,
        #"[{"reason":"Parameter 'end_date' is out of allowed range from 1940-01-01 to 2026-09-29","error":true}]"#,
    ])
    func errorBodyInAnyKeyOrder(_ body: String) {
        #expect(
            throws: ClimateDecodeError.api(
                reason: "Parameter 'end_date' is out of allowed range from 1940-01-01 to 2026-09-29")
        ) {
            try decode(body)
        }
    }

    @Test func everyTenthFromMinus50To50DecodesExactly() throws {
        for tenths in -500...500 {
            let literal = FixedPoint.format(tenths, scale: 1)
            let body = #"{"daily":{"time":["2026-01-01"],"temperature_2m_max":["# + literal + "]}}"
            #expect(try decode(body).first?.tenthsCelsius == tenths, "\(literal)")
        }
        // Integers and exponent forms are numbers too.
        #expect(try decode(#"{"daily":{"time":["2026-01-01"],"temperature_2m_max":[20]}}"#).first?.tenthsCelsius == 200)
        #expect(
            try decode(#"{"daily":{"time":["2026-01-01"],"temperature_2m_max":[1.96e1]}}"#).first?.tenthsCelsius == 196)
    }

    @Test func malformedBodies() {
        let streamed = String(Self.forecastUtrecht.dropLast(20)) + "Unexpected error while streaming data: timeout"
        for body in [streamed, "", "null", "[1,2]", #"{"latitude":nan,"longitude":nan}"#, "<html>502</html>"] {
            #expect(throws: ClimateDecodeError.self, "\(body)") { try decode(body) }
        }
        #expect(throws: ClimateDecodeError.missingVariable) { try decode(#"{"latitude":1.0,"longitude":2.0}"#) }
        #expect(throws: ClimateDecodeError.lengthMismatch(times: 2, values: 1)) {
            try decode(#"{"daily":{"time":["2026-01-01","2026-01-02"],"temperature_2m_max":[1.0]}}"#)
        }
        #expect(throws: ClimateDecodeError.invalidDate("2026-1-01")) {
            try decode(#"{"daily":{"time":["2026-1-01"],"temperature_2m_max":[1.0]}}"#)
        }
        #expect(throws: ClimateDecodeError.implausibleValue(12345.0)) {
            try decode(#"{"daily":{"time":["2026-01-01"],"temperature_2m_max":[12345.0]}}"#)
        }
    }

    @Test func errorMessagesSayWhatHappened() {
        #expect(ClimateDecodeError.api(reason: "No data").description == "Open-Meteo error: No data")
        #expect(ClimateDecodeError.unsupportedUnit("°F").description.contains("expected °C"))
    }

    // Copies of ../shared/fixtures/open-meteo kept in the repo, so CI needs nothing beside it.
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path + "/Fixtures/open-meteo/"

    @Test func sharedFixtureFiles() throws {
        func load(_ name: String) throws -> [UInt8] {
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.fixtures + name)))
        }
        // Several models: the default model's series is used.
        #expect(
            try OpenMeteoDailyDecoder.decode(load("frenck-python-open-meteo__historical_weather_models.json"))
                == [ClimateObservation(date: date(2024, 1, 1), tenthsCelsius: 80)])
        // Daily without temperature_2m_max, and no daily at all.
        #expect(throws: ClimateDecodeError.missingVariable) {
            try OpenMeteoDailyDecoder.decode(load("frenck-python-open-meteo__historical_weather.json"))
        }
        #expect(throws: ClimateDecodeError.missingVariable) {
            try OpenMeteoDailyDecoder.decode(load("frenck-python-open-meteo__forecast_minimal.json"))
        }
        #expect(throws: ClimateDecodeError.self) {
            try OpenMeteoDailyDecoder.decode(load("frenck-python-open-meteo__satellite_radiation_not_covered.txt"))
        }
        #expect(throws: ClimateDecodeError.missingVariable) {
            try OpenMeteoDailyDecoder.decode(
                load("open-meteo-server__OutputformatTests_multilocation_json_synthetic.json"))
        }
    }
}
