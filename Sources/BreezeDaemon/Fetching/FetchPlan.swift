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
    /// The server's `Last-Modified` and `ETag`, as sent, for a conditional GET later (the DWD's);
    /// nil when absent or not a short printable value (``validator(_:)``).
    package var lastModified: String?
    package var etag: String?

    package init(
        status: Int, body: [UInt8], retryAfter: RetryAfter? = nil, lastModified: String? = nil, etag: String? = nil
    ) {
        self.status = status
        self.body = body
        self.retryAfter = retryAfter
        self.lastModified = lastModified.flatMap(Self.validator)
        self.etag = etag.flatMap(Self.validator)
    }

    /// A validator worth sending back: 1–200 printable ASCII characters (it goes into a header).
    static func validator(_ value: String) -> String? {
        let bytes = value.utf8
        guard (1...200).contains(bytes.count), bytes.allSatisfy({ (0x20...0x7e).contains($0) }) else { return nil }
        return value
    }

    /// An answer that is not a 200 as the failure it is: `HTTP <status>`, with the reason the API
    /// gives when `read` (its decoder) finds one — Open-Meteo explains its 4xx/429/503 in
    /// `{"error":true,"reason":…}`, which its decoders throw as their error.
    func refusal<Answer>(reading read: ([UInt8]) throws -> Void) -> FetchResult<Answer> {
        let reason: String
        do {
            try read(body)
            reason = "HTTP \(status)"
        } catch {
            reason = "HTTP \(status): \(error)"
        }
        return .failure(message: reason, retryAfter: retryAfter)
    }
}
