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

// The fetches: which are due and started, paced and counted, and what their results do — each
// routed to its source's rules (SourceRules), with the one failure path here.

extension DaemonState {
    /// Lends a source's rules the location of `key`, its schedule, the call counts and the
    /// generator, and takes them back.
    mutating func withSource<Result>(_ key: FetchKey, _ body: (inout SourceContext) -> Result) -> Result {
        var source = SourceContext(
            config: config, demo: demo, location: locations[key.location], schedule: planner[key], random: random,
            calls: calls)
        let result = body(&source)
        locations[key.location] = source.location
        planner[key] = source.schedule
        random = source.random
        return result
    }

    /// The source context of `key` to read (``SourceRules/openMeteoWeight(_:now:)``).
    func source(_ key: FetchKey) -> SourceContext {
        SourceContext(
            config: config, demo: demo, location: locations[key.location], schedule: planner[key], random: random,
            calls: calls)
    }

    // MARK: starting fetches

    /// Asks for every due fetch of an enabled source that is not already in flight. After an
    /// event that changed only the schedules of location `changed`, and before the wake time,
    /// only that location can have come due: others come due with time, which the wake covers
    /// (scanning every location after each of a cycle's N events made it O(N²)).
    mutating func startDueFetches(now: DaemonInstant, changed: Int? = nil) -> [DaemonAction] {
        var actions: [DaemonAction] = []
        let wasIdle = planner.fetches.isIdle
        let scanned = changed.flatMap { now < wakeAt ? $0..<($0 + 1) : nil } ?? locations.indices
        // Each key is paced and begun in order: a key's pacing counts against the next one's.
        for key in planner.due(now: now, in: scanned) {
            actions += startFetch(key, now: now).actions
        }
        // A batch starting from idle saves the counts at once; a batch joining fetches in flight
        // leaves them to the interval or to the end of the batch.
        actions += callCountStore(now: now, force: wasIdle)
        return actions
    }

    /// How a due fetch was started (startFetch(_:now:)).
    enum FetchStart: Equatable {
        /// Open-Meteo's pacing moved it on (its schedule says when).
        case deferred
        /// A request is in flight.
        case started
        /// No request was needed (the Google cap, stripes not due).
        case notNeeded
    }

    /// Paces a due fetch (pace(_:now:)) and, when it may go now, begins it
    /// (begin(_:now:)) and asks the loop to run it.
    mutating func startFetch(_ key: FetchKey, now: DaemonInstant) -> (actions: [DaemonAction], start: FetchStart) {
        if let deferred = pace(key, now: now) { return (deferred, .deferred) }
        let (request, notes) = begin(key, now: now)
        guard let request else { return (notes, .notNeeded) }
        planner.fetches.started(key, now: now)
        return (notes + [.fetch(key, request)], .started)
    }

    /// Prepares a due fetch by its source's rules (the pollen source and the Google cap, the
    /// stripes' yearly check) and, when it is made, counts the call and marks it started.
    package mutating func begin(_ key: FetchKey, now: DaemonInstant) -> (FetchRequest?, [DaemonAction]) {
        begin(key.kind.rules, key, now: now)
    }

    private mutating func begin<Rules: SourceRules>(_ rules: Rules.Type, _ key: FetchKey, now: DaemonInstant)
        -> (FetchRequest?, [DaemonAction])
    {
        let begun = withSource(key) { Rules.begin(&$0, now: now) }
        guard let detail = begun.request else { return (nil, begun.actions) }
        countCall(key.location, begun.counts, now: now)
        if let request = openMeteoRequest(key, now: now) { calls.count(request, now: now) }
        planner[key].started(at: now)
        let request = FetchRequest(kind: key.kind, location: locations[key.location].config, now: now, detail: detail)
        return (request, begun.actions)
    }

    /// The Open-Meteo request the fetch `key` would start now: its endpoint, weight and HTTP
    /// requests — the one place a fetch's weight is worked out, for the pacing and the counts
    /// alike. Nil when it is not an Open-Meteo request (Google pollen) or would not be sent
    /// (stripes not due).
    func openMeteoRequest(_ key: FetchKey, now: DaemonInstant) -> CallLedger.OpenMeteoRequest? {
        guard let endpoint = key.kind.traits.endpoint,
            let (weight, requests) = key.kind.rules.openMeteoWeight(source(key), now: now)
        else { return nil }
        return .init(
            source: key.kind.rawValue, endpoint: endpoint.url(in: config.endpoints), weight: weight,
            requests: requests)
    }

    /// Paces the fetch `key` (docs/operations.md, Many locations): nil when it may start now (its weight is then
    /// counted), else the actions of deferring it (its schedule moves to the next window with
    /// room, a few seconds of jitter on top so the deferred requests do not all return at once).
    package mutating func pace(_ key: FetchKey, now: DaemonInstant) -> [DaemonAction]? {
        guard !demo, let request = openMeteoRequest(key, now: now),
            let (retry, notes) = calls.pace(request, yearly: key.kind == .stripes, now: now)
        else { return nil }
        let spread: DaemonDuration = retry - now > .hours(1) ? .seconds(600) : .seconds(20)
        planner[key].due(at: retry + .seconds(Int64.random(in: 0..<spread.seconds, using: &random)))
        return perform(notes)
    }

    // MARK: results

    /// A finished fetch (or one the watchdog gave up on): applied, the location's due fetches
    /// started (`auto` falls back to Open-Meteo at once when Google rejects the key) and the
    /// sinks it feeds rebuilt.
    mutating func complete(_ key: FetchKey, _ outcome: FetchOutcome, now: DaemonInstant) -> [DaemonAction] {
        planner.fetches.finished(key)
        var actions = apply(key, outcome, now: now)
        actions += startDueFetches(now: now, changed: key.location)
        // A fetch shared by every location (the DWD's) rebuilds them all.
        let shared = key.kind.sharedAcrossLocations
        actions += scopeActions(now: now, only: shared ? nil : key.location, kind: shared ? nil : key.kind)
        return actions
    }

    /// A finished fetch: an answer goes to its source's rules, a failure down the one path.
    package mutating func apply(_ key: FetchKey, _ outcome: FetchOutcome, now: DaemonInstant) -> [DaemonAction] {
        switch outcome.result {
        case .answer(let answer): receive(key.kind.rules, answer, key, now: now)
        case .failure(let message, let retryAfter):
            applyFailure(key, message: message, retryAfter: retryAfter, now: now)
        }
    }

    /// The one success path: the source's rules say what the answer does; the count is kept here.
    private mutating func receive<Rules: SourceRules>(
        _ rules: Rules.Type, _ answer: any Sendable, _ key: FetchKey, now: DaemonInstant
    ) -> [DaemonAction] {
        guard let answer = answer as? Rules.Answer else {
            preconditionFailure("\(key.kind): an answer of another source (\(type(of: answer)))")
        }
        let received = withSource(key) { Rules.receive(answer, &$0, now: now) }
        shareSlot(key)
        switch received.count {
        case .success(let name): calls.outcomes.success(name, at: now)
        case .failure(let name, let message): calls.outcomes.failure(name, at: now, message: message)
        }
        return received.actions
    }

    /// The one failure path (docs/operations.md, Faults): stale data, backoff or `Retry-After` (a date counted from
    /// this event's time), counted, logged; the rules only say how it is named.
    mutating func applyFailure(_ key: FetchKey, message: String, retryAfter: RetryAfter?, now: DaemonInstant)
        -> [DaemonAction]
    {
        let index = key.location
        let failure = key.kind.rules.failure(source(key))
        if failure.marksStale { locations[index].slots.failed(key.kind) }
        shareSlot(key)
        let delay = planner[key].failed(
            at: now, retryAfter: retryAfter.map { DaemonDuration.seconds($0.delay(at: now.unixSeconds)) },
            jitter: random.fraction())
        calls.outcomes.failure(failure.diagnosticsKey, at: now, message: message)
        let id = locations[index].config.id
        return [
            .log(
                .warning,
                "\(key.kind.rawValue)[\(id)]: \(failure.attempt) failed: \(message); retry in \(delay) s\(failure.note)"
            )
        ]
    }

    /// A source one fetch serves for every location (``SourceKind/sharedAcrossLocations``):
    /// the fetching location's data and stale flag given to all the others.
    mutating func shareSlot(_ key: FetchKey) {
        guard key.kind.sharedAcrossLocations else { return }
        let slots = locations[key.location].slots
        for index in locations.indices where index != key.location {
            locations[index].slots.share(key.kind, from: slots)
        }
    }

    /// The watchdog's stuck fetches (``FetchTracker/abandonStuck(now:)``): each is logged as
    /// stuck, counted (`fetches.<source>.stuck` in `<p>/diagnostics`, `breeze_fetches_stuck_total`
    /// in `/metrics`), cancelled, and applied as a failed fetch, so its data turns stale and it
    /// is retried on the failure backoff like any other failure.
    mutating func abandonStuckFetches(now: DaemonInstant) -> [DaemonAction] {
        var actions: [DaemonAction] = []
        for case .abandon(let key, let message) in planner.fetches.abandonStuck(now: now) {
            calls.outcomes.stuck(key.kind.rules.failure(source(key)).diagnosticsKey)
            actions.append(.abandonFetch(key))
            actions += complete(key, .failure(key.kind, message: message), now: now)
        }
        return actions
    }

    // MARK: stored responses

    /// The stored responses location `index` reads back at start, in the order they are
    /// restored (pollen, climate, air, stripes), with their names in `state_dir`.
    package func storedResponseNames(_ index: Int) -> [(kind: SourceKind, name: String)] {
        SourceKind.restoreOrder.flatMap { kind in kind.rules.storedNames(in: config).map { (kind, $0) } }
    }

    /// Stored responses read back at start, by their sources' rules.
    mutating func restore(_ index: Int, _ responses: [RestoredResponse], now: DaemonInstant) -> [DaemonAction] {
        responses.flatMap { restored in
            let key = FetchKey(location: index, kind: restored.kind)
            let actions = withSource(key) {
                restored.kind.rules.restore(restored.response, name: restored.name, &$0, now: now)
            }
            shareSlot(key)
            return actions
        }
    }

    // MARK: reading

    package func schedule(_ key: FetchKey) -> FetchSchedule { planner[key] }

    /// Whether the location has usable data of a kind (fresh or stored).
    package func hasData(_ key: FetchKey) -> Bool { locations[key.location].slots.status(key.kind).hasData }

    /// This installation's day in the 10–31 January stripes refetch window for a location.
    package func stripesSpread(_ index: Int) -> Int { source(FetchKey(location: index, kind: .stripes)).stripesSpread }

    // MARK: call counts (CallLedger.swift)

    /// The call counts to save now (``CallLedger/save(now:force:)``).
    mutating func callCountStore(now: DaemonInstant, force: Bool) -> [DaemonAction] {
        perform(calls.save(now: now, force: force))
    }

    /// The calls of location `index` to `api` on its local day at `now`.
    package func callsToday(_ index: Int, _ api: CountedAPI, now: DaemonInstant) -> Int {
        calls.calls(locations[index].config.id, api, on: locations[index].today(at: now).description)
    }

    /// Counts a call of location `index` on its local day at `now`.
    mutating func countCall(_ index: Int, _ api: CountedAPI, now: DaemonInstant) {
        calls.count(locations[index].config.id, api, on: locations[index].today(at: now).description)
    }

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
            if let pollen = stretch.pollenInterval { planner.schedules[index].pollen.interval = .seconds(pollen) }
            if let air = stretch.airInterval { planner.schedules[index].air.interval = .seconds(air) }
        }
        return [.log(.warning, "open-meteo: " + stretch.summary)]
    }
}
