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

// What `state_dir` holds that the daemon reads and writes through its actions (the files are
// the agent's StateStore).

/// A response body as fetched, with the time of the fetch.
package struct StoredResponse: Codable, Sendable, Equatable {
    var fetchedAt: DaemonInstant
    var body: String
    /// Source-specific context needed to reuse the body (e.g. the local date it was fetched for).
    var context: [String: String]
    package init(fetchedAt: DaemonInstant, body: String, context: [String: String] = [:]) {
        self.fetchedAt = fetchedAt
        self.body = body
        self.context = context
    }
}

/// Calls made to a paid API for one location on one local day.
package struct CallCount: Codable, Sendable, Equatable {
    var date: String
    var calls: Int
    package init(date: String, calls: Int) {
        self.date = date
        self.calls = calls
    }
}
