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

/// Everything the agent knows about one location between fetches. What the outputs hold is
/// derived from this and the clock (``LocationSnapshot``) at every wake-up, so the freshness
/// rules and local midnight apply without extra bookkeeping.
package struct LocationRuntime: Sendable {
    package let config: LocationConfig
    package let zone: ZoneRules
    /// Per source: the last good data, whether it is stale (docs/operations.md, Faults: the data shown is from
    /// before the last fetch, which failed; the stripes are never shown stale), and the
    /// condition last logged, so a repeating one is logged once.
    var slots = SourceSlots()
    /// Google refused the key and `pollen.source` is `auto`: Open-Meteo from now on (this run).
    var googleRejected = false
    /// Today against the recent season (docs/reference.md, The hour to air out): where the key-free items stood on the local
    /// day of the last good season call. Nil: no season call yet, Google, or no pollen here.
    package var season: PollenSeasonStanding?

    package var unit: TemperatureUnit

    /// Per source: the data shown is stale.
    package var stale: PerSource<Bool> { slots.stale }

    package init(config: LocationConfig, zone: ZoneRules, unit: TemperatureUnit) {
        self.config = config
        self.zone = zone
        self.unit = unit
    }

    package func today(at now: DaemonInstant) -> CivilDate { zone.localDate(atUnixTime: now.unixSeconds) }

    /// The zone's offset from UTC at `instant` (BreezeCore's calendar takes Unix seconds).
    func utcOffset(at instant: DaemonInstant) -> DaemonDuration {
        .seconds(Int64(zone.utcOffset(atUnixTime: instant.unixSeconds)))
    }

    /// Whether the next Open-Meteo pollen fetch is the day's season call (docs/reference.md, The hour to air out): no season
    /// from today yet, and the location has pollen (one outside Europe asks without it).
    func needsSeason(at now: DaemonInstant) -> Bool {
        if case .unsupported = slots.pollen.data { return false }
        return season.map { $0.today < today(at: now) } ?? true
    }

    /// The first instant of the next local day after `now` (DST-safe: probes the offset twice).
    func nextMidnight(after now: DaemonInstant) -> DaemonInstant {
        let tomorrow = today(at: now).adding(days: 1)
        let utcMidnight = DaemonInstant(unixSeconds: 0) + .hours(24) * Int64(tomorrow.daysSinceEpoch)
        var guess = utcMidnight - utcOffset(at: now)
        for _ in 0..<3 {
            let corrected = utcMidnight - utcOffset(at: guess)
            if corrected == guess { break }
            guess = corrected
        }
        // Where daylight saving starts at 00:00 (Santiago, Asunción, Havana, Beirut) local
        // midnight does not exist and the probe flips between the two sides of the gap: the
        // day begins at the later one (01:00 local). Taking the earlier answered `now + 1` for
        // the hour before, a wake every second.
        if today(at: guess) != tomorrow {
            guess = max(guess, utcMidnight - utcOffset(at: guess))
        }
        return max(guess, now + .seconds(1))
    }

    // MARK: what the sinks see

    /// The pollen days for the local date at `now` (docs/reference.md, Pollen levels and colors freshness rules applied).
    package func pollenView(settings: PollenSettings, now: DaemonInstant) -> LocationSnapshot.Pollen {
        guard settings.enabled else { return .unavailable }
        // The DWD's items (docs/reference.md, "DWD"): merged after the daily source's, or before
        // them when `dwd` is listed first; alone where the other source has nothing.
        let dwd = dwdReport(settings: settings, now: now)
        let dwdAt = self.dwd?.checkedAt ?? DaemonInstant(unixSeconds: 0)
        let dwdStale = stale.dwd
        func selected(_ report: PollenReport, fetchedAt: DaemonInstant, stale: Bool) -> LocationSnapshot.Pollen {
            let selection = PollenSelection.select(
                report: report, today: today(at: now), days: settings.days, fetchedAt: fetchedAt.unixSeconds,
                now: now.unixSeconds, stale: stale)
            return .selected(selection, fetchedAt: fetchedAt)
        }
        switch pollen {
        case nil, .unsupported:
            if let dwd { return selected(dwd, fetchedAt: dwdAt, stale: dwdStale) }
            if settings.source == .dwd, config.dwdRegion == nil { return .unavailable }
            if case .unsupported = pollen { return .unavailable }
            return .unknown
        case .report(let report, let fetchedAt):
            guard let dwd else { return selected(report, fetchedAt: fetchedAt, stale: stale.pollen) }
            if settings.dwdFirst {
                return selected(
                    dwd.merging(report).limitingItems(), fetchedAt: dwdAt, stale: dwdStale || stale.pollen)
            }
            // Within the bound on items (docs/operations.md, Limits) the first source's come first.
            return selected(report.merging(dwd).limitingItems(), fetchedAt: fetchedAt, stale: stale.pollen || dwdStale)
        }
    }

    /// Each configured source's items for today, in order, for the consensus topics
    /// (``PollenConsensusTopics``): empty unless two sources have data here.
    package func pollenSourcesToday(settings: PollenSettings, now: DaemonInstant) -> [PollenConsensusTopics.SourceToday]
    {
        guard settings.enabled, case .report(let report, let fetchedAt) = pollen,
            let dwd = dwdReport(settings: settings, now: now), let dwdAt = self.dwd?.checkedAt
        else { return [] }
        func today(_ report: PollenReport, _ at: DaemonInstant, _ stale: Bool) -> PollenConsensusTopics.SourceToday {
            let selection = PollenSelection.select(
                report: report, today: self.today(at: now), days: 1, fetchedAt: at.unixSeconds, now: now.unixSeconds,
                stale: stale)
            return .init(
                source: report.source, items: selection.items, updatedAt: at.unixSeconds, stale: selection.stale)
        }
        let first = today(report, fetchedAt, self.stale.pollen)
        let second = today(dwd, dwdAt, self.stale.dwd)
        return settings.dwdFirst ? [second, first] : [first, second]
    }

    /// Whether the pollen data has hourly values (Open-Meteo): its `now` and `air_out` topics
    /// follow the local hour.
    var hasHourlyPollen: Bool {
        if case .report(let report, _) = pollen { return report.hourly != nil }
        return false
    }

    /// The first instant of the next local hour after `now` (the air topics show the current hour).
    func nextLocalHour(after now: DaemonInstant) -> DaemonInstant {
        let local = (now + utcOffset(at: now)).unixSeconds
        let remainder = DaemonDuration.seconds(((local % 3600) + 3600) % 3600)
        return max(now + .seconds(1), now - remainder + .hours(1))
    }

    /// The next time what the sinks show of this location changes without a fetch: local
    /// midnight (today changes), the 24 h / 48 h freshness edges of the pollen data, the next
    /// local hour when air or hourly pollen is shown. Between two such times a location is rebuilt only when a
    /// fetch of it finishes. The hourly pollen topics (docs/reference.md, The hour to air out, Open-Meteo) move on the hour
    /// too: they are read from the data already fetched, no call is made for them.
    func nextContentEdge(after now: DaemonInstant) -> DaemonInstant {
        var edge = nextMidnight(after: now)
        if air != nil || hasHourlyPollen { edge = min(edge, nextLocalHour(after: now)) }
        if case .report(_, let fetched) = pollen {
            for lifetime in [PollenSelection.forecastLifetime, PollenSelection.todayLifetime].map(
                DaemonDuration.seconds)
            where fetched + lifetime > now {
                edge = min(edge, fetched + lifetime)
            }
        }
        return edge
    }
}
