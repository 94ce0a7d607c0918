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

package import BreezeConfig
package import BreezeCore

/// Pollen (docs/operations.md, Faults; docs/reference.md, Max, trend and peak): Google or Open-Meteo by `pollen.source` (`auto` falls back to
/// Open-Meteo when Google rejects the key), the daily Google cap, a location no source covers.
package enum PollenRules: SourceRules {
    package static let kind = SourceKind.pollen

    /// Off with `sources: [dwd]`: the DWD alone is its own source (Sources/DWD).
    package static func isEnabled(in config: AgentConfig) -> Bool {
        config.pollen.enabled && config.pollen.source != .dwd
    }

    package static func schedule(in config: AgentConfig) -> FetchSchedule {
        FetchSchedule(
            interval: DaemonDuration(config.pollen.interval),
            refreshCooldown: DaemonDuration(config.pollen.refreshCooldown),
            nextDue: FetchSchedule.unplaced)
    }

    package static let refreshedByCommand = true

    /// Always: with pollen off the tree is cleared (docs/reference.md, Pollen levels and colors).
    package static func sinks(for context: SinkContext) -> [any RetainedSink] { [PollenTreeSink()] }

    /// Per pollen source: the configured one, and with `auto` Open-Meteo as well (it falls back
    /// when Google rejects the key).
    package static func diagnosticsKeys(in config: AgentConfig) -> [String] {
        guard config.pollen.source != .dwd else { return [] }
        var keys = [config.pollen.source(googleRejected: false).diagnosticsKey]
        if config.pollen.source == .auto { keys.append(PollenSource.openMeteo.diagnosticsKey) }
        return keys
    }

    /// The source the location asks now (`auto` after Google rejected the key: Open-Meteo).
    static func source(_ source: SourceContext) -> PollenSource {
        source.config.pollen.source(googleRejected: source.location.googleRejected)
    }

    package static func begin(_ context: inout SourceContext, now: DaemonInstant) -> SourceBegin<PollenRequest> {
        let source = source(context)
        var actions: [DaemonAction] = []
        if source == .google && !context.demo {
            let cap = context.config.pollen.maxCallsPerDay
            guard context.callsToday(.google, now: now) < cap else {
                if context.location.slots.pollen.notice != .dailyCap {
                    actions.append(
                        .log(
                            .warning,
                            "pollen[\(context.location.config.id)]: daily Google call cap reached (pollen.max_calls_per_day = \(cap)); next call after local midnight"
                        ))
                    context.location.slots.pollen.notice = .dailyCap
                }
                context.schedule.due(at: context.location.nextMidnight(after: now))
                return SourceBegin(request: nil, actions: actions)
            }
        }
        let season = source == .openMeteo && needsSeason(context, now: now)
        return SourceBegin(
            request: PollenRequest(source: source, season: season), counts: source == .google ? .google : .openMeteo,
            actions: actions)
    }

    /// Whether a key-free fetch now is the day's season call (docs/reference.md, The hour to air out).
    private static func needsSeason(_ context: SourceContext, now: DaemonInstant) -> Bool {
        context.calls.pollenSeason && context.location.needsSeason(at: now)
    }

    package static func openMeteoWeight(_ context: SourceContext, now: DaemonInstant) -> (
        weight: OpenMeteoCallWeight, requests: Int
    )? {
        guard source(context) == .openMeteo else { return nil }
        return (needsSeason(context, now: now) ? PollenSeason.callWeight : OpenMeteoBudget.pollenRequest, 1)
    }

    package static func gets(_ request: PollenRequest, location: LocationConfig, config: AgentConfig) -> [HTTPGet] {
        PollenFetch.gets(
            location, source: request.source, season: request.season, settings: config.pollen,
            endpoints: config.endpoints)
    }

    package static func interpret(
        _ responses: [FetchedResponse], _ request: PollenRequest, location: LocationConfig, config: AgentConfig,
        now: DaemonInstant
    ) -> FetchResult<PollenAnswer> {
        guard let response = responses.first else { return .failure(message: "no answer", retryAfter: nil) }
        return PollenFetch.interpret(
            response, source: request.source, fetchedAt: now, season: request.season,
            names: config.pollen.names,
            scrubber: config.secretScrubber)
    }

    package static func receive(_ answer: PollenAnswer, _ context: inout SourceContext, now: DaemonInstant)
        -> SourceReceived
    {
        let id = context.location.config.id
        let source = answer.source
        switch answer.outcome {
        case .report(var report, let body):
            var stores: [DaemonAction] = []
            if answer.season {
                // The day's season call: the standing is taken from the 92 past days, which the
                // pollen topics then leave out; stored on its own, as the plain calls of the rest
                // of the day replace the pollen response.
                let today = context.location.today(at: answer.fetchedAt)
                context.location.season = PollenSeason(report: report).standing(today: today)
                report = report.dropping(before: today, zone: context.location.zone)
                stores.append(
                    .store(
                        .response(
                            .init(fetchedAt: answer.fetchedAt, body: String(decoding: body, as: UTF8.self)),
                            location: id, source: Self.seasonStoreName)))
            }
            context.location.slots.pollen.received(.report(report, fetchedAt: answer.fetchedAt))
            context.location.slots.pollen.notice = nil
            context.schedule.succeeded(at: now, jitter: context.random.fraction())
            // The response is stored first: nothing performed after it can lose it.
            return SourceReceived(
                actions: [
                    .store(
                        .response(
                            .init(fetchedAt: answer.fetchedAt, body: String(decoding: body, as: UTF8.self)),
                            location: id, source: source.storeName))
                ] + stores + report.warnings.map { .log(.warning, "pollen[\(id)]: \($0)") } + [
                    .log(.info, "pollen[\(id)]: fetched from \(source.rawValue) (\(report.days.count) days)")
                ], count: .success(source.diagnosticsKey))
        case .unsupported(let message):
            context.location.slots.pollen.received(.unsupported(message: message))
            context.location.season = nil
            context.schedule.succeeded(at: now, jitter: context.random.fraction())
            var actions: [DaemonAction] = [.store(.removeResponse(location: id, source: source.storeName))]
            if source == .openMeteo {
                actions.append(.store(.removeResponse(location: id, source: Self.seasonStoreName)))
            }
            if context.location.slots.pollen.notice != .unsupported {
                if source == .openMeteo {
                    actions.append(
                        .log(
                            .warning,
                            "pollen[\(id)]: no key-free pollen here (\(message)); Open-Meteo covers Europe only — set pollen.api_key for Google pollen; climate keeps running"
                        ))
                } else {
                    actions.append(
                        .log(
                            .warning,
                            "pollen[\(id)]: Google has no pollen for this location (\(message)); pollen topics cleared")
                    )
                }
                context.location.slots.pollen.notice = .unsupported
            }
            return SourceReceived(actions: actions, count: .success(source.diagnosticsKey))
        case .keyRejected(let message):
            let count = SourceReceived.Count.failure(PollenSource.google.diagnosticsKey, message: message)
            if context.config.pollen.source == .auto {
                context.location.googleRejected = true
                context.schedule.due(at: now)
                return SourceReceived(
                    actions: [
                        .log(
                            .error,
                            "pollen[\(id)]: Google rejected the API key (\(message)); using key-free Open-Meteo instead"
                        )
                    ], count: count)
            }
            context.schedule.keyRejected(at: now)
            context.location.slots.pollen.failed()
            return SourceReceived(
                actions: [
                    .log(
                        .error,
                        "pollen[\(id)]: Google rejected the API key (\(message)); not retrying for 24 h — fix pollen.api_key"
                    )
                ], count: count)
        }
    }

    /// Named by the source asked (`google_pollen`, `fetch from google`).
    package static func failure(_ context: SourceContext) -> SourceFailure {
        let source = source(context)
        return SourceFailure(diagnosticsKey: source.diagnosticsKey, attempt: "fetch from \(source.rawValue)")
    }

    /// The name of the day's season call body in `state_dir` (docs/reference.md, The hour to air out).
    static let seasonStoreName = PollenSource.openMeteo.storeName + "-season"

    package static func storedNames(in config: AgentConfig) -> [String] {
        guard isEnabled(in: config) else { return [] }
        let source = config.pollen.source(googleRejected: false)
        return source == .openMeteo ? [source.storeName, seasonStoreName] : [source.storeName]
    }

    /// A stored pollen report: published at once, fetched again when it ages out. A season
    /// call's body holds the past days too: they are left out as when it was fetched.
    package static func restore(
        _ stored: StoredResponse, name: String, _ context: inout SourceContext, now: DaemonInstant
    )
        -> [DaemonAction]
    {
        let id = context.location.config.id
        if name == seasonStoreName {
            // The standing of the day it was fetched on; an older day's is fetched again with
            // the next pollen call (``LocationRuntime/needsSeason(at:)``).
            guard case .season(let season, _) = PollenSeason.interpret(httpStatus: 200, body: Array(stored.body.utf8))
            else { return [.log(.warning, "pollen[\(id)]: stored season response is not usable; ignoring it")] }
            context.location.season = season.standing(today: context.location.today(at: stored.fetchedAt))
            return [
                .log(
                    .info,
                    "pollen[\(id)]: restored the season fetched \(UTCTimestamp.rfc3339(unixSeconds: stored.fetchedAt.unixSeconds))"
                )
            ]
        }
        let source = context.config.pollen.source(googleRejected: false)
        let response = FetchedResponse(status: 200, body: Array(stored.body.utf8))
        guard
            case .answer(let answer) = PollenFetch.interpret(
                response, source: source, fetchedAt: stored.fetchedAt, names: context.config.pollen.names),
            case .report(let report, _) = answer.outcome
        else { return [.log(.warning, "pollen[\(id)]: stored response is not usable; ignoring it")] }
        let location = context.location
        let shown = report.dropping(before: location.today(at: stored.fetchedAt), zone: location.zone)
        context.location.slots.pollen.received(.report(shown, fetchedAt: stored.fetchedAt))
        context.schedule.freshUntil(fetchedAt: stored.fetchedAt, jitter: context.random.fraction())
        return [
            .log(
                .info,
                "pollen[\(id)]: restored data fetched \(UTCTimestamp.rfc3339(unixSeconds: stored.fetchedAt.unixSeconds))"
            )
        ]
    }
}

extension PollenSource {
    /// The source's name in `<p>/diagnostics` (`fetches`, `last_success`, `last_error`).
    package var diagnosticsKey: String {
        switch self {
        case .google: "google_pollen"
        case .openMeteo: SourceKind.pollen.traits.diagnosticsKey
        case .dwd: SourceKind.dwd.traits.diagnosticsKey
        }
    }
    /// The stored response's name in `state_dir`.
    var storeName: String { SourceKind.pollen.traits.storeName + "-" + rawValue }
}

/// What a location keeps of its pollen (its ``SourceSlots/pollen`` slot).
extension LocationRuntime {
    package enum PollenData: SourceData {
        case report(PollenReport, fetchedAt: DaemonInstant)
        /// The source has no pollen here: the pollen subtree is cleared.
        case unsupported(message: String)

        package var lastSuccess: DaemonInstant? {
            switch self {
            case .report(_, let fetchedAt): fetchedAt
            case .unsupported: nil
            }
        }
    }

    package var pollen: PollenData? { slots.pollen.data }
}
