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

/// Air quality (SPEC §10.1, faults as §5): a report replaces the data; a failure keeps the last
/// good data, marks it stale and retries with backoff — nothing is cleared.
package enum AirRules: SourceRules {
    package static let kind = SourceKind.air

    package static func isEnabled(in config: AgentConfig) -> Bool { config.air.enabled }

    /// `refresh` fetches air within pollen's cooldown: both are the "current conditions".
    package static func schedule(in config: AgentConfig) -> FetchSchedule {
        FetchSchedule(
            interval: config.air.interval.components.seconds,
            refreshCooldown: config.pollen.refreshCooldown.components.seconds, nextDue: 0)
    }

    package static let refreshedByCommand = true

    /// Off by default and then absent: its topics, if an earlier run published some, are under
    /// no scope and the publisher's full passes clear them.
    package static func sinks(for context: SinkContext) -> [any RetainedSink] {
        context.config.air.enabled ? [AirTreeSink()] : []
    }

    package static func begin(_ index: Int, in state: inout DaemonState, now: Int64) -> (FetchRequest?, [DaemonAction])
    {
        state.countStart(FetchKey(location: index, kind: kind), api: .openMeteo, now: now)
        return (.air(state.locations[index].config, now: now), [])
    }

    package static func openMeteoWeight(_ index: Int, in state: DaemonState, now: Int64) -> (
        weight: OpenMeteoCallWeight, requests: Int
    )? { (AirQualityRequest.weight, 1) }

    package static func apply(_ result: AirFetchResult, _ index: Int, in state: inout DaemonState, now: Int64)
        -> SourceApplied
    {
        let id = state.locations[index].config.id
        switch result.outcome {
        case .report(let report):
            state.locations[index].slots.air.received(.init(report: report, fetchedAt: result.fetchedAt))
            state.planner.schedules[index].air.succeeded(at: now, jitter: state.random.fraction())
            dueAtMidnightAtLatest(index, in: &state, now: now)
            state.calls.outcomes.success(kind.traits.diagnosticsKey, at: now)
            return .applied(
                [
                    .store(
                        .response(
                            .init(fetchedAt: result.fetchedAt, body: String(decoding: result.body, as: UTF8.self)),
                            location: id, source: kind.traits.storeName))
                ] + report.warnings.map { .log(.warning, "air[\(id)]: \($0)") } + [
                    .log(.info, "air[\(id)]: fetched \(report.hours.count) hours")
                ])
        case .failed(let message):
            return .failed(
                SourceFailure(
                    message: message, retryAfter: result.retryAfter, diagnosticsKey: kind.traits.diagnosticsKey))
        }
    }

    /// A stored air report: published at once (the current hour picked from it), fetched again
    /// when it ages out.
    package static func restore(_ stored: StoredAir, _ index: Int, in state: inout DaemonState, now: Int64) {
        state.locations[index].slots.air.received(.init(report: stored.report, fetchedAt: stored.fetchedAt))
        state.planner.schedules[index].air.freshUntil(fetchedAt: stored.fetchedAt, jitter: state.random.fraction())
        dueAtMidnightAtLatest(index, in: &state, now: stored.fetchedAt)
    }

    package static func storedNames(in state: DaemonState) -> [String] {
        state.config.air.enabled ? [kind.traits.storeName] : []
    }

    package static func restore(
        stored: StoredResponse, name: String, _ index: Int, in state: inout DaemonState, now: Int64
    ) -> [DaemonAction] {
        let id = state.locations[index].config.id
        let response = FetchedResponse(status: 200, body: Array(stored.body.utf8))
        guard case .report(let report) = AirFetch.interpret(response, fetchedAt: stored.fetchedAt).outcome else {
            return [.log(.warning, "air[\(id)]: stored response is not usable; ignoring it")]
        }
        restore(.init(report: report, fetchedAt: stored.fetchedAt), index, in: &state, now: now)
        return [.log(.info, "air[\(id)]: restored data fetched \(UTCTimestamp.rfc3339(unixSeconds: stored.fetchedAt))")]
    }

    /// The air request covers the local day it is made on (`forecast_days=1`): the next fetch
    /// comes no later than just after local midnight (0–2 min of jitter), or the new day would
    /// show Unknown until the interval ran out.
    private static func dueAtMidnightAtLatest(_ index: Int, in state: inout DaemonState, now: Int64) {
        let midnight = state.locations[index].nextMidnight(after: now) + Int64.random(in: 0..<120, using: &state.random)
        if state.planner.schedules[index].air.nextDue > midnight {
            state.planner.schedules[index].air.due(at: midnight)
        }
    }
}

/// A stored air report and when it was fetched.
package struct StoredAir {
    var report: AirReport
    var fetchedAt: Int64
}

/// What a location keeps of its air (its ``SourceSlots/air`` slot).
extension LocationRuntime {
    /// Today's hourly air quality (SPEC §10.1) and when it was fetched.
    package struct AirData: SourceData {
        package var report: AirReport
        package var fetchedAt: Int64
        package var lastSuccess: Int64? { fetchedAt }
    }

    package var air: AirData? { slots.air.data }
}
