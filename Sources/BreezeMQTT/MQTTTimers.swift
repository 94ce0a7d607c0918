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

import Dispatch

/// The client's time: the instant its connect timeout is measured on, and the timers it arms
/// (the watchdog's once-a-second tick, the first connect's retries and the thread's restart
/// after their delay, the expiry of a wait for the broker). ``MQTTClient`` reads no other clock,
/// so a test that passes its own timers moves the client's time by hand.
public protocol MQTTTimers: Sendable {
    /// The monotonic instant now.
    func now() -> ContinuousClock.Instant
    /// Runs `body` once `delay` has passed, on a thread that may block (a timer resolves a host
    /// name and connects).
    func schedule(after delay: Duration, _ body: @escaping @Sendable () -> Void)
}

/// The real timers: `CLOCK_MONOTONIC`, and Dispatch's global queue, which fires on time even
/// while the cooperative pool is busy.
public struct DispatchTimers: MQTTTimers {
    public init() {}

    public func now() -> ContinuousClock.Instant { .now }

    public func schedule(after delay: Duration, _ body: @escaping @Sendable () -> Void) {
        let (seconds, attoseconds) = delay.components
        let nanoseconds = Int(clamping: seconds) &* 1_000_000_000 &+ Int(attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(max(0, nanoseconds)), execute: body)
    }
}
