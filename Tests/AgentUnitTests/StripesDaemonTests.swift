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
import Foundation
import Testing

extension DaemonStateTests {
    static let stripesKey = FetchKey(location: 0, kind: .stripes)

    /// Stripes for `first`…`last` at 10.00 °C a year plus 0.01 °C per year after `first`.
    static func stripesData(_ now: Int64, first: Int = 1980, last: Int = 2025) throws -> StripesData {
        let tallies = (first...last).map {
            StripesYearTally(year: $0, days: 365, sumTenths: 36_500 + 365 * ($0 - first) / 10)
        }
        let series = try WarmingStripes.compute(tallies: tallies, firstYear: first, lastYear: last)
        return StripesData(series: series, tallies: tallies, fetchedAt: DaemonInstant(unixSeconds: now))
    }

    static func stripesOK(_ now: Int64, first: Int = 1980, last: Int = 2025) throws -> FetchOutcome {
        .answer(.stripes, StripesAnswer.stripes(try stripesData(now, first: first, last: last)))
    }
}

/// The warming stripes in the daemon's decisions (SPEC §9.1): fetched once, kept, checked
/// daily, refetched only when a newer year is complete, never on `refresh`.
@Suite("DaemonState: warming stripes")
struct StripesDaemonStateTests {
    typealias T = DaemonStateTests

    /// Unix time of local (UTC) midnight starting `date`.
    static func midnight(_ date: CivilDate) -> Int64 { Int64(date.daysSinceEpoch) * 86_400 }

    static func stripesFetches(_ actions: [DaemonAction]) -> [(first: Int, last: Int)] {
        actions.compactMap {
            if case .fetch(T.stripesKey, let request) = $0, let years = request.detail as? StripesYears {
                (years.first, years.last)
            } else {
                nil
            }
        }
    }

    @Test func firstTickAsksForEveryCompleteYearOnce() throws {
        let (_, actions) = T.started(try T.config())
        let fetches = Self.stripesFetches(actions)
        #expect(fetches.count == 1)
        #expect(fetches.first?.first == 1980)
        // 2026-06-15: 2025 is complete.
        #expect(fetches.first?.last == 2025)
        #expect(
            T.logs(actions, .info).contains {
                $0.contains("stripes[home]: fetching 1980–2025")
                    && $0.contains("(120.01 weighted Open-Meteo calls, once a year)")
            })
    }

    @Test func configuredFirstYearIsAskedFor() throws {
        let (_, actions) = T.started(try T.config("climate: {stripes: {first_year: 1940}}"))
        #expect(Self.stripesFetches(actions).map(\.first) == [1940])
    }

    @Test func successIsStoredPublishedAndCheckedDailyWithoutARefetch() throws {
        var (state, _) = T.started(try T.config())
        let now = T.t0 + 8
        let actions = state.handle(.fetched(T.stripesKey, try T.stripesOK(now)), at: T.at(now))
        let stored = actions.compactMap {
            if case .store(.response(let response, "home", "stripes")) = $0,
                let stored = try? JSONDecoderShim.decode(StoredStripes.self, response.body)
            {
                (stored, response.fetchedAt)
            } else {
                nil
            }
        }
        #expect(stored.count == 1)
        #expect(stored.first?.0.firstYear == 1980)
        #expect(stored.first?.0.lastYear == 2025)
        #expect(stored.first?.0.tallies.count == 46)
        #expect(stored.first?.1 == DaemonInstant(unixSeconds: now))
        let scopes = T.scopes(actions)
        #expect(scopes.map(\.prefix) == ["breeze/home/climate/stripes"])
        let tree = try #require(scopes.first?.tree)
        #expect(tree.topics == ["breeze/home/climate/stripes", "breeze/home/climate/stripes/colors"])
        #expect(tree["breeze/home/climate/stripes/colors"]?.split(separator: ",").count == 46)

        // Checked again after local midnight (+ up to 5 min): nothing newer is complete, no fetch.
        let tomorrow = Self.midnight(CivilDate(year: 2026, month: 6, day: 16)!)
        let due = state.schedule(T.stripesKey).nextDue.unixSeconds
        #expect(due >= tomorrow && due < tomorrow + 300)
        let next = state.handle(.tick, at: T.at(due))
        #expect(Self.stripesFetches(next).isEmpty)
        let after = state.schedule(T.stripesKey).nextDue.unixSeconds
        #expect(after >= tomorrow + 86_400 && after < tomorrow + 86_400 + 300)
    }

    /// Stored 1980–2025: nothing until 10 January 2027 + this hub's spread, then 1980–2026.
    @Test func newYearIsFetchedFromTenJanuaryPlusTheSpread() throws {
        var state = T.machine(try T.config())
        let stored = try T.stripesData(T.t0 - 86_400)
        state.withSource(T.stripesKey) { StripesRules.restore(stored, &$0) }
        _ = state.start(at: T.at(T.t0))
        #expect(Self.stripesFetches(state.handle(.tick, at: T.at(T.t0 + 6))).isEmpty)

        let spread = state.stripesSpread(0)
        #expect((0...21).contains(spread))
        let dueDay = CivilDate(year: 2027, month: 1, day: 10)!.adding(days: spread)
        let dayBefore = Self.midnight(dueDay.adding(days: -1)) + 3600
        state.planner.schedules[0].stripes.due(at: .init(unixSeconds: dayBefore))
        #expect(Self.stripesFetches(state.handle(.tick, at: T.at(dayBefore))).isEmpty)
        let onTheDay = Self.midnight(dueDay) + 3600
        state.planner.schedules[0].stripes.due(at: .init(unixSeconds: onTheDay))
        let fetches = Self.stripesFetches(state.handle(.tick, at: T.at(onTheDay)))
        #expect(fetches.count == 1)
        #expect(fetches.first?.first == 1980)
        #expect(fetches.first?.last == 2026)
    }

    @Test func spreadDiffersBetweenHubsAndStaysPerHub() throws {
        let hubs = try (0..<40).map { index in
            var config = try T.config()
            config.mqtt.clientID = "hub-\(index)"
            return T.machine(config)
        }
        let spreads = hubs.map { $0.stripesSpread(0) }
        #expect(Set(spreads).count > 5)
        let config = try T.config()
        #expect(T.machine(config).stripesSpread(0) == T.machine(config).stripesSpread(0))
    }

    @Test func anotherFirstYearIsFetchedAtOnce() throws {
        var state = T.machine(try T.config("climate: {stripes: {first_year: 1990}}"))
        let stored = try T.stripesData(T.t0 - 86_400, first: 1980, last: 2025)
        state.withSource(T.stripesKey) { StripesRules.restore(stored, &$0) }
        _ = state.start(at: T.at(T.t0))
        let fetches = Self.stripesFetches(state.handle(.tick, at: T.at(T.t0 + 6)))
        #expect(fetches.map(\.first) == [1990])
    }

    @Test func failureBacksOffAndKeepsWhatIsPublished() throws {
        var state = T.machine(try T.config())
        let stored = try T.stripesData(T.t0 - 86_400, first: 1980, last: 2024)
        state.withSource(T.stripesKey) { StripesRules.restore(stored, &$0) }
        _ = state.start(at: T.at(T.t0))
        #expect(Self.stripesFetches(state.handle(.tick, at: T.at(T.t0 + 6))).count == 1)
        let now = T.t0 + 8
        let actions = state.handle(
            .fetched(T.stripesKey, .failure(.stripes, message: "HTTP 503")), at: T.at(now))
        #expect(T.logs(actions, .warning).contains { $0.contains("stripes[home]: fetch failed: HTTP 503") })
        // The stored stripes stay (the scope is the restored tree, never cleared).
        #expect(state.locations[0].stripes?.series.lastYear == 2024)
        let due = state.schedule(T.stripesKey).nextDue.unixSeconds
        #expect(due >= now + 60 && due <= now + 75)
        // Retry-After is honoured.
        _ = state.handle(.tick, at: T.at(due))
        _ = state.handle(
            .fetched(T.stripesKey, .failure(.stripes, message: "HTTP 429", retryAfter: .seconds(7200))),
            at: T.at(due + 1))
        #expect(state.schedule(T.stripesKey).nextDue.unixSeconds == due + 1 + 7200)
    }

    /// A 200 that makes no stripes would cost ≈ 120 calls again at once: the next try is tomorrow.
    @Test func unusableAnswerWaitsForTheNextDay() throws {
        var (state, _) = T.started(try T.config())
        let now = T.t0 + 8
        let actions = state.handle(
            .fetched(
                T.stripesKey,
                .answer(.stripes, StripesAnswer.unusable(message: "no year from 1980 to 2025 has 360 daily means"))),
            at: T.at(now))
        #expect(T.logs(actions, .warning).contains { $0.contains("next try tomorrow") })
        let tomorrow = Self.midnight(CivilDate(year: 2026, month: 6, day: 16)!)
        let due = state.schedule(T.stripesKey).nextDue.unixSeconds
        #expect(due >= tomorrow && due < tomorrow + 300)
        #expect(T.scopes(actions).first { $0.prefix == "breeze/home/climate/stripes" }?.tree == nil)
    }

    @Test func climateOffMeansNoStripesAndAClearedScope() throws {
        let (state, actions) = T.started(try T.config("climate: {enabled: false}"))
        #expect(Self.stripesFetches(actions).isEmpty)
        var copy = state
        let scopes = T.scopes(copy.scopeActions(now: DaemonInstant(unixSeconds: T.t0 + 7)))
        #expect(scopes.first { $0.prefix == "breeze/home/climate/stripes" }?.tree == TopicTree())
    }

    @Test func refreshDoesNotFetchTheStripesAgain() throws {
        var (state, _) = T.started(try T.config())
        _ = state.handle(.fetched(T.stripesKey, try T.stripesOK(T.t0 + 8)), at: T.at(T.t0 + 8))
        let actions = state.handle(T.message("breeze/home/refresh", "1"), at: T.at(T.t0 + 4000))
        #expect(Self.stripesFetches(actions).isEmpty)
    }
}

@Suite("Config: climate.stripes")
struct StripesConfigTests {
    static func load(_ climate: String) throws(ConfigError) -> AgentConfig {
        try ConfigLoader.load(
            text: """
                mqtt: {host: 127.0.0.1}
                locations:
                  - {id: home, latitude: 52.52, longitude: 13.405, timezone: UTC}
                \(climate)
                """, file: "test.yaml", environment: [:], currentYear: 2026, hostname: "hub")
    }

    @Test func defaultsTo1980() throws {
        #expect(try Self.load("").climate.stripesFirstYear == 1980)
        #expect(try Self.load("climate: {stripes: {}}").climate.stripesFirstYear == 1980)
        #expect(renderEffective(try Self.load("")).contains("  stripes:\n    first_year: 1980\n"))
    }

    @Test(arguments: [1940, 2000, 2025])
    func acceptsTheArchiveYearsBeforeThisOne(year: Int) throws {
        #expect(try Self.load("climate: {stripes: {first_year: \(year)}}").climate.stripesFirstYear == year)
    }

    @Test(arguments: ["1939", "2026", "nineteen-eighty", "1980.5", "[1980]"])
    func rejectsAnythingElse(value: String) {
        #expect {
            try Self.load("climate:\n  stripes:\n    first_year: \(value)")
        } throws: { error in
            let text = "\(error)"
            return text.contains("test.yaml:6") && text.contains("climate.stripes.first_year")
                && text.contains("1940–2025")
        }
    }

    @Test func unknownKeyIsNamed() {
        #expect {
            try Self.load("climate: {stripes: {first_yaer: 1990}}")
        } throws: { error in
            "\(error)".contains("climate.stripes") && "\(error)".contains("first_yaer")
        }
    }
}

@Suite("RetainedPublisher: nested scopes")
struct NestedScopeTests {
    func tree(_ pairs: [(String, String)]) -> TopicTree {
        var t = TopicTree()
        for (k, v) in pairs { t.set(k, v) }
        return t
    }

    /// After a restart the climate is unknown (kept) while new stripes arrive: the stripes
    /// scope's tree wins, and stripes topics it no longer holds are cleared, not kept by climate.
    @Test func innerScopeOwnsItsTopicsUnderAKeptOuterScope() {
        let store = StateStore(directory: nil, log: Log(level: .error))
        store.saveLegacyPublishedTopics([
            "b/home/climate": "old climate", "b/home/climate/unit": "°C",
            "b/home/climate/stripes": "old stripes", "b/home/climate/stripes/colors": "#2166ac",
            "b/home/climate/stripes/extra": "gone soon",
        ])
        let transport = RecordingTransport()
        let publisher = RetainedPublisher(transport: transport, store: store)
        publisher.set(scope: "b/home/climate", nil)
        publisher.set(
            scope: "b/home/climate/stripes",
            tree([("b/home/climate/stripes", "new stripes"), ("b/home/climate/stripes/colors", "#b2182b")]))
        publisher.flush(at: .now)
        #expect(
            transport.take() == [
                "b/home/climate/stripes=new stripes", "b/home/climate/stripes/colors=#b2182b",
                "b/home/climate/stripes/extra=",
            ])
        #expect(
            publisher.wanted
                == [
                    "b/home/climate": "old climate", "b/home/climate/unit": "°C",
                    "b/home/climate/stripes": "new stripes", "b/home/climate/stripes/colors": "#b2182b",
                ].digests)
        // Many flushes later the kept climate never brings the old stripes back.
        for _ in 0..<5 {
            publisher.set(scope: "b/home/climate", nil)
            publisher.flush(at: .now)
        }
        #expect(transport.take().isEmpty)
    }

    /// A climate tree that changes does not clear the stripes inside it, and a cleared stripes
    /// scope does not touch the climate topics.
    @Test func outerTreeAndInnerClearAreIndependent() {
        let transport = RecordingTransport()
        let publisher = RetainedPublisher(transport: transport, store: nil)
        publisher.set(scope: "b/home/climate", tree([("b/home/climate", "c1")]))
        publisher.set(scope: "b/home/climate/stripes", tree([("b/home/climate/stripes", "s1")]))
        publisher.flush(at: .now)
        _ = transport.take()
        publisher.set(scope: "b/home/climate", tree([("b/home/climate", "c2")]))
        publisher.flush(at: .now)
        #expect(transport.take() == ["b/home/climate=c2"])
        publisher.set(scope: "b/home/climate/stripes", TopicTree())
        publisher.flush(at: .now)
        #expect(transport.take() == ["b/home/climate/stripes="])
        #expect(publisher.wanted == ["b/home/climate": "c2"].digests)
    }
}

@Suite("State: stored stripes")
struct StoredStripesTests {
    @Test func roundTripsThroughTheStateFileFormat() throws {
        let data = try DaemonStateTests.stripesData(1_700_000_000, first: 2000, last: 2002)
        let stored = StoredStripes(firstYear: 2000, lastYear: 2002, tallies: data.tallies)
        let text = try JSONEncoderShim.encode(stored)
        #expect(
            text.hasPrefix(
                #"{"first_year":2000,"last_year":2002,"tallies":[{"days":365,"sum_tenths":36500,"year":2000}"#))
        let decoded = try JSONDecoderShim.decode(StoredStripes.self, text)
        #expect(decoded == stored)
        #expect(decoded.data(fetchedAt: 1_700_000_000) == data)
    }

    @Test func talliesThatMakeNoStripesAreNotUsable() {
        let stored = StoredStripes(
            firstYear: 2000, lastYear: 2001, tallies: [StripesYearTally(year: 2000, days: 100, sumTenths: 0)])
        #expect(stored.data(fetchedAt: 0) == nil)
    }
}
