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

import BreezeConfig

/// When one source of one location is fetched next: a value that the scheduler asks and
/// updates, tested without clocks or I/O (times are Unix seconds passed in).
///
/// - after a success the next fetch is due one `interval` later (plus jitter, so that many
///   hubs do not hit an API in the same second);
/// - after a failure it retries with capped exponential backoff and jitter, never sooner than
///   the server's `Retry-After`;
/// - a rejected API key is not retried in a loop: the next try is a day later;
/// - `refresh` asks for a fetch now, granted at most once per cooldown.
///
/// Every sum saturates at `Int64.max` instead of trapping: the config bounds durations
/// (docs/operations.md, Limits), but a schedule must never be the thing that crashes the daemon after a fetch
/// and before its response is stored (a crash loop under `Restart=on-failure` spent a Google
/// call per restart).
package struct FetchSchedule: Sendable, Equatable {
    package var interval: Int64
    package var refreshCooldown: Int64
    package private(set) var nextDue: Int64
    package private(set) var consecutiveFailures = 0
    package private(set) var lastRefresh: Int64?

    /// First backoff step and the cap of the backoff.
    package static let backoffBase: Int64 = 60
    package static let backoffCap: Int64 = 3600
    /// A rejected key is tried again after this long (or on `refresh`, or a restart).
    package static let rejectedKeyDelay: Int64 = 86_400

    package init(interval: Int64, refreshCooldown: Int64, nextDue: Int64) {
        self.interval = interval
        self.refreshCooldown = refreshCooldown
        self.nextDue = nextDue
    }

    package func isDue(at now: Int64) -> Bool { now >= nextDue }

    /// How long a fetch may be in flight: the source is not due meanwhile, and the daemon's
    /// watchdog (`FetchTracker.stuckLimit`) gives the fetch up then and applies it as a
    /// failure (curl's own total timeout is 30 s a request, so this is only a safety net).
    package static let inFlightLimit: Int64 = 300

    /// A fetch started at `now`: not due again while it is in flight, so the scheduler does
    /// not keep waking up for it (its completion sets the real next time).
    package mutating func started(at now: Int64) {
        nextDue = Self.sum(now, Self.inFlightLimit)
    }

    /// `a + b`, saturating at the ends of `Int64` instead of trapping.
    static func sum(_ a: Int64, _ b: Int64) -> Int64 {
        let (result, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? .max : .min) : result
    }

    /// One interval plus its jitter (at most 5 % of the interval, at most 300 s).
    private func intervalAfter(_ time: Int64, jitter: Double) -> Int64 {
        let spread = Double(min(max(interval, 0) / 20, 300)) * min(max(jitter, 0), 1)
        return Self.sum(Self.sum(time, interval), Int64(spread))
    }

    /// A fetch succeeded at `now`; `jitter` is a random fraction 0..<1.
    package mutating func succeeded(at now: Int64, jitter: Double) {
        consecutiveFailures = 0
        nextDue = intervalAfter(now, jitter: jitter)
    }

    /// Data is already fresh up to `fetchedAt` (a stored response at start): next fetch when it ages out.
    package mutating func freshUntil(fetchedAt: Int64, jitter: Double) {
        nextDue = intervalAfter(fetchedAt, jitter: jitter)
    }

    /// A fetch failed at `now`; returns the delay chosen. `jitter` is a random fraction 0..<1.
    @discardableResult
    package mutating func failed(at now: Int64, retryAfter: Int64?, jitter: Double) -> Int64 {
        consecutiveFailures = min(consecutiveFailures + 1, 1 << 20)
        let exponent = min(consecutiveFailures - 1, 16)
        let backoff = min(Self.backoffCap, Self.backoffBase << Int64(exponent))
        // Jitter spreads retries over +0…25 % of the step.
        var delay = backoff + Int64(Double(backoff / 4) * min(max(jitter, 0), 1))
        if let retryAfter, retryAfter > delay { delay = min(retryAfter, 86_400) }
        nextDue = Self.sum(now, delay)
        return delay
    }

    /// The API key was rejected (HTTP 400/403): do not hammer.
    package mutating func keyRejected(at now: Int64) {
        consecutiveFailures = min(consecutiveFailures + 1, 1 << 20)
        nextDue = Self.sum(now, Self.rejectedKeyDelay)
    }

    /// A `refresh` command arrived; true when granted (the fetch becomes due now).
    package mutating func refresh(at now: Int64) -> Bool {
        if let lastRefresh, Self.sum(lastRefresh, refreshCooldown) > now { return false }
        lastRefresh = now
        nextDue = now
        return true
    }

    /// Forces the next fetch to `time` (e.g. local midnight for climate).
    package mutating func due(at time: Int64) { nextDue = time }
}
