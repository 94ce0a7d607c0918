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

import BreezeCore

/// Fetch counters per source for `<p>/diagnostics`.
package struct DiagnosticsCounters {
    private(set) var bySource: [String: AgentDiagnostics.SourceStatus] = [:]

    mutating func success(_ source: String, at now: DaemonInstant) {
        var status = bySource[source] ?? .init(source: source)
        status.fetchesOK += 1
        status.lastSuccess = UTCTimestamp.rfc3339(unixSeconds: now.unixSeconds)
        bySource[source] = status
    }

    mutating func failure(_ source: String, at now: DaemonInstant, message: String) {
        var status = bySource[source] ?? .init(source: source)
        status.fetchesFailed += 1
        status.lastError = (UTCTimestamp.rfc3339(unixSeconds: now.unixSeconds), message)
        bySource[source] = status
    }

    /// A fetch the watchdog gave up on (also counted as failed when its failure is applied).
    mutating func stuck(_ source: String) {
        var status = bySource[source] ?? .init(source: source)
        status.fetchesStuck += 1
        bySource[source] = status
    }

    var statuses: [AgentDiagnostics.SourceStatus] { bySource.keys.sorted().map { bySource[$0]! } }
}
