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

/// A usable air answer: today's hourly report and the body behind it (stored so a restart
/// reuses it).
package struct AirAnswer: Sendable {
    var report: AirReport
    var body: [UInt8]
    var fetchedAt: DaemonInstant
}

/// The air source's request and how its answer reads (docs/reference.md, Air quality bands).
enum AirFetch {
    /// Today's hourly air quality at the location.
    static func gets(_ location: LocationConfig, endpoints: Endpoints) -> [HTTPGet] {
        let query = AirQualityRequest.query(
            latitude: location.latitude, longitude: location.longitude, timezone: location.timezone)
        return [HTTPGet(url: endpoints.airQuality + AirQualityRequest.path, query: query)]
    }

    /// Turns an HTTP answer into a result; also used for the stored body at start.
    static func interpret(_ response: FetchedResponse, fetchedAt: DaemonInstant) -> FetchResult<AirAnswer> {
        switch AirQualityDecoder.interpret(httpStatus: response.status, body: response.body) {
        case .report(let report):
            return .answer(AirAnswer(report: report, body: response.body, fetchedAt: fetchedAt))
        case .failed(let message):
            return .failure(message: message, retryAfter: response.retryAfter)
        }
    }
}
