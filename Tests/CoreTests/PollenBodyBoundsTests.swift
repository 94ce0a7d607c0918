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

import BreezeCore
import Testing

/// Issue 50, finding 2: a pollen body (or a season call's) is bounded like the air source's,
/// 2,616 hourly times (16 forecast and 93 past days, the API's own ceiling) on at most 110
/// local dates, read in one pass; past either bound it is refused with one message, and
/// nothing of it is used or stored (docs/operations.md "Limits").
@Suite("Open-Meteo pollen: the body's bounds")
struct PollenBodyBoundsTests {
    static let refusal = "Open-Meteo air-quality response with"

    func failure(_ body: [UInt8]) -> String? {
        if case .failed(let message) = OpenMeteoPollen.interpret(httpStatus: 200, body: body) {
            return message
        }
        return nil
    }

    /// The season call (SPEC §20): 92 past days, today and three more, 2,304 hours.
    @Test func theSeasonCallsBodyIsAccepted() throws {
        let hours = (92 + 4) * 24
        let body = airQualityBody(
            times: isoHours(from: date(2026, 3, 1), count: hours), series: pollenSeries(count: hours))
        let report = try openMeteoReport(body)
        #expect(report.days.count == 96)
        #expect(report.hourly?.hours.count == hours)
        guard case .season(let season, _) = PollenSeason.interpret(httpStatus: 200, body: body) else {
            Issue.record("the season call's body is not a season")
            return
        }
        #expect(season.means.count == 96)
    }

    /// The largest body the API can send: 2,616 hours on 109 full days.
    @Test func theLargestBodyIsAccepted() throws {
        let body = airQualityBody(
            times: isoHours(from: date(2026, 1, 1), count: 2_616), series: pollenSeries(count: 2_616))
        let report = try openMeteoReport(body)
        #expect(report.days.count == 109)
        #expect(report.days.allSatisfy { $0.items.first { $0.code == "BIRCH" }?.value == 2 })
        #expect(report.warnings.isEmpty)
    }

    /// One hour more is not from the API: refused, one message naming the bound.
    @Test func oneHourMoreIsRefused() {
        let body = airQualityBody(
            times: isoHours(from: date(2026, 1, 1), count: 2_617), series: pollenSeries(count: 2_617))
        #expect(
            failure(body)
                == "\(Self.refusal) 2617 hourly times, more than the 2616 the API sends (109 days); refused"
        )
        #expect(
            PollenSeason.interpret(httpStatus: 200, body: body)
                == .failed(
                    message:
                        "\(Self.refusal) 2617 hourly times, more than the 2616 the API sends (109 days); refused"
                ))
    }

    /// 2,616 hours each on its own date (the finding's shape, within the hour bound): no API
    /// response spans more than 110 local dates, so it is refused too, not turned into 2,616
    /// days of Unknown.
    @Test func hoursOnMoreDatesThanAResponseSpansAreRefused() {
        let times = (0..<2_616).map { String(1_790_805_600 + Int64($0) * 86_400) }
        let body = airQualityBody(times: times, series: pollenSeries(count: 2_616), unix: true)
        #expect(
            failure(body)
                == "\(Self.refusal) hourly times on 2616 local dates, more than the 110 a response spans; refused"
        )
        // 110 dates (109 days of Unix hours shifted by the offset) are still a response.
        let spread = (0..<110).map { String(1_790_805_600 + Int64($0) * 86_400) }
        #expect(
            failure(airQualityBody(times: spread, series: pollenSeries(count: 110), unix: true)) == nil)
    }

    /// The finding's body itself: 340,000 Unix hours, each on its own date, 3.95 MB. Refused
    /// after one pass over the hours (it once took 37.7 s and 2 GB); bench/pollen_bounds.py
    /// measures it.
    @Test func theFindingsBodyIsRefused() {
        let times = (0..<340_000).map { String(Int64($0) * 86_400) }
        let body = airQualityBody(
            times: times, series: [("alder_pollen", [Double?](repeating: 1, count: 105_000))],
            offset: "0", unix: true)
        #expect(
            failure(body)
                == "\(Self.refusal) 340000 hourly times, more than the 2616 the API sends (109 days); refused"
        )
    }
}
