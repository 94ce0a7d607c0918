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

/// The hourly pollen topics (SPEC §20) in the daemon: read from the data already fetched, and
/// moved on at each local hour by the daemon's own wake, with no fetch.
@Suite("DaemonState: hourly pollen")
struct DaemonHourlyPollenTests {
    typealias T = DaemonStateTests

    /// Open-Meteo's report of T's day in UTC with hourly data: grass High (80.0) until 10:59,
    /// Low (12.0) from 11:00 (T.t0 is 10:00 UTC).
    static func report(hourly: Bool) -> PollenReport {
        var report = PollenReport(
            source: .openMeteo,
            days: [
                PollenDay(
                    date: CivilDate(year: 2026, month: 6, day: 15)!,
                    items: [
                        PollenItem(code: "GRASS", name: "Grass", isPlant: false, category: "GRASS", value: 4),
                        PollenItem(code: "TREE", name: "Tree", isPlant: false, category: "TREE", value: 0),
                        PollenItem(code: "WEED", name: "Weed", isPlant: false, category: "WEED", value: 0),
                    ])
            ])
        let midnight = T.t0 - 10 * 3600
        if hourly {
            report.hourly = PollenHourly(
                hours: (0..<48).map {
                    PollenHourly.Hour(instant: midnight + Int64($0) * 3600, tenths: ["GRAMINALES": $0 < 11 ? 800 : 120])
                })
        }
        return report
    }

    static func fetched(_ now: Int64, hourly: Bool) -> FetchOutcome {
        .answer(
            .pollen,
            PollenAnswer(
                source: .openMeteo, outcome: .report(report(hourly: hourly), body: Array("{}".utf8)),
                fetchedAt: DaemonInstant(unixSeconds: now)))
    }

    static func pollenTree(_ actions: [DaemonAction]) -> TopicTree? {
        T.scopes(actions).last { $0.prefix == "breeze/home/pollen" }?.tree
    }

    @Test func theHourlyTopicsMoveOnTheHourWithoutAFetch() throws {
        var (state, _) = T.started(try T.config(pollen: "source: open-meteo"))
        let now = T.t0 + 7
        let first = state.handle(.fetched(T.pollenKey, Self.fetched(now, hourly: true)), at: T.at(now))
        let tree = try #require(Self.pollenTree(first))
        #expect(tree["breeze/home/pollen/grass/now/level"] == "High")
        #expect(tree["breeze/home/pollen/air_out/now"] == "OFF")
        #expect(tree["breeze/home/pollen/air_out"]?.contains(#""start":"2026-06-15T11:00:00Z""#) == true)
        // The daemon wakes at the next local hour for them (or earlier, for something else).
        #expect(state.locations[0].nextContentEdge(after: DaemonInstant(unixSeconds: now)).unixSeconds == T.t0 + 3600)
        #expect((T.wake(first) ?? .max) <= T.t0 + 3600)
        let hour = state.handle(.tick, at: T.at(T.t0 + 3600))
        #expect(T.fetches(hour).isEmpty)
        let later = try #require(Self.pollenTree(hour))
        #expect(later["breeze/home/pollen/grass/now/level"] == "Low")
        #expect(later["breeze/home/pollen/air_out/now"] == "ON")
    }

    @Test func withoutHourlyDataThereAreNoneAndNoHourlyWake() throws {
        var (state, _) = T.started(try T.config(pollen: "source: open-meteo"))
        let now = T.t0 + 7
        let actions = state.handle(.fetched(T.pollenKey, Self.fetched(now, hourly: false)), at: T.at(now))
        let tree = try #require(Self.pollenTree(actions))
        #expect(tree.topics.allSatisfy { !$0.contains("/now") && !$0.contains("air_out") && !$0.contains("peak_at") })
        #expect(state.locations[0].nextContentEdge(after: DaemonInstant(unixSeconds: now)).unixSeconds > T.t0 + 3600)
    }
}
