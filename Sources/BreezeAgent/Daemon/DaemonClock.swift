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

import BreezeDaemon

/// The daemon loop's time: what the state machine is told at each event, and the one timer its
/// actions arm (the wake, at the earliest deadline of the state: a fetch, a re-discovery, the
/// held-back clears, a render's timeout and grace), which comes back as an event. Below the
/// `run` loop the state, the publisher, the render helper and the connect timeout read no
/// clock: the loop asks this and passes the answer on. `once` and `print` take their time from
/// it too (the connect timeout, Open-Meteo's pacing waits, the held-back clears).
///
/// ``SystemDaemonClock`` in production; the unit tests run the whole loop on a clock they
/// advance by hand, so an hour of the daemon's life takes milliseconds.
protocol DaemonClock: Sendable {
    /// The time an event is handled at (wall time for schedules, uptime for diagnostics).
    func now() -> DaemonTime
    /// The monotonic instant (held-back clears are timed on it: a clock step does not move them).
    func instant() -> ContinuousClock.Instant
    /// Returns at wall time `at`, at once when it has passed; throws when cancelled.
    func sleep(until at: DaemonInstant) async throws
}

/// The real clocks: `CLOCK_REALTIME` for wall time, `CLOCK_MONOTONIC` for uptime and deadlines.
struct SystemDaemonClock: DaemonClock {
    /// When the agent started, on the monotonic clock (its uptime counts from here).
    let started = Timestamp.monotonicSeconds()

    func now() -> DaemonTime {
        DaemonTime(
            now: DaemonInstant(unixSeconds: Timestamp.nowUnixSeconds()),
            uptimeSeconds: Int(Timestamp.monotonicSeconds() - started))
    }

    func instant() -> ContinuousClock.Instant { .now }

    func sleep(until at: DaemonInstant) async throws {
        try await Task.sleep(for: .seconds(max(0, at.unixSeconds - Timestamp.nowUnixSeconds())))
    }
}
