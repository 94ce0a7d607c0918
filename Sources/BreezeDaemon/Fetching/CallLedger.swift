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

/// The daemon's call accounting (docs/operations.md, Faults; docs/operations.md, Many locations), a child of ``DaemonState``: calls per location
/// and local day (the Google daily cap, `calls.json`, `<p>/diagnostics`), Open-Meteo's weighted
/// calls per source on the UTC day, the fair-use pacing of Open-Meteo requests, and when the
/// counts are saved.
///
/// What a request weighs is not decided here: ``DaemonState/openMeteoRequest(_:now:)`` works it
/// out once per request (``OpenMeteoRequest``), and both the pacing and the counting take it.
/// It has no deadline of its own: a paced request's new due time is its schedule's.
package struct CallLedger: Sendable {
    enum Action: Sendable, Equatable {
        /// Save the counts (`calls.json`, by ``CallKey/storageKey``).
        case save([String: CallCount])
        case log(LogLevel, String)
    }

    /// An Open-Meteo request about to start: its source's name in the diagnostics, where it
    /// goes, what it weighs, and how many HTTP requests it makes.
    struct OpenMeteoRequest: Sendable, Equatable {
        let source: String
        let endpoint: String
        let weight: OpenMeteoCallWeight
        var requests = 1
    }

    /// Call counts are saved at most this often while fetches keep starting (and always when the
    /// last fetch in flight is done, and at shutdown): with 1,000 locations, saving the whole
    /// file at every fetch start made a refresh cycle quadratic.
    static let saveInterval: DaemonDuration = .minutes(1)

    /// `endpoints.max_calls_per_minute`, when set (for any endpoint).
    let perMinuteOverride: Int?
    /// How every source's fetches ended, for `<p>/diagnostics` (the sources' rules count them).
    var outcomes = DiagnosticsCounters()
    private(set) var counts: [CallKey: CallCount]
    /// Open-Meteo requests and weighted calls per source on the current UTC day (its counters'
    /// day), for `<p>/diagnostics`; in memory, so a restart starts from zero.
    private(set) var openMeteo = OpenMeteoCallCounter()
    /// Open-Meteo's minute and day windows as the agent counts them.
    var pacer = OpenMeteoPacer()
    /// Counts changed since they were last saved.
    private var dirty = false
    /// When the counts were last saved; nil: not in this run.
    private var savedAt: DaemonInstant?
    /// The day (UTC) the daily-limit deferral was last logged.
    private var dailyLimitLogged: Int64 = .min
    /// The configured (stretched) weighted calls of an ordinary day, set at start.
    var regularDailyLoad = OpenMeteoCallWeight.zero
    /// Whether the day's first key-free pollen call carries the season (docs/reference.md, The hour to air out); false when
    /// the stretch had to leave it out (``OpenMeteoStretch/pollenSeason``), set at start.
    var pollenSeason = true

    /// - Parameter stored: `calls.json` as read at start (keys this version does not write are dropped).
    init(stored: [String: CallCount], perMinuteOverride: Int?) {
        var counts: [CallKey: CallCount] = [:]
        for (key, count) in stored {
            if let key = CallKey(storageKey: key) { counts[key] = count }
        }
        self.counts = counts
        self.perMinuteOverride = perMinuteOverride
    }

    // MARK: counts per location and local day

    /// The calls of `location` to `api` on its local day `date` (`YYYY-MM-DD`).
    func calls(_ location: String, _ api: CountedAPI, on date: String) -> Int {
        guard let count = counts[CallKey(locationID: location, api: api)], count.date == date else { return 0 }
        return count.calls
    }

    /// Counts a call; ``save(now:force:)`` decides when the counts are saved.
    mutating func count(_ location: String, _ api: CountedAPI, on date: String) {
        let key = CallKey(locationID: location, api: api)
        var count = counts[key] ?? .init(date: date, calls: 0)
        if count.date != date { count = .init(date: date, calls: 0) }
        count.calls += 1
        counts[key] = count
        dirty = true
    }

    /// Counts an Open-Meteo request's weight for the diagnostics (the UTC day's counter).
    mutating func count(_ request: OpenMeteoRequest, now: DaemonInstant) {
        openMeteo.count(request.source, requests: request.requests, weight: request.weight, now: now)
    }

    /// The counts to save now: when `force` (the last fetch finished, shutdown, `once`) or when
    /// the last save is older than ``saveInterval`` (or there was none yet in this run).
    mutating func save(now: DaemonInstant, force: Bool) -> [Action] {
        guard dirty, force || savedAt.map({ now - $0 >= Self.saveInterval }) ?? true else { return [] }
        dirty = false
        savedAt = now
        var stored: [String: CallCount] = [:]
        for (key, count) in counts { stored[key.storageKey] = count }
        return [.save(stored)]
    }

    // MARK: Open-Meteo pacing (docs/operations.md, Many locations)

    /// The per-minute limit for requests to `endpoint`: 600 weighted calls for Open-Meteo's
    /// public servers, `endpoints.max_calls_per_minute` when set (for any endpoint), else none.
    func perMinuteLimit(endpoint: String) -> OpenMeteoCallWeight? {
        if let set = perMinuteOverride { return .calls(set) }
        return OpenMeteoPacing.isPublic(endpoint) ? OpenMeteoPacing.perMinute : nil
    }

    /// The daily limit: only against the public servers.
    func perDayLimit(endpoint: String) -> OpenMeteoCallWeight? {
        OpenMeteoPacing.isPublic(endpoint) ? OpenMeteoBudget.dailyLimit : nil
    }

    /// Paces `request`: nil when it may start now (its weight is then recorded), else the start
    /// of the window with room, and a warning the first time a day's limit holds one back.
    /// - Parameter yearly: the yearly stripes request (≈ 120 calls), which gets only what the
    ///   regular daily load leaves, at least a tenth of the day: 1,000 locations' stripes would
    ///   otherwise use up ten days' budget and starve pollen, air and climate.
    mutating func pace(_ request: OpenMeteoRequest, yearly: Bool, now: DaemonInstant) -> (
        retry: DaemonInstant, actions: [Action]
    )? {
        let perMinute = perMinuteLimit(endpoint: request.endpoint)
        var perDay = perDayLimit(endpoint: request.endpoint)
        if yearly, let day = perDay {
            let share = OpenMeteoCallWeight(units: day.units - regularDailyLoad.units)
            perDay = max(share, OpenMeteoCallWeight(units: day.units / 10))
        }
        guard perMinute != nil || perDay != nil else { return nil }
        guard let retry = pacer.deferral(request.weight, now: now, perMinute: perMinute, perDay: perDay) else {
            pacer.record(request.weight, now: now)
            return nil
        }
        var actions: [Action] = []
        let day = OpenMeteoPacer.window(now, .hours(24))
        if retry - now > .hours(1) && dailyLimitLogged != day {
            dailyLimitLogged = day
            actions.append(
                .log(
                    .warning,
                    "open-meteo: \(pacer.usedToday) weighted calls today: the free tier's daily limit (\(OpenMeteoBudget.dailyLimit); the yearly stripes requests get what the regular load leaves) is reached for some requests; they wait until 00:00 UTC"
                ))
        }
        return (retry, actions)
    }
}

/// The APIs whose calls are counted per location and local day (`<p>/diagnostics`, the cap).
package enum CountedAPI: String, Sendable, Hashable, CaseIterable {
    case google
    case openMeteo = "open_meteo"
    /// The DWD's document (docs/reference.md, "DWD"), counted on the fetching location.
    case dwd
}

/// A location's call counter for one API.
package struct CallKey: Hashable, Sendable {
    let locationID: String
    let api: CountedAPI

    /// The key in `calls.json` (`<id>.<api>`), as earlier versions wrote it.
    var storageKey: String { locationID + "." + api.rawValue }

    init(locationID: String, api: CountedAPI) {
        self.locationID = locationID
        self.api = api
    }

    /// Reads a `calls.json` key; nil for anything this version does not write.
    init?(storageKey: String) {
        guard let dot = storageKey.lastIndex(of: "."),
            let api = CountedAPI(rawValue: String(storageKey[storageKey.index(after: dot)...]))
        else { return nil }
        self.init(locationID: String(storageKey[..<dot]), api: api)
    }
}

/// Open-Meteo's fair-use counters as the agent keeps them (API-FACTS §2.7): weighted calls in
/// fixed windows of a minute and of a UTC day, as the service counts them.
package struct OpenMeteoPacer: Sendable, Equatable {
    var minute: Int64 = .min
    var usedThisMinute = OpenMeteoCallWeight.zero
    var day: Int64 = .min
    var usedToday = OpenMeteoCallWeight.zero

    /// The number of the window of `length` that `now` falls in, counted from the Unix epoch.
    static func window(_ now: DaemonInstant, _ length: DaemonDuration) -> Int64 {
        let (seconds, length) = (now.unixSeconds, length.seconds)
        return seconds >= 0 ? seconds / length : (seconds + 1) / length - 1
    }

    /// The first instant of window `number` of `length`.
    static func start(ofWindow number: Int64, _ length: DaemonDuration) -> DaemonInstant {
        DaemonInstant(unixSeconds: 0) + length * number
    }

    /// When a request of `weight` may start: nil now, else the start of the window with room.
    /// A request is always admitted into an empty window, however heavy (it cannot be split).
    func deferral(
        _ weight: OpenMeteoCallWeight, now: DaemonInstant, perMinute: OpenMeteoCallWeight?, perDay: OpenMeteoCallWeight?
    )
        -> DaemonInstant?
    {
        if let perDay {
            let used = Self.window(now, .hours(24)) == day ? usedToday : .zero
            if used > .zero && used + weight > perDay {
                return Self.start(ofWindow: Self.window(now, .hours(24)) + 1, .hours(24))
            }
        }
        if let perMinute {
            let used = Self.window(now, .minutes(1)) == minute ? usedThisMinute : .zero
            if used > .zero && used + weight > perMinute {
                return Self.start(ofWindow: Self.window(now, .minutes(1)) + 1, .minutes(1))
            }
        }
        return nil
    }

    mutating func record(_ weight: OpenMeteoCallWeight, now: DaemonInstant) {
        if Self.window(now, .minutes(1)) != minute {
            minute = Self.window(now, .minutes(1))
            usedThisMinute = .zero
        }
        if Self.window(now, .hours(24)) != day {
            day = Self.window(now, .hours(24))
            usedToday = .zero
        }
        usedThisMinute += weight
        usedToday += weight
    }
}

/// Open-Meteo requests and weighted calls per source (`pollen`, `air`, `climate`) since the last
/// UTC midnight, where Open-Meteo's own daily counter resets (API-FACTS §2.7).
package struct OpenMeteoCallCounter {
    private var day: Int64 = .min
    private var bySource: [String: (requests: Int, weight: OpenMeteoCallWeight)] = [:]

    mutating func count(_ source: String, requests: Int, weight: OpenMeteoCallWeight, now: DaemonInstant) {
        let today = OpenMeteoPacer.window(now, .hours(24))
        if today != day {
            day = today
            bySource = [:]
        }
        var entry = bySource[source] ?? (0, .zero)
        entry.requests += requests
        entry.weight += weight
        bySource[source] = entry
    }

    /// The order `<p>/diagnostics` has always listed the sources in; a source not named here
    /// (a new one) follows them, by name, rather than being left out.
    static let order = ["pollen", "air", "climate", "stripes"]

    /// The counts of the UTC day of `now`, sources in a fixed order (``order``).
    func today(now: DaemonInstant) -> [AgentDiagnostics.SourceCalls] {
        guard OpenMeteoPacer.window(now, .hours(24)) == day else { return [] }
        let sources = bySource.keys.sorted { a, b in
            let (i, j) = (
                Self.order.firstIndex(of: a) ?? Self.order.count, Self.order.firstIndex(of: b) ?? Self.order.count
            )
            return i != j ? i < j : a < b
        }
        return sources.map { source in
            let entry = bySource[source]!
            return .init(source: source, requests: entry.requests, weight: entry.weight)
        }
    }
}
