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
import BreezeMQTT
import Testing

/// The daemon's air and risk decisions (SPEC §10), driven with events and a fake clock.
@Suite("DaemonState: air and risk")
struct DaemonAirTests {
    typealias T = DaemonStateTests
    static let airKey = FetchKey(location: 0, kind: .air)

    static func config() throws -> AgentConfig {
        try T.config(
            """
            air: {enabled: true, interval: 1h}
            profiles:
              - {id: anna, allergens: [grass, tree], alert_level: High}
            """)
    }

    /// 24 hours of 2026-06-15 in UTC, EAQI = 10 + hour.
    static func airReport() -> AirReport {
        let midnight = T.t0 - 10 * 3600
        return AirReport(
            hours: (0..<24).map {
                AirReport.Hour(instant: midnight + Int64($0) * 3600, tenths: [.europeanAQI: 100 + $0 * 10])
            }
        )
    }

    static func airOK(_ now: Int64) -> FetchOutcome {
        .answer(
            .air, AirAnswer(report: airReport(), body: Array("{}".utf8), fetchedAt: DaemonInstant(unixSeconds: now)))
    }

    static func tree(_ actions: [DaemonAction], _ scope: String) -> TopicTree? {
        T.scopes(actions).last { $0.prefix == scope }?.tree
    }

    @Test func airIsFetchedCountedAndPublished() throws {
        let (state0, first) = T.started(try Self.config())
        var state = state0
        #expect(T.fetches(first).contains(Self.airKey))
        let now = T.t0 + 7
        let actions = state.handle(.fetched(Self.airKey, Self.airOK(now)), at: T.at(now))
        let air = try #require(Self.tree(actions, "breeze/home/air"))
        #expect(air["breeze/home/air/european_aqi/value"] == "20")  // 10:00 UTC → EAQI 20
        #expect(air["breeze/home/air/stale"] == "false")
        // Only the sinks air feeds were rebuilt for this completion (the air tree, the display JSON).
        #expect(T.scopes(actions).map(\.prefix) == ["breeze/home/air", "breeze/home/display"])
        #expect(state.callsToday(0, .openMeteo, now: DaemonInstant(unixSeconds: now)) >= 1)
        let diagnostics = state.diagnosticsJSON(at: T.at(now))
        #expect(diagnostics.contains(#""air":{"requests":1,"weighted":1.00}"#))
        #expect(diagnostics.contains(#""open_meteo_air":{"ok":1,"failed":0,"stuck":0}"#))
        // The next wake is at most the next full hour (the current hour changes).
        #expect((T.wake(actions) ?? .max) <= T.t0 + 3600)
    }

    @Test func failureKeepsDataStaleAndRetries() throws {
        var (state, _) = T.started(try Self.config())
        let now = T.t0 + 7
        _ = state.handle(.fetched(Self.airKey, Self.airOK(now)), at: T.at(now))
        let later = now + 3700
        _ = state.handle(.tick, at: T.at(later))
        let failed = FetchOutcome.failure(.air, message: "HTTP 500")
        let actions = state.handle(.fetched(Self.airKey, failed), at: T.at(later))
        let air = try #require(Self.tree(actions, "breeze/home/air"))
        #expect(air["breeze/home/air/stale"] == "true")
        #expect(air["breeze/home/air/european_aqi/value"] == "21")  // the stored data's 11:00 hour
        #expect(air["breeze/home/air/updated_at"] == UTCTimestamp.rfc3339(unixSeconds: now))
        #expect(T.logs(actions, .warning).contains { $0.hasPrefix("air[home]: fetch failed: HTTP 500; retry in") })
        #expect(state.planner.schedules[0].air.nextDue.unixSeconds > later)
    }

    @Test func storedAirIsPublishedAtStartWithoutAFetch() throws {
        var state = T.machine(try Self.config())
        state.withSource(Self.airKey) {
            AirRules.restore(Self.airReport(), fetchedAt: DaemonInstant(unixSeconds: T.t0 - 60), &$0)
        }
        let start = state.start(at: T.at(T.t0))
        let air = try #require(Self.tree(start, "breeze/home/air"))
        #expect(air["breeze/home/air/european_aqi/value"] == "20")
        let tick = state.handle(.tick, at: T.at(T.t0 + 6))
        #expect(!T.fetches(tick).contains(Self.airKey))  // fresh for its interval
    }

    @Test func riskFollowsPollen() throws {
        var (state, _) = T.started(try Self.config())
        let now = T.t0 + 7
        let actions = state.handle(.fetched(T.pollenKey, T.pollenOK(now)), at: T.at(now))
        let risk = try #require(Self.tree(actions, "breeze/home/risk"))
        // Today: grass 4, tree 0 → High by grass, alert at High.
        #expect(risk["breeze/home/risk/anna/level"] == "High")
        #expect(risk["breeze/home/risk/anna/alert"] == "true")
    }

    @Test func airOffPublishesNothingAndFetchesNothing() throws {
        let (_, actions) = T.started(try T.config())
        #expect(!T.fetches(actions).contains(Self.airKey))
        #expect(!T.scopes(actions).contains { $0.prefix.hasSuffix("/air") || $0.prefix.hasSuffix("/risk") })
    }

    /// The air data covers one local day: the next fetch comes right after local midnight at the
    /// latest, whatever the interval.
    @Test func refetchRightAfterMidnight() throws {
        var (state, _) = T.started(try T.config("air: {enabled: true, interval: 1d}"))
        let lateEvening = T.t0 + 13 * 3600 + 40 * 60  // 23:40 UTC
        _ = state.handle(.fetched(Self.airKey, Self.airOK(lateEvening)), at: T.at(lateEvening))
        let midnight = T.t0 + 14 * 3600
        let due = state.planner.schedules[0].air.nextDue.unixSeconds
        #expect(due >= midnight && due < midnight + 120)
        // A tick after that time starts the fetch (or it is already running).
        let actions = state.handle(.tick, at: T.at(midnight + 3600 + 200))
        #expect(T.fetches(actions).contains(Self.airKey) || state.planner.fetches.inFlight.contains(Self.airKey))
    }

    @Test func refreshFetchesAirToo() throws {
        var (state, _) = T.started(try Self.config())
        let now = T.t0 + 7
        _ = state.handle(.fetched(Self.airKey, Self.airOK(now)), at: T.at(now))
        let actions = state.handle(T.message("breeze/home/refresh", "now"), at: T.at(now + 120))
        #expect(T.fetches(actions).contains(Self.airKey))
    }
}
