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

/// The warming stripes (SPEC §9.1): checked daily, fetched once a year from the archive
/// (`StripesRequest.isDue`); a failure keeps the stored stripes current.
package enum StripesRules: SourceRules {
    package static let kind = SourceKind.stripes

    /// On with climate.
    package static func isEnabled(in config: AgentConfig) -> Bool { config.climate.enabled }

    /// Checked once a local day (``StripesRequest/isDue(stored:firstYear:today:spread:)`` decides
    /// whether that check fetches); retried with backoff after a failure.
    package static func schedule(in config: AgentConfig) -> FetchSchedule {
        FetchSchedule(interval: 86_400, refreshCooldown: config.climate.refreshCooldown.components.seconds, nextDue: 0)
    }

    /// A `refresh` does not fetch the yearly archive again.
    package static let refreshedByCommand = false

    package static func sinks(for context: SinkContext) -> [any RetainedSink] { [StripesTreeSink()] }

    package static func begin(_ index: Int, in state: inout DaemonState, now: Int64) -> (FetchRequest?, [DaemonAction])
    {
        let key = FetchKey(location: index, kind: kind)
        // Checked daily; fetched only when due (`stripesYears`).
        guard let (firstYear, lastYear) = state.stripesYears(index, now: now),
            let request = state.openMeteoRequest(key, now: now)
        else {
            dueTomorrow(index, in: &state, now: now)
            return (nil, [])
        }
        state.countStart(key, api: .openMeteo, now: now)
        let location = state.locations[index].config
        return (
            .stripes(location, firstYear: firstYear, lastYear: lastYear, now: now),
            [
                .log(
                    .info,
                    "stripes[\(location.id)]: fetching \(firstYear)–\(lastYear) from the archive (\(request.weight) weighted Open-Meteo calls, once a year)"
                )
            ]
        )
    }

    package static func openMeteoWeight(_ index: Int, in state: DaemonState, now: Int64) -> (
        weight: OpenMeteoCallWeight, requests: Int
    )? {
        guard let (firstYear, lastYear) = state.stripesYears(index, now: now) else { return nil }
        return (StripesRequest.weight(firstYear: firstYear, lastYear: lastYear), 1)
    }

    package static func apply(_ result: StripesFetchResult, _ index: Int, in state: inout DaemonState, now: Int64)
        -> SourceApplied
    {
        let id = state.locations[index].config.id
        switch result {
        case .stripes(let data):
            state.locations[index].slots.stripes.received(data)
            // The next check is tomorrow; it fetches only when a newer year is complete.
            state.planner.schedules[index].stripes.succeeded(at: now, jitter: state.random.fraction())
            dueTomorrow(index, in: &state, now: now)
            state.calls.outcomes.success(kind.traits.diagnosticsKey, at: now)
            let series = data.series
            var actions: [DaemonAction] = [
                .store(
                    .stripesResponse(
                        StoredStripes(firstYear: series.firstYear, lastYear: series.lastYear, tallies: data.tallies),
                        fetchedAt: data.fetchedAt, location: id)),
                .log(
                    .info,
                    "stripes[\(id)]: \(series.years.count) years \(series.firstYear)–\(series.lastYear), reference \(FixedPoint.format(series.referenceHundredths, scale: 2)) °C (\(series.referenceIsStandardPeriod ? "1981–2010" : "all years: fewer than 20 of 1981–2010"))"
                ),
            ]
            if !series.omittedYears.isEmpty {
                let years = series.omittedYears.map(String.init).joined(separator: ", ")
                actions.append(
                    .log(
                        .info,
                        "stripes[\(id)]: left out \(years) (fewer than \(WarmingStripes.minimumDays) daily means)"))
            }
            return .applied(actions)
        case .failed(let message, let retryAfter):
            return .failed(
                SourceFailure(
                    message: message, retryAfter: retryAfter, diagnosticsKey: kind.traits.diagnosticsKey,
                    marksStale: false,
                    note: state.locations[index].stripes != nil ? "; the stored stripes stay published" : ""))
        case .unusable(let message):
            // A 200 whose data makes no stripes: asking again at once would spend another ≈ 120
            // weighted calls on the same answer, so the next try is the next local day.
            _ = state.planner.schedules[index].stripes.failed(at: now, retryAfter: nil, jitter: 0)
            dueTomorrow(index, in: &state, now: now)
            state.calls.outcomes.failure(kind.traits.diagnosticsKey, at: now, message: message)
            return .applied([.log(.warning, "stripes[\(id)]: unusable archive answer: \(message); next try tomorrow")])
        }
    }

    /// Stored stripes: published at once; the first check decides whether a newer year is due.
    package static func restore(_ stored: StripesData, _ index: Int, in state: inout DaemonState, now: Int64) {
        state.locations[index].slots.stripes.received(stored)
    }

    package static func storedNames(in state: DaemonState) -> [String] {
        state.config.climate.enabled ? [kind.traits.storeName] : []
    }

    package static func restore(
        stored: StoredResponse, name: String, _ index: Int, in state: inout DaemonState, now: Int64
    ) -> [DaemonAction] {
        let id = state.locations[index].config.id
        guard let tallies = try? JSONDecoderShim.decode(StoredStripes.self, stored.body),
            let data = tallies.data(fetchedAt: stored.fetchedAt)
        else { return [.log(.warning, "stripes[\(id)]: stored stripes are not usable; ignoring them")] }
        restore(data, index, in: &state, now: now)
        return [.log(.info, "stripes[\(id)]: restored \(tallies.firstYear)–\(tallies.lastYear)")]
    }

    /// The next daily check: after local midnight, 0–5 min of jitter.
    private static func dueTomorrow(_ index: Int, in state: inout DaemonState, now: Int64) {
        state.planner.schedules[index].stripes.due(
            at: state.locations[index].nextMidnight(after: now) + Int64.random(in: 0..<300, using: &state.random))
    }
}

extension LocationRuntime {
    /// The warming stripes (SPEC §9.1): fetched once a year, kept across restarts.
    package var stripes: StripesData? { slots.stripes.data }
}
