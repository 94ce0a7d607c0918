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
import Testing

@Suite struct FetchScheduleTests {
    @Test func successSchedulesOneIntervalLaterWithBoundedJitter() {
        var s = FetchSchedule(interval: 21_600, refreshCooldown: 900, nextDue: 0)
        #expect(s.isDue(at: 0))
        s.succeeded(at: 1000, jitter: 0)
        #expect(s.nextDue == 22_600)
        s.succeeded(at: 1000, jitter: 0.999)
        #expect(s.nextDue > 22_600 && s.nextDue <= 22_900)
        #expect(!s.isDue(at: 22_599) && s.isDue(at: 22_900))
    }

    @Test func failuresBackOffExponentiallyUpToTheCap() {
        var s = FetchSchedule(interval: 21_600, refreshCooldown: 900, nextDue: 0)
        let delays = (0..<10).map { _ in s.failed(at: 0, retryAfter: nil, jitter: 0) }
        #expect(delays == [60, 120, 240, 480, 960, 1920, 3600, 3600, 3600, 3600])
        #expect(s.consecutiveFailures == 10)
        s.succeeded(at: 0, jitter: 0)
        #expect(s.consecutiveFailures == 0)
        let jittered = s.failed(at: 0, retryAfter: nil, jitter: 0.999)
        #expect(jittered == 74)
    }

    @Test func retryAfterIsHonouredButNotShortened() {
        var s = FetchSchedule(interval: 21_600, refreshCooldown: 900, nextDue: 0)
        let honoured = s.failed(at: 100, retryAfter: 600, jitter: 0)
        #expect(honoured == 600)
        #expect(s.nextDue == 700)
        let notShortened = s.failed(at: 100, retryAfter: 5, jitter: 0)
        #expect(notShortened == 120)
    }

    @Test func rejectedKeyWaitsADay() {
        var s = FetchSchedule(interval: 21_600, refreshCooldown: 900, nextDue: 0)
        s.keyRejected(at: 50)
        #expect(s.nextDue == 86_450)
    }

    @Test func refreshHonoursTheCooldown() {
        var s = FetchSchedule(interval: 21_600, refreshCooldown: 900, nextDue: 99_999)
        let granted = s.refresh(at: 1000)
        #expect(granted)
        #expect(s.isDue(at: 1000))
        s.succeeded(at: 1000, jitter: 0)
        let refused = s.refresh(at: 1899)
        #expect(!refused)
        #expect(!s.isDue(at: 1899))
        let grantedAgain = s.refresh(at: 1900)
        #expect(grantedAgain)
    }
}

@Suite struct FetchScheduleInFlightTests {
    /// A due source whose fetch is in flight must not stay due: the daemon's timer would fire
    /// at once again and again until the fetch completes (a busy loop).
    @Test func startedFetchIsNotDueWhileInFlight() {
        var s = FetchSchedule(interval: 21_600, refreshCooldown: 900, nextDue: 100)
        #expect(s.isDue(at: 100))
        s.started(at: 100)
        #expect(!s.isDue(at: 101))
        #expect(!s.isDue(at: 100 + FetchSchedule.inFlightLimit - 1))
        #expect(s.isDue(at: 100 + FetchSchedule.inFlightLimit))
        s.succeeded(at: 130, jitter: 0)
        #expect(s.nextDue == DaemonInstant(unixSeconds: 130 + 21_600))
    }
}

/// SPEC §12: `pollen.interval: 9223372036854775807s` once passed the config and trapped in the
/// schedule after the first fetch, before its response was stored — a crash loop that spent a
/// Google call per restart. The config bounds durations now; the arithmetic saturates anyway.
@Suite struct FetchScheduleSaturationTests {
    @Test(arguments: [Int64.max, Int64.max - 1, Int64.max / 2 + 1])
    func hugeIntervalsSaturateInsteadOfTrapping(interval: Int64) {
        let interval = DaemonDuration(seconds: interval)
        var s = FetchSchedule(interval: interval, refreshCooldown: interval, nextDue: 0)
        let now: DaemonInstant = 1_781_517_600
        s.succeeded(at: now, jitter: 0.999)
        #expect(s.nextDue == .distantFuture || s.nextDue > now)
        s.freshUntil(fetchedAt: now, jitter: 1)
        #expect(s.nextDue > now)
        s.started(at: .distantFuture - 10)
        #expect(s.nextDue == .distantFuture)
        s.keyRejected(at: .distantFuture - 10)
        #expect(s.nextDue == .distantFuture)
        let delay = s.failed(at: .distantFuture - 10, retryAfter: .forever, jitter: 1)
        #expect(delay == 86_400)
        #expect(s.nextDue == .distantFuture)
        // A cooldown that would overflow still refuses, and grants nothing twice.
        let first = s.refresh(at: now)
        let second = s.refresh(at: now + 1)
        #expect(first && !second)
    }

    @Test func jitterOutsideZeroToOneIsClamped() {
        var s = FetchSchedule(interval: 21_600, refreshCooldown: 900, nextDue: 0)
        s.succeeded(at: 0, jitter: 50)
        #expect(s.nextDue == 21_900)
        s.succeeded(at: 0, jitter: -3)
        #expect(s.nextDue == 21_600)
    }
}
