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
    /// Seconds to wait before the next try, from `Retry-After` (seconds or an HTTP date).
    var retryAfterSeconds: Int?

    package init(status: Int, body: [UInt8], retryAfterSeconds: Int? = nil) {
        self.status = status
        self.body = body
        self.retryAfterSeconds = retryAfterSeconds
    }
}
