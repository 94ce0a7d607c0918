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

@testable import BreezeAgent
@testable import BreezeDaemon
import BreezeCore
import Testing

/// The call ledger alone: counts, saving, Open-Meteo's counter and pacing, time as an argument.
@Suite("CallLedger: calls per location and day, Open-Meteo's weight and pacing, when to save")
struct CallLedgerTests {
    /// 2026-06-15T10:00:00Z.
    static let t0: DaemonInstant = 1_781_517_600
    static let publicArchive = "https://archive-api.open-meteo.com/v1/archive"

    @Test func countsArePerLocationAndLocalDayAndStartAgainOnANewDay() {
        var ledger = CallLedger(
            stored: ["home.google": .init(date: "2026-06-15", calls: 4), "junk": .init(date: "x", calls: 1)],
            perMinuteOverride: nil)
        #expect(ledger.calls("home", .google, on: "2026-06-15") == 4)
        ledger.count("home", .google, on: "2026-06-15")
        ledger.count("home", .openMeteo, on: "2026-06-15")
        #expect(ledger.calls("home", .google, on: "2026-06-15") == 5)
        #expect(ledger.calls("home", .openMeteo, on: "2026-06-15") == 1)
        #expect(ledger.calls("office", .google, on: "2026-06-15") == 0)
        // Another local day: yesterday's count is not today's, and counting starts from one.
        #expect(ledger.calls("home", .google, on: "2026-06-16") == 0)
        ledger.count("home", .google, on: "2026-06-16")
        #expect(ledger.calls("home", .google, on: "2026-06-16") == 1)
        #expect(ledger.counts.count == 2)
    }

    @Test func countsAreSavedWhenForcedOrAfterTheIntervalAndOnlyWhenChanged() {
        var ledger = CallLedger(stored: [:], perMinuteOverride: nil)
        #expect(ledger.save(now: Self.t0, force: true).isEmpty)
        ledger.count("home", .google, on: "2026-06-15")
        #expect(
            ledger.save(now: Self.t0, force: false) == [.save(["home.google": .init(date: "2026-06-15", calls: 1)])])
        ledger.count("home", .google, on: "2026-06-15")
        #expect(ledger.save(now: Self.t0 + CallLedger.saveInterval - .seconds(1), force: false).isEmpty)
        #expect(ledger.save(now: Self.t0 + CallLedger.saveInterval, force: false).count == 1)
        ledger.count("home", .google, on: "2026-06-15")
        #expect(ledger.save(now: Self.t0 + CallLedger.saveInterval + .seconds(1), force: true).count == 1)
    }

    @Test func openMeteoWeightIsCountedPerSourceOnTheUTCDay() {
        var ledger = CallLedger(stored: [:], perMinuteOverride: nil)
        let climate = CallLedger.OpenMeteoRequest(
            source: "climate", endpoint: Self.publicArchive, weight: .calls(3), requests: 2)
        ledger.count(climate, now: Self.t0)
        ledger.count(climate, now: Self.t0 + 60)
        #expect(ledger.openMeteo.today(now: Self.t0) == [.init(source: "climate", requests: 4, weight: .calls(6))])
        let midnight = DaemonInstant(unixSeconds: (Self.t0.unixSeconds / 86_400 + 1) * 86_400)
        #expect(ledger.openMeteo.today(now: midnight).isEmpty)
    }

    /// The diagnostics list the four sources in their old order, and a source they do not name
    /// (issue 36's walk of a fifth source found it left out) after them, by name.
    @Test func everySourceCountedIsListedInTheFixedOrderNewOnesLast() {
        var ledger = CallLedger(stored: [:], perMinuteOverride: nil)
        for source in ["uv", "stripes", "climate", "air", "pollen", "aerosol"] {
            ledger.count(
                .init(source: source, endpoint: Self.publicArchive, weight: .calls(1), requests: 1), now: Self.t0)
        }
        #expect(
            ledger.openMeteo.today(now: Self.t0).map(\.source) == [
                "pollen", "air", "climate", "stripes", "aerosol", "uv",
            ])
    }

    @Test func pacingDefersToTheNextMinuteAndTheYearlyRequestGetsWhatTheDayLeaves() {
        var ledger = CallLedger(stored: [:], perMinuteOverride: 10)
        let request = CallLedger.OpenMeteoRequest(source: "air", endpoint: "http://127.0.0.1:1/aq", weight: .calls(6))
        // The override applies to any endpoint; the daily limit only to the public servers.
        #expect(ledger.perMinuteLimit(endpoint: request.endpoint) == .calls(10))
        #expect(ledger.perDayLimit(endpoint: request.endpoint) == nil)
        let first = ledger.pace(request, yearly: false, now: Self.t0)
        #expect(first == nil)
        let second = ledger.pace(request, yearly: false, now: Self.t0 + 10)
        #expect(second?.retry == Self.t0 + .seconds(60))
        #expect(second?.actions == [])
        let nextMinute = ledger.pace(request, yearly: false, now: Self.t0 + 60)
        #expect(nextMinute == nil)

        // Against the public archive, the stripes get what the regular load leaves of the day
        // (at least a tenth of it): here the tenth, almost used up.
        var fleet = CallLedger(stored: [:], perMinuteOverride: nil)
        fleet.regularDailyLoad = .calls(9_900)
        let stripes = CallLedger.OpenMeteoRequest(source: "stripes", endpoint: Self.publicArchive, weight: .calls(120))
        let day = OpenMeteoBudget.dailyLimit
        #expect(fleet.perDayLimit(endpoint: Self.publicArchive) == day)
        fleet.pacer.record(OpenMeteoCallWeight(units: day.units / 10 - 1), now: Self.t0)
        let held = fleet.pace(stripes, yearly: true, now: Self.t0 + 120)
        let midnight = DaemonInstant(unixSeconds: (Self.t0.unixSeconds / 86_400 + 1) * 86_400)
        #expect(held?.retry == midnight)
        #expect(held?.actions.count == 1)
        // Logged once a day; an ordinary request still fits the day.
        let again = fleet.pace(stripes, yearly: true, now: Self.t0 + 180)
        #expect(again?.retry == midnight)
        #expect(again?.actions == [])
        let ordinary = fleet.pace(stripes, yearly: false, now: Self.t0 + 240)
        #expect(ordinary == nil)
    }
}
