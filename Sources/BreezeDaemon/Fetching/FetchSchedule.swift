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
/// updates, tested without clocks or I/O (the time is passed in).
///
/// - after a success the next fetch is due one `interval` later (plus jitter, so that many
///   hubs do not hit an API in the same second);
/// - after a failure it retries with capped exponential backoff and jitter, never sooner than
///   the server's `Retry-After`;
/// - a rejected API key is not retried in a loop: the next try is a day later;
/// - `refresh` asks for a fetch now, granted at most once per cooldown.
///
/// Its arithmetic is ``DaemonInstant``'s, which saturates instead of trapping: the config bounds
/// durations (docs/operations.md, Limits), and the type makes an unbounded one harmless anyway.
package struct FetchSchedule: Sendable, Equatable {
    package var interval: DaemonDuration
    package var refreshCooldown: DaemonDuration
    package private(set) var nextDue: DaemonInstant
    package private(set) var consecutiveFailures = 0
    package private(set) var lastRefresh: DaemonInstant?

    /// First backoff step and the cap of the backoff.
    package static let backoffBase: DaemonDuration = .seconds(60)
    package static let backoffCap: DaemonDuration = .hours(1)
    /// A rejected key is tried again after this long (or on `refresh`, or a restart).
    package static let rejectedKeyDelay: DaemonDuration = .hours(24)
    /// The longest `Retry-After` honoured.
    package static let retryAfterCap: DaemonDuration = .hours(24)

    package init(interval: DaemonDuration, refreshCooldown: DaemonDuration, nextDue: DaemonInstant) {
        self.interval = interval
        self.refreshCooldown = refreshCooldown
        self.nextDue = nextDue
    }

    /// A schedule not yet placed: due at the start of time, which ``FetchPlanner/start(now:random:)``
    /// spreads over the first minute or so.
    package static let unplaced = DaemonInstant(unixSeconds: 0)

    package func isDue(at now: DaemonInstant) -> Bool { now >= nextDue }

    /// How long a fetch may be in flight: the source is not due meanwhile, and the daemon's
    /// watchdog (`FetchTracker.stuckLimit`) gives the fetch up then and applies it as a
    /// failure (curl's own total timeout is 30 s a request, so this is only a safety net).
    package static let inFlightLimit: DaemonDuration = .seconds(300)

    /// A fetch started at `now`: not due again while it is in flight, so the scheduler does
    /// not keep waking up for it (its completion sets the real next time).
    package mutating func started(at now: DaemonInstant) {
        nextDue = now + Self.inFlightLimit
    }

    /// One interval plus its jitter (at most 5 % of the interval, at most 300 s).
    private func intervalAfter(_ time: DaemonInstant, jitter: Double) -> DaemonInstant {
        let spread = Double(min(max(interval.seconds, 0) / 20, 300)) * min(max(jitter, 0), 1)
        return time + interval + .seconds(Int64(spread))
    }

    /// A fetch succeeded at `now`; `jitter` is a random fraction 0..<1.
    package mutating func succeeded(at now: DaemonInstant, jitter: Double) {
        consecutiveFailures = 0
        nextDue = intervalAfter(now, jitter: jitter)
    }

    /// Data is already fresh up to `fetchedAt` (a stored response at start): next fetch when it ages out.
    package mutating func freshUntil(fetchedAt: DaemonInstant, jitter: Double) {
        nextDue = intervalAfter(fetchedAt, jitter: jitter)
    }

    /// A fetch failed at `now`; returns the delay chosen. `jitter` is a random fraction 0..<1.
    @discardableResult
    package mutating func failed(at now: DaemonInstant, retryAfter: DaemonDuration?, jitter: Double)
        -> DaemonDuration
    {
        consecutiveFailures = min(consecutiveFailures + 1, 1 << 20)
        let exponent = min(consecutiveFailures - 1, 16)
        let backoff = min(Self.backoffCap, Self.backoffBase * (1 << Int64(exponent)))
        // Jitter spreads retries over +0…25 % of the step.
        var delay = backoff + .seconds(Int64(Double(backoff.seconds / 4) * min(max(jitter, 0), 1)))
        if let retryAfter, retryAfter > delay { delay = min(retryAfter, Self.retryAfterCap) }
        nextDue = now + delay
        return delay
    }

    /// The API key was rejected (HTTP 400/403): do not hammer.
    package mutating func keyRejected(at now: DaemonInstant) {
        consecutiveFailures = min(consecutiveFailures + 1, 1 << 20)
        nextDue = now + Self.rejectedKeyDelay
    }

    /// A `refresh` command arrived; true when granted (the fetch becomes due now).
    package mutating func refresh(at now: DaemonInstant) -> Bool {
        if let lastRefresh, lastRefresh + refreshCooldown > now { return false }
        lastRefresh = now
        nextDue = now
        return true
    }

    /// Forces the next fetch to `time` (e.g. local midnight for climate).
    package mutating func due(at time: DaemonInstant) { nextDue = time }
}
