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

/// What one pollen fetch for one location came to: the core's ``PollenOutcome`` (one enum for
/// "what the exchange means", whatever the source) and what the runtime needs beside it.
package struct PollenFetchResult: Sendable {
    /// The source asked.
    var source: PollenSource
    var outcome: PollenOutcome
    /// The response body behind a `.report`, stored so a restart reuses it; empty otherwise.
    var body: [UInt8]
    var fetchedAt: Int64
    /// The server's `Retry-After`, for a `.failed` outcome.
    var retryAfter: Int64?
    /// The request was the day's season call (`past_days`, SPEC §20): a report holds the 92
    /// days before the fetch's local date as well.
    var season: Bool

    init(
        source: PollenSource, outcome: PollenOutcome, body: [UInt8] = [], fetchedAt: Int64, retryAfter: Int64? = nil,
        season: Bool = false
    ) {
        self.source = source
        self.outcome = outcome
        self.body = body
        self.fetchedAt = fetchedAt
        self.retryAfter = retryAfter
        self.season = season
    }
}

/// The pollen source's request (Google or Open-Meteo, SPEC §7) and how its answer reads. The API
/// key travels in the `X-Goog-Api-Key` header only, so it never shows in URLs or curl's error
/// messages; an API that echoes it in an error body is scrubbed where the result is made,
/// before any sink (log, diagnostics) sees it (SPEC §12).
package enum PollenFetch {
    /// `season`: the day's season call (``PollenSeason/query(latitude:longitude:timezone:)``,
    /// Open-Meteo only; ignored for Google).
    static func gets(
        _ location: LocationConfig, source: PollenSource, season: Bool, settings: PollenSettings, endpoints: Endpoints
    ) -> [HTTPGet] {
        switch source {
        case .google:
            var get = HTTPGet(
                url: endpoints.pollen + "/forecast:lookup",
                query: GooglePollen.query(
                    latitude: location.latitude, longitude: location.longitude, days: settings.days,
                    language: settings.language))
            if let key = settings.apiKey?.value { get.headers.append(("X-Goog-Api-Key", key)) }
            return [get]
        case .openMeteo:
            return [
                HTTPGet(
                    url: endpoints.airQuality + "/air-quality",
                    query: (season ? PollenSeason.query : OpenMeteoPollen.query)(
                        location.latitude, location.longitude, location.timezone))
            ]
        }
    }

    /// The answer to ``gets(_:source:season:settings:endpoints:)`` with every secret in its
    /// messages masked by `scrubber` (an error body may quote the key).
    static func interpret(
        _ response: FetchedResponse, source: PollenSource, season: Bool, fetchedAt: Int64, scrubber: SecretScrubber
    ) -> PollenFetchResult {
        var result = interpret(response, source: source, fetchedAt: fetchedAt)
        result.season = season && source == .openMeteo
        return result.scrubbed(by: scrubber)
    }

    /// Turns an HTTP answer into a result; also used for stored bodies at start.
    static func interpret(_ response: FetchedResponse, source: PollenSource, fetchedAt: Int64)
        -> PollenFetchResult
    {
        // A 200 whose body is Google's error envelope (a proxy or a front end answering with the
        // wrong status) decodes as a response without `dailyInfo`, which the core reads as "no
        // pollen here" and would clear the topics: it is a failure to retry instead.
        let retryAfter = response.retryAfterSeconds.map(Int64.init)
        if source == .google, response.status == 200, let error = GoogleAPIError.decode(response.body) {
            let message = error.message
            return PollenFetchResult(
                source: source,
                outcome: .failed(message: "HTTP 200 with an error body\(message.isEmpty ? "" : ": " + message)"),
                fetchedAt: fetchedAt, retryAfter: retryAfter)
        }
        let outcome: PollenOutcome
        switch source {
        case .google: outcome = GooglePollen.interpret(httpStatus: response.status, body: response.body)
        case .openMeteo: outcome = OpenMeteoPollen.interpret(httpStatus: response.status, body: response.body)
        }
        guard case .report(let report) = outcome else {
            return PollenFetchResult(source: source, outcome: outcome, fetchedAt: fetchedAt, retryAfter: retryAfter)
        }
        return PollenFetchResult(
            source: source, outcome: .report(report.limitingItems()), body: response.body, fetchedAt: fetchedAt,
            retryAfter: retryAfter)
    }
}

extension PollenFetchResult {
    /// The result with every secret in its messages masked (an error body may quote the key).
    func scrubbed(by scrubber: SecretScrubber) -> PollenFetchResult {
        guard !scrubber.isEmpty else { return self }
        var copy = self
        switch outcome {
        case .report(var report):
            report.warnings = report.warnings.map(scrubber.scrub)
            copy.outcome = .report(report)
        case .unsupportedLocation(let message): copy.outcome = .unsupportedLocation(message: scrubber.scrub(message))
        case .keyRejected(let message): copy.outcome = .keyRejected(message: scrubber.scrub(message))
        case .failed(let message): copy.outcome = .failed(message: scrubber.scrub(message))
        }
        return copy
    }
}

extension PollenSettings {
    /// The source for a location: Google with a key (unless `open-meteo` is chosen), else
    /// Open-Meteo; `googleRejected` (the key was refused earlier, `auto` only) forces Open-Meteo.
    func source(googleRejected: Bool) -> PollenSource {
        switch source {
        case .google: return .google
        case .openMeteo: return .openMeteo
        case .auto: return apiKey != nil && !googleRejected ? .google : .openMeteo
        }
    }
}
