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

@testable import BreezeCore
import Testing

/// Open-Meteo's air-quality endpoint has two callers, the pollen source and the air source, and
/// one decoder (``OpenMeteoAirQualityResponse``). What each makes of a malformed body differs
/// on purpose and is pinned here: pollen takes a body without an `hourly` block as "no pollen
/// here" (outside Europe) and fails a malformed one; air fails both.
@Suite("One decoder of Open-Meteo's air-quality bodies, each caller's verdict on a malformed one")
struct OpenMeteoAirQualityResponseTests {
    static func pollen(_ body: String) -> PollenOutcome {
        OpenMeteoPollen.interpret(httpStatus: 200, body: Array(body.utf8))
    }

    static func air(_ body: String) -> AirOutcome {
        AirQualityDecoder.interpret(httpStatus: 200, body: Array(body.utf8))
    }

    static let withoutHourlyTimes = AirOutcome.failed(message: "Open-Meteo air-quality response without hourly times")
    static let invalid = "invalid Open-Meteo air-quality response: "

    static func failed(_ outcome: PollenOutcome) -> String? {
        if case .failed(let message) = outcome { return message }
        return nil
    }

    static func failed(_ outcome: AirOutcome) -> String? {
        if case .failed(let message) = outcome { return message }
        return nil
    }

    @Test("no hourly block: pollen says unsupported (no data here), air fails")
    func noHourlyBlock() {
        let body = #"{"latitude": 52.5, "utc_offset_seconds": 7200}"#
        #expect(
            Self.pollen(body)
                == .unsupportedLocation(message: "Open-Meteo has no pollen for this location (all values null)"))
        #expect(Self.air(body) == Self.withoutHourlyTimes)
    }

    @Test(
        "an hourly block that is not one, or times that are not times: pollen fails as invalid, air as without times",
        arguments: [
            #"{"hourly": 5}"#, #"{"hourly": null}"#, #"{"hourly": []}"#, #"{"hourly": {"grass_pollen": [1]}}"#,
            #"{"hourly": {"time": "2026-06-15T00:00", "grass_pollen": [1]}}"#,
            #"{"hourly": {"time": [true], "european_aqi": [1]}}"#,
        ])
    func malformedHourlyBlock(body: String) {
        let pollen = Self.failed(Self.pollen(body))
        #expect(pollen?.hasPrefix(Self.invalid) == true, "\(String(describing: pollen))")
        #expect(Self.air(body) == Self.withoutHourlyTimes)
    }

    @Test("not a JSON object: both fail as invalid, with the same message", arguments: ["[1, 2]", "\"x\"", "{"])
    func notAnObject(body: String) {
        let pollen = Self.failed(Self.pollen(body))
        #expect(pollen?.hasPrefix(Self.invalid) == true)
        #expect(Self.failed(Self.air(body)) == pollen)
    }

    @Test("a series that is not numbers counts as absent for both; the other series still count")
    func unreadableSeries() throws {
        let times = (0..<24).map { "\"2026-06-15T\($0 < 10 ? "0" : "")\($0):00\"" }.joined(separator: ",")
        let ones = Array(repeating: "3", count: 24).joined(separator: ",")
        let body = """
            {"utc_offset_seconds": 7200, "hourly": {"time": [\(times)], "grass_pollen": [\(ones)],
             "birch_pollen": "many", "european_aqi": [\(ones)], "pm10": {"a": 1}}}
            """
        guard case .report(let pollen) = Self.pollen(body) else {
            Issue.record("pollen: \(Self.pollen(body))")
            return
        }
        #expect(!pollen.days.isEmpty)
        guard case .report(let air) = Self.air(body) else {
            Issue.record("air: \(Self.air(body))")
            return
        }
        #expect(air.hours.count == 24)
        #expect(air.hours[0].tenths[.europeanAQI] == 30)
        #expect(air.hours[0].tenths[.pm10] == nil)
    }
}
