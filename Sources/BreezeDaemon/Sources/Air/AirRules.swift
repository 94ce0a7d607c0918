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

/// Air quality (docs/reference.md, Air quality bands; faults as in docs/operations.md, Faults): a report replaces the data; a failure keeps the last
/// good data, marks it stale and retries with backoff — nothing is cleared.
package enum AirRules: SourceRules {
    package static let kind = SourceKind.air

    package static func isEnabled(in config: AgentConfig) -> Bool { config.air.enabled }

    /// `refresh` fetches air within pollen's cooldown: both are the "current conditions".
    package static func schedule(in config: AgentConfig) -> FetchSchedule {
        FetchSchedule(
            interval: DaemonDuration(config.air.interval),
            refreshCooldown: DaemonDuration(config.pollen.refreshCooldown),
            nextDue: FetchSchedule.unplaced)
    }

    package static let refreshedByCommand = true

    /// Off by default and then absent: its topics, if an earlier run published some, are under
    /// no scope and the publisher's full passes clear them.
    package static func sinks(for context: SinkContext) -> [any RetainedSink] {
        context.config.air.enabled ? [AirTreeSink()] : []
    }

    /// Nothing to ask beside the location: today's hours.
    package static func begin(_ context: inout SourceContext, now: DaemonInstant) -> SourceBegin<Bool> {
        SourceBegin(request: true)
    }

    package static func openMeteoWeight(_ context: SourceContext, now: DaemonInstant) -> (
        weight: OpenMeteoCallWeight, requests: Int
    )? { (AirQualityRequest.weight, 1) }

    package static func gets(_ request: Bool, location: LocationConfig, config: AgentConfig) -> [HTTPGet] {
        AirFetch.gets(location, endpoints: config.endpoints)
    }

    package static func interpret(
        _ responses: [FetchedResponse], _ request: Bool, location: LocationConfig, config: AgentConfig,
        now: DaemonInstant
    ) -> FetchResult<AirAnswer> {
        guard let response = responses.first else { return .failure(message: "no answer", retryAfter: nil) }
        return AirFetch.interpret(response, fetchedAt: now)
    }

    package static func receive(_ answer: AirAnswer, _ context: inout SourceContext, now: DaemonInstant)
        -> SourceReceived
    {
        let id = context.location.config.id
        context.location.slots.air.received(.init(report: answer.report, fetchedAt: answer.fetchedAt))
        context.schedule.succeeded(at: now, jitter: context.random.fraction())
        dueAtMidnightAtLatest(&context, now: now)
        return SourceReceived(
            actions: [
                .store(
                    .response(
                        .init(fetchedAt: answer.fetchedAt, body: String(decoding: answer.body, as: UTF8.self)),
                        location: id, source: kind.traits.storeName))
            ] + answer.report.warnings.map { .log(.warning, "air[\(id)]: \($0)") } + [
                .log(.info, "air[\(id)]: fetched \(answer.report.hours.count) hours")
            ], count: .success(kind.traits.diagnosticsKey))
    }

    package static func storedNames(in config: AgentConfig) -> [String] {
        config.air.enabled ? [kind.traits.storeName] : []
    }

    package static func restore(
        _ stored: StoredResponse, name: String, _ context: inout SourceContext, now: DaemonInstant
    )
        -> [DaemonAction]
    {
        let id = context.location.config.id
        let response = FetchedResponse(status: 200, body: Array(stored.body.utf8))
        guard case .answer(let answer) = AirFetch.interpret(response, fetchedAt: stored.fetchedAt) else {
            return [.log(.warning, "air[\(id)]: stored response is not usable; ignoring it")]
        }
        restore(answer.report, fetchedAt: stored.fetchedAt, &context)
        return [
            .log(
                .info,
                "air[\(id)]: restored data fetched \(UTCTimestamp.rfc3339(unixSeconds: stored.fetchedAt.unixSeconds))")
        ]
    }

    /// A stored air report: published at once (the current hour picked from it), fetched again
    /// when it ages out.
    static func restore(_ report: AirReport, fetchedAt: DaemonInstant, _ context: inout SourceContext) {
        context.location.slots.air.received(.init(report: report, fetchedAt: fetchedAt))
        context.schedule.freshUntil(fetchedAt: fetchedAt, jitter: context.random.fraction())
        dueAtMidnightAtLatest(&context, now: fetchedAt)
    }

    /// The air request covers the local day it is made on (`forecast_days=1`): the next fetch
    /// comes no later than just after local midnight (0–2 min of jitter), or the new day would
    /// show Unknown until the interval ran out.
    private static func dueAtMidnightAtLatest(_ context: inout SourceContext, now: DaemonInstant) {
        let midnight = context.afterMidnight(now, jitter: .minutes(2))
        if context.schedule.nextDue > midnight { context.schedule.due(at: midnight) }
    }
}

/// What a location keeps of its air (its ``SourceSlots/air`` slot).
extension LocationRuntime {
    /// Today's hourly air quality (docs/reference.md, Air quality bands) and when it was fetched.
    package struct AirData: SourceData {
        package var report: AirReport
        package var fetchedAt: DaemonInstant
        package var lastSuccess: DaemonInstant? { fetchedAt }
    }

    package var air: AirData? { slots.air.data }
}
