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

/// The sources' view of HTTP: libcurl in production and tests, bundled samples with `--demo`.
protocol HTTPFetching: Sendable {
    /// GET `url` with the query items (escaped by the implementation) and extra headers.
    ///
    /// A transfer that produced no HTTP status (refused, DNS, timeout, size cap, TLS, partial
    /// transfer) throws curl's error itself: its ``CurlError/kind`` says which, its description
    /// is what the logs and the diagnostics show.
    func get(
        _ url: String, query: [QueryParameter], headers: [(name: String, value: String)]
    ) async throws(CurlError) -> FetchedResponse

    /// Ends what the fetcher runs on threads of its own and returns once they have exited; the
    /// agent calls it before the process exits (``HTTPClient/shutDown()``). Requests made
    /// afterwards fail. The default does nothing: a fetcher without threads.
    func shutDown() async
}

extension HTTPFetching {
    func shutDown() async {}
}
