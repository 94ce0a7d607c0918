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
import BreezeCore
import BreezeDaemon
import BreezeHTTP

/// Makes a fetch's GETs over one HTTP client (an edge: libcurl, or `--demo`'s samples) and
/// hands the answers to the source's pure reading (`FetchRequest.interpret`); the one piece of
/// fetching that does I/O, whatever the source.
struct FetchRunner: Sendable {
    let http: any HTTPFetching
    let config: AgentConfig

    /// Runs one fetch: its GETs in order, stopping at the first answer that is not a 200 (the
    /// climate's forecast is not asked for when its archive call was refused).
    func run(_ request: FetchRequest) async -> FetchOutcome {
        var responses: [FetchedResponse] = []
        for get in request.gets(in: config) {
            do {
                let response = try await http.get(get.url, query: get.query, headers: get.headers)
                responses.append(response)
                if response.status != 200 { break }
            } catch {
                return request.failed(error.description, in: config)
            }
        }
        return request.interpret(responses, in: config)
    }
}
