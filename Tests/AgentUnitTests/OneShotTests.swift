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
import BreezeConfig
import BreezeCore
import BreezeMQTT
import Testing

/// ``OneShot`` alone: `once`'s and `print`'s phases as events in, actions out, on plain numbers
/// for time (no loop, no broker, no clock).
@Suite("OneShot: once and print as a phase machine")
struct OneShotTests {
    static let t0: DaemonInstant = 1_781_517_600
    static let pollen = FetchKey(location: 0, kind: .pollen)
    static let air = FetchKey(location: 0, kind: .air)
    static let keys = [(pollen, "pollen[home]"), (air, "air[home]")]

    /// A `once` machine connected, prepared and fetching both keys.
    static func fetching(_ mode: OneShot.Mode = .once, qos: Int = 1) -> OneShot {
        var shot = OneShot(mode, keys: keys, qos: qos, now: t0)
        if mode == .once { _ = shot.handle(.connected, now: t0) }
        _ = shot.handle(.prepared, now: t0)
        return shot
    }

    /// A `once` machine whose fetches all came back with data, waiting for the broker's outcomes
    /// after one flush of `sent` messages.
    static func awaitingOutcomes(sent: Int = 5, qos: Int = 1) -> OneShot {
        var shot = fetching(qos: qos)
        for key in [pollen, air] {
            _ = shot.handle(.began(key, fetching: true, hasData: false), now: t0)
            _ = shot.handle(.fetched(key, fallBack: false, hasData: true), now: t0)
        }
        _ = shot.handle(.rendersSettled, now: t0)
        _ = shot.handle(.flushed(sent: sent, clearsDueAt: nil), now: t0)
        return shot
    }

    /// `n` publishes, all acknowledged.
    static func accepted(_ n: Int) -> PublishOutcomes {
        var outcomes = PublishOutcomes()
        outcomes.accepted = n
        return outcomes
    }

    static let allAccepted = accepted(5)

    @Test
    func onceGoesThroughEveryPhaseInOrder() {
        var shot = OneShot(.once, keys: Self.keys, qos: 1, now: Self.t0)
        #expect(shot.phase == .connecting(deadline: Self.t0 + OneShot.connectTimeout))
        #expect(shot.handle(.tick, now: Self.t0 + 1) == [])
        #expect(shot.handle(.connected, now: Self.t0 + 1) == [.prepare])
        #expect(shot.phase == .preparing)
        #expect(!shot.wants(Self.pollen))
        #expect(shot.handle(.prepared, now: Self.t0 + 1) == [.startFetches(due: [Self.pollen, Self.air])])
        #expect(shot.phase == .fetching && shot.wants(Self.pollen) && shot.wants(Self.air))

        #expect(shot.handle(.began(Self.pollen, fetching: true, hasData: false), now: Self.t0 + 1) == [])
        #expect(!shot.wants(Self.pollen))
        #expect(shot.handle(.began(Self.air, fetching: true, hasData: false), now: Self.t0 + 1) == [])
        #expect(shot.handle(.fetched(Self.pollen, fallBack: false, hasData: true), now: Self.t0 + 2) == [])
        #expect(shot.phase == .fetching)
        #expect(
            shot.handle(.fetched(Self.air, fallBack: false, hasData: true), now: Self.t0 + 2) == [
                .saveCallCounts, .setScopes, .render,
            ])
        #expect(shot.phase == .rendering)

        #expect(shot.handle(.rendersSettled, now: Self.t0 + 3) == [.flush])
        #expect(shot.phase == .flushing)
        #expect(
            shot.handle(.flushed(sent: 5, clearsDueAt: nil), now: Self.t0 + 3) == [
                .sendDeviceCommands, .awaitOutcomes(timeout: OneShot.outcomeTimeout),
            ])
        #expect(shot.phase == .awaitingOutcomes)
        #expect(
            shot.handle(.outcomes(Self.allAccepted, failingImages: []), now: Self.t0 + 4) == [
                .log(.info, "once: 5 topics published and acknowledged"), .stop(exitCode: ExitCode.success),
            ])
        #expect(shot.phase == .done(exitCode: ExitCode.success))
    }

    /// The held-back clears (a plant gone) are due 3 s after the first flush, on the monotonic
    /// clock; the loop's wake, in whole wall seconds, can come before that (the loop's event
    /// crossed a second boundary). The flush it starts sends none of them: `once` waits for
    /// them again instead of exiting with them unsent (BridgeTests, issue48).
    @Test
    func clearsStillHeldAfterTheSecondFlushAreWaitedForAgain() {
        var shot = Self.fetching()
        for key in [Self.pollen, Self.air] {
            _ = shot.handle(.began(key, fetching: true, hasData: false), now: Self.t0)
            _ = shot.handle(.fetched(key, fallBack: false, hasData: true), now: Self.t0)
        }
        #expect(shot.handle(.rendersSettled, now: Self.t0) == [.flush])
        #expect(shot.handle(.flushed(sent: 2, clearsDueAt: Self.t0 + 3), now: Self.t0) == [])
        #expect(shot.phase == .awaitingClears(until: Self.t0 + 3))
        #expect(shot.nextDeadline == Self.t0 + .seconds(3))
        #expect(shot.handle(.tick, now: Self.t0 + 2) == [])
        #expect(shot.handle(.tick, now: Self.t0 + 3) == [.flush])
        // Too early: nothing was due, the clears are still held.
        #expect(shot.handle(.flushed(sent: 0, clearsDueAt: Self.t0 + 4), now: Self.t0 + 3) == [])
        #expect(shot.phase == .awaitingClears(until: Self.t0 + 4))
        #expect(shot.handle(.tick, now: Self.t0 + 4) == [.flush])
        #expect(
            shot.handle(.flushed(sent: 17, clearsDueAt: nil), now: Self.t0 + 4) == [
                .sendDeviceCommands, .awaitOutcomes(timeout: OneShot.outcomeTimeout),
            ])
        #expect(
            shot.handle(.outcomes(Self.accepted(19), failingImages: []), now: Self.t0 + 5) == [
                .log(.info, "once: 19 topics published and acknowledged"), .stop(exitCode: ExitCode.success),
            ])
    }

    @Test
    func aBrokerThatDoesNotAcceptTheConnectionWithinTenSecondsIsExit69() {
        var shot = OneShot(.once, keys: Self.keys, qos: 1, now: Self.t0)
        #expect(shot.nextDeadline == Self.t0 + .seconds(10))
        #expect(shot.handle(.tick, now: Self.t0 + 9) == [])
        #expect(
            shot.handle(.tick, now: Self.t0 + 10) == [
                .connectFailed, .stop(exitCode: ExitCode.unavailable),
            ])
        #expect(shot.phase == .done(exitCode: ExitCode.unavailable))
        // A connection after the deadline changes nothing.
        #expect(shot.handle(.connected, now: Self.t0 + 11) == [])
    }

    @Test
    func aPacingHoldOfAtMostTwoMinutesIsWaitedForOnTheClock() {
        var shot = Self.fetching()
        _ = shot.handle(.began(Self.pollen, fetching: true, hasData: false), now: Self.t0)
        #expect(shot.handle(.deferred(Self.air, until: Self.t0 + 120, hasData: false), now: Self.t0) == [])
        #expect(shot.wants(Self.air))
        #expect(shot.nextDeadline == Self.t0 + .seconds(120))
        _ = shot.handle(.fetched(Self.pollen, fallBack: false, hasData: true), now: Self.t0 + 1)
        #expect(shot.phase == .fetching)
        #expect(shot.handle(.tick, now: Self.t0 + 119) == [])
        #expect(shot.handle(.tick, now: Self.t0 + 120) == [.startFetches(due: [])])
        #expect(shot.nextDeadline == nil)
        _ = shot.handle(.began(Self.air, fetching: true, hasData: false), now: Self.t0 + 120)
        #expect(
            shot.handle(.fetched(Self.air, fallBack: false, hasData: true), now: Self.t0 + 121) == [
                .saveCallCounts, .setScopes, .render,
            ])
        #expect(shot.unusable.isEmpty)
    }

    @Test
    func aLongerHoldSkipsTheRequestWithItsLineAndASourceWithoutDataFailsTheRun() {
        var shot = Self.fetching()
        _ = shot.handle(.began(Self.pollen, fetching: true, hasData: false), now: Self.t0)
        #expect(
            shot.handle(.deferred(Self.air, until: Self.t0 + 121, hasData: false), now: Self.t0) == [
                .log(.warning, "once: air[home] not fetched: Open-Meteo's daily limit is reached")
            ])
        #expect(!shot.wants(Self.air))
        #expect(shot.nextDeadline == nil)
        _ = shot.handle(.fetched(Self.pollen, fallBack: false, hasData: true), now: Self.t0 + 1)
        #expect(shot.phase == .rendering)
        #expect(shot.unusable == ["air[home]"])
        _ = shot.handle(.rendersSettled, now: Self.t0 + 1)
        _ = shot.handle(.flushed(sent: 3, clearsDueAt: nil), now: Self.t0 + 1)
        #expect(
            shot.handle(.outcomes(Self.accepted(3), failingImages: []), now: Self.t0 + 2) == [
                .log(.info, "once: 3 topics published and acknowledged"),
                .log(.error, "no usable data for air[home]"),
                .stop(exitCode: ExitCode.unavailable),
            ])
    }

    @Test
    func aSkippedSourceWithStoredDataIsNoFailure() {
        var shot = Self.fetching()
        _ = shot.handle(.deferred(Self.air, until: Self.t0 + 3600, hasData: true), now: Self.t0)
        _ = shot.handle(.began(Self.pollen, fetching: false, hasData: true), now: Self.t0)
        #expect(shot.phase == .rendering)
        #expect(shot.unusable.isEmpty)
    }

    @Test
    func autoPollenRejectedByGoogleIsFetchedOnceMoreNotTwice() {
        var shot = Self.fetching()
        _ = shot.handle(.began(Self.air, fetching: false, hasData: true), now: Self.t0)
        _ = shot.handle(.began(Self.pollen, fetching: true, hasData: false), now: Self.t0)
        #expect(
            shot.handle(.fetched(Self.pollen, fallBack: true, hasData: false), now: Self.t0) == [
                .startFetches(due: [Self.pollen])
            ])
        #expect(shot.wants(Self.pollen))
        _ = shot.handle(.began(Self.pollen, fetching: true, hasData: false), now: Self.t0)
        // A second rejection does not ask a third time: the run ends without pollen.
        #expect(
            shot.handle(.fetched(Self.pollen, fallBack: true, hasData: false), now: Self.t0) == [
                .saveCallCounts, .setScopes, .render,
            ])
        #expect(shot.unusable == ["pollen[home]"])
    }

    @Test
    func heldBackClearsAreFlushedAfterTheirDelayOnce() {
        var shot = Self.fetching()
        for key in [Self.pollen, Self.air] {
            _ = shot.handle(.began(key, fetching: true, hasData: false), now: Self.t0)
            _ = shot.handle(.fetched(key, fallBack: false, hasData: true), now: Self.t0)
        }
        _ = shot.handle(.rendersSettled, now: Self.t0)
        #expect(shot.handle(.flushed(sent: 4, clearsDueAt: Self.t0 + 3), now: Self.t0) == [])
        #expect(shot.phase == .awaitingClears(until: Self.t0 + 3))
        #expect(shot.nextDeadline == Self.t0 + .seconds(3))
        #expect(shot.handle(.tick, now: Self.t0 + 2) == [])
        #expect(shot.handle(.tick, now: Self.t0 + 3) == [.flush])
        // Clears held past the second flush (not due at it) are waited for too; the loop
        // reports no clear that was due and could not be sent, so the waits end.
        #expect(shot.handle(.flushed(sent: 2, clearsDueAt: Self.t0 + 6), now: Self.t0 + 3) == [])
        #expect(shot.phase == .awaitingClears(until: Self.t0 + 6))
        #expect(shot.handle(.tick, now: Self.t0 + 6) == [.flush])
        #expect(
            shot.handle(.flushed(sent: 1, clearsDueAt: nil), now: Self.t0 + 6) == [
                .sendDeviceCommands, .awaitOutcomes(timeout: OneShot.outcomeTimeout),
            ])
        #expect(shot.sent == 7)
    }

    @Test
    func refusedOrUnacknowledgedPublishesAreExit69() {
        var shot = Self.awaitingOutcomes(sent: 5)
        var refused = Self.accepted(2)
        refused.refused = [
            RefusedPublish(
                topic: "breeze/home/pollen/max",
                refusal: PublishRefusal(code: 0x97, reason: "Quota exceeded", local: false))
        ]
        refused.unrecorded = 1
        refused.pending = ["breeze/home/pollen/peak"]
        #expect(
            shot.handle(.outcomes(refused, failingImages: []), now: Self.t0) == [
                .log(.error, "mqtt: the broker did not acknowledge 1 publish(es) within 10 s"),
                .log(.error, "once: 2 of 5 topics acknowledged; 2 refused, 1 not acknowledged"),
                .stop(exitCode: ExitCode.unavailable),
            ])
    }

    @Test
    func anImageThatDidNotRenderIsExit69() {
        var shot = Self.awaitingOutcomes(sent: 5)
        #expect(
            shot.handle(.outcomes(Self.allAccepted, failingImages: ["home/card", "home/strip"]), now: Self.t0) == [
                .log(.info, "once: 5 topics published and acknowledged"),
                .log(.error, "once: 2 image(s) not rendered: home/card, home/strip"),
                .stop(exitCode: ExitCode.unavailable),
            ])
    }

    @Test
    func qosZeroSaysTheBrokerAcknowledgesNothing() {
        var shot = Self.awaitingOutcomes(sent: 7, qos: 0)
        #expect(
            shot.handle(.outcomes(Self.allAccepted, failingImages: []), now: Self.t0) == [
                .log(.info, "once: 7 topics published (QoS 0: the broker does not acknowledge them)"),
                .stop(exitCode: ExitCode.success),
            ])
    }

    @Test
    func printFetchesPrintsAndStopsWithoutABroker() {
        var shot = OneShot(.print, keys: Self.keys, qos: 1, now: Self.t0)
        #expect(shot.phase == .preparing)
        #expect(shot.nextDeadline == nil)
        #expect(shot.handle(.prepared, now: Self.t0) == [.startFetches(due: [Self.pollen, Self.air])])
        _ = shot.handle(.began(Self.pollen, fetching: true, hasData: false), now: Self.t0)
        _ = shot.handle(.began(Self.air, fetching: true, hasData: false), now: Self.t0)
        _ = shot.handle(.fetched(Self.pollen, fallBack: false, hasData: true), now: Self.t0)
        #expect(
            shot.handle(.fetched(Self.air, fallBack: false, hasData: true), now: Self.t0) == [
                .saveCallCounts, .printTree, .stop(exitCode: ExitCode.success),
            ])
    }

    @Test
    func printWithASourceWithoutDataPrintsThenIsExit69() {
        var shot = Self.fetching(.print)
        _ = shot.handle(.began(Self.pollen, fetching: true, hasData: false), now: Self.t0)
        _ = shot.handle(.began(Self.air, fetching: false, hasData: true), now: Self.t0)
        #expect(
            shot.handle(.fetched(Self.pollen, fallBack: false, hasData: false), now: Self.t0) == [
                .saveCallCounts, .printTree, .log(.error, "no usable data for pollen[home]"),
                .stop(exitCode: ExitCode.unavailable),
            ])
    }

    @Test
    func noEnabledSourceGoesStraightFromPreparedToRendering() {
        var shot = OneShot(.once, keys: [], qos: 1, now: Self.t0)
        _ = shot.handle(.connected, now: Self.t0)
        #expect(shot.handle(.prepared, now: Self.t0) == [.startFetches(due: []), .saveCallCounts, .setScopes, .render])
    }
}
