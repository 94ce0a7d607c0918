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
import Foundation
import Glibc
import Testing

/// The daemon's decisions, driven directly with events and a fake clock: no broker, no HTTP,
/// no timer. Every ``DaemonEvent`` has cases here; the loop that performs the actions is
/// covered end to end by the integration suite.
@Suite("DaemonState: events in, actions out")
struct DaemonStateTests {
    /// 2026-06-15T10:00:00Z, a Monday; Europe/Berlin is UTC+2 then (local 12:00).
    static let t0: Int64 = 1_781_517_600

    /// `dwd`: whether the DWD source stays on (the default `auto` adds it for these German
    /// coordinates); off unless a test is about it, so the others see the sources they test.
    static func config(
        _ extra: String = "", pollen: String = "api_key: test-key-123456", locations: String? = nil,
        dwd: Bool = false
    ) throws -> AgentConfig {
        let yaml = """
            mqtt: {host: 127.0.0.1, topic_prefix: breeze}
            \(locations ?? """
            locations:
              - {id: home, name: Home, latitude: 52.52, longitude: 13.405, timezone: UTC}
            """)
            pollen: {\(pollen)}
            \(extra)
            """
        var config = try ConfigLoader.load(
            text: yaml, file: "test.yaml", environment: [:], currentYear: 2026, hostname: "hub")
        if !dwd { config.pollen.dwd = false }
        return config
    }

    static func machine(
        _ config: AgentConfig, demo: Bool = false, calls: [String: CallCount] = [:],
        zones: [String: ZoneRules] = [:]
    ) -> DaemonState {
        let locations = config.locations.map {
            LocationRuntime(config: $0, zone: zones[$0.id] ?? .utc, unit: $0.unit)
        }
        return DaemonState(config: config, locations: locations, storedCalls: calls, demo: demo, seed: 42)
    }

    static func at(_ now: DaemonInstant) -> DaemonTime { at(now.unixSeconds) }

    static func at(_ now: Int64) -> DaemonTime {
        DaemonTime(now: DaemonInstant(unixSeconds: now), uptimeSeconds: Int(now - t0))
    }

    static let report = PollenReport(
        source: .google, region: "DE",
        days: [
            PollenDay(
                date: CivilDate(year: 2026, month: 6, day: 15)!,
                items: [
                    PollenItem(code: "GRASS", name: "Grass", isPlant: false, value: 4),
                    PollenItem(code: "TREE", name: "Tree", isPlant: false, value: 0),
                    PollenItem(code: "WEED", name: "Weed", isPlant: false, value: nil),
                ]),
            PollenDay(
                date: CivilDate(year: 2026, month: 6, day: 16)!,
                items: [
                    PollenItem(code: "GRASS", name: "Grass", isPlant: false, value: 5),
                    PollenItem(code: "TREE", name: "Tree", isPlant: false, value: 1),
                    PollenItem(code: "WEED", name: "Weed", isPlant: false, value: 0),
                ]),
        ])

    static func pollenOK(_ now: Int64, source: PollenSource = .google) -> FetchOutcome {
        .answer(
            .pollen,
            PollenAnswer(
                source: source, outcome: .report(report, body: Array("{}".utf8)),
                fetchedAt: DaemonInstant(unixSeconds: now)))
    }

    static func pollenFailed(_ now: Int64, retryAfter: Int64? = nil) -> FetchOutcome {
        .failure(.pollen, message: "HTTP 503", retryAfter: retryAfter.map { .seconds($0) })
    }

    static func climateOK(_ now: Int64) throws -> FetchOutcome {
        let today = CivilDate(year: 2026, month: 6, day: 15)!
        let points = ClimateRequestPlan.points(today: today, years: [1980, 2020])
        let observations = points.map { ClimateObservation(date: $0.date, tenthsCelsius: 200 + $0.year - 1980) }
        let trend = try ClimateTrend.compute(
            today: today, points: points, archive: observations.dropLast(), forecast: [observations.last!])
        return .answer(
            .climate,
            ClimateAnswer(
                trend: trend, bodies: .init(date: "2026-06-15", archive: "{}", forecast: "{}"),
                fetchedAt: DaemonInstant(unixSeconds: now)))
    }

    static let pollenKey = FetchKey(location: 0, kind: .pollen)
    static let climateKey = FetchKey(location: 0, kind: .climate)

    // MARK: helpers over actions

    static func fetches(_ actions: [DaemonAction]) -> [FetchKey] {
        actions.compactMap { if case .fetch(let key, _) = $0 { key } else { nil } }
    }
    static func scopes(_ actions: [DaemonAction]) -> [SinkScope] {
        actions.compactMap { if case .setScope(let scope) = $0 { scope } else { nil } }
    }
    static func logs(_ actions: [DaemonAction], _ level: LogLevel) -> [String] {
        actions.compactMap { if case .log(level, let text) = $0 { text } else { nil } }
    }
    static func published(_ actions: [DaemonAction]) -> [OutgoingMessage] {
        actions.compactMap { if case .publish(let message) = $0 { message } else { nil } }
    }
    static func wake(_ actions: [DaemonAction]) -> Int64? {
        actions.compactMap { if case .wake(let at) = $0 { at.unixSeconds } else { nil } }.last
    }
    static func message(_ topic: String, _ payload: String, retain: Bool = false) -> DaemonEvent {
        .mqtt(.message(MQTTMessage(topic: topic, payload: Array(payload.utf8), qos: 1, retain: retain)))
    }

    /// A machine started at t0 and ticked once the first fetches are due.
    static func started(_ config: AgentConfig, zones: [String: ZoneRules] = [:]) -> (DaemonState, [DaemonAction]) {
        var state = machine(config, zones: zones)
        _ = state.start(at: at(t0))
        let actions = state.handle(.tick, at: at(t0 + 6))
        return (state, actions)
    }

    // MARK: start and tick

    @Test func startSpreadsFirstFetchesAndKeepsUnknownScopes() throws {
        var state = Self.machine(try Self.config())
        let actions = state.start(at: Self.at(Self.t0))
        for key in [Self.pollenKey, Self.climateKey] {
            #expect((Self.t0...Self.t0 + 5).contains(state.schedule(key).nextDue.unixSeconds))
        }
        // Nothing is known yet: every scope keeps what the broker holds.
        let scopes = Self.scopes(actions)
        #expect(
            scopes.map(\.prefix) == [
                "breeze/home/pollen", "breeze/home/climate", "breeze/home/climate/stripes",
                "homeassistant/device/breeze_home/config",
                "breeze/home/display",
            ])
        #expect(scopes.allSatisfy { $0.tree == nil })
        #expect(Self.fetches(actions).isEmpty)
    }

    @Test func tickStartsDueFetchesOnceWhileInFlight() throws {
        var (state, actions) = Self.started(try Self.config())
        #expect(Set(Self.fetches(actions)) == [Self.pollenKey, Self.climateKey, Self.stripesKey])
        guard
            case .fetch(_, let request) = actions.first(where: {
                if case .fetch(Self.pollenKey, _) = $0 { true } else { false }
            }), request.detail as? PollenRequest == PollenRequest(source: .google, season: false)
        else {
            Issue.record("no Google pollen fetch")
            return
        }
        #expect(request.location.id == "home")
        #expect(actions.contains { if case .flush(persist: true) = $0 { true } else { false } })
        // In flight: a second tick starts nothing again.
        let again = state.handle(.tick, at: Self.at(Self.t0 + 7))
        #expect(Self.fetches(again).isEmpty)
        // The wake ignores sources in flight: the next thing is diagnostics or midnight.
        #expect(Self.wake(again) == Self.t0 + Presence.diagnosticsInterval.seconds)
    }

    // MARK: fetch results

    @Test func successfulPollenRebuildsOnlyItsSinksAndSchedulesNextFetch() throws {
        var (state, _) = Self.started(try Self.config())
        let now = Self.t0 + 8
        let actions = state.handle(.fetched(Self.pollenKey, Self.pollenOK(now)), at: Self.at(now))
        let scopes = Self.scopes(actions)
        #expect(
            scopes.map(\.prefix) == [
                "breeze/home/pollen", "homeassistant/device/breeze_home/config", "breeze/home/display",
            ])
        let tree = try #require(scopes[0].tree)
        #expect(tree["breeze/home/pollen/grass/level"] == "High")
        #expect(tree["breeze/home/pollen/tree/level"] == "None")
        #expect(tree["breeze/home/pollen/weed/level"] == "Unknown")
        #expect(tree["breeze/home/pollen/grass/d1/value"] == "5")
        #expect(scopes[1].tree?["homeassistant/device/breeze_home/config"]?.contains("pollen_grass") == true)
        // Stored for a restart; the published set is not saved while climate is in flight.
        #expect(actions.contains { if case .store(.response(_, "home", "pollen-google")) = $0 { true } else { false } })
        #expect(actions.contains { if case .flush(persist: false) = $0 { true } else { false } })
        // Next fetch one interval (6 h) later plus at most 5 % (capped at 300 s) of jitter.
        let due = state.schedule(Self.pollenKey).nextDue.unixSeconds
        #expect(due >= now + 21_600 && due <= now + 21_600 + 300)
        let climate = state.handle(.fetched(Self.climateKey, try Self.climateOK(now)), at: Self.at(now))
        #expect(Self.scopes(climate).map(\.prefix) == ["breeze/home/climate", "breeze/home/display"])
        #expect(climate.contains { if case .flush(persist: false) = $0 { true } else { false } })
        #expect(climate.contains { if case .store(.response(_, "home", "climate")) = $0 { true } else { false } })
        // The last fetch in flight (the stripes) saves the published set.
        let stripes = state.handle(.fetched(Self.stripesKey, try Self.stripesOK(now)), at: Self.at(now))
        #expect(Self.scopes(stripes).map(\.prefix) == ["breeze/home/climate/stripes"])
        #expect(stripes.contains { if case .flush(persist: true) = $0 { true } else { false } })
    }

    @Test func failureBacksOffMarksStaleAndHonoursRetryAfter() throws {
        var (state, _) = Self.started(try Self.config())
        var now = Self.t0 + 8
        _ = state.handle(.fetched(Self.pollenKey, Self.pollenOK(now)), at: Self.at(now))
        // Make the pollen due again, then fail it three times: 60, 120, 240 s (+ up to 25 %).
        now += 21_900
        var actions = state.handle(.tick, at: Self.at(now))
        #expect(Self.fetches(actions) == [Self.pollenKey])
        var steps: [Int64] = []
        for _ in 0..<3 {
            actions = state.handle(.fetched(Self.pollenKey, Self.pollenFailed(now)), at: Self.at(now))
            steps.append(state.schedule(Self.pollenKey).nextDue.unixSeconds - now)
            #expect(Self.logs(actions, .warning).contains { $0.contains("HTTP 503") })
            now = state.schedule(Self.pollenKey).nextDue.unixSeconds
            _ = state.handle(.tick, at: Self.at(now))
        }
        #expect((60...75).contains(steps[0]))
        #expect((120...150).contains(steps[1]))
        #expect((240...300).contains(steps[2]))
        #expect(state.locations[0].stale.pollen)
        // Old data stays, marked stale; the topics say so.
        let scopes = Self.scopes(state.scopeActions(now: DaemonInstant(unixSeconds: now)))
        #expect(scopes[0].tree?["breeze/home/pollen/stale"] == "true")
        // Retry-After beyond the backoff wins.
        _ = state.handle(.fetched(Self.pollenKey, Self.pollenFailed(now, retryAfter: 7_200)), at: Self.at(now))
        #expect(state.schedule(Self.pollenKey).nextDue.unixSeconds == now + 7_200)
    }

    @Test func rejectedKeyFallsBackAtOnceWithAuto() throws {
        var (state, _) = Self.started(try Self.config())
        let now = Self.t0 + 8
        let rejected = FetchOutcome.answer(
            .pollen,
            PollenAnswer(
                source: .google, outcome: .keyRejected(message: "HTTP 403"),
                fetchedAt: DaemonInstant(unixSeconds: now)))
        let actions = state.handle(.fetched(Self.pollenKey, rejected), at: Self.at(now))
        #expect(Self.logs(actions, .error).first?.contains("using key-free Open-Meteo") == true)
        guard
            case .fetch(Self.pollenKey, let request) = actions.first(where: {
                if case .fetch = $0 { true } else { false }
            }), request.detail as? PollenRequest == PollenRequest(source: .openMeteo, season: true)
        else {
            Issue.record("no immediate Open-Meteo fetch: \(actions)")
            return
        }
    }

    @Test func rejectedKeyWithGoogleOnlyWaitsADay() throws {
        var (state, _) = Self.started(try Self.config(pollen: "source: google, api_key: test-key-123456"))
        let now = Self.t0 + 8
        let rejected = FetchOutcome.answer(
            .pollen,
            PollenAnswer(
                source: .google, outcome: .keyRejected(message: "HTTP 400"),
                fetchedAt: DaemonInstant(unixSeconds: now)))
        let actions = state.handle(.fetched(Self.pollenKey, rejected), at: Self.at(now))
        #expect(Self.fetches(actions).isEmpty)
        #expect(state.schedule(Self.pollenKey).nextDue.unixSeconds == now + FetchSchedule.rejectedKeyDelay.seconds)
        #expect(Self.logs(actions, .error).first?.contains("not retrying for 24 h") == true)
    }

    @Test func unsupportedLocationClearsPollenAndDiscoveryPartsAndWarnsOnce() throws {
        var (state, _) = Self.started(try Self.config())
        var now = Self.t0 + 8
        let unsupported = FetchOutcome.answer(
            .pollen,
            PollenAnswer(
                source: .google, outcome: .unsupported(message: "no data"),
                fetchedAt: DaemonInstant(unixSeconds: now)))
        var actions = state.handle(.fetched(Self.pollenKey, unsupported), at: Self.at(now))
        #expect(Self.logs(actions, .warning).count == 1)
        let scopes = Self.scopes(actions)
        #expect(scopes[0].tree == TopicTree())
        #expect(scopes[1].tree?["homeassistant/device/breeze_home/config"]?.contains("pollen_max") == false)
        #expect(
            actions.contains { if case .store(.removeResponse("home", "pollen-google")) = $0 { true } else { false } })
        now = state.schedule(Self.pollenKey).nextDue.unixSeconds
        _ = state.handle(.tick, at: Self.at(now))
        actions = state.handle(.fetched(Self.pollenKey, unsupported), at: Self.at(now))
        #expect(Self.logs(actions, .warning).isEmpty)
    }

    // MARK: the daily Google cap

    @Test func dailyCapStopsCallsUntilLocalMidnightAndWarnsOnce() throws {
        let config = try Self.config(pollen: "api_key: test-key-123456, max_calls_per_day: 2, interval: 15m")
        var (state, _) = Self.started(config)
        var now = Self.t0 + 8
        _ = state.handle(.fetched(Self.pollenKey, Self.pollenOK(now)), at: Self.at(now))
        now = state.schedule(Self.pollenKey).nextDue.unixSeconds
        var actions = state.handle(.tick, at: Self.at(now))
        #expect(Self.fetches(actions).contains(Self.pollenKey))
        _ = state.handle(.fetched(Self.pollenKey, Self.pollenOK(now)), at: Self.at(now))
        #expect(state.callsToday(0, .google, now: DaemonInstant(unixSeconds: now)) == 2)
        now = state.schedule(Self.pollenKey).nextDue.unixSeconds
        actions = state.handle(.tick, at: Self.at(now))
        #expect(!Self.fetches(actions).contains(Self.pollenKey))
        #expect(Self.logs(actions, .warning).filter { $0.contains("daily Google call cap") }.count == 1)
        let midnight: Int64 = 1_781_568_000  // 2026-06-16T00:00:00Z
        #expect(state.schedule(Self.pollenKey).nextDue.unixSeconds == midnight)
        // A refresh in the meantime does not get past the cap, nor log it again.
        actions = state.handle(Self.message("breeze/home/refresh", "now"), at: Self.at(now + 60))
        #expect(!Self.fetches(actions).contains(Self.pollenKey))
        #expect(Self.logs(actions, .warning).isEmpty)
        // After local midnight the count starts again.
        actions = state.handle(.tick, at: Self.at(midnight))
        #expect(Self.fetches(actions).contains(Self.pollenKey))
        #expect(state.callsToday(0, .google, now: DaemonInstant(unixSeconds: midnight)) == 1)
        // The counts go to the store under the file's keys.
        let stored = actions.compactMap { if case .store(.callCounts(let c)) = $0 { c } else { nil } }.last
        #expect(stored?["home.google"] == .init(date: "2026-06-16", calls: 1))
    }

    @Test func storedCallCountsCountAgainstTheCap() throws {
        let config = try Self.config(pollen: "api_key: test-key-123456, max_calls_per_day: 2")
        var state = Self.machine(
            config, calls: ["home.google": .init(date: "2026-06-15", calls: 2), "junk": .init(date: "x", calls: 1)])
        _ = state.start(at: Self.at(Self.t0))
        let actions = state.handle(.tick, at: Self.at(Self.t0 + 6))
        #expect(Self.fetches(actions) == [Self.climateKey, Self.stripesKey])
    }

    @Test func demoIsNotCapped() throws {
        let config = try Self.config(pollen: "api_key: test-key-123456, max_calls_per_day: 1")
        var state = Self.machine(config, demo: true, calls: ["home.google": .init(date: "2026-06-15", calls: 5)])
        _ = state.start(at: Self.at(Self.t0))
        #expect(Self.fetches(state.handle(.tick, at: Self.at(Self.t0 + 6))).contains(Self.pollenKey))
    }

    // MARK: commands

    @Test func refreshHonoursCooldowns() throws {
        var (state, _) = Self.started(try Self.config())
        var now = Self.t0 + 8
        _ = state.handle(.fetched(Self.pollenKey, Self.pollenOK(now)), at: Self.at(now))
        _ = state.handle(.fetched(Self.climateKey, try Self.climateOK(now)), at: Self.at(now))
        now += 100
        var actions = state.handle(Self.message("breeze/home/refresh", "go"), at: Self.at(now))
        #expect(Set(Self.fetches(actions)) == [Self.pollenKey, Self.climateKey])
        #expect(Self.logs(actions, .info) == ["command: refresh home: pollen now, climate now"])
        _ = state.handle(.fetched(Self.pollenKey, Self.pollenOK(now)), at: Self.at(now))
        _ = state.handle(.fetched(Self.climateKey, try Self.climateOK(now)), at: Self.at(now))
        // 10 minutes later: both within their cooldowns (15 min, 1 h).
        actions = state.handle(Self.message("breeze/home/refresh", "go"), at: Self.at(now + 600))
        #expect(Self.fetches(actions).isEmpty)
        #expect(
            Self.logs(actions, .info) == [
                "command: refresh home: pollen skipped (cooldown), climate skipped (cooldown)"
            ])
        // 15 minutes after the first: pollen only.
        actions = state.handle(Self.message("breeze/home/refresh", "go"), at: Self.at(now + 900))
        #expect(Self.fetches(actions) == [Self.pollenKey])
    }

    @Test func aRefreshFloodLogsOneLinePerCooldownWindow() throws {
        var (state, _) = Self.started(try Self.config())
        let now = Self.t0 + 100
        _ = state.handle(Self.message("breeze/home/refresh", "go"), at: Self.at(now))
        var lines = 0
        // 5,000 refreshes over the next 14 minutes: all refused, one line.
        for i in 0..<5_000 {
            let actions = state.handle(Self.message("breeze/home/refresh", "go"), at: Self.at(now + 1 + Int64(i / 6)))
            #expect(Self.fetches(actions).isEmpty)
            lines += Self.logs(actions, .info).count
        }
        #expect(lines == 1)
    }

    @Test func retainedEmptyOversizeAndForeignCommandsAreNotCommands() throws {
        var (state, _) = Self.started(try Self.config())
        let now = Self.t0 + 10
        var actions = state.handle(Self.message("breeze/home/refresh", "x", retain: true), at: Self.at(now))
        #expect(Self.published(actions) == [.init(topic: "breeze/home/refresh", payload: "", qos: 1, retain: true)])
        #expect(Self.fetches(actions).isEmpty)
        // The echo of that clear, an empty command, and an unknown location or topic: nothing.
        for event in [
            Self.message("breeze/home/refresh", "", retain: true), Self.message("breeze/home/refresh", ""),
            Self.message("breeze/attic/refresh", "x"), Self.message("breeze/home/pollen", "x"),
            Self.message("other/home/refresh", "x"),
        ] {
            #expect(state.handle(event, at: Self.at(now)).isEmpty)
        }
        actions = state.handle(Self.message("breeze/home/refresh", String(repeating: "x", count: 65)), at: Self.at(now))
        #expect(
            Self.logs(actions, .warning) == ["command: ignoring 65-byte payload on breeze/home/refresh (at most 64)"])
    }

    @Test func unitCommandSwitchesTheClimateTreeAndIsRemembered() throws {
        // Berlin: `climate.unit: auto` gives °C, the command switches to °F.
        var (state, _) = Self.started(try Self.config())
        let now = Self.t0 + 8
        _ = state.handle(.fetched(Self.climateKey, try Self.climateOK(now)), at: Self.at(now))
        var actions = state.handle(Self.message("breeze/home/climate/unit/set", "F"), at: Self.at(now))
        #expect(actions.contains { if case .store(.unit("°F", "home")) = $0 { true } else { false } })
        let climate = Self.scopes(actions).first { $0.prefix == "breeze/home/climate" }
        #expect(climate?.tree?["breeze/home/climate/unit"] == "°F")
        #expect(actions.contains { if case .flush(persist: true) = $0 { true } else { false } })
        // The same unit again changes nothing; a bad one is refused by name.
        #expect(state.handle(Self.message("breeze/home/climate/unit/set", "°F"), at: Self.at(now)).isEmpty)
        actions = state.handle(Self.message("breeze/home/climate/unit/set", "kelvin\u{1}"), at: Self.at(now))
        #expect(Self.logs(actions, .warning).first?.contains(#"refused unit "kelvin\u{1}""#) == true)
    }

    // MARK: freshness edges and the timer

    @Test func wakeFollowsTheFreshnessEdgesOfThePollenData() throws {
        // Pollen every 30 days would never wake the loop for the 24 h / 48 h edges on its own.
        let config = try Self.config("climate: {enabled: false}", pollen: "api_key: test-key-123456, interval: 30d")
        var (state, _) = Self.started(config)
        let fetchedAt = Self.t0 + 8
        // Midnight would come first on the fetch day; step past it to see the edges.
        _ = state.handle(.fetched(Self.pollenKey, Self.pollenOK(fetchedAt)), at: Self.at(fetchedAt))
        let afterMidnight: Int64 = 1_781_568_000 + 1
        var actions = state.handle(.tick, at: Self.at(afterMidnight))
        #expect(Self.wake(actions) == min(afterMidnight + 300, afterMidnight + 86_399))
        // Day after: the 24 h edge (forecast days no longer served) comes before diagnostics.
        let lateNextDay = fetchedAt + PollenSelection.forecastLifetime - 100
        actions = state.handle(.tick, at: Self.at(lateNextDay))
        #expect(Self.wake(actions) == fetchedAt + PollenSelection.forecastLifetime)
        // Then the 48 h edge (today's data too old).
        let lateSecondDay = fetchedAt + PollenSelection.todayLifetime - 100
        actions = state.handle(.tick, at: Self.at(lateSecondDay))
        #expect(Self.wake(actions) == fetchedAt + PollenSelection.todayLifetime)
        // Past the edges the data is stale in the topics even without a failed fetch.
        let old = fetchedAt + PollenSelection.todayLifetime
        let scopes = Self.scopes(state.handle(.tick, at: Self.at(old)))
        #expect(scopes.first { $0.prefix == "breeze/home/pollen" }?.tree?["breeze/home/pollen/stale"] == "true")
    }

    @Test func diagnosticsAreDueEveryIntervalAndOnlyWhileConnected() throws {
        var (state, _) = Self.started(try Self.config())
        let due = state.presence.nextDiagnostics
        // Not connected: rescheduled, not sent.
        var actions = state.handle(.tick, at: Self.at(due))
        #expect(Self.published(actions).isEmpty)
        #expect(state.presence.nextDiagnostics == due + Presence.diagnosticsInterval)
        _ = state.handle(.mqtt(.connected), at: Self.at(due + 1))
        actions = state.handle(.tick, at: Self.at(state.presence.nextDiagnostics))
        let sent = Self.published(actions)
        #expect(sent.map(\.topic) == ["breeze/diagnostics"])
        #expect(sent.first?.retain == false)
        // Open-Meteo: the climate fetch and the stripes fetch.
        #expect(sent.first?.payload.contains(#""api_calls_today":{"home":{"google":1,"open_meteo":2}}"#) == true)
    }

    // MARK: the broker

    @Test func connectSubscribesAnnouncesAndRepublishesReconnectCounts() throws {
        var (state, _) = Self.started(try Self.config())
        var actions = state.handle(.mqtt(.connected), at: Self.at(Self.t0 + 7))
        guard case .subscribe(let topics) = actions.first(where: { if case .subscribe = $0 { true } else { false } })
        else {
            Issue.record("no subscriptions")
            return
        }
        // The agent's announcement topic and its own availability (SPEC §16) come with them.
        #expect(
            topics == [
                "breeze/home/refresh", "breeze/home/climate/unit/set", "breeze/agent/-", "breeze/status",
                "homeassistant/status",
            ])
        let sent = Self.published(actions)
        #expect(sent.first == .init(topic: "breeze/status", payload: "online", qos: 1, retain: true))
        // Diagnostics at once, so Home Assistant's sensors are not unknown for minutes; then the
        // announcement, after the subscription that shows another instance's.
        #expect(sent.map(\.topic).suffix(2) == ["breeze/diagnostics", "breeze/agent/-"])
        #expect(actions.contains { if case .republishAll = $0 { true } else { false } })
        #expect(state.presence.reconnects == 0)
        actions = state.handle(.mqtt(.disconnected(reason: "lost")), at: Self.at(Self.t0 + 20))
        #expect(Self.logs(actions, .warning) == ["mqtt: disconnected (lost); reconnecting with backoff"])
        #expect(!state.presence.isConnected)
        actions = state.handle(.mqtt(.connected), at: Self.at(Self.t0 + 30))
        #expect(state.presence.reconnects == 1)
        #expect(
            Self.published(actions).first { $0.topic == "breeze/diagnostics" }?.payload.contains(#""reconnects":1"#)
                == true)
        #expect(actions.contains { if case .republishAll = $0 { true } else { false } })
    }

    // MARK: Home Assistant births

    @Test func birthsAreCoalescedIntoOneDelayedResend() throws {
        var (state, _) = Self.started(try Self.config())
        _ = state.handle(.mqtt(.connected), at: Self.at(Self.t0 + 7))
        var actions = state.handle(Self.message("homeassistant/status", "online"), at: Self.at(Self.t0 + 10))
        // The re-send is a deadline of the one wake, 1–10 s later (whole seconds).
        let due = try #require(state.presence.rediscoverAt)
        #expect(due.unixSeconds >= Self.t0 + 11 && due.unixSeconds <= Self.t0 + 20)
        #expect(Self.wake(actions).map { $0 <= due.unixSeconds } == true)
        #expect(Self.logs(actions, .info).count == 1)
        // 2,000 more births while one is pending: nothing more.
        for _ in 0..<2_000 {
            #expect(state.handle(Self.message("homeassistant/status", "online"), at: Self.at(Self.t0 + 11)).isEmpty)
        }
        #expect(state.handle(Self.message("homeassistant/status", "offline"), at: Self.at(Self.t0 + 11)).isEmpty)
        actions = state.handle(.tick, at: Self.at(due))
        let republished = actions.compactMap { if case .republish(let scope) = $0 { scope } else { nil } }
        #expect(republished == ["homeassistant/device/breeze_home/config"])
        #expect(Self.published(actions).map(\.topic) == ["breeze/diagnostics"])
        // The next birth is answered again.
        actions = state.handle(Self.message("homeassistant/status", "online"), at: Self.at(Self.t0 + 100))
        #expect(state.presence.rediscoverAt != nil)
    }

    @Test func demoAnswersNoBirthAndAnnouncesNothing() throws {
        var state = Self.machine(try Self.config(), demo: true)
        let started = state.start(at: Self.at(Self.t0))
        #expect(!Self.scopes(started).contains { $0.prefix.hasPrefix("homeassistant/") })
        let connected = state.handle(.mqtt(.connected), at: Self.at(Self.t0 + 1))
        guard case .subscribe(let topics) = connected.first(where: { if case .subscribe = $0 { true } else { false } })
        else {
            Issue.record("no subscriptions")
            return
        }
        #expect(!topics.contains("homeassistant/status"))
        #expect(state.handle(Self.message("homeassistant/status", "online"), at: Self.at(Self.t0 + 2)).isEmpty)
    }

    // MARK: signals

    @Test func termStopsAndLaterEventsAreIgnored() throws {
        var (state, _) = Self.started(try Self.config())
        var actions = state.handle(.signal(.hangup), at: Self.at(Self.t0 + 7))
        #expect(Self.logs(actions, .warning).first?.hasPrefix("SIGHUP") == true)
        #expect(!actions.contains { if case .stop = $0 { true } else { false } })
        actions = state.handle(.signal(.terminate), at: Self.at(Self.t0 + 8))
        #expect(Self.logs(actions, .info) == ["signal SIGTERM: shutting down"])
        #expect(actions.contains { if case .stop(exitCode: 0) = $0 { true } else { false } })
        // A fetch that lands during the shutdown is not applied.
        #expect(state.handle(.fetched(Self.pollenKey, Self.pollenOK(Self.t0 + 9)), at: Self.at(Self.t0 + 9)).isEmpty)
        #expect(state.locations[0].pollen == nil)
    }

    // MARK: several locations

    /// `home` and a second location, both configured in UTC.
    static func twoLocations(_ second: String) throws -> AgentConfig {
        try config(
            locations: """
                locations:
                  - {id: home, latitude: 52.52, longitude: 13.405, timezone: UTC}
                  - {id: \(second), latitude: 47.0, longitude: 11.0, timezone: UTC}
                """)
    }

    @Test func completionsNarrowToTheirLocationUntilTheTimerIsDue() throws {
        let config = try Self.twoLocations("cabin")
        var (state, actions) = Self.started(config)
        #expect(Self.fetches(actions).count == 6)
        let now = Self.t0 + 8
        actions = state.handle(
            .fetched(FetchKey(location: 1, kind: .pollen), Self.pollenOK(now)), at: Self.at(now))
        #expect(
            Self.scopes(actions).map(\.prefix) == [
                "breeze/cabin/pollen", "homeassistant/device/breeze_cabin/config", "breeze/cabin/display",
            ])
        // Handled at or after the wake time (a fetch start, not a content edge): still narrowed.
        let wake = try #require(Self.wake(actions))
        actions = state.handle(
            .fetched(FetchKey(location: 1, kind: .climate), try Self.climateOK(wake)), at: Self.at(wake))
        #expect(Self.scopes(actions).allSatisfy { $0.prefix.contains("cabin") }, "\(Self.scopes(actions))")
        #expect(!Self.scopes(actions).isEmpty)
    }

    /// A wake rebuilds only the locations whose content edge came (here: local midnight, which
    /// changes "today"); the wakes that only start fetches rebuild nothing, so a cold start of N
    /// locations is not N wakes × N locations (bench/RESULTS.md).
    @Test func aWakeRebuildsOnlyTheLocationsWhoseEdgeCame() throws {
        let config = try Self.twoLocations("east")
        // A zone of UTC+9 all year (Japan), as a version 1 TZif file (RFC 8536 §3): one time type.
        let header = Array("TZif".utf8) + [UInt8](repeating: 0, count: 16)
        let counts: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 4]
        let type: [UInt8] = [0, 0, 0x7E, 0x90, 0, 0] + Array("JST".utf8) + [0]
        let japan = try ZoneRules(tzif: header + counts + type)
        #expect(japan.utcOffset(atUnixTime: Self.t0) == 32_400)
        var (state, actions) = Self.started(config, zones: ["east": japan])
        #expect(Self.fetches(actions).count == 6)
        #expect(Self.scopes(actions).allSatisfy { $0.prefix.hasPrefix("breeze/images") }, "\(Self.scopes(actions))")
        // Both locations get their data (every fetch answered: one left in flight would be
        // given up by the watchdog hours later, and rebuilt then).
        var now = Self.t0 + 8
        for location in 0..<2 {
            for kind in [SourceKind.pollen, .climate, .stripes] {
                let outcome: FetchOutcome =
                    switch kind {
                    case .pollen: Self.pollenOK(now)
                    case .climate: try Self.climateOK(now)
                    default: try Self.stripesOK(now)
                    }
                _ = state.handle(.fetched(FetchKey(location: location, kind: kind), outcome), at: Self.at(now))
                now += 1
            }
        }
        // A tick with nothing due rebuilds nothing.
        actions = state.handle(.tick, at: Self.at(now + 60))
        #expect(Self.scopes(actions).isEmpty, "\(Self.scopes(actions))")
        // t0 is 10:00 UTC, 19:00 in Tokyo: Tokyo's midnight comes first, then UTC's.
        let tokyoMidnight = Self.t0 + 5 * 3600
        actions = state.handle(.tick, at: Self.at(tokyoMidnight))
        var scopes = Self.scopes(actions).map(\.prefix)
        #expect(scopes.contains("breeze/east/pollen") && scopes.contains("breeze/east/climate"), "\(scopes)")
        #expect(scopes.contains("homeassistant/device/breeze_east/config"), "\(scopes)")
        #expect(!scopes.contains { $0.contains("/home/") || $0.contains("breeze_home") }, "\(scopes)")
        actions = state.handle(.tick, at: Self.at(Self.t0 + 14 * 3600))
        scopes = Self.scopes(actions).map(\.prefix)
        #expect(scopes.contains("breeze/home/pollen") && scopes.contains("breeze/home/climate"), "\(scopes)")
        #expect(!scopes.contains { $0.contains("east") }, "\(scopes)")
    }

    /// A fetch handled after its location's edge passed (the tick queued behind completions)
    /// rebuilds that location whole, not only the fetch's sinks.
    @Test func aCompletionAfterAPassedEdgeRebuildsItsLocationWhole() throws {
        var (state, _) = Self.started(try Self.config())
        let now = Self.t0 + 8
        _ = state.handle(.fetched(Self.pollenKey, Self.pollenOK(now)), at: Self.at(now))
        _ = state.handle(.fetched(Self.climateKey, try Self.climateOK(now + 1)), at: Self.at(now + 1))
        let midnight = Self.t0 + 14 * 3600
        let actions = state.handle(
            .fetched(Self.climateKey, try Self.climateOK(midnight + 5)), at: Self.at(midnight + 5))
        let scopes = Self.scopes(actions).map(\.prefix)
        #expect(scopes.contains("breeze/home/pollen") && scopes.contains("breeze/home/climate"), "\(scopes)")
    }

    /// A passed time edge (here the diagnostics) is handled once by the first completion after it:
    /// the completions queued behind the late tick narrow to their location again, instead of
    /// each redoing the full update (which made a slow API's cycle cost much more CPU).
    @Test func aPassedWakeTimeIsOneFullUpdateNotOnePerCompletion() throws {
        let config = try Self.twoLocations("cabin")
        var (state, actions) = Self.started(config)
        #expect(Self.fetches(actions).count == 6)
        _ = state.handle(.mqtt(.connected), at: Self.at(Self.t0 + 1))
        // The stripes and the cabin's climate answer at once (left in flight, the watchdog
        // would give them up at the late tick below, t0 + 6 + 300 s, and rebuild them).
        for location in 0..<2 {
            _ = state.handle(
                .fetched(FetchKey(location: location, kind: .stripes), try Self.stripesOK(Self.t0 + 7)),
                at: Self.at(Self.t0 + 7))
        }
        _ = state.handle(
            .fetched(FetchKey(location: 1, kind: .climate), try Self.climateOK(Self.t0 + 7)), at: Self.at(Self.t0 + 7))
        let edge = Self.t0 + Presence.diagnosticsInterval.seconds
        func diagnostics(_ actions: [DaemonAction]) -> Int {
            actions.filter { if case .publish(let m) = $0, m.topic == "breeze/diagnostics" { true } else { false } }
                .count
        }
        actions = state.handle(
            .fetched(FetchKey(location: 1, kind: .pollen), Self.pollenOK(edge)), at: Self.at(edge + 2))
        #expect(Self.scopes(actions).allSatisfy { $0.prefix.contains("cabin") }, "\(Self.scopes(actions))")
        #expect(diagnostics(actions) == 1)
        let wake = try #require(Self.wake(actions))
        #expect(wake > edge + 2)
        for (offset, key) in [FetchKey(location: 0, kind: .pollen), FetchKey(location: 0, kind: .climate)].enumerated()
        {
            let now = edge + 3 + Int64(offset)
            let outcome: FetchOutcome = key.kind == .pollen ? Self.pollenOK(now) : try Self.climateOK(now)
            actions = state.handle(.fetched(key, outcome), at: Self.at(now))
            #expect(Self.scopes(actions).allSatisfy { $0.prefix.contains("home") }, "\(Self.scopes(actions))")
            #expect(diagnostics(actions) == 0)
        }
        // The late tick finds the edge handled: no second diagnostics, no location rebuilt.
        actions = state.handle(.tick, at: Self.at(edge + 6))
        #expect(diagnostics(actions) == 0)
        #expect(Self.scopes(actions).isEmpty, "\(Self.scopes(actions))")
    }

    /// A clock stepped back (NTP after a hub booted with a wrong RTC) leaves the stored content
    /// edges in the future of the new time: every location is rebuilt at once instead.
    @Test func aClockSteppedBackRebuildsEveryLocation() throws {
        var (state, _) = Self.started(try Self.config())
        let now = Self.t0 + 8
        _ = state.handle(.fetched(Self.pollenKey, Self.pollenOK(now)), at: Self.at(now))
        _ = state.handle(.fetched(Self.climateKey, try Self.climateOK(now + 1)), at: Self.at(now + 1))
        var actions = state.handle(.tick, at: Self.at(now + 60))
        #expect(Self.scopes(actions).isEmpty, "\(Self.scopes(actions))")
        actions = state.handle(.tick, at: Self.at(now - 86_400))
        let scopes = Self.scopes(actions).map(\.prefix)
        #expect(scopes.contains("breeze/home/pollen") && scopes.contains("breeze/home/climate"), "\(scopes)")
        // And the wake is worked out from the new time: the next midnight of that day.
        let wake = try #require(Self.wake(actions))
        #expect(wake <= Self.t0 - 86_400 + 14 * 3600, "\(wake)")
    }

    /// Where daylight saving starts at 00:00 local midnight does not exist: the next day begins
    /// at 01:00 (Santiago, 2026-09-06 04:00 UTC; `zdump -v America/Santiago`).
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/share/zoneinfo/America/Santiago")))
    func nextMidnightAcrossAGapAtMidnight() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: "/usr/share/zoneinfo/America/Santiago"))
        let santiago = try ZoneRules(tzif: [UInt8](bytes))
        let config = try Self.config()
        let location = LocationRuntime(
            config: config.locations[0], zone: santiago, unit: config.locations[0].unit)
        let dayBegins: Int64 = 1_788_667_200  // Sun 6 Sep 2026 01:00 -03
        #expect(santiago.utcOffset(atUnixTime: dayBegins - 1) == -14_400)
        #expect(santiago.utcOffset(atUnixTime: dayBegins) == -10_800)
        for before in [1, 60, 1_800, 3_599, 3_600, 3_601, 7_200, 20 * 3_600] {
            #expect(
                location.nextMidnight(after: DaemonInstant(unixSeconds: dayBegins - Int64(before))).unixSeconds
                    == dayBegins, "\(before) s before")
        }
        // Ordinary days around it, and the end of daylight saving (at 03:00 UTC on 5 Apr 2026
        // the clocks go from 23:59:59 -03 back to 23:00 -04: the day begins once, 04:00 UTC).
        #expect(
            location.nextMidnight(after: DaemonInstant(unixSeconds: dayBegins)).unixSeconds == dayBegins + 23 * 3_600)
        #expect(
            location.nextMidnight(after: DaemonInstant(unixSeconds: dayBegins - 2 * 86_400)).unixSeconds == dayBegins
                - 86_400)
        let fallBack: Int64 = 1_775_358_000
        #expect(
            location.nextMidnight(after: DaemonInstant(unixSeconds: fallBack - 3_600)).unixSeconds == fallBack + 3_600)
        #expect(
            location.nextMidnight(after: DaemonInstant(unixSeconds: fallBack + 1_800)).unixSeconds == fallBack + 3_600)
    }

    @Test func fetchesInFlightCountEachSourceOnce() {
        var set = FetchesInFlight()
        #expect(set.isEmpty && set.count == 0)
        let keys = [
            FetchKey(location: 0, kind: .pollen), FetchKey(location: 999, kind: .air),
            FetchKey(location: 3, kind: .stripes),
        ]
        for key in keys + keys { set.insert(key, deadline: 500) }
        #expect(set.count == 3)
        for location in 0..<1_001 {
            for kind in SourceKind.allCases {
                let key = FetchKey(location: location, kind: kind)
                #expect(set.contains(key) == keys.contains(key), "\(key)")
            }
        }
        set.remove(FetchKey(location: 999, kind: .pollen))  // not in flight: nothing changes
        set.remove(FetchKey(location: 5_000, kind: .air))
        #expect(set.count == 3)
        for key in keys { set.remove(key) }
        #expect(set.isEmpty && !set.contains(keys[0]))
    }

    @Test func callKeysRoundTripTheirStorageForm() {
        for key in [CallKey(locationID: "home", api: .google), CallKey(locationID: "a.b", api: .openMeteo)] {
            #expect(CallKey(storageKey: key.storageKey) == key)
        }
        #expect(CallKey(storageKey: "home") == nil)
        #expect(CallKey(storageKey: "home.bing") == nil)
    }

    @Test("the MQTT version the broker accepted: a fallback from 5 is the state's warning, the configured one nothing")
    func protocolFallbackIsAWarning() throws {
        var state = Self.machine(try Self.config())
        let fallBack = state.handle(.brokerProtocol(.v311), at: Self.at(Self.t0))
        #expect(
            Self.logs(fallBack, .warning) == [
                "mqtt: the broker refused MQTT 5; fell back to MQTT \(MQTTProtocolVersion.v311) (set mqtt.protocol to choose)"
            ])
        #expect(state.handle(.brokerProtocol(.v5), at: Self.at(Self.t0)).isEmpty)
    }

    @Test("one watch of the broker's outcomes at a time: after a flush, again only once it settled")
    func outcomesAreWatchedOnceAtATime() throws {
        var state = Self.machine(try Self.config())
        _ = state.start(at: Self.at(Self.t0))
        func watches(_ actions: [DaemonAction]) -> Int {
            actions.count { if case .watchOutcomes(let timeout) = $0 { timeout == .seconds(30) } else { false } }
        }
        let first = state.handle(.tick, at: Self.at(Self.t0 + 1))
        #expect(first.contains { if case .flush = $0 { true } else { false } })
        #expect(watches(first) == 1)
        #expect(watches(state.handle(.tick, at: Self.at(Self.t0 + 2))) == 0)
        // What the watch saw is handed to the publisher by the loop, between events.
        let settled = state.handle(.outcomesSettled(PublishOutcomes()), at: Self.at(Self.t0 + 3))
        #expect(settled.count == 1)
        if case .reportOutcomes(let outcomes, let pendingIsLost) = settled.first {
            #expect(outcomes == PublishOutcomes() && !pendingIsLost)
        } else {
            Issue.record("no reportOutcomes: \(settled)")
        }
        #expect(watches(state.handle(.tick, at: Self.at(Self.t0 + 4))) == 1)
    }
}
