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
import Synchronization

/// How many requests the server is answering at once, counted inside the handler (which runs on
/// each connection's own thread and holds the answer for a while): the server's view, not the
/// client's claim.
public final class ConcurrencyGauge: Sendable {
    private struct Counts {
        var now = 0
        var peak = 0
        var total = 0
    }
    private let counts = Mutex(Counts())

    public init() {}

    /// Counts the request in, holds it for `hold`, counts it out.
    public func serve(holding hold: Duration) {
        counts.withLock {
            $0.now += 1
            $0.total += 1
            $0.peak = max($0.peak, $0.now)
        }
        TestEvents.shared.report()
        // Time must pass here: a request held for `hold` is what the tests measure concurrency
        // and queueing against (a slow server).
        Thread.sleep(forTimeInterval: Double(hold.components.seconds) + Double(hold.components.attoseconds) / 1e18)
        counts.withLock { $0.now -= 1 }
    }

    public var peak: Int { counts.withLock { $0.peak } }
    public var total: Int { counts.withLock { $0.total } }
    public var now: Int { counts.withLock { $0.now } }
}
