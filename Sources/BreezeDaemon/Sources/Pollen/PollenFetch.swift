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

/// What a pollen fetch asks for beside the location.
package struct PollenRequest: Sendable, Equatable {
    var source: PollenSource
    /// The day's season call (Open-Meteo with `past_days`, docs/reference.md, The hour to air out).
    var season: Bool
}

/// A usable pollen answer: a report, or the source's own word that there is none here or that
/// the key is refused.
package struct PollenAnswer: Sendable {
    package enum Outcome: Sendable {
        /// The report, and the body behind it (stored so a restart reuses it).
        case report(PollenReport, body: [UInt8])
        /// The source covers no pollen here (outside Open-Meteo's Europe, or not in Google's data).
        case unsupported(message: String)
        /// Google refused the key (HTTP 400/403).
        case keyRejected(message: String)
    }

    /// The source asked.
    var source: PollenSource
    var outcome: Outcome
    var fetchedAt: DaemonInstant
    /// The request was the day's season call (`past_days`, docs/reference.md, The hour to air out): a report holds the 92
    /// days before the fetch's local date as well.
    var season = false
}

/// The pollen source's request (Google or Open-Meteo, docs/reference.md, Max, trend and peak) and how its answer reads. The API
/// key travels in the `X-Goog-Api-Key` header only, so it never shows in URLs or curl's error
/// messages; an API that echoes it in an error body is scrubbed where the result is made,
/// before any sink (log, diagnostics) sees it (docs/operations.md, Limits).
enum PollenFetch {
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
        // The DWD is its own source (Sources/DWD), never asked through these rules.
        case .dwd: return []
        }
    }

    /// Turns an HTTP answer into a result, with every secret in its messages masked by
    /// `scrubber` (an error body may quote the key); also used for stored bodies at start.
    /// `names`: the language of the type and plant names the agent gives (``PollenSettings/names``).
    static func interpret(
        _ response: FetchedResponse, source: PollenSource, fetchedAt: DaemonInstant, season: Bool = false,
        names: Language = .english, scrubber: SecretScrubber = SecretScrubber(secrets: [])
    ) -> FetchResult<PollenAnswer> {
        let retryAfter = response.retryAfter
        // A 200 whose body is Google's error envelope (a proxy or a front end answering with the
        // wrong status) decodes as a response without `dailyInfo`, which the core reads as "no
        // pollen here" and would clear the topics: it is a failure to retry instead.
        if source == .google, response.status == 200, let error = GoogleAPIError.decode(response.body) {
            let message = error.message
            return .failure(
                message: scrubber.scrub("HTTP 200 with an error body\(message.isEmpty ? "" : ": " + message)"),
                retryAfter: retryAfter)
        }
        let outcome: PollenOutcome
        switch source {
        case .google: outcome = GooglePollen.interpret(httpStatus: response.status, body: response.body)
        case .openMeteo: outcome = OpenMeteoPollen.interpret(httpStatus: response.status, body: response.body)
        case .dwd: outcome = .failed(message: "the DWD is read by its own source")
        }
        let answer: PollenAnswer.Outcome
        switch outcome {
        case .report(var report):
            report = report.limitingItems().naming(in: names)
            report.warnings = report.warnings.map(scrubber.scrub)
            answer = .report(report, body: response.body)
        case .unsupportedLocation(let message): answer = .unsupported(message: scrubber.scrub(message))
        case .keyRejected(let message): answer = .keyRejected(message: scrubber.scrub(message))
        case .failed(let message): return .failure(message: scrubber.scrub(message), retryAfter: retryAfter)
        }
        return .answer(
            PollenAnswer(source: source, outcome: answer, fetchedAt: fetchedAt, season: season && source == .openMeteo))
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
        // `sources: [dwd]`: the pollen rules are off (``PollenRules/isEnabled(in:)``).
        case .dwd: return .dwd
        }
    }
}
