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

public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension Process {
    /// Waits until the process has exited, polling `isRunning`; false after `timeout`.
    ///
    /// Not `waitUntilExit()`: swift-corelibs-foundation implements it with a run loop that can
    /// miss the child's termination when several threads wait for different children at once
    /// (seen here: two tests stopping their brokers together both hung for good after SIGKILL).
    /// `isRunning` is set by Foundation's own SIGCHLD reaper, so polling it cannot hang.
    @discardableResult
    public func waitForTermination(timeout: Duration = .seconds(30)) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while isRunning {
            if ContinuousClock.now >= deadline { return false }
            usleep(5_000)
        }
        return true
    }
}
