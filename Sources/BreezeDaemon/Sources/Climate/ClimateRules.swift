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

/// The daily climate trend (docs/architecture.md): fetched once per local day, current until midnight.
package enum ClimateRules: SourceRules {
    package static let kind = SourceKind.climate

    package static func isEnabled(in config: AgentConfig) -> Bool { config.climate.enabled }

    /// Once a day (the trend moves by the day).
    package static func schedule(in config: AgentConfig) -> FetchSchedule {
        FetchSchedule(
            interval: .hours(24), refreshCooldown: DaemonDuration(config.climate.refreshCooldown),
            nextDue: FetchSchedule.unplaced)
    }

    package static let refreshedByCommand = true

    package static func sinks(for context: SinkContext) -> [any RetainedSink] { [ClimateTreeSink()] }

    /// The local day the request is made for.
    package static func begin(_ context: inout SourceContext, now: DaemonInstant) -> SourceBegin<CivilDate> {
        SourceBegin(request: context.location.today(at: now))
    }

    /// The archive's years (one range each) and the forecast's call; two HTTP requests when
    /// any year comes from the archive.
    package static func openMeteoWeight(_ context: SourceContext, now: DaemonInstant) -> (
        weight: OpenMeteoCallWeight, requests: Int
    )? {
        let years = ClimateRequestPlan.points(
            today: context.location.today(at: now), years: context.config.climate.years
        ).filter { $0.source == .archive }.count
        let weight =
            OpenMeteoCallWeight.request(variables: 1, rangesOfDays: Array(repeating: 1, count: years)) + .calls(1)
        return (weight, years > 0 ? 2 : 1)
    }

    package static func gets(_ today: CivilDate, location: LocationConfig, config: AgentConfig) -> [HTTPGet] {
        ClimateFetch.gets(location, today: today, years: config.climate.years, endpoints: config.endpoints)
    }

    package static func interpret(
        _ responses: [FetchedResponse], _ today: CivilDate, location: LocationConfig, config: AgentConfig,
        now: DaemonInstant
    ) -> FetchResult<ClimateAnswer> {
        ClimateFetch.interpret(responses, today: today, years: config.climate.years, fetchedAt: now)
    }

    /// Current until local midnight, fetched again just after it (0–5 min of jitter).
    package static func receive(_ answer: ClimateAnswer, _ context: inout SourceContext, now: DaemonInstant)
        -> SourceReceived
    {
        let id = context.location.config.id
        context.location.slots.climate.received(.init(trend: answer.trend, fetchedAt: answer.fetchedAt))
        context.schedule.due(at: context.afterMidnight(now, jitter: .minutes(5)))
        let note = ClimateFetch.omittedYearsNote(answer.trend, location: id).map { [DaemonAction.log(.info, $0)] } ?? []
        return SourceReceived(
            actions: store(answer.bodies, fetchedAt: answer.fetchedAt, location: id) + note + [
                .log(.info, "climate[\(id)]: fetched \(answer.trend.points.count) years for \(answer.trend.date)")
            ], count: .success(kind.traits.diagnosticsKey))
    }

    /// The bodies are stored, not the trend: a restart computes it again (a newer version may
    /// compute it differently).
    private static func store(_ bodies: ClimateBodies, fetchedAt: DaemonInstant, location: String) -> [DaemonAction] {
        guard let json = try? JSONEncoderShim.encode(bodies) else { return [] }
        return [
            .store(
                .response(.init(fetchedAt: fetchedAt, body: json), location: location, source: kind.traits.storeName))
        ]
    }

    package static func storedNames(in config: AgentConfig) -> [String] {
        config.climate.enabled ? [kind.traits.storeName] : []
    }

    /// The stored bodies are computed again (the trend is not stored); bodies that do not
    /// decode or compute are skipped without a word, as a missing file is. Today's trend is
    /// current until local midnight; an older one is shown stale.
    package static func restore(
        _ stored: StoredResponse, name: String, _ context: inout SourceContext, now: DaemonInstant
    )
        -> [DaemonAction]
    {
        let id = context.location.config.id
        guard let bodies = try? JSONDecoderShim.decode(ClimateBodies.self, stored.body),
            let date = CivilDate(iso: bodies.date),
            case .answer(let answer) = ClimateFetch.compute(
                bodies, today: date, years: context.config.climate.years, fetchedAt: stored.fetchedAt)
        else { return [] }
        context.location.slots.climate.received(.init(trend: answer.trend, fetchedAt: stored.fetchedAt))
        if date == context.location.today(at: now) {
            context.schedule.due(at: context.location.nextMidnight(after: now))
        } else {
            context.location.slots.climate.stale = true
        }
        let note = ClimateFetch.omittedYearsNote(answer.trend, location: id)
        return (note.map { [DaemonAction.log(.info, $0)] } ?? []) + [
            .log(.info, "climate[\(id)]: restored data for \(date)")
        ]
    }
}

/// What a location keeps of its climate (its ``SourceSlots/climate`` slot).
extension LocationRuntime {
    package struct ClimateData: SourceData {
        package var trend: ClimateTrend
        package var fetchedAt: DaemonInstant
        package var lastSuccess: DaemonInstant? { fetchedAt }
    }

    package var climate: ClimateData? { slots.climate.data }
}
