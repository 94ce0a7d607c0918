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

/// The daemon loop's time: what the state machine is told at each event, and the timers its
/// actions arm (the wake, which the re-discovery after a birth is a deadline of, and the
/// held-back clears), which come back as
/// events. Below the `run` loop the state, the publisher and the connect timeout read no clock:
/// the loop asks this and passes the answer on; the render helper's timeout is a timer on it
/// (``RenderRunner``). `once` and `print` take their time from it too
/// (the connect timeout, Open-Meteo's pacing waits, the held-back clears).
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
    /// Returns at the monotonic `deadline`, at once when it has passed; throws when cancelled.
    func sleep(until deadline: ContinuousClock.Instant) async throws
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

    func sleep(until deadline: ContinuousClock.Instant) async throws {
        try await Task.sleep(until: deadline, clock: .continuous)
    }
}
