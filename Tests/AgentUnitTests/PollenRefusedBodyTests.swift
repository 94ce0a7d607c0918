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
@testable import BreezeConfig
import BreezeCore
import BreezeHTTP
import Testing

/// Issue 50, finding 2: a key-free pollen body the decoder refuses (more hours than the API
/// sends) is a failed fetch — nothing of it is stored as the last good response, so a restart
/// never decodes it again, and the last good data stays (stale later, as for any failure).
@Suite("DaemonState: a refused pollen body is never stored")
struct PollenRefusedBodyTests {
    typealias T = DaemonStateTests
    typealias S = DaemonPollenSeasonTests

    /// The demo's real-format body with 106 past days: 110 days, 2,640 hours, 24 more than the
    /// 2,616 the API sends.
    static let oversized = DemoResponder.airQuality(
        start: S.today.adding(days: -106), past: 106, timezone: "UTC")

    @Test func theRefusedBodyIsAFailureWithoutABody() {
        let result = PollenFetch.interpret(
            FetchedResponse(status: 200, body: Array(Self.oversized.utf8)), source: .openMeteo,
            fetchedAt: DaemonInstant(unixSeconds: T.t0))
        // A failure carries no body to store (the type has none); what is stored is checked below.
        guard case .failure(let message, _) = result else {
            Issue.record("not refused: \(result)")
            return
        }
        #expect(message.hasSuffix("2640 hourly times, more than the 2616 the API sends (109 days); refused"))
    }

    @Test func aRefusedSeasonCallStoresNothingAndKeepsTheLastGoodData() throws {
        var (state, _) = T.started(try T.config("climate: {enabled: false}", pollen: "source: open-meteo"))
        let good = state.handle(.fetched(T.pollenKey, S.seasonFetched(T.t0 + 7)), at: T.at(T.t0 + 7))
        #expect(S.stores(good) == [PollenSource.openMeteo.storeName, PollenRules.seasonStoreName])

        // The next day's season call answers with the oversized body.
        let now = T.t0 + 86_400
        let refused = state.handle(.fetched(T.pollenKey, S.seasonFetched(now, body: Self.oversized)), at: T.at(now))
        #expect(S.stores(refused).isEmpty)
        guard case .report(let report, let fetchedAt) = state.locations[0].slots.pollen.data else {
            Issue.record("the last good report is gone")
            return
        }
        #expect(fetchedAt == DaemonInstant(unixSeconds: T.t0 + 7))
        #expect(report.days.first?.date == S.today)
    }
}
