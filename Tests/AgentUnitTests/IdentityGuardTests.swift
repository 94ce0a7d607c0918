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
import Testing

/// SPEC §16 "Two agents, one identity" and "Its own tree, kept" in the daemon's machine
/// (issue 27 findings 3 and 4), driven with events and a fake clock.
@Suite("DaemonState: the announcement, a second instance, the tree kept")
struct IdentityGuardTests {
    typealias D = DaemonStateTests
    static let t0 = D.t0

    static func delays(_ actions: [DaemonAction]) -> [Int64?] {
        actions.compactMap { if case .reconnectDelay(let delay) = $0 { .some(delay?.seconds) } else { nil } }
    }

    static func announcement(_ instance: String, at: Int64) -> [UInt8] {
        Array(
            AgentAnnouncement(
                instance: instance, host: "hub-2", pid: 812, started: "2026-06-15T09:00:00Z",
                at: DaemonInstant(unixSeconds: at)
            )
            .payload.utf8)
    }

    @Test("connect subscribes to the agent and availability topics and announces this instance, retained")
    func announcesAtConnect() throws {
        var (state, _) = D.started(try D.config())
        state.identify(host: "hub", pid: 42, started: DaemonInstant(unixSeconds: Self.t0))
        let actions = state.handle(.mqtt(.connected), at: D.at(Self.t0 + 7))
        let topics: [String] = actions.flatMap { action -> [String] in
            if case .subscribe(let topics) = action { topics } else { [] }
        }
        #expect(topics.contains("breeze/agent/-") && topics.contains("breeze/status"))
        let announced = try #require(D.published(actions).first { $0.topic == "breeze/agent/-" })
        #expect(announced.retain)
        let parsed = try #require(AgentAnnouncement.parse(Array(announced.payload.utf8)))
        #expect(parsed.host == "hub" && parsed.pid == 42 && parsed.at == DaemonInstant(unixSeconds: Self.t0 + 7))
        // `at` is published as the bare Unix seconds it was as an `Int64`.
        #expect(announced.payload.hasSuffix(#","at":1781517607}"#), "\(announced.payload)")
        // Its own echo is not another instance.
        let echo = state.handle(D.message("breeze/agent/-", announced.payload, retain: true), at: D.at(Self.t0 + 8))
        #expect(D.logs(echo, .error).isEmpty)
    }

    @Test("dropped within seconds of connecting, again and again: one error, 2 s doubling to 300 s, reset when stable")
    func quickDropsBackOff() throws {
        var (state, _) = D.started(try D.config())
        var now = Self.t0 + 10
        var delays: [Int64?] = []
        var errors: [String] = []
        for _ in 0..<12 {
            _ = state.handle(.mqtt(.connected), at: D.at(now))
            let dropped = state.handle(.mqtt(.disconnected(reason: "connection lost")), at: D.at(now + 1))
            delays += Self.delays(dropped)
            errors += D.logs(dropped, .error)
            now += 2 + (delays.last.flatMap { $0 } ?? 1)
        }
        #expect(delays == [2, 4, 8, 16, 32, 64, 128, 256, 300, 300].map { Optional($0) })
        #expect(errors.count == 1)
        #expect(errors.first?.contains("another client is using client id") == true, "\(errors)")
        let json = state.diagnosticsJSON(at: D.at(now))
        #expect(
            json.contains(#""identity_conflict":{"other_instance":null,"quick_drops":12,"reconnect_delay_s":300}"#),
            "\(json)")
        // A connection that lasts a minute: the configured backoff again.
        _ = state.handle(.mqtt(.connected), at: D.at(now))
        let stable = state.handle(.tick, at: D.at(now + IdentityGuard.stableSeconds.seconds))
        #expect(Self.delays(stable) == [nil])
        #expect(!state.diagnosticsJSON(at: D.at(now + 61)).contains("identity_conflict"))
    }

    @Test("a suspect named after quick drops carries its own announcement time as seen_at, not 1970")
    func suspectSeenAtIsItsOwnTime() throws {
        var (state, _) = D.started(try D.config())
        var now = Self.t0 + 10
        _ = state.handle(.mqtt(.connected), at: D.at(now))
        // Delivered before this connection's own announcement came back: a suspect only.
        let announced = now - 20
        let suspect = String(decoding: Self.announcement("b7", at: announced), as: UTF8.self)
        #expect(state.handle(D.message("breeze/agent/-", suspect, retain: true), at: D.at(now)).isEmpty)
        _ = state.handle(.mqtt(.disconnected(reason: "connection lost")), at: D.at(now + 1))
        for _ in 0..<2 {
            now += 5
            _ = state.handle(.mqtt(.connected), at: D.at(now))
            _ = state.handle(.mqtt(.disconnected(reason: "connection lost")), at: D.at(now + 1))
        }
        let json = state.diagnosticsJSON(at: D.at(now + 2))
        #expect(json.contains(#""instance":"b7""#), "\(json)")
        #expect(json.contains(#""seen_at":"\#(UTCTimestamp.rfc3339(unixSeconds: announced))""#), "\(json)")
    }

    @Test("leaving: the announcement cleared and offline, QoS 1 at least; with another live instance only offline")
    func farewell() throws {
        var (state, _) = D.started(try D.config())
        let now = Self.t0 + 10
        let clear = OutgoingMessage(topic: "breeze/agent/-", payload: "", qos: 1, retain: true)
        let offline = OutgoingMessage(topic: "breeze/status", payload: "offline", qos: 1, retain: true)
        #expect(state.farewell == [clear, offline])
        let connected = state.handle(.mqtt(.connected), at: D.at(now))
        let own = try #require(D.published(connected).first { $0.topic == "breeze/agent/-" })
        _ = state.handle(D.message("breeze/agent/-", own.payload, retain: true), at: D.at(now))
        let other = String(decoding: Self.announcement("b7", at: now), as: UTF8.self)
        _ = state.handle(D.message("breeze/agent/-", other, retain: true), at: D.at(now + 1))
        #expect(state.identity.isOtherLive)
        #expect(state.farewell == [offline])
    }

    @Test("another live instance: one error naming it, answered once, in diagnostics; an earlier one is not")
    func otherInstance() throws {
        var (state, _) = D.started(try D.config())
        let now = Self.t0 + 10
        let connected = state.handle(.mqtt(.connected), at: D.at(now))
        let own = try #require(D.published(connected).first { $0.topic == "breeze/agent/-" })
        // A retained announcement from a run that ended long ago: stale.
        let stale = state.handle(
            D.message(
                "breeze/agent/-", String(decoding: Self.announcement("old", at: now - 3600), as: UTF8.self),
                retain: true),
            at: D.at(now))
        #expect(stale.isEmpty)
        let payload = String(decoding: Self.announcement("b7", at: now), as: UTF8.self)
        // Recent, but there before this connection's announcement: maybe this agent's own last
        // run, not an error.
        #expect(state.handle(D.message("breeze/agent/-", payload, retain: true), at: D.at(now)).isEmpty)
        _ = state.handle(D.message("breeze/agent/-", own.payload, retain: true), at: D.at(now))
        // After it (MQTT 5 keeps the retain flag as published: it is no sign).
        let live = state.handle(D.message("breeze/agent/-", payload, retain: true), at: D.at(now + 1))
        #expect(D.logs(live, .error).count == 1)
        #expect(
            D.logs(live, .error).first?.contains(#"instance b7 on "hub-2" (pid 812"#) == true, "\(D.logs(live, .error))"
        )
        #expect(D.published(live).contains { $0.topic == "breeze/agent/-" }, "answered with an announcement")
        #expect(D.published(live).contains { $0.topic == "breeze/diagnostics" })
        // Seen again: no second line, no second answer (two agents do not ping-pong).
        let again = state.handle(D.message("breeze/agent/-", payload), at: D.at(now + 2))
        #expect(again.isEmpty)
        #expect(
            state.diagnosticsJSON(at: D.at(now + 3)).contains(
                #""other_instance":{"instance":"b7","host":"hub-2","pid":812"#))
    }

    @Test("someone else's offline on the availability topic is replaced with online at once")
    func offlineReplaced() throws {
        var (state, _) = D.started(try D.config())
        _ = state.handle(.mqtt(.connected), at: D.at(Self.t0 + 10))
        var lines = 0
        for i in 0..<100 {
            let actions = state.handle(
                D.message("breeze/status", "offline", retain: true), at: D.at(Self.t0 + 11 + Int64(i / 50)))
            #expect(D.published(actions) == [.init(topic: "breeze/status", payload: "online", qos: 1, retain: true)])
            lines += D.logs(actions, .warning).count
        }
        #expect(lines == 1)
        #expect(state.handle(D.message("breeze/status", "online", retain: true), at: D.at(Self.t0 + 20)).isEmpty)
    }

    @Test("a refresh re-publishes the location's whole tree, at most once a minute")
    func refreshRepublishes() throws {
        var (state, _) = D.started(try D.config())
        _ = state.handle(.mqtt(.connected), at: D.at(Self.t0 + 10))
        func republished(_ actions: [DaemonAction]) -> [String] {
            actions.compactMap { if case .republish(let scope) = $0 { scope } else { nil } }
        }
        // The broker took everything published so far: the one watch of the outcomes settles
        // (a re-publish waits for that; FleetPacingTests.republishPaced).
        func refreshed(at time: Int64) -> [String] {
            _ = state.handle(.outcomesSettled(PublishOutcomes()), at: D.at(time))
            return republished(state.handle(D.message("breeze/home/refresh", "1"), at: D.at(time)))
        }
        let first = refreshed(at: Self.t0 + 20)
        #expect(first.contains("breeze/home/pollen"), "\(first)")
        #expect(refreshed(at: Self.t0 + 30).isEmpty)
        #expect(!refreshed(at: Self.t0 + 81).isEmpty)
    }

    @Test("removed locations are cleared 5 s after the first connect, not while another instance is live")
    func removedLocationsHeld() throws {
        let published: [String: PayloadDigest] = [
            "breeze/office/pollen/max/level": PayloadDigest(payload: "High"),
            "breeze/home/pollen/max/level": PayloadDigest(payload: "High"),
            "breeze/status": PayloadDigest(payload: "online"),
        ]
        do {
            var (state, _) = D.started(try D.config())
            let held = state.holdRemovedLocations(published: published)
            #expect(
                held.contains { if case .handover(.hold(["breeze/office"])) = $0 { true } else { false } }, "\(held)")
            _ = state.handle(.mqtt(.connected), at: D.at(Self.t0 + 10))
            let released = state.handle(.tick, at: D.at(Self.t0 + 15))
            #expect(released.contains { if case .handover(.release(["breeze/office"])) = $0 { true } else { false } })
        }
        do {
            var (state, _) = D.started(try D.config())
            _ = state.holdRemovedLocations(published: published)
            let connected = state.handle(.mqtt(.connected), at: D.at(Self.t0 + 10))
            let own = try #require(D.published(connected).first { $0.topic == "breeze/agent/-" })
            let payload = String(decoding: Self.announcement("b7", at: Self.t0 + 5), as: UTF8.self)
            // One there before this connection's own (this agent's previous run?) is not live.
            _ = state.handle(D.message("breeze/agent/-", payload, retain: true), at: D.at(Self.t0 + 10))
            #expect(!state.identity.isOtherLive)
            _ = state.handle(D.message("breeze/agent/-", own.payload, retain: true), at: D.at(Self.t0 + 10))
            // Its answer, after this one's, is.
            _ = state.handle(D.message("breeze/agent/-", payload), at: D.at(Self.t0 + 11))
            let kept = state.handle(.tick, at: D.at(Self.t0 + 15))
            #expect(!kept.contains { if case .handover(.release) = $0 { true } else { false } })
            #expect(
                D.logs(kept, .warning).contains { $0.contains("not clearing the topics of removed location(s) office") }
            )
            // The other instance stops announcing itself: cleared then.
            let later = state.handle(.tick, at: D.at(Self.t0 + 11 + IdentityGuard.liveSeconds.seconds + 1))
            #expect(later.contains { if case .handover(.release(["breeze/office"])) = $0 { true } else { false } })
        }
    }
}
