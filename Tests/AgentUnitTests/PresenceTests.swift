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

/// The presence child alone: the connection, births and the diagnostics cadence, with time
/// and randomness as arguments.
@Suite("Presence: the connection, Home Assistant's births, the diagnostics cadence")
struct PresenceTests {
    static let t0: DaemonInstant = 1_781_517_600
    var random = SplitMix64(seed: 42)
    var presence = Presence(broker: "hub:1883", discoveryEnabled: true)

    @Test mutating func theConnectionIsAnEnumAndReconnectsCountFromTheSecond() {
        #expect(presence.connection == .neverConnected)
        #expect(presence.handle(.started, now: Self.t0, random: &random).isEmpty)
        let first = presence.handle(.connected, now: Self.t0 + 1, random: &random)
        #expect(first == [.log(.info, "mqtt: connected to hub:1883"), .announce, .publishDiagnostics])
        #expect(presence.connection == .connected(since: Self.t0 + 1))
        #expect(presence.reconnects == 0)
        let lost = presence.handle(.disconnected(reason: "lost"), now: Self.t0 + 5, random: &random)
        #expect(lost == [.log(.warning, "mqtt: disconnected (lost); reconnecting with backoff")])
        #expect(presence.connection == .lost(since: Self.t0 + 5))
        #expect(!presence.isConnected)
        _ = presence.handle(.connected, now: Self.t0 + 9, random: &random)
        #expect(presence.reconnects == 1)
        #expect(presence.isConnected)
    }

    @Test mutating func diagnosticsComeEveryIntervalOnlyWhileConnectedAndAreAlwaysRescheduled() {
        _ = presence.handle(.started, now: Self.t0, random: &random)
        #expect(presence.nextDeadline == Self.t0 + Presence.diagnosticsInterval)
        // Before the time: nothing.
        #expect(presence.handle(.tick, now: Self.t0 + 299, random: &random).isEmpty)
        // Due but not connected: not sent, rescheduled from now.
        #expect(presence.handle(.tick, now: Self.t0 + 310, random: &random).isEmpty)
        #expect(presence.nextDeadline == Self.t0 + 310 + Presence.diagnosticsInterval)
        _ = presence.handle(.connected, now: Self.t0 + 320, random: &random)
        #expect(presence.handle(.tick, now: Self.t0 + 610, random: &random) == [.publishDiagnostics])
        #expect(presence.nextDeadline == Self.t0 + 610 + Presence.diagnosticsInterval)
    }

    /// Issue 39: Home Assistant meeting a running agent subscribes to the diagnostics topic
    /// only once it has created the entities from the discovery sent in the same moment, so the
    /// diagnostics of that moment can pass it by: they go out once more 30 s later.
    @Test mutating func diagnosticsFollowEachConnectAndEachRediscoveryOnceMore() throws {
        _ = presence.handle(.started, now: Self.t0, random: &random)
        _ = presence.handle(.connected, now: Self.t0 + 1, random: &random)
        #expect(presence.nextDeadline == Self.t0 + 1 + Presence.diagnosticsFollowUp)
        #expect(presence.handle(.tick, now: Self.t0 + 30, random: &random).isEmpty)
        #expect(presence.handle(.tick, now: Self.t0 + 31, random: &random) == [.publishDiagnostics])
        // Once: the regular cadence is unchanged.
        #expect(presence.handle(.tick, now: Self.t0 + 32, random: &random).isEmpty)
        #expect(presence.nextDeadline == Self.t0 + Presence.diagnosticsInterval)
        // A birth: discovery and diagnostics at the re-send, diagnostics once more 30 s later.
        _ = presence.handle(.birth(online: true), now: Self.t0 + 40, random: &random)
        let due = try #require(presence.rediscoverAt)
        #expect(presence.handle(.tick, now: due, random: &random) == [.republishDiscovery, .publishDiagnostics])
        #expect(presence.nextDeadline == due + Presence.diagnosticsFollowUp)
        #expect(
            presence.handle(.tick, now: due + Presence.diagnosticsFollowUp, random: &random) == [.publishDiagnostics])
        // Disconnected when the follow-up is due: nothing (diagnostics are not retained).
        _ = presence.handle(.connected, now: Self.t0 + 100, random: &random)
        _ = presence.handle(.disconnected(reason: "lost"), now: Self.t0 + 101, random: &random)
        #expect(presence.handle(.tick, now: Self.t0 + 130, random: &random).isEmpty)
    }

    @Test mutating func birthsAreFoldedIntoOneDelayedResend() throws {
        _ = presence.handle(.started, now: Self.t0, random: &random)
        _ = presence.handle(.connected, now: Self.t0, random: &random)
        let first = presence.handle(.birth(online: true), now: Self.t0 + 1, random: &random)
        #expect(first.count == 1)
        #expect(first.first?.isLog(startingWith: "Home Assistant is online: re-sending discovery in ") == true)
        // The re-send is a deadline of the wake: 1–10 s later, in whole seconds.
        let due = try #require(presence.rediscoverAt)
        #expect(due >= Self.t0 + 2 && due <= Self.t0 + 11)
        #expect(presence.nextDeadline == due)
        for _ in 0..<100 { #expect(presence.handle(.birth(online: true), now: Self.t0 + 2, random: &random).isEmpty) }
        #expect(presence.handle(.tick, now: due - 1, random: &random).isEmpty)
        #expect(presence.handle(.tick, now: due, random: &random) == [.republishDiscovery, .publishDiagnostics])
        #expect(presence.rediscoverAt == nil)
        #expect(!presence.handle(.birth(online: true), now: Self.t0 + 21, random: &random).isEmpty)
    }

    @Test mutating func offlineBirthsAndBirthsWithoutDiscoveryAreIgnored() {
        #expect(presence.handle(.birth(online: false), now: Self.t0, random: &random).isEmpty)
        var off = Presence(broker: "hub:1883", discoveryEnabled: false)
        #expect(off.handle(.birth(online: true), now: Self.t0, random: &random).isEmpty)
        #expect(off.rediscoverAt == nil)
    }

    @Test mutating func aResendDueWhileDisconnectedRepublishesDiscoveryWithoutDiagnostics() throws {
        _ = presence.handle(.connected, now: Self.t0, random: &random)
        _ = presence.handle(.birth(online: true), now: Self.t0 + 1, random: &random)
        _ = presence.handle(.disconnected(reason: "gone"), now: Self.t0 + 1, random: &random)
        let due = try #require(presence.rediscoverAt)
        // Queued for the reconnect's republish; diagnostics are not retained, so not sent.
        #expect(presence.handle(.tick, now: due, random: &random) == [.republishDiscovery])
    }
}

extension Presence.Action {
    fileprivate func isLog(startingWith prefix: String) -> Bool {
        if case .log(.info, let text) = self { text.hasPrefix(prefix) } else { false }
    }
}
