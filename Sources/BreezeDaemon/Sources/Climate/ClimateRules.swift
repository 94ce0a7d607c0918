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

/// The daily climate trend (SPEC §6): fetched once per local day, current until midnight.
package enum ClimateRules: SourceRules {
    package static let kind = SourceKind.climate

    package static func isEnabled(in config: AgentConfig) -> Bool { config.climate.enabled }

    /// Once a day (the trend moves by the day).
    package static func schedule(in config: AgentConfig) -> FetchSchedule {
        FetchSchedule(interval: 86_400, refreshCooldown: config.climate.refreshCooldown.components.seconds, nextDue: 0)
    }

    package static let refreshedByCommand = true

    package static func sinks(for context: SinkContext) -> [any RetainedSink] { [ClimateTreeSink()] }

    package static func begin(_ index: Int, in state: inout DaemonState, now: Int64) -> (FetchRequest?, [DaemonAction])
    {
        state.countStart(FetchKey(location: index, kind: kind), api: .openMeteo, now: now)
        let location = state.locations[index]
        return (.climate(location.config, today: location.today(at: now), now: now), [])
    }

    /// The archive's years (one range each) and the forecast's call; two HTTP requests when
    /// any year comes from the archive.
    package static func openMeteoWeight(_ index: Int, in state: DaemonState, now: Int64) -> (
        weight: OpenMeteoCallWeight, requests: Int
    )? {
        let years = ClimateRequestPlan.points(
            today: state.locations[index].today(at: now), years: state.config.climate.years
        ).filter { $0.source == .archive }.count
        let weight =
            OpenMeteoCallWeight.request(variables: 1, rangesOfDays: Array(repeating: 1, count: years)) + .calls(1)
        return (weight, years > 0 ? 2 : 1)
    }

    package static func apply(_ result: ClimateFetchResult, _ index: Int, in state: inout DaemonState, now: Int64)
        -> SourceApplied
    {
        let id = state.locations[index].config.id
        switch result {
        case .trend(let trend, let bodies, let fetchedAt):
            state.locations[index].slots.climate.received(.init(trend: trend, fetchedAt: fetchedAt))
            state.planner.schedules[index].climate.due(
                at: state.locations[index].nextMidnight(after: now) + Int64.random(in: 0..<300, using: &state.random))
            state.calls.outcomes.success(kind.traits.diagnosticsKey, at: now)
            let note = ClimateFetch.omittedYearsNote(trend, location: id).map { [DaemonAction.log(.info, $0)] } ?? []
            return .applied(
                [.store(.climateResponse(bodies, fetchedAt: fetchedAt, location: id))] + note + [
                    .log(.info, "climate[\(id)]: fetched \(trend.points.count) years for \(trend.date)")
                ])
        case .failed(let message, let retryAfter):
            return .failed(
                SourceFailure(message: message, retryAfter: retryAfter, diagnosticsKey: kind.traits.diagnosticsKey))
        }
    }

    /// A stored climate trend: current until local midnight if it is today's, else stale.
    package static func restore(_ stored: StoredClimate, _ index: Int, in state: inout DaemonState, now: Int64) {
        state.locations[index].slots.climate.received(.init(trend: stored.trend, fetchedAt: stored.fetchedAt))
        if stored.date == state.locations[index].today(at: now) {
            state.planner.schedules[index].climate.due(at: state.locations[index].nextMidnight(after: now))
        } else {
            state.locations[index].slots.climate.stale = true
        }
    }

    package static func storedNames(in state: DaemonState) -> [String] {
        state.config.climate.enabled ? [kind.traits.storeName] : []
    }

    /// The stored bodies are computed again (the trend is not stored); bodies that do not
    /// decode or compute are skipped without a word, as a missing file is.
    package static func restore(
        stored: StoredResponse, name: String, _ index: Int, in state: inout DaemonState, now: Int64
    ) -> [DaemonAction] {
        let id = state.locations[index].config.id
        guard let bodies = try? JSONDecoderShim.decode(ClimateBodies.self, stored.body),
            let date = CivilDate(iso: bodies.date),
            case .trend(let trend, _, _) = ClimateFetch.compute(
                bodies, today: date, years: state.config.climate.years, fetchedAt: stored.fetchedAt)
        else { return [] }
        restore(.init(trend: trend, date: date, fetchedAt: stored.fetchedAt), index, in: &state, now: now)
        let note = ClimateFetch.omittedYearsNote(trend, location: id)
        return (note.map { [DaemonAction.log(.info, $0)] } ?? []) + [
            .log(.info, "climate[\(id)]: restored data for \(date)")
        ]
    }
}

/// A stored climate trend, the day it was computed for, and when it was fetched.
package struct StoredClimate {
    var trend: ClimateTrend
    var date: CivilDate
    var fetchedAt: Int64
}

/// What a location keeps of its climate (its ``SourceSlots/climate`` slot).
extension LocationRuntime {
    package struct ClimateData: SourceData {
        package var trend: ClimateTrend
        package var fetchedAt: Int64
        package var lastSuccess: Int64? { fetchedAt }
    }

    package var climate: ClimateData? { slots.climate.data }
}
