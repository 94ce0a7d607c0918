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
import Testing

/// Issue 30: a fetch whose answer never comes (an HTTP driver that lost it) must not stay in
/// flight for ever. The watchdog declares it stuck at its deadline, cancels it, counts it, and
/// the failure backoff retries it; fetches that all fail at once leave nothing in flight.
@Suite("DaemonState: the stuck-fetch watchdog and failures at once")
struct FetchWatchdogTests {
    typealias T = DaemonStateTests

    static func abandoned(_ actions: [DaemonAction]) -> [FetchKey] {
        actions.compactMap { if case .abandonFetch(let key) = $0 { key } else { nil } }
    }

    static func pollenStale(_ actions: [DaemonAction]) -> String? {
        T.scopes(actions).first { $0.prefix == "breeze/home/pollen" }?.tree?["breeze/home/pollen/stale"]
    }

    @Test func aFetchWithNoAnswerIsAbandonedAtItsDeadlineCountedAndRetriedOnTheBackoff() throws {
        var (state, first) = T.started(try T.config())
        let started = T.t0 + 6
        #expect(T.fetches(first).contains(T.pollenKey))
        // Climate and stripes answer; pollen never does.
        _ = state.handle(.fetched(T.climateKey, try T.climateOK(started + 1)), at: T.at(started + 1))
        let done = state.handle(.fetched(T.stripesKey, try T.stripesOK(started + 1)), at: T.at(started + 1))
        // The wake covers the diagnostics first, then the watchdog's deadline.
        #expect(T.wake(done) == T.t0 + Presence.diagnosticsInterval.seconds)
        let diagnosticsTick = state.handle(.tick, at: T.at(T.t0 + Presence.diagnosticsInterval.seconds))
        #expect(Self.abandoned(diagnosticsTick).isEmpty)
        let deadline = started + FetchTracker.stuckLimit.seconds
        #expect(T.wake(diagnosticsTick) == deadline)
        #expect(state.planner.fetches.inFlight.contains(T.pollenKey))

        // One second before the deadline nothing is given up.
        #expect(Self.abandoned(state.handle(.tick, at: T.at(deadline - 1))).isEmpty)
        let tick = state.handle(.tick, at: T.at(deadline))
        #expect(Self.abandoned(tick) == [T.pollenKey])
        #expect(!state.planner.fetches.inFlight.contains(T.pollenKey) && state.planner.fetches.inFlight.isEmpty)
        let warnings = T.logs(tick, .warning)
        #expect(
            warnings.contains {
                $0.hasPrefix(
                    "pollen[home]: fetch from google failed: stuck: no answer after 300 s, cancelled; retry in ")
            }, "\(warnings)")
        // Not fetched again at once: the failure backoff (60 s + up to 25 %) applies.
        #expect(!T.fetches(tick).contains(T.pollenKey))
        let retryAt = state.schedule(T.pollenKey).nextDue.unixSeconds
        #expect((deadline + 60...deadline + 75).contains(retryAt))
        #expect(T.wake(tick) == retryAt)
        // Counted: a failure and a stuck fetch of its source, in diagnostics and /metrics.
        let diagnostics = state.diagnosticsJSON(at: T.at(deadline))
        #expect(diagnostics.contains(#""google_pollen":{"ok":0,"failed":1,"stuck":1}"#), "\(diagnostics)")
        #expect(diagnostics.contains(#""open_meteo_climate":{"ok":1,"failed":0,"stuck":0}"#), "\(diagnostics)")
        let metrics = PrometheusText.metrics(of: state.serveSnapshot(at: T.at(deadline), publishedTopics: 0))
            .split(separator: "\n").map(String.init)
        #expect(metrics.contains(#"breeze_fetches_stuck_total{source="google_pollen"} 1"#), "\(metrics)")
        #expect(metrics.contains(#"breeze_fetch_failures_total{source="google_pollen"} 1"#), "\(metrics)")
        #expect(metrics.contains(#"breeze_fetches_stuck_total{source="open_meteo_climate"} 0"#), "\(metrics)")

        // The retry is a fresh fetch with a deadline of its own, and its answer is applied.
        let retry = state.handle(.tick, at: T.at(retryAt))
        #expect(T.fetches(retry) == [T.pollenKey])
        #expect(
            state.planner.fetches.inFlight.deadline(T.pollenKey).unixSeconds == retryAt
                + FetchTracker.stuckLimit.seconds)
        let answered = state.handle(.fetched(T.pollenKey, T.pollenOK(retryAt + 1)), at: T.at(retryAt + 1))
        #expect(Self.pollenStale(answered) == "false")
        #expect(state.planner.fetches.inFlight.isEmpty)
    }

    @Test func aStuckFetchTurnsKeptDataStale() throws {
        var (state, _) = T.started(try T.config())
        let now = T.t0 + 8
        _ = state.handle(.fetched(T.pollenKey, T.pollenOK(now)), at: T.at(now))
        _ = state.handle(.fetched(T.climateKey, try T.climateOK(now)), at: T.at(now))
        _ = state.handle(.fetched(T.stripesKey, try T.stripesOK(now)), at: T.at(now))
        // The next pollen fetch (6 h later) is started and never answers.
        let due = state.schedule(T.pollenKey).nextDue.unixSeconds
        #expect(T.fetches(state.handle(.tick, at: T.at(due))) == [T.pollenKey])
        let tick = state.handle(.tick, at: T.at(due + FetchTracker.stuckLimit.seconds))
        #expect(Self.abandoned(tick) == [T.pollenKey])
        // The last good values stay, marked stale, as after any failed fetch (SPEC §5).
        let tree = try #require(T.scopes(tick).first { $0.prefix == "breeze/home/pollen" }?.tree)
        #expect(tree["breeze/home/pollen/stale"] == "true")
        #expect(tree["breeze/home/pollen/grass/level"] == "High")
    }

    @Test func aCompletionBeforeTheDeadlineLeavesNothingToAbandon() throws {
        var (state, _) = T.started(try T.config())
        let deadline = T.t0 + 6 + FetchTracker.stuckLimit.seconds
        _ = state.handle(.fetched(T.pollenKey, T.pollenFailed(deadline - 1)), at: T.at(deadline - 1))
        _ = state.handle(.fetched(T.climateKey, try T.climateOK(deadline - 1)), at: T.at(deadline - 1))
        _ = state.handle(.fetched(T.stripesKey, try T.stripesOK(deadline - 1)), at: T.at(deadline - 1))
        let tick = state.handle(.tick, at: T.at(deadline + 1))
        #expect(Self.abandoned(tick).isEmpty)
        #expect(!state.diagnosticsJSON(at: T.at(deadline + 1)).contains(#""stuck":1"#))
    }

    @Test func fetchesThatAllFailAtOnceAreRetriedOnTheirBackoffNoneLeftInFlight() throws {
        let ids = (0..<20).map { "loc\($0)" }
        // No Open-Meteo pacing in the way (the stripes weigh ≈ 120 calls each): all start at once.
        let config = try T.config(
            "endpoints: {max_calls_per_minute: 10000}",
            locations: "locations:\n"
                + ids.enumerated().map {
                    "  - {id: \($0.element), latitude: \(40 + $0.offset), longitude: 10, timezone: UTC}"
                }.joined(separator: "\n"))
        var state = T.machine(config)
        _ = state.start(at: T.at(T.t0))
        // Every first fetch is due within the spread.
        let started = T.t0 + FetchPlanner.firstFetchSpread(locations: ids.count).seconds
        let first = state.handle(.tick, at: T.at(started))
        let keys = T.fetches(first)
        #expect(Set(keys).count == ids.count * 3)
        #expect(state.planner.fetches.inFlight.count == keys.count)
        // All of them are refused in the same second.
        let refused = "Couldn't connect to server: Failed to connect to 127.0.0.1 port 9: Connection refused"
        var now = started + 1
        for key in keys {
            let outcome = FetchOutcome.failure(key.kind, message: refused)
            let actions = state.handle(.fetched(key, outcome), at: T.at(now))
            // None is retried at once.
            #expect(T.fetches(actions).isEmpty)
        }
        #expect(state.planner.fetches.inFlight.isEmpty)
        for key in keys { #expect((now + 60...now + 75).contains(state.schedule(key).nextDue.unixSeconds), "\(key)") }
        // The backoff over, every one is fetched again, and nothing was declared stuck.
        now += 75
        let retry = state.handle(.tick, at: T.at(now))
        #expect(Set(T.fetches(retry)) == Set(keys))
        #expect(Self.abandoned(retry).isEmpty)
    }
}
