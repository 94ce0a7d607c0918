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

import BreezeCore

/// Open-Meteo's fair-use counters as the agent keeps them (API-FACTS §2.7): weighted calls in
/// fixed windows of a minute and of a UTC day, as the service counts them.
struct OpenMeteoPacer: Sendable, Equatable {
    var minute: Int64 = .min
    var usedThisMinute = OpenMeteoCallWeight.zero
    var day: Int64 = .min
    var usedToday = OpenMeteoCallWeight.zero

    static func window(_ now: Int64, _ length: Int64) -> Int64 { now >= 0 ? now / length : (now + 1) / length - 1 }

    /// When a request of `weight` may start: nil now, else the start of the window with room.
    /// A request is always admitted into an empty window, however heavy (it cannot be split).
    func deferral(
        _ weight: OpenMeteoCallWeight, now: Int64, perMinute: OpenMeteoCallWeight?, perDay: OpenMeteoCallWeight?
    )
        -> Int64?
    {
        if let perDay {
            let used = Self.window(now, 86_400) == day ? usedToday : .zero
            if used > .zero && used + weight > perDay { return (Self.window(now, 86_400) + 1) * 86_400 }
        }
        if let perMinute {
            let used = Self.window(now, 60) == minute ? usedThisMinute : .zero
            if used > .zero && used + weight > perMinute { return (Self.window(now, 60) + 1) * 60 }
        }
        return nil
    }

    mutating func record(_ weight: OpenMeteoCallWeight, now: Int64) {
        if Self.window(now, 60) != minute {
            minute = Self.window(now, 60)
            usedThisMinute = .zero
        }
        if Self.window(now, 86_400) != day {
            day = Self.window(now, 86_400)
            usedToday = .zero
        }
        usedThisMinute += weight
        usedToday += weight
    }
}

/// What `DaemonState` keeps for many locations: the pacer, and the call counts waiting to be saved.
struct FleetState: Sendable {
    var pacer = OpenMeteoPacer()
    /// Call counts changed since they were last handed to the store.
    var callsDirty = false
    var callsSavedAt: Int64 = .min
    /// The day (UTC) the daily-limit deferral was last logged.
    var dailyLimitLogged: Int64 = .min
    /// The configured (stretched) weighted calls of an ordinary day, set at start.
    var regularDailyLoad = OpenMeteoCallWeight.zero
}

extension DaemonState {
    /// Call counts are saved at most this often while fetches keep starting (and always when the
    /// last fetch in flight is done, and at shutdown): with 1,000 locations, saving the whole
    /// file at every fetch start made a refresh cycle quadratic.
    static let callCountSaveInterval: Int64 = 60

    /// First fetches after a start are spread over this many seconds: 5 s for a hub, growing
    /// with the locations (60 ms each) up to 90 s, so 1,000 locations do not all ask at once.
    static func firstFetchSpread(locations: Int) -> Int64 {
        min(max(5, Int64(locations) * 6 / 100), 90)
    }

    var firstFetchSpread: Int64 { Self.firstFetchSpread(locations: locations.count) }

    // MARK: call counts

    /// The call counts to save now: when `force` (the last fetch finished, shutdown, `once`) or
    /// when the last save is older than ``callCountSaveInterval``.
    mutating func callCountStore(now: Int64, force: Bool) -> [DaemonAction] {
        guard fleet.callsDirty, force || now - fleet.callsSavedAt >= Self.callCountSaveInterval else { return [] }
        fleet.callsDirty = false
        fleet.callsSavedAt = now
        var stored: [String: StateStore.CallCount] = [:]
        for (key, count) in calls { stored[key.storageKey] = count }
        return [.store(.callCounts(stored))]
    }

    // MARK: Open-Meteo pacing (SPEC §11)

    /// The per-minute limit for requests to `endpoint`: 600 weighted calls for Open-Meteo's
    /// public servers, `endpoints.max_calls_per_minute` when set (for any endpoint), else none.
    func perMinuteLimit(endpoint: String) -> OpenMeteoCallWeight? {
        if let set = config.endpointsMaxCallsPerMinute { return .calls(set) }
        return OpenMeteoPacing.isPublic(endpoint) ? OpenMeteoPacing.perMinute : nil
    }

    /// The daily limit: only against the public servers.
    func perDayLimit(endpoint: String) -> OpenMeteoCallWeight? {
        OpenMeteoPacing.isPublic(endpoint) ? OpenMeteoBudget.dailyLimit : nil
    }

    /// The Open-Meteo endpoint and weight of the fetch `key` would start now; nil when it is not
    /// an Open-Meteo request (Google pollen) or would not be sent (stripes not due).
    func openMeteoRequest(_ key: FetchKey, now: Int64) -> (endpoint: String, weight: OpenMeteoCallWeight)? {
        let index = key.location
        switch key.kind {
        case .pollen:
            guard config.pollen.source(googleRejected: locations[index].googleRejected) == .openMeteo else {
                return nil
            }
            return (config.endpoints.airQuality, OpenMeteoBudget.pollenRequest)
        case .air:
            return (config.endpoints.airQuality, AirQualityRequest.weight)
        case .climate:
            let years = ClimateRequestPlan.points(today: locations[index].today(at: now), years: config.climate.years)
                .filter { $0.source == .archive }.count
            return (
                config.endpoints.climateArchive,
                OpenMeteoCallWeight.request(variables: 1, rangesOfDays: Array(repeating: 1, count: years)) + .calls(1)
            )
        case .stripes:
            let today = locations[index].today(at: now)
            let spread = stripesSpread(index)
            let firstYear = config.climate.stripesFirstYear
            guard
                StripesRequest.isDue(
                    stored: locations[index].stripes?.range, firstYear: firstYear, today: today, spread: spread)
            else { return nil }
            let lastYear = StripesRequest.targetLastYear(today: today, spread: spread)
            return (config.endpoints.climateArchive, StripesRequest.weight(firstYear: firstYear, lastYear: lastYear))
        }
    }

    /// Paces the fetch `key`: nil when it may start now (its weight is then counted), else the
    /// actions of deferring it (its schedule moves to the next window with room, a few seconds
    /// of jitter on top so the deferred requests do not all return in the same second).
    mutating func pace(_ key: FetchKey, now: Int64) -> [DaemonAction]? {
        guard !demo, let request = openMeteoRequest(key, now: now) else { return nil }
        let perMinute = perMinuteLimit(endpoint: request.endpoint)
        var perDay = perDayLimit(endpoint: request.endpoint)
        // The yearly stripes request (≈ 120 calls) gets only what the regular daily load leaves,
        // at least a tenth of the day: 1,000 locations' stripes would otherwise use up ten days'
        // budget and starve pollen, air and climate.
        if key.kind == .stripes, let day = perDay {
            let share = OpenMeteoCallWeight(units: day.units - fleet.regularDailyLoad.units)
            perDay = max(share, OpenMeteoCallWeight(units: day.units / 10))
        }
        guard perMinute != nil || perDay != nil else { return nil }
        guard
            let retry = fleet.pacer.deferral(request.weight, now: now, perMinute: perMinute, perDay: perDay)
        else {
            fleet.pacer.record(request.weight, now: now)
            return nil
        }
        let spread: Int64 = retry - now > 3600 ? 600 : 20
        let at = retry + Int64.random(in: 0..<spread, using: &random)
        setDue(key, at: at)
        var actions: [DaemonAction] = []
        let day = OpenMeteoPacer.window(now, 86_400)
        if retry - now > 3600 && fleet.dailyLimitLogged != day {
            fleet.dailyLimitLogged = day
            actions.append(
                .log(
                    .warning,
                    "open-meteo: \(fleet.pacer.usedToday) weighted calls today: the free tier's daily limit (\(OpenMeteoBudget.dailyLimit); the yearly stripes requests get what the regular load leaves) is reached for some requests; they wait until 00:00 UTC"
                ))
        }
        return actions
    }

    private mutating func setDue(_ key: FetchKey, at time: Int64) {
        switch key.kind {
        case .pollen: locations[key.location].pollenSchedule.due(at: time)
        case .climate: locations[key.location].climateSchedule.due(at: time)
        case .stripes: locations[key.location].stripesSchedule.due(at: time)
        case .air: locations[key.location].airSchedule.due(at: time)
        }
    }

    // MARK: stretching the intervals

    /// At start: when the configured daily load on Open-Meteo's public servers is over the free
    /// tier's limit, stretch `pollen.interval` and `air.interval` (logged once).
    mutating func stretchOpenMeteoIntervals() -> [DaemonAction] {
        guard !demo else { return [] }
        let stretch = config.openMeteoStretch
        fleet.regularDailyLoad = stretch?.after ?? config.openMeteoBudget.dailyTotal
        guard let stretch else { return [] }
        for index in locations.indices {
            if let pollen = stretch.pollenInterval { locations[index].pollenSchedule.interval = pollen }
            if let air = stretch.airInterval { locations[index].airSchedule.interval = air }
        }
        return [.log(.warning, "open-meteo: " + stretch.summary)]
    }
}
