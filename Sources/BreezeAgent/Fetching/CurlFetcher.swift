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
import BreezeDaemon
import BreezeHTTP

/// `HTTPFetching` over libcurl: one client (curl's multi interface on its own thread, up to
/// `http.max_concurrent` requests at once) for all sources.
struct CurlFetcher: HTTPFetching {
    private let client: HTTPClient
    private let totalTimeout: Duration

    init(
        version: String = BreezeVersion.string, caFile: String? = nil, totalTimeout: Duration = .seconds(30),
        maxConcurrent: Int = 4
    ) {
        self.client = HTTPClient(version: version, caFile: caFile, maxConcurrent: maxConcurrent)
        self.totalTimeout = totalTimeout
    }

    func get(
        _ url: String, query: [QueryParameter], headers: [(name: String, value: String)]
    ) async throws(CurlError) -> FetchedResponse {
        let request = HTTPRequest(
            url: url, query: query.map { ($0.name, $0.value) }, headers: headers.map { HTTPHeader($0.name, $0.value) },
            connectTimeout: .seconds(10), totalTimeout: totalTimeout, maxBodyBytes: 4 << 20)
        let response = try await client.get(request)
        // `Retry-After` as sent: the daemon counts a date from the time it applies the failure.
        let retryAfter = response.header("Retry-After").flatMap { RetryAfter.parse($0) }
        return FetchedResponse(
            status: response.status, body: response.body, retryAfter: retryAfter,
            lastModified: response.header("Last-Modified"), etag: response.header("ETag"))
    }

    func shutDown() async {
        await client.shutDown()
    }
}
