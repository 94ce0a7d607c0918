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

/// Today against the recent season (SPEC §20) in the daemon: the day's first key-free pollen
/// call carries `past_days=92`; its standing is published beside the pollen tree, stored on its
/// own and read back at start; the other calls of the day are plain.
@Suite("DaemonState: the pollen season call")
struct DaemonPollenSeasonTests {
    typealias T = DaemonStateTests

    static let today = CivilDate(year: 2026, month: 6, day: 15)!

    /// The demo's real-format body for a season call made on `today` (92 past days, 4 days).
    static let seasonBody = DemoResponder.airQuality(
        start: today.adding(days: -PollenSeason.pastDays), past: PollenSeason.pastDays, timezone: "UTC")

    static func seasonFetched(_ now: Int64, body: String = seasonBody) -> FetchOutcome {
        let result = PollenFetch.interpret(
            FetchedResponse(status: 200, body: Array(body.utf8)), source: .openMeteo,
            fetchedAt: DaemonInstant(unixSeconds: now), season: true)
        guard case .answer(let answer) = result else { return .failure(.pollen, message: "no season body") }
        return .answer(.pollen, answer)
    }

    static func request(_ state: inout DaemonState, now: Int64) -> (source: PollenSource, season: Bool)? {
        guard let request = state.begin(T.pollenKey, now: DaemonInstant(unixSeconds: now)).0?.detail as? PollenRequest
        else { return nil }
        return (request.source, request.season)
    }

    static func stores(_ actions: [DaemonAction]) -> [String] {
        actions.compactMap { if case .store(.response(_, _, let source)) = $0 { source } else { nil } }
    }

    @Test func theFirstCallOfTheDayCarriesTheSeasonAndItsTopicsArePublished() throws {
        var (state, start) = T.started(try T.config("climate: {enabled: false}", pollen: "source: open-meteo"))
        guard case .fetch(_, let request)? = start.first(where: { $0.isFetch }),
            let pollen = request.detail as? PollenRequest, pollen.source == .openMeteo
        else {
            Issue.record("no pollen fetch at start")
            return
        }
        #expect(pollen.season)
        let now = T.t0 + 7
        let actions = state.handle(.fetched(T.pollenKey, Self.seasonFetched(now)), at: T.at(now))
        #expect(Self.stores(actions) == [PollenSource.openMeteo.storeName, PollenRules.seasonStoreName])
        #expect(state.locations[0].season?.today == Self.today)

        // The pollen topics keep today and the forecast days only (the 92 past days are gone).
        guard case .report(let report, _) = state.locations[0].slots.pollen.data else {
            Issue.record("no pollen report")
            return
        }
        #expect(report.days.map(\.date) == (0..<4).map { Self.today.adding(days: $0) })
        #expect(report.hourly?.hours.count == 96)

        // The standing, as the core reads the same body on its own (PollenSeason.interpret).
        guard
            case .season(let seasonOfBody, _) = PollenSeason.interpret(
                httpStatus: 200, body: Array(Self.seasonBody.utf8))
        else {
            Issue.record("the demo body is not a season")
            return
        }
        let tree = try #require(DaemonHourlyPollenTests.pollenTree(actions))
        let birch = seasonOfBody.percentile(of: "birch", today: Self.today)
        #expect(tree["breeze/home/pollen/birch/percentile"] == birch.payload)
        guard case .percent(let percent) = birch else {
            Issue.record("birch: \(birch)")
            return
        }
        #expect((1...100).contains(percent))
        // Birch at 70–79 % of today's 19.2 grains for the last 10 days, 80 % on the 11th, 48 %
        // (9.2 < 10) on the 12th before today: in season since 2026-06-04.
        #expect(tree["breeze/home/pollen/birch/season_start"] == "2026-06-04")
        #expect(tree["breeze/home/pollen/tree/season_start"] == "2026-06-04")
        // Grass at 1.5 grains stays under its onset of 3: no start.
        #expect(tree["breeze/home/pollen/grass/season_start"] == "")
        #expect(tree["breeze/home/pollen/grass/percentile"]?.isEmpty == false)
    }

    @Test func theOtherCallsOfTheDayArePlainAndTheNextDaysFirstCarriesItAgain() throws {
        var (state, _) = T.started(try T.config("climate: {enabled: false}", pollen: "source: open-meteo"))
        let key = T.pollenKey
        _ = state.handle(.fetched(key, Self.seasonFetched(T.t0 + 7)), at: T.at(T.t0 + 7))
        // 13:59 UTC the same day: plain, weighing 1 call.
        #expect(Self.request(&state, now: T.t0 + 4 * 3600 - 60)! == (.openMeteo, false))
        #expect(
            PollenRules.openMeteoWeight(state.source(T.pollenKey), now: DaemonInstant(unixSeconds: T.t0 + 4 * 3600))?
                .weight
                == OpenMeteoBudget.pollenRequest)
        // 00:00 UTC the next day: the season again (4.11 calls).
        let midnight = T.t0 + 14 * 3600
        #expect(
            PollenRules.openMeteoWeight(state.source(T.pollenKey), now: DaemonInstant(unixSeconds: midnight))?.weight
                == PollenSeason.callWeight)
        #expect(Self.request(&state, now: midnight)! == (.openMeteo, true))
    }

    @Test func aRestartReadsTheSeasonBackAndAStoredSeasonBodyServesThePollenTopicsWithoutItsPast() throws {
        var state = T.machine(try T.config("climate: {enabled: false}", pollen: "source: open-meteo"))
        #expect(
            state.storedResponseNames(0).map(\.name) == [PollenSource.openMeteo.storeName, PollenRules.seasonStoreName])
        let stored = StoredResponse(fetchedAt: DaemonInstant(unixSeconds: T.t0 - 600), body: Self.seasonBody)
        let actions = state.handle(
            .restored(
                location: 0,
                [
                    RestoredResponse(kind: .pollen, name: PollenSource.openMeteo.storeName, response: stored),
                    RestoredResponse(kind: .pollen, name: PollenRules.seasonStoreName, response: stored),
                ]),
            at: T.at(T.t0))
        #expect(T.logs(actions, .warning).isEmpty)
        #expect(state.locations[0].season?.today == Self.today)
        guard case .report(let report, _) = state.locations[0].slots.pollen.data else {
            Issue.record("no pollen report")
            return
        }
        #expect(report.days.count == 4)
        // Today's season is there: the next call of the day is plain.
        #expect(Self.request(&state, now: T.t0)! == (.openMeteo, false))

        // A stored season that is not a body: one warning, nothing restored.
        var broken = T.machine(try T.config("climate: {enabled: false}", pollen: "source: open-meteo"))
        let bad = broken.handle(
            .restored(
                location: 0,
                [
                    RestoredResponse(
                        kind: .pollen, name: PollenRules.seasonStoreName,
                        response: .init(fetchedAt: DaemonInstant(unixSeconds: T.t0), body: "{"))
                ]),
            at: T.at(T.t0))
        #expect(T.logs(bad, .warning) == ["pollen[home]: stored season response is not usable; ignoring it"])
        #expect(broken.locations[0].season == nil)
    }

    @Test func noPollenHereClearsTheSeasonAndItsStoredBodyAndAsksWithoutIt() throws {
        var (state, _) = T.started(try T.config("climate: {enabled: false}", pollen: "source: open-meteo"))
        _ = state.handle(.fetched(T.pollenKey, Self.seasonFetched(T.t0 + 7)), at: T.at(T.t0 + 7))
        let outside = FetchOutcome.answer(
            .pollen,
            PollenAnswer(
                source: .openMeteo, outcome: .unsupported(message: "HTTP 400: No data is available"),
                fetchedAt: DaemonInstant(unixSeconds: T.t0 + 86_400), season: true))
        let actions = state.handle(.fetched(T.pollenKey, outside), at: T.at(T.t0 + 86_400))
        let removed = actions.compactMap { if case .store(.removeResponse(_, let source)) = $0 { source } else { nil } }
        #expect(removed == [PollenSource.openMeteo.storeName, PollenRules.seasonStoreName])
        #expect(state.locations[0].season == nil)
        // A location without pollen is not asked for 92 days of it.
        #expect(Self.request(&state, now: T.t0 + 2 * 86_400)! == (.openMeteo, false))
    }

    @Test func googleLocationsNeverAskForTheSeason() throws {
        var (state, _) = T.started(try T.config("climate: {enabled: false}"))
        #expect(Self.request(&state, now: T.t0 + 7)! == (.google, false))
        #expect(
            PollenRules.openMeteoWeight(state.source(T.pollenKey), now: DaemonInstant(unixSeconds: T.t0 + 7)) == nil)
        #expect(state.storedResponseNames(0).map(\.name) == [PollenSource.google.storeName])
    }
}

extension DaemonAction {
    fileprivate var isFetch: Bool { if case .fetch(T.pollenKey, _) = self { true } else { false } }
    fileprivate typealias T = DaemonStateTests
}
