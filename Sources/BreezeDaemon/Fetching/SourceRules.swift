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

/// One source's rules (SPEC §5), one type per source in its own file: what a due fetch asks
/// for and weighs (`begin`, `openMeteoWeight`), what its result does to the location
/// (`apply`: new data, or a ``SourceFailure`` for the one failure path,
/// ``DaemonState/applyFailure(_:_:now:)``), and what a stored response restores
/// (`restore`). ``DaemonState`` routes to them through ``SourceKind/rules`` and
/// ``FetchOutcome/apply(to:in:now:)`` (both in FetchSources.swift); they read and change the
/// state they are handed, and nothing else.
package protocol SourceRules {
    /// What the source's fetch comes to (its case of ``FetchOutcome``).
    associatedtype Result
    /// What the source's stored response is read back as.
    associatedtype Stored

    static var kind: SourceKind { get }

    /// Whether this configuration fetches the source at all (``FetchPlanner/enabled``).
    static func isEnabled(in config: AgentConfig) -> Bool

    /// A location's schedule before anything is known: its interval and `refresh` cooldown,
    /// due at once (``FetchPlanner/schedules(_:)``).
    static func schedule(in config: AgentConfig) -> FetchSchedule

    /// Whether a `refresh` command fetches it again, within its cooldown
    /// (``FetchPlanner/refresh(_:id:now:)``).
    static var refreshedByCommand: Bool { get }

    /// Its retained sinks, in publishing order (``Sinks/all(for:)``): its own tree; none when
    /// it is off (topics an earlier run published then fall under no scope and are cleared).
    static func sinks(for context: SinkContext) -> [any RetainedSink]

    /// Its names in `<p>/diagnostics` under this configuration, listed from the start
    /// (``ServeSnapshot``); the kind's ``SourceKind/Traits/diagnosticsKey`` unless it says more.
    static func diagnosticsKeys(in config: AgentConfig) -> [String]

    /// Prepares a due fetch of location `index`: nil when no request is needed now (its
    /// schedule then says when to look again), with what to log.
    static func begin(_ index: Int, in state: inout DaemonState, now: Int64) -> (FetchRequest?, [DaemonAction])

    /// The weight on Open-Meteo of the request `begin` would make now and its HTTP requests;
    /// nil when it goes elsewhere (Google pollen) or would not be made (stripes not due).
    static func openMeteoWeight(_ index: Int, in state: DaemonState, now: Int64) -> (
        weight: OpenMeteoCallWeight, requests: Int
    )?

    /// Applies a finished fetch of location `index`.
    static func apply(_ result: Result, _ index: Int, in state: inout DaemonState, now: Int64) -> SourceApplied

    /// A stored response of location `index` at start (restarts spend no quota): shown at
    /// once, fetched again when it ages out.
    static func restore(_ stored: Stored, _ index: Int, in state: inout DaemonState, now: Int64)

    /// The names its stored responses have in `state_dir` (``StateStore/response(location:source:)``),
    /// in the order they are restored; none when the source is off and nothing is restored.
    static func storedNames(in state: DaemonState) -> [String]

    /// Reads a stored response (one of ``storedNames(in:)``, `name`) back
    /// (``DaemonEvent/restored(location:_:)``): restored and logged, or logged as not usable.
    static func restore(
        stored: StoredResponse, name: String, _ index: Int, in state: inout DaemonState, now: Int64
    ) -> [DaemonAction]
}

extension SourceRules {
    package static func diagnosticsKeys(in config: AgentConfig) -> [String] { [kind.traits.diagnosticsKey] }
}

/// A stored response the loop read for the state (``DaemonEvent/restored(location:_:)``).
package struct RestoredResponse: Sendable {
    var kind: SourceKind
    /// Its name in `state_dir` (one of the kind's ``SourceRules/storedNames(in:)``).
    var name: String
    var response: StoredResponse

    package init(kind: SourceKind, name: String, response: StoredResponse) {
        self.kind = kind
        self.name = name
        self.response = response
    }
}

/// What applying a fetch came to.
package enum SourceApplied {
    /// New data (or a source's own answer, such as a rejected key): these actions.
    case applied([DaemonAction])
    /// A failed fetch, applied alike for every source (``DaemonState/applyFailure(_:_:now:)``).
    case failed(SourceFailure)
}

/// A failed fetch as the one failure path needs it: the old data turns stale (unless the
/// source keeps it current, as the stripes do), the schedule backs off (or waits for
/// `Retry-After`), the failure is counted, and one warning says when the retry comes.
package struct SourceFailure {
    var message: String
    var retryAfter: Int64?
    /// Its name in `<p>/diagnostics`.
    var diagnosticsKey: String
    /// How the log line names the attempt (`fetch`, `fetch from google`).
    var attempt = "fetch"
    /// Whether the data shown turns stale.
    var marksStale = true
    /// Said after the retry time (`; the stored stripes stay published`).
    var note = ""
}

extension DaemonState {
    /// A finished fetch, routed to its source's rules.
    mutating func apply(_ key: FetchKey, _ outcome: FetchOutcome, now: Int64) -> [DaemonAction] {
        let applied = outcome.apply(to: key.location, in: &self, now: now)
        switch applied {
        case .applied(let actions): return actions
        case .failed(let failure): return applyFailure(key, failure, now: now)
        }
    }

    /// The one failure path (SPEC §5): stale data, backoff or `Retry-After`, counted, logged.
    mutating func applyFailure(_ key: FetchKey, _ failure: SourceFailure, now: Int64) -> [DaemonAction] {
        let index = key.location
        if failure.marksStale { locations[index].slots.failed(key.kind) }
        let delay = planner.schedules[index][key.kind].failed(
            at: now, retryAfter: failure.retryAfter, jitter: random.fraction())
        calls.outcomes.failure(failure.diagnosticsKey, at: now, message: failure.message)
        let id = locations[index].config.id
        return [
            .log(
                .warning,
                "\(key.kind.rawValue)[\(id)]: \(failure.attempt) failed: \(failure.message); retry in \(delay) s\(failure.note)"
            )
        ]
    }

    /// The stored responses location `index` reads back at start, in the order they are
    /// restored (pollen, climate, air, stripes), with their names in `state_dir`.
    package func storedResponseNames(_ index: Int) -> [(kind: SourceKind, name: String)] {
        SourceKind.restoreOrder.flatMap { kind in kind.rules.storedNames(in: self).map { (kind, $0) } }
    }

    /// Stored responses read back at start, by their sources' rules.
    mutating func restore(_ index: Int, _ responses: [RestoredResponse], now: Int64) -> [DaemonAction] {
        responses.flatMap { restored in
            restored.kind.rules.restore(stored: restored.response, name: restored.name, index, in: &self, now: now)
        }
    }

    /// Prepares a due fetch, by its source's rules: the pollen source and the Google cap, the
    /// stripes' yearly check; counts the call and marks it started.
    mutating func begin(_ key: FetchKey, now: Int64) -> (FetchRequest?, [DaemonAction]) {
        key.kind.rules.begin(key.location, in: &self, now: now)
    }

    /// Counts an Open-Meteo call of a fetch that starts now (location and day, and the weighted
    /// calls) and marks its schedule started.
    mutating func countStart(_ key: FetchKey, api: CountedAPI, now: Int64) {
        countCall(key.location, api, now: now)
        if let request = openMeteoRequest(key, now: now) { calls.count(request, now: now) }
        planner.schedules[key.location][key.kind].started(at: now)
    }
}
