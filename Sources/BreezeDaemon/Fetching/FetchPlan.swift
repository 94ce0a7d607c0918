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

package import BreezeCore

/// One GET of a fetch: what the loop's HTTP client is asked for. A source says which GETs its
/// fetch makes and reads their answers back (its folder's `…Fetch` type); the one runner in
/// the agent makes them, so a source's code does no I/O.
package struct HTTPGet: Sendable {
    package var url: String
    package var query: [QueryParameter]
    package var headers: [(name: String, value: String)] = []
}

/// An HTTP answer as a source reads it.
package struct FetchedResponse: Sendable, Equatable {
    package var status: Int
    package var body: [UInt8]
    /// The server's `Retry-After`, as sent (a date is counted from the failure's event).
    package var retryAfter: RetryAfter?

    package init(status: Int, body: [UInt8], retryAfter: RetryAfter? = nil) {
        self.status = status
        self.body = body
        self.retryAfter = retryAfter
    }
}
