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
import Glibc
import Testing

/// Many locations in one agent (SPEC §11): first fetches spread out, Open-Meteo's public servers
/// paced in weighted calls, intervals stretched over the daily limit, call counts saved in batches.
@Suite("DaemonState with many locations: jitter, pacing, stretching")
struct FleetPacingTests {
    typealias T = DaemonStateTests

    static func locations(_ n: Int) -> String {
        "locations:\n"
            + (0..<n).map { "  - {id: loc\($0), latitude: \(40 + Double($0 % 20) / 2), longitude: 5, timezone: UTC}" }
            .joined(separator: "\n")
    }

    /// Open-Meteo pollen only (weight 1 per request), climate off.
    static func openMeteoPollen(_ n: Int, extra: String = "") throws -> AgentConfig {
        try T.config("climate: {enabled: false}\n" + extra, pollen: "source: open-meteo", locations: locations(n))
    }

    @Test("the first fetches spread over 5 s for a hub, 60 ms per location, at most 90 s")
    func spread() throws {
        #expect(FetchPlanner.firstFetchSpread(locations: 1) == 5)
        #expect(FetchPlanner.firstFetchSpread(locations: 1000) == 60)
        #expect(FetchPlanner.firstFetchSpread(locations: 100_000) == 90)
        var state = T.machine(try Self.openMeteoPollen(1000))
        _ = state.start(at: T.at(T.t0))
        let dues = state.planner.schedules.map(\.pollen.nextDue.unixSeconds)
        #expect(dues.allSatisfy { (T.t0...T.t0 + 60).contains($0) })
        // Spread, not bunched: every 10 s slice of the minute gets some.
        let slices = Set(dues.map { ($0 - T.t0) / 10 })
        #expect(slices.count == 7)
    }

    @Test("public servers: at most 600 weighted calls start in a minute; the rest wait for the next window")
    func perMinute() throws {
        // A cold start: every first key-free call is the day's season call (4.11 calls each,
        // SPEC §20), so 600 weighted calls are 145 of them (600 × 140 / 576).
        #expect(PollenSeason.callWeight.units == 576)
        var state = T.machine(try Self.openMeteoPollen(1000))
        _ = state.start(at: T.at(T.t0))
        let first = T.fetches(state.handle(.tick, at: T.at(T.t0 + 61)))
        #expect(first.count == 145)
        let waiting = state.locations.indices.filter {
            !state.planner.fetches.inFlight.contains(.init(location: $0, kind: .pollen))
        }
        #expect(waiting.count == 855)
        for index in waiting {
            #expect((T.t0 + 120..<T.t0 + 140).contains(state.planner.schedules[index].pollen.nextDue.unixSeconds))
        }
        // The wake is the next window, not now (no busy loop while requests wait).
        let next = T.fetches(state.handle(.tick, at: T.at(T.t0 + 140)))
        #expect(next.count == 145)

        // Once a location has today's season, its calls are plain (1 call): 600 a minute.
        var warm = T.machine(try Self.openMeteoPollen(1000))
        for index in warm.locations.indices {
            warm.locations[index].season = PollenSeasonStanding(
                today: warm.locations[index].today(at: DaemonInstant(unixSeconds: T.t0)), items: [:])
        }
        _ = warm.start(at: T.at(T.t0))
        #expect(T.fetches(warm.handle(.tick, at: T.at(T.t0 + 61))).count == 600)
    }

    @Test("custom endpoints are not paced, unless endpoints.max_calls_per_minute is set")
    func customEndpoints() throws {
        let custom = "endpoints: {air_quality: http://127.0.0.1:9/v1}"
        var free = T.machine(try Self.openMeteoPollen(1000, extra: custom))
        _ = free.start(at: T.at(T.t0))
        #expect(T.fetches(free.handle(.tick, at: T.at(T.t0 + 61))).count == 1000)

        let paced = "endpoints: {air_quality: http://127.0.0.1:9/v1, max_calls_per_minute: 100}"
        var limited = T.machine(try Self.openMeteoPollen(1000, extra: paced))
        _ = limited.start(at: T.at(T.t0))
        // 100 weighted calls a minute are 24 season calls (100 × 140 / 576).
        #expect(T.fetches(limited.handle(.tick, at: T.at(T.t0 + 61))).count == 24)
    }

    @Test("the pacer's windows: a full day defers to 00:00 UTC, an empty window admits a heavy request")
    func pacerWindows() {
        var pacer = OpenMeteoPacer()
        let day = OpenMeteoBudget.dailyLimit
        let minute = OpenMeteoCallWeight.calls(600)
        #expect(
            pacer.deferral(.calls(5000), now: DaemonInstant(unixSeconds: T.t0), perMinute: minute, perDay: day) == nil)
        pacer.record(.calls(599), now: DaemonInstant(unixSeconds: T.t0))
        #expect(
            pacer.deferral(.calls(1), now: DaemonInstant(unixSeconds: T.t0 + 30), perMinute: minute, perDay: day) == nil
        )
        #expect(
            pacer.deferral(.calls(2), now: DaemonInstant(unixSeconds: T.t0 + 30), perMinute: minute, perDay: day)?
                .unixSeconds == T.t0 + 60)
        #expect(
            pacer.deferral(.calls(2), now: DaemonInstant(unixSeconds: T.t0 + 60), perMinute: minute, perDay: day) == nil
        )
        for minute in 1...17 { pacer.record(.calls(555), now: DaemonInstant(unixSeconds: T.t0 + Int64(minute) * 60)) }
        // 599 + 17 × 555 = 10,034 > 10,000: the rest of the day waits for the next UTC midnight.
        let midnight: Int64 = 1_781_568_000  // 2026-06-16T00:00:00Z
        #expect(
            pacer.deferral(.calls(1), now: DaemonInstant(unixSeconds: T.t0 + 3600), perMinute: minute, perDay: day)?
                .unixSeconds == midnight)
        #expect(
            pacer.deferral(.calls(1), now: DaemonInstant(unixSeconds: midnight), perMinute: minute, perDay: day) == nil)
    }

    @Test("over 10,000 weighted calls a day: pollen.interval and air.interval stretch, logged once at start")
    func stretch() throws {
        let config = try T.config(
            "air: {enabled: true}", pollen: "source: open-meteo", locations: Self.locations(1000))
        let before = config.openMeteoBudget.dailyTotal
        #expect(before >= OpenMeteoBudget.dailyLimit)
        let stretch = try #require(config.openMeteoStretch)
        #expect(stretch.before == before)
        #expect(stretch.after < OpenMeteoBudget.dailyLimit)
        // 1,000 locations with climate (6 a day) and air (at least 1) cannot keep a 4.11-call
        // season call each under 10,000: the stretch leaves it out, and says so.
        #expect(!stretch.pollenSeason)
        #expect(stretch.summary.contains("leaving out the daily pollen season call"))
        let pollen = try #require(stretch.pollenInterval)
        #expect(pollen > config.pollen.interval.components.seconds)
        var state = T.machine(config)
        // A standing restored from state_dir (restores come before `start`) is dropped: with
        // no season call it would never be replaced.
        state.locations[0].season = PollenSeasonStanding(
            today: state.locations[0].today(at: DaemonInstant(unixSeconds: T.t0)), items: [:])
        let actions = state.start(at: T.at(T.t0))
        #expect(state.locations.allSatisfy { $0.season == nil })
        let warnings = T.logs(actions, .warning).filter { $0.contains("stretching pollen.interval") }
        #expect(warnings.count == 1)
        #expect(state.planner.schedules.allSatisfy { $0.pollen.interval.seconds == pollen })
        #expect(state.planner.schedules.allSatisfy { $0.air.interval.seconds == stretch.airInterval })
        #expect(!state.calls.pollenSeason)
        let plain = state.begin(.init(location: 0, kind: .pollen), now: DaemonInstant(unixSeconds: T.t0))
        guard let request = plain.0?.detail as? PollenRequest, request.source == .openMeteo else {
            Issue.record("no key-free pollen request: \(String(describing: plain.0))")
            return
        }
        #expect(!request.season)
        // 300 locations fit with the season once the intervals stretch: it stays.
        let smaller = try T.config(
            "air: {enabled: true}", pollen: "source: open-meteo", locations: Self.locations(300))
        #expect(try #require(smaller.openMeteoStretch).pollenSeason)
        // check-config says the same.
        #expect(renderOpenMeteoBudget(config).contains("the agent paces these requests: "))

        // Within the limit, or against a self-hosted server: nothing stretches.
        #expect(try Self.openMeteoPollen(10).openMeteoStretch == nil)
        let selfHosted = try T.config(
            "air: {enabled: true}\nendpoints: {air_quality: http://127.0.0.1:9/v1, climate_archive: http://127.0.0.1:9/v1}",
            pollen: "source: open-meteo", locations: Self.locations(1000))
        #expect(selfHosted.openMeteoStretch == nil)
    }

    @Test("call counts: one save per batch of fetch starts, not one per fetch")
    func callCountsBatched() throws {
        var state = T.machine(try T.config("climate: {enabled: false}", locations: Self.locations(50)))
        _ = state.start(at: T.at(T.t0))
        let actions = state.handle(.tick, at: T.at(T.t0 + 6))
        #expect(T.fetches(actions).count == 50)
        let stores = actions.compactMap { if case .store(.callCounts(let c)) = $0 { c } else { nil } }
        #expect(stores.count == 1)
        #expect(stores.first?.count == 50)
        #expect(stores.first?["loc49.google"]?.calls == 1)
        // Each completion but the last: no save; the last one saves.
        var saves = 0
        for index in 0..<50 {
            let done = state.handle(
                .fetched(.init(location: index, kind: .pollen), T.pollenOK(T.t0 + 10)), at: T.at(T.t0 + 10))
            saves += done.filter { if case .store(.callCounts) = $0 { true } else { false } }.count
        }
        #expect(state.planner.fetches.inFlight.isEmpty)
        #expect(saves == 0)  // nothing was counted since the save at the start of the batch
        // A refresh of one location starts from idle: saved at once, with the new count.
        let refresh = state.handle(T.message("breeze/loc7/refresh", "now"), at: T.at(T.t0 + 400))
        let saved = refresh.compactMap { if case .store(.callCounts(let c)) = $0 { c } else { nil } }
        #expect(saved.count == 1)
        #expect(saved.first?["loc7.google"]?.calls == 2)
        // A signal saves what is still unsaved.
        _ = state.handle(T.message("breeze/loc8/refresh", "now"), at: T.at(T.t0 + 401))
        let stop = state.handle(.signal(.terminate), at: T.at(T.t0 + 402))
        #expect(stop.contains { if case .store(.callCounts) = $0 { true } else { false } })
    }
}

extension FleetPacingTests {
    @Test("the yearly stripes requests get only what the regular daily load leaves on the public servers")
    func stripesShare() throws {
        // 100 locations, key-free pollen (4 a day, the first with the season: 3 × 1 + 4.11) and
        // climate (6 a day): 1,311.43 regular calls.
        let config = try T.config("", pollen: "source: open-meteo", locations: Self.locations(100))
        var state = T.machine(config)
        _ = state.start(at: T.at(T.t0))
        #expect(state.calls.regularDailyLoad == config.openMeteoBudget.dailyTotal)
        #expect(state.calls.regularDailyLoad.units == 100 * (3 * 140 + 576 + 6 * 140))
        // 8,950 used today: a stripes request (≈ 120) would pass 9,000, pollen (1) still fits.
        state.calls.pacer.record(.calls(8950), now: DaemonInstant(unixSeconds: T.t0 - 120))
        let stripes = FetchKey(location: 3, kind: .stripes)
        let pollen = FetchKey(location: 3, kind: .pollen)
        let midnight: Int64 = 1_781_568_000  // 2026-06-16T00:00:00Z
        #expect(state.pace(stripes, now: DaemonInstant(unixSeconds: T.t0)) != nil)
        #expect(state.schedule(stripes).nextDue.unixSeconds >= midnight)
        #expect(state.pace(pollen, now: DaemonInstant(unixSeconds: T.t0)) == nil)
    }

    /// The locations whose trees `actions` re-publish (`breeze/loc7`, `homeassistant/device/breeze_loc7/config`).
    static func republished(_ actions: [DaemonAction]) -> Set<Int> {
        Set(
            actions.compactMap { action -> Int? in
                guard case .republish(let scope) = action else { return nil }
                let name = scope.split(separator: "/").first { $0.hasPrefix("loc") || $0.contains("_loc") }
                return name.flatMap { Int($0.split(separator: "loc").last ?? "") }
            })
    }

    static func watches(_ actions: [DaemonAction]) -> Int {
        actions.count { if case .watchOutcomes = $0 { true } else { false } }
    }

    @Test("refresh to 1,000 locations at once: trees go out 8 locations at a time, each once the broker took the last")
    func republishPaced() throws {
        var state = T.machine(try Self.openMeteoPollen(1000))
        _ = state.start(at: T.at(T.t0))
        _ = state.handle(.mqtt(.connected), at: T.at(T.t0 + 1))
        let now = T.t0 + 2
        // The first refresh finds no watch running: its tree goes out at once, with a flush and the watch.
        let first = state.handle(T.message("breeze/loc0/refresh", "now"), at: T.at(now))
        #expect(Self.republished(first) == [0])
        #expect(Self.watches(first) == 1)
        var sent = Self.republished(first)
        for index in 1..<1000 {
            let actions = state.handle(T.message("breeze/loc\(index)/refresh", "now"), at: T.at(now))
            #expect(Self.republished(actions).isEmpty, "loc\(index) re-published while a batch was unacknowledged")
            #expect(Self.watches(actions) == 0)
        }
        // A second refresh of a waiting location keeps one place in the queue.
        _ = state.handle(T.message("breeze/loc999/refresh", "now"), at: T.at(now))
        #expect(state.republishing.count == 999)
        var settles = 0
        while !state.republishing.isEmpty {
            let actions = state.handle(.outcomesSettled(PublishOutcomes()), at: T.at(now + 1))
            let batch = Self.republished(actions)
            #expect(batch.count == min(RepublishQueue.batch, 999 - settles * RepublishQueue.batch))
            #expect(sent.isDisjoint(with: batch), "a location re-published twice")
            #expect(Self.watches(actions) == 1, "the next batch waits for this one")
            // The last batch's flush saves the published set (and the loop trims the heap then).
            let persists = actions.compactMap { if case .flush(let persist) = $0 { persist } else { nil } }
            #expect(persists == [state.republishing.isEmpty])
            sent.formUnion(batch)
            settles += 1
            try #require(settles <= 200)
        }
        #expect(settles == 125)
        #expect(sent == Set(0..<1000))
        // Settled with nothing queued: no batch and no watch.
        let idle = state.handle(.outcomesSettled(PublishOutcomes()), at: T.at(now + 2))
        #expect(Self.republished(idle).isEmpty)
        #expect(Self.watches(idle) == 0)
    }

    @Test("a disconnect drops the queued trees: none go to the offline queue, the reconnect re-publishes all")
    func republishQueueDroppedOnReconnect() throws {
        var state = T.machine(try Self.openMeteoPollen(20))
        _ = state.start(at: T.at(T.t0))
        _ = state.handle(.mqtt(.connected), at: T.at(T.t0 + 1))
        for index in 0..<20 { _ = state.handle(T.message("breeze/loc\(index)/refresh", "now"), at: T.at(T.t0 + 2)) }
        #expect(state.republishing.count == 19)
        _ = state.handle(.mqtt(.disconnected(reason: "test")), at: T.at(T.t0 + 3))
        #expect(state.republishing.isEmpty)
        // The disconnect settles the running watch (its publishes lost): no batch goes out.
        #expect(Self.republished(state.handle(.outcomesSettled(PublishOutcomes()), at: T.at(T.t0 + 3))).isEmpty)
        // A refresh while disconnected waits for the connection (the command itself came before the drop).
        _ = state.handle(T.message("breeze/loc3/refresh", "now"), at: T.at(T.t0 + 63))
        #expect(Self.republished(state.handle(.outcomesSettled(PublishOutcomes()), at: T.at(T.t0 + 63))).isEmpty)
        let again = state.handle(.mqtt(.connected), at: T.at(T.t0 + 64))
        #expect(again.contains { if case .republishAll = $0 { true } else { false } })
        #expect(state.republishing.isEmpty)
        #expect(Self.republished(state.handle(.outcomesSettled(PublishOutcomes()), at: T.at(T.t0 + 65))).isEmpty)
    }
}
