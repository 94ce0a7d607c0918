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
import Synchronization

/// What the tests wait on instead of polling a clock: every test-support source that records
/// something a test may be waiting for reports it here — a broker message reaching a
/// ``BrokerView`` or a recorder, a request a loopback server answered, a line an agent wrote to
/// stderr, a child's exit. A waiter re-checks its condition after each report (bursts coalesce
/// into one re-check), so it returns as soon as the event happened, not at the next tick.
///
/// The bound a waiter gives is a safety net only: it turns a hang into a failure that names
/// what was awaited, it is never what makes a test pass.
public final class TestEvents: Sendable {
    /// The one instance every source reports to and every waiter listens on.
    public static let shared = TestEvents()

    private struct Listeners {
        var next: UInt64 = 0
        var all: [UInt64: AsyncStream<Void>.Continuation] = [:]
    }
    private let listeners = Mutex(Listeners())

    private init() {}

    /// Something a waiter may be waiting for was recorded (call it after recording).
    public func report() {
        let waiting = listeners.withLock { Array($0.all.values) }
        for continuation in waiting { continuation.yield() }
    }

    /// Waits until `condition` holds (true), re-checking it at every ``report()``; false when
    /// `bound` passes first. The condition runs on the caller's task, never concurrently.
    public func until(bound: Duration, _ condition: () -> Bool) async -> Bool {
        let (wakes, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = listeners.withLock { listeners in
            defer { listeners.next += 1 }
            listeners.all[listeners.next] = continuation
            return listeners.next
        }
        defer { _ = listeners.withLock { $0.all.removeValue(forKey: id) } }
        // Registered before the first check: a report in between leaves a wake in the buffer.
        if condition() { return true }
        // The bound is a Dispatch timer, not a `Task.sleep`: an unstructured task would run on
        // the cooperative pool (it does not inherit a ``TimingExecutor`` preference), which
        // CPU-bound tests hold for many seconds; a 300 ms bound once fired 30 s late there.
        let safetyNet = DispatchWorkItem { continuation.finish() }
        DispatchQueue.global().asyncAfter(deadline: .now() + bound.dispatchInterval, execute: safetyNet)
        defer { safetyNet.cancel() }
        for await _ in wakes where condition() { return true }
        return condition()
    }
}

/// Waits until `condition` holds, re-checked at every test event (``TestEvents``); false when
/// `bound` passes first (the safety net; the caller's failure message says what was awaited).
public func eventually(bound: Duration, _ condition: () -> Bool) async -> Bool {
    await TestEvents.shared.until(bound: bound, condition)
}

extension Duration {
    /// The same span for Dispatch's deadlines (nanoseconds; spans past ~292 years clamp).
    var dispatchInterval: DispatchTimeInterval {
        let (seconds, attoseconds) = components
        let (whole, overflow) = Int(clamping: seconds).multipliedReportingOverflow(by: 1_000_000_000)
        return .nanoseconds(overflow ? .max : whole + Int(attoseconds / 1_000_000_000))
    }
}
