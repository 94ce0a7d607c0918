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
@testable import BreezeConfig
import BreezeCore
import Testing

/// The presence child alone: the connection, births and the diagnostics cadence, with time
/// and randomness as arguments.
@Suite("Presence: the connection, Home Assistant's births, the diagnostics cadence")
struct PresenceTests {
    static let t0: Int64 = 1_781_517_600
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

    @Test mutating func birthsAreFoldedIntoOneDelayedResend() throws {
        _ = presence.handle(.connected, now: Self.t0, random: &random)
        let first = presence.handle(.birth(online: true), now: Self.t0 + 1, random: &random)
        guard case .rediscover(let delay) = try #require(first.last) else {
            Issue.record("no re-discovery asked for: \(first)")
            return
        }
        #expect(first.first == .log(.info, "Home Assistant is online: re-sending discovery in \(delay)"))
        #expect(delay >= .seconds(1) && delay <= .seconds(10))
        for _ in 0..<100 { #expect(presence.handle(.birth(online: true), now: Self.t0 + 2, random: &random).isEmpty) }
        #expect(
            presence.handle(.rediscoverDue, now: Self.t0 + 20, random: &random) == [
                .republishDiscovery, .publishDiagnostics,
            ])
        #expect(!presence.handle(.birth(online: true), now: Self.t0 + 21, random: &random).isEmpty)
    }

    @Test mutating func offlineBirthsAndBirthsWithoutDiscoveryAreIgnored() {
        #expect(presence.handle(.birth(online: false), now: Self.t0, random: &random).isEmpty)
        var off = Presence(broker: "hub:1883", discoveryEnabled: false)
        #expect(off.handle(.birth(online: true), now: Self.t0, random: &random).isEmpty)
        // A re-send due while disconnected republishes discovery (queued for the reconnect's
        // republish) but sends no diagnostics.
        #expect(off.handle(.rediscoverDue, now: Self.t0, random: &random) == [.republishDiscovery])
    }
}
