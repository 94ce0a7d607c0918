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

import BreezeConfig
package import BreezeCore

/// What a DWD fetch asks for: the document, conditionally when one is held: with its `ETag`
/// (`If-None-Match`) and its `Last-Modified` (`If-Modified-Since`; without one, the time it was
/// fetched, `since`).
package struct DWDRequest: Sendable, Equatable {
    var since: DaemonInstant?
    var lastModified: String?
    var etag: String?
}

/// A usable DWD answer: a new document, or the server's word that the one held is current.
package enum DWDAnswer: Sendable {
    /// The document and the body behind it (stored so a restart reuses it).
    case document(DWDPollen.Document, body: [UInt8], fetchedAt: DaemonInstant, validators: DWDValidators)
    /// HTTP 304: the document held is still the server's.
    case notModified(fetchedAt: DaemonInstant)
}

/// A document's `Last-Modified` and `ETag` as the server sent them.
package struct DWDValidators: Sendable, Equatable {
    var lastModified: String?
    var etag: String?
}

/// The DWD's pollen document (docs/reference.md, "DWD"): one GET of `s31fg.json` for every
/// German location, with `If-Modified-Since` once a document is held.
enum DWDFetch {
    static func get(endpoints: Endpoints, request: DWDRequest) -> HTTPGet {
        var get = HTTPGet(url: endpoints.dwd + DWDPollen.path, query: [])
        if let etag = request.etag { get.headers.append(("If-None-Match", etag)) }
        if let since = request.lastModified ?? request.since.map({ DWDPollen.httpDate(unixSeconds: $0.unixSeconds) }) {
            get.headers.append(("If-Modified-Since", since))
        }
        return get
    }

    /// A 200 decoded (bounded: ``DWDPollen/maximumBodyBytes``, rows, species), a 304 as the
    /// document held, anything else a failure.
    static func interpret(_ response: FetchedResponse, berlin: ZoneRules, fetchedAt: DaemonInstant) -> FetchResult<
        DWDAnswer
    > {
        switch response.status {
        case 304: return .answer(.notModified(fetchedAt: fetchedAt))
        case 200:
            do {
                let document = try DWDPollen.decode(response.body, berlin: berlin)
                let validators = DWDValidators(lastModified: response.lastModified, etag: response.etag)
                return .answer(.document(document, body: response.body, fetchedAt: fetchedAt, validators: validators))
            } catch {
                return .failure(message: error.description, retryAfter: response.retryAfter)
            }
        default:
            return .failure(message: "HTTP \(response.status)", retryAfter: response.retryAfter)
        }
    }
}
