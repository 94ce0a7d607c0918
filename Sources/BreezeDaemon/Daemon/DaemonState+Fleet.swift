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
import BreezeCore

extension DaemonState {
    // MARK: call counts (CallLedger.swift)

    /// The call counts to save now (``CallLedger/save(now:force:)``).
    mutating func callCountStore(now: Int64, force: Bool) -> [DaemonAction] {
        perform(calls.save(now: now, force: force))
    }

    /// The calls of location `index` to `api` on its local day at `now`.
    func callsToday(_ index: Int, _ api: CountedAPI, now: Int64) -> Int {
        calls.calls(locations[index].config.id, api, on: locations[index].today(at: now).description)
    }

    /// Counts a call of location `index` on its local day at `now`.
    mutating func countCall(_ index: Int, _ api: CountedAPI, now: Int64) {
        calls.count(locations[index].config.id, api, on: locations[index].today(at: now).description)
    }

    /// Maps the call ledger's actions to the daemon's.
    private func perform(_ ledgerActions: [CallLedger.Action]) -> [DaemonAction] {
        ledgerActions.map { action in
            switch action {
            case .save(let counts): .store(.callCounts(counts))
            case .log(let level, let text): .log(level, text)
            }
        }
    }

    // MARK: Open-Meteo pacing (SPEC §11)

    /// The Open-Meteo request the fetch `key` would start now: its endpoint, weight and HTTP
    /// requests — the one place a fetch's weight is worked out, for the pacing and the counts
    /// alike. Nil when it is not an Open-Meteo request (Google pollen) or would not be sent
    /// (stripes not due).
    func openMeteoRequest(_ key: FetchKey, now: Int64) -> CallLedger.OpenMeteoRequest? {
        let weighed = key.kind.rules.openMeteoWeight(key.location, in: self, now: now)
        guard let (weight, requests) = weighed else { return nil }
        return .init(
            source: key.kind.rawValue, endpoint: key.kind.traits.endpoint.url(in: config.endpoints), weight: weight,
            requests: requests)
    }

    /// The years the stripes request of location `index` would ask for now; nil when it is not
    /// due: checked daily, fetched only when nothing is stored, the first year changed, or a
    /// newer year is complete (from 10 January + this installation's spread).
    func stripesYears(_ index: Int, now: Int64) -> (first: Int, last: Int)? {
        let today = locations[index].today(at: now)
        let spread = stripesSpread(index)
        let firstYear = config.climate.stripesFirstYear
        guard
            StripesRequest.isDue(
                stored: locations[index].stripes?.range, firstYear: firstYear, today: today, spread: spread)
        else { return nil }
        return (firstYear, StripesRequest.targetLastYear(today: today, spread: spread))
    }

    /// Paces the fetch `key`: nil when it may start now (its weight is then counted), else the
    /// actions of deferring it (its schedule moves to the next window with room, a few seconds
    /// of jitter on top so the deferred requests do not all return in the same second).
    mutating func pace(_ key: FetchKey, now: Int64) -> [DaemonAction]? {
        guard !demo, let request = openMeteoRequest(key, now: now),
            let (retry, notes) = calls.pace(request, yearly: key.kind == .stripes, now: now)
        else { return nil }
        let spread: Int64 = retry - now > 3600 ? 600 : 20
        let at = retry + Int64.random(in: 0..<spread, using: &random)
        planner[key].due(at: at)
        return perform(notes)
    }

    // MARK: stretching the intervals

    /// At start: when the configured daily load on Open-Meteo's public servers is over the free
    /// tier's limit, stretch `pollen.interval` and `air.interval` (logged once).
    mutating func stretchOpenMeteoIntervals() -> [DaemonAction] {
        guard !demo else { return [] }
        let stretch = config.openMeteoStretch
        calls.regularDailyLoad = stretch?.after ?? config.openMeteoBudget.dailyTotal
        calls.pollenSeason = stretch?.pollenSeason ?? true
        guard let stretch else { return [] }
        for index in locations.indices {
            // Without the daily season call a standing restored from `state_dir` would never
            // be replaced: its topics go instead of showing an old day's values.
            if !stretch.pollenSeason { locations[index].season = nil }
            if let pollen = stretch.pollenInterval { planner.schedules[index].pollen.interval = pollen }
            if let air = stretch.airInterval { planner.schedules[index].air.interval = air }
        }
        return [.log(.warning, "open-meteo: " + stretch.summary)]
    }
}
