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

import Foundation

/// A task executor with one thread of its own, for the few awaits whose *timing* a test asserts.
///
/// Swift Testing runs every test on the cooperative pool: two threads on this 2-core machine.
/// Synchronous CPU-bound tests (RenderTests) hold both for long stretches in the parallel suite
/// (21 s alone, 90 s under extra load), and any continuation resumed meanwhile waits for them:
/// a `stop()` that took milliseconds measured 93 s from the test. Code run with this executor
/// preferred (``durationOffThePool(_:)``, `Task(executorPreference:)`) resumes on this thread
/// instead, so what it measures is the operation, and a tight bound can stay tight.
///
/// Keep the work here short: every test that uses it shares the one thread.
public final class TimingExecutor: TaskExecutor, @unchecked Sendable {
    /// The one instance the tests share.
    public static let shared = TimingExecutor()

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    private init() {
        let thread = Thread { [self] in run() }
        thread.name = "breeze-test-timing"
        thread.start()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// How long `operation` took, measured on ``TimingExecutor``'s thread: the clock is read as
/// soon as the operation's last continuation is resumed, not when a cooperative thread is free.
public func durationOffThePool(_ operation: () async throws -> Void) async rethrows -> Duration {
    try await withTaskExecutorPreference(TimingExecutor.shared) {
        let started = ContinuousClock.now
        try await operation()
        return ContinuousClock.now - started
    }
}
