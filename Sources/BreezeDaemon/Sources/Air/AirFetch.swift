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

/// What an air fetch came to.
package struct AirFetchResult: Sendable {
    var outcome: AirOutcome
    /// The response body behind a `.report`, stored so a restart reuses it; empty otherwise.
    var body: [UInt8]
    var fetchedAt: Int64
    /// The server's `Retry-After`, for a `.failed` outcome.
    var retryAfter: Int64?

    init(outcome: AirOutcome, body: [UInt8] = [], fetchedAt: Int64, retryAfter: Int64? = nil) {
        self.outcome = outcome
        self.body = body
        self.fetchedAt = fetchedAt
        self.retryAfter = retryAfter
    }
}

/// The air source's request and how its answer reads (SPEC §10.1).
package enum AirFetch {
    /// Today's hourly air quality at the location.
    static func gets(_ location: LocationConfig, endpoints: Endpoints) -> [HTTPGet] {
        let query = AirQualityRequest.query(
            latitude: location.latitude, longitude: location.longitude, timezone: location.timezone)
        return [HTTPGet(url: endpoints.airQuality + AirQualityRequest.path, query: query)]
    }

    /// Turns an HTTP answer into a result; also used for the stored body at start.
    static func interpret(_ response: FetchedResponse, fetchedAt: Int64) -> AirFetchResult {
        let outcome = AirQualityDecoder.interpret(httpStatus: response.status, body: response.body)
        let isReport: Bool
        if case .report = outcome { isReport = true } else { isReport = false }
        return AirFetchResult(
            outcome: outcome, body: isReport ? response.body : [], fetchedAt: fetchedAt,
            retryAfter: response.retryAfterSeconds.map(Int64.init))
    }
}
