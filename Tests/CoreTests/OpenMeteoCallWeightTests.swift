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

@Suite("Open-Meteo weighted calls")
struct OpenMeteoCallWeightTests {
    /// (variables, days, weight in hundredths): API-FACTS §2.7's examples and the edges of both maxima.
    @Test(arguments: [
        (1, 1, 100), (5, 1, 100), (10, 1, 100), (11, 1, 110), (15, 1, 150), (20, 1, 200), (25, 1, 250),
        (10, 14, 100), (10, 15, 107), (10, 28, 200), (1, 28, 100), (1, 140, 100), (1, 141, 101),
        (1, 365, 261),  // "one variable over one year = 2.6 calls"
        (6, 4, 100),  // Open-Meteo pollen: six species over four days
        (0, 0, 100), (-3, -3, 100),  // a request costs at least one call
    ])
    func singleRange(variables: Int, days: Int, hundredths: Int) {
        #expect(OpenMeteoCallWeight.request(variables: variables, days: days).hundredths == hundredths)
    }

    /// The server's own formula in floating point, as an oracle over a grid.
    @Test func matchesTheServerFormula() {
        for variables in 1...40 {
            for days in [1, 2, 4, 7, 13, 14, 15, 16, 30, 92, 365, 366, 3653, 16_802] {
                let v = Double(variables) / 10
                let server = max(1, max(v, v * Double(days) / 14))
                let exact = Double(OpenMeteoCallWeight.request(variables: variables, days: days).units) / 140
                #expect(abs(server - exact) < 1e-9, "\(variables) variables, \(days) days")
            }
        }
    }

    /// The warming stripes (SPEC §9.1): one variable from 1980-01-01 to 2025-12-31 ≈ 120 calls.
    @Test func stripesRequest() {
        let days = OpenMeteoCallWeight.days(from: date(1980, 1, 1), through: date(2025, 12, 31))
        #expect(days == 16_802)
        let weight = OpenMeteoCallWeight.request(variables: 1, days: days)
        #expect(weight.units == 16_802)
        #expect(weight.description == "120.01")
        #expect(OpenMeteoCallWeight.days(from: date(2026, 3, 1), through: date(2026, 3, 1)) == 1)
        #expect(OpenMeteoCallWeight.days(from: date(2026, 3, 2), through: date(2026, 3, 1)) == 1)
    }

    /// The climate archive request: one-day ranges in one request still cost one call each.
    @Test func rangesAddUp() {
        #expect(OpenMeteoCallWeight.request(variables: 1, rangesOfDays: [1, 1, 1, 1, 1]) == .calls(5))
        #expect(OpenMeteoCallWeight.request(variables: 1, rangesOfDays: []) == .zero)
        #expect(OpenMeteoCallWeight.request(variables: 1, rangesOfDays: [1, 365]).description == "3.61")
    }

    @Test func arithmeticAndText() {
        let air = OpenMeteoCallWeight.request(variables: 5, days: 1)
        #expect(air * 24 == .calls(24))
        #expect((air + .calls(2)).description == "3.00")
        var total = OpenMeteoCallWeight.zero
        total += OpenMeteoCallWeight.request(variables: 15, days: 1)
        total += .calls(1)
        #expect(total.description == "2.50")
        #expect(OpenMeteoCallWeight.calls(10_000) > total)
        #expect(OpenMeteoCallWeight.request(variables: 1, days: 15).description == "1.00")  // 0.107 → 1
        #expect(OpenMeteoCallWeight.request(variables: 3, days: 50).description == "1.07")  // 150/140
    }

    @Test func saturatesInsteadOfTrapping() {
        #expect(OpenMeteoCallWeight.request(variables: Int.max, days: Int.max).units == Int.max)
        #expect((OpenMeteoCallWeight(units: Int.max) + .calls(1)).units == Int.max)
        #expect((OpenMeteoCallWeight(units: Int.max / 2) * 3).units == Int.max)
        #expect(OpenMeteoCallWeight.calls(Int.max).units == Int.max)
        #expect(OpenMeteoCallWeight(units: Int.max).hundredths > 0)
        #expect(OpenMeteoCallWeight.calls(2) * -1 == .zero)
    }

    @Test(arguments: [
        (3600, 24), (900, 96), (6 * 3600, 4), (7 * 3600, 4), (5 * 3600, 5), (86_400, 1), (2 * 86_400, 1),
        (86_399, 2), (60, 1440), (0, 86_400),
    ])
    func fetchesPerDay(interval: Int, count: Int) {
        #expect(OpenMeteoCallWeight.fetchesPerDay(intervalSeconds: interval) == count)
    }
}
