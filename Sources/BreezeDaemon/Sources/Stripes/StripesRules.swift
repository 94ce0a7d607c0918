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

/// The warming stripes (docs/reference.md, Warming stripes): checked daily, fetched once a year from the archive
/// (`StripesRequest.isDue`); a failure keeps the stored stripes current.
package enum StripesRules: SourceRules {
    package static let kind = SourceKind.stripes

    /// On with climate.
    package static func isEnabled(in config: AgentConfig) -> Bool { config.climate.enabled }

    /// Checked once a local day (years(_:now:) decides whether that check fetches);
    /// retried with backoff after a failure.
    package static func schedule(in config: AgentConfig) -> FetchSchedule {
        FetchSchedule(
            interval: .hours(24), refreshCooldown: DaemonDuration(config.climate.refreshCooldown),
            nextDue: FetchSchedule.unplaced)
    }

    /// A `refresh` does not fetch the yearly archive again.
    package static let refreshedByCommand = false

    package static func sinks(for context: SinkContext) -> [any RetainedSink] { [StripesTreeSink()] }

    /// The years the request would ask for now; nil when it is not due: checked daily, fetched
    /// only when nothing is stored, the first year changed, or a newer year is complete (from
    /// 10 January + this installation's spread).
    static func years(_ context: SourceContext, now: DaemonInstant) -> StripesYears? {
        let today = context.location.today(at: now)
        let spread = context.stripesSpread
        let firstYear = context.config.climate.stripesFirstYear
        guard
            StripesRequest.isDue(
                stored: context.location.stripes?.range, firstYear: firstYear, today: today, spread: spread)
        else { return nil }
        return StripesYears(first: firstYear, last: StripesRequest.targetLastYear(today: today, spread: spread))
    }

    package static func begin(_ context: inout SourceContext, now: DaemonInstant) -> SourceBegin<StripesYears> {
        // Checked daily; fetched only when due.
        guard let years = years(context, now: now) else {
            dueTomorrow(&context, now: now)
            return SourceBegin(request: nil)
        }
        let weight = StripesRequest.weight(firstYear: years.first, lastYear: years.last)
        return SourceBegin(
            request: years,
            actions: [
                .log(
                    .info,
                    "stripes[\(context.location.config.id)]: fetching \(years.first)–\(years.last) from the archive (\(weight) weighted Open-Meteo calls, once a year)"
                )
            ])
    }

    package static func openMeteoWeight(_ context: SourceContext, now: DaemonInstant) -> (
        weight: OpenMeteoCallWeight, requests: Int
    )? {
        guard let years = years(context, now: now) else { return nil }
        return (StripesRequest.weight(firstYear: years.first, lastYear: years.last), 1)
    }

    package static func gets(_ years: StripesYears, location: LocationConfig, config: AgentConfig) -> [HTTPGet] {
        StripesFetch.gets(location, firstYear: years.first, lastYear: years.last, endpoints: config.endpoints)
    }

    package static func interpret(
        _ responses: [FetchedResponse], _ years: StripesYears, location: LocationConfig, config: AgentConfig,
        now: DaemonInstant
    ) -> FetchResult<StripesAnswer> {
        StripesFetch.interpret(responses, firstYear: years.first, lastYear: years.last, fetchedAt: now)
    }

    package static func receive(_ answer: StripesAnswer, _ context: inout SourceContext, now: DaemonInstant)
        -> SourceReceived
    {
        let id = context.location.config.id
        switch answer {
        case .stripes(let data):
            context.location.slots.stripes.received(data)
            // The next check is tomorrow; it fetches only when a newer year is complete.
            context.schedule.succeeded(at: now, jitter: context.random.fraction())
            dueTomorrow(&context, now: now)
            let series = data.series
            let stored = StoredStripes(firstYear: series.firstYear, lastYear: series.lastYear, tallies: data.tallies)
            var actions: [DaemonAction] =
                (try? JSONEncoderShim.encode(stored)).map {
                    [
                        .store(
                            .response(
                                .init(fetchedAt: data.fetchedAt, body: $0), location: id, source: kind.traits.storeName)
                        )
                    ]
                } ?? []
            actions += [
                .log(
                    .info,
                    "stripes[\(id)]: \(series.years.count) years \(series.firstYear)–\(series.lastYear), reference \(FixedPoint.format(series.referenceHundredths, scale: 2)) °C (\(series.referenceIsStandardPeriod ? "1981–2010" : "all years: fewer than 20 of 1981–2010"))"
                )
            ]
            if !series.omittedYears.isEmpty {
                let years = series.omittedYears.map(String.init).joined(separator: ", ")
                actions.append(
                    .log(
                        .info,
                        "stripes[\(id)]: left out \(years) (fewer than \(WarmingStripes.minimumDays) daily means)"))
            }
            return SourceReceived(actions: actions, count: .success(kind.traits.diagnosticsKey))
        case .unusable(let message):
            // A 200 whose data makes no stripes: asking again at once would spend another ≈ 120
            // weighted calls on the same answer, so the next try is the next local day.
            context.schedule.failed(at: now, retryAfter: nil, jitter: 0)
            dueTomorrow(&context, now: now)
            return SourceReceived(
                actions: [.log(.warning, "stripes[\(id)]: unusable archive answer: \(message); next try tomorrow")],
                count: .failure(kind.traits.diagnosticsKey, message: message))
        }
    }

    /// The stored stripes stay published (they are never shown stale).
    package static func failure(_ context: SourceContext) -> SourceFailure {
        SourceFailure(
            diagnosticsKey: kind.traits.diagnosticsKey, marksStale: false,
            note: context.location.stripes != nil ? "; the stored stripes stay published" : "")
    }

    package static func storedNames(in config: AgentConfig) -> [String] {
        config.climate.enabled ? [kind.traits.storeName] : []
    }

    package static func restore(
        _ stored: StoredResponse, name: String, _ context: inout SourceContext, now: DaemonInstant
    )
        -> [DaemonAction]
    {
        let id = context.location.config.id
        guard let tallies = try? JSONDecoderShim.decode(StoredStripes.self, stored.body),
            let data = tallies.data(fetchedAt: stored.fetchedAt)
        else { return [.log(.warning, "stripes[\(id)]: stored stripes are not usable; ignoring them")] }
        restore(data, &context)
        return [.log(.info, "stripes[\(id)]: restored \(tallies.firstYear)–\(tallies.lastYear)")]
    }

    /// Stored stripes: published at once; the first check decides whether a newer year is due.
    static func restore(_ stored: StripesData, _ context: inout SourceContext) {
        context.location.slots.stripes.received(stored)
    }

    /// The next daily check: after local midnight, 0–5 min of jitter.
    private static func dueTomorrow(_ context: inout SourceContext, now: DaemonInstant) {
        context.schedule.due(at: context.afterMidnight(now, jitter: .minutes(5)))
    }
}

extension LocationRuntime {
    /// The warming stripes (docs/reference.md, Warming stripes): fetched once a year, kept across restarts.
    package var stripes: StripesData? { slots.stripes.data }
}
