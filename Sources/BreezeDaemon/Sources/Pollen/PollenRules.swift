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

/// Pollen (SPEC §5, §7): Google or Open-Meteo by `pollen.source` (`auto` falls back to
/// Open-Meteo when Google rejects the key), the daily Google cap, a location no source covers.
package enum PollenRules: SourceRules {
    package static let kind = SourceKind.pollen

    package static func isEnabled(in config: AgentConfig) -> Bool { config.pollen.enabled }

    package static func schedule(in config: AgentConfig) -> FetchSchedule {
        FetchSchedule(
            interval: config.pollen.interval.components.seconds,
            refreshCooldown: config.pollen.refreshCooldown.components.seconds, nextDue: 0)
    }

    package static let refreshedByCommand = true

    /// Always: with pollen off the tree is cleared (SPEC §1).
    package static func sinks(for context: SinkContext) -> [any RetainedSink] { [PollenTreeSink()] }

    /// Per pollen source: the configured one, and with `auto` Open-Meteo as well (it falls back
    /// when Google rejects the key).
    package static func diagnosticsKeys(in config: AgentConfig) -> [String] {
        var keys = [config.pollen.source(googleRejected: false).diagnosticsKey]
        if config.pollen.source == .auto { keys.append(PollenSource.openMeteo.diagnosticsKey) }
        return keys
    }

    package static func begin(_ index: Int, in state: inout DaemonState, now: Int64) -> (FetchRequest?, [DaemonAction])
    {
        let location = state.locations[index].config
        let source = state.config.pollen.source(googleRejected: state.locations[index].googleRejected)
        var actions: [DaemonAction] = []
        if source == .google && !state.demo {
            let cap = state.config.pollen.maxCallsPerDay
            guard state.callsToday(index, .google, now: now) < cap else {
                if state.locations[index].slots.pollen.notice != .dailyCap {
                    actions.append(
                        .log(
                            .warning,
                            "pollen[\(location.id)]: daily Google call cap reached (pollen.max_calls_per_day = \(cap)); next call after local midnight"
                        ))
                    state.locations[index].slots.pollen.notice = .dailyCap
                }
                state.planner.schedules[index].pollen.due(at: state.locations[index].nextMidnight(after: now))
                return (nil, actions)
            }
        }
        state.countStart(FetchKey(location: index, kind: kind), api: source == .google ? .google : .openMeteo, now: now)
        let season = source == .openMeteo && needsSeason(index, in: state, now: now)
        return (.pollen(location, source, now: now, season: season), actions)
    }

    /// Whether a key-free fetch of location `index` now is the day's season call (SPEC §20).
    private static func needsSeason(_ index: Int, in state: DaemonState, now: Int64) -> Bool {
        state.calls.pollenSeason && state.locations[index].needsSeason(at: now)
    }

    package static func openMeteoWeight(_ index: Int, in state: DaemonState, now: Int64) -> (
        weight: OpenMeteoCallWeight, requests: Int
    )? {
        guard state.config.pollen.source(googleRejected: state.locations[index].googleRejected) == .openMeteo else {
            return nil
        }
        return (needsSeason(index, in: state, now: now) ? PollenSeason.callWeight : OpenMeteoBudget.pollenRequest, 1)
    }

    package static func apply(_ result: PollenFetchResult, _ index: Int, in state: inout DaemonState, now: Int64)
        -> SourceApplied
    {
        let id = state.locations[index].config.id
        let source = result.source
        switch result.outcome {
        case .report(var report):
            var stores: [DaemonAction] = []
            if result.season {
                // The day's season call: the standing is taken from the 92 past days, which the
                // pollen topics then leave out; stored on its own, as the plain calls of the rest
                // of the day replace the pollen response.
                let today = state.locations[index].today(at: result.fetchedAt)
                state.locations[index].season = PollenSeason(report: report).standing(today: today)
                report = report.dropping(before: today, zone: state.locations[index].zone)
                stores.append(
                    .store(
                        .response(
                            .init(fetchedAt: result.fetchedAt, body: String(decoding: result.body, as: UTF8.self)),
                            location: id, source: Self.seasonStoreName)))
            }
            state.locations[index].slots.pollen.received(.report(report, fetchedAt: result.fetchedAt))
            state.locations[index].slots.pollen.notice = nil
            state.planner.schedules[index].pollen.succeeded(at: now, jitter: state.random.fraction())
            state.calls.outcomes.success(source.diagnosticsKey, at: now)
            // The response is stored first: nothing performed after it can lose it.
            return .applied(
                [
                    .store(
                        .response(
                            .init(fetchedAt: result.fetchedAt, body: String(decoding: result.body, as: UTF8.self)),
                            location: id, source: source.storeName))
                ] + stores + report.warnings.map { .log(.warning, "pollen[\(id)]: \($0)") } + [
                    .log(.info, "pollen[\(id)]: fetched from \(source.rawValue) (\(report.days.count) days)")
                ])
        case .unsupportedLocation(let message):
            state.locations[index].slots.pollen.received(.unsupported(message: message))
            state.locations[index].season = nil
            state.planner.schedules[index].pollen.succeeded(at: now, jitter: state.random.fraction())
            state.calls.outcomes.success(source.diagnosticsKey, at: now)
            var actions: [DaemonAction] = [.store(.removeResponse(location: id, source: source.storeName))]
            if source == .openMeteo {
                actions.append(.store(.removeResponse(location: id, source: Self.seasonStoreName)))
            }
            if state.locations[index].slots.pollen.notice != .unsupported {
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
                state.locations[index].slots.pollen.notice = .unsupported
            }
            return .applied(actions)
        case .keyRejected(let message):
            state.calls.outcomes.failure(PollenSource.google.diagnosticsKey, at: now, message: message)
            if state.config.pollen.source == .auto {
                state.locations[index].googleRejected = true
                state.planner.schedules[index].pollen.due(at: now)
                return .applied([
                    .log(
                        .error,
                        "pollen[\(id)]: Google rejected the API key (\(message)); using key-free Open-Meteo instead"
                    )
                ])
            }
            state.planner.schedules[index].pollen.keyRejected(at: now)
            state.locations[index].slots.pollen.failed()
            return .applied([
                .log(
                    .error,
                    "pollen[\(id)]: Google rejected the API key (\(message)); not retrying for 24 h — fix pollen.api_key"
                )
            ])
        case .failed(let message):
            return .failed(
                SourceFailure(
                    message: message, retryAfter: result.retryAfter, diagnosticsKey: source.diagnosticsKey,
                    attempt: "fetch from \(source.rawValue)"))
        }
    }

    /// A stored pollen report: published at once, fetched again when it ages out. A season
    /// call's body holds the past days too: they are left out as when it was fetched.
    package static func restore(_ stored: StoredPollen, _ index: Int, in state: inout DaemonState, now: Int64) {
        let location = state.locations[index]
        let report = stored.report.dropping(before: location.today(at: stored.fetchedAt), zone: location.zone)
        state.locations[index].slots.pollen.received(.report(report, fetchedAt: stored.fetchedAt))
        state.planner.schedules[index].pollen.freshUntil(fetchedAt: stored.fetchedAt, jitter: state.random.fraction())
    }

    /// The name of the day's season call body in `state_dir` (SPEC §20).
    static let seasonStoreName = PollenSource.openMeteo.storeName + "-season"

    package static func storedNames(in state: DaemonState) -> [String] {
        guard state.config.pollen.enabled else { return [] }
        let source = state.config.pollen.source(googleRejected: false)
        return source == .openMeteo ? [source.storeName, seasonStoreName] : [source.storeName]
    }

    package static func restore(
        stored: StoredResponse, name: String, _ index: Int, in state: inout DaemonState, now: Int64
    ) -> [DaemonAction] {
        let id = state.locations[index].config.id
        if name == seasonStoreName {
            // The standing of the day it was fetched on; an older day's is fetched again with
            // the next pollen call (``LocationRuntime/needsSeason(at:)``).
            guard case .season(let season, _) = PollenSeason.interpret(httpStatus: 200, body: Array(stored.body.utf8))
            else { return [.log(.warning, "pollen[\(id)]: stored season response is not usable; ignoring it")] }
            state.locations[index].season = season.standing(today: state.locations[index].today(at: stored.fetchedAt))
            return [
                .log(
                    .info,
                    "pollen[\(id)]: restored the season fetched \(UTCTimestamp.rfc3339(unixSeconds: stored.fetchedAt))")
            ]
        }
        let source = state.config.pollen.source(googleRejected: false)
        let response = FetchedResponse(status: 200, body: Array(stored.body.utf8))
        guard
            case .report(let report) = PollenFetch.interpret(response, source: source, fetchedAt: stored.fetchedAt)
                .outcome
        else { return [.log(.warning, "pollen[\(id)]: stored response is not usable; ignoring it")] }
        restore(.init(report: report, fetchedAt: stored.fetchedAt), index, in: &state, now: now)
        return [
            .log(.info, "pollen[\(id)]: restored data fetched \(UTCTimestamp.rfc3339(unixSeconds: stored.fetchedAt))")
        ]
    }
}

/// A stored pollen report and when it was fetched.
package struct StoredPollen {
    var report: PollenReport
    var fetchedAt: Int64
}

/// What a location keeps of its pollen (its ``SourceSlots/pollen`` slot).
extension LocationRuntime {
    package enum PollenData: SourceData {
        case report(PollenReport, fetchedAt: Int64)
        /// The source has no pollen here: the pollen subtree is cleared.
        case unsupported(message: String)

        package var lastSuccess: Int64? {
            switch self {
            case .report(_, let fetchedAt): fetchedAt
            case .unsupported: nil
            }
        }
    }

    package var pollen: PollenData? { slots.pollen.data }
}
