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

/// One source's rules (docs/operations.md, Faults), one type per source in its own folder (Sources/<Kind>/): when
/// it is on and due, what its fetch asks for and weighs, how the answers read, what an answer
/// does to the location, and what a stored response restores. A rule sees only a
/// SourceContext (the location, this source's schedule, the call counts, the random
/// generator) and returns actions; a failure is not the rules' business but the one failure
/// path's (DaemonState), which asks them only how to word it.
package protocol SourceRules {
    /// What the source's fetch asks for beside the location and the time (pollen: which API).
    associatedtype Request: Sendable
    /// A usable answer, decoded: what receive(_:_:now:) gets.
    associatedtype Answer: Sendable

    static var kind: SourceKind { get }

    /// Whether this configuration fetches the source at all (``FetchPlanner/enabled``).
    static func isEnabled(in config: AgentConfig) -> Bool

    /// A location's schedule before anything is known: its interval and `refresh` cooldown,
    /// due at once (``FetchPlanner/schedules(_:)``).
    static func schedule(in config: AgentConfig) -> FetchSchedule

    /// Whether a `refresh` command fetches it again, within its cooldown.
    static var refreshedByCommand: Bool { get }

    /// Its retained sinks, in publishing order (``Sinks/all(for:)``); none when it is off
    /// (topics an earlier run published then fall under no scope and are cleared).
    static func sinks(for context: SinkContext) -> [any RetainedSink]

    /// Its names in `<p>/diagnostics` under this configuration, listed from the start.
    static func diagnosticsKeys(in config: AgentConfig) -> [String]

    /// Prepares a due fetch: nil when no request is needed now (the schedule then says when to
    /// look again), which API the call counts against, and what to log.
    static func begin(_ source: inout SourceContext, now: DaemonInstant) -> SourceBegin<Request>

    /// The weight on Open-Meteo of the request `begin` would make now and its HTTP requests;
    /// nil when it goes elsewhere (Google pollen) or would not be made (stripes not due).
    static func openMeteoWeight(_ source: SourceContext, now: DaemonInstant) -> (
        weight: OpenMeteoCallWeight, requests: Int
    )?

    /// The GETs a request makes, in order.
    static func gets(_ request: Request, location: LocationConfig, config: AgentConfig) -> [HTTPGet]

    /// What the answers to gets(_:location:config:) come to (the runner stops at the first
    /// that is not a 200; none: there was nothing to ask).
    static func interpret(
        _ responses: [FetchedResponse], _ request: Request, location: LocationConfig, config: AgentConfig,
        now: DaemonInstant
    ) -> FetchResult<Answer>

    /// What a usable answer does to the location: new data in its slot, the schedule moved on,
    /// what is stored and logged, and how the fetch counts.
    static func receive(_ answer: Answer, _ source: inout SourceContext, now: DaemonInstant) -> SourceReceived

    /// How the one failure path words a failed fetch of this source now.
    static func failure(_ source: SourceContext) -> SourceFailure

    /// The names its stored responses have in `state_dir`, in the order they are restored;
    /// none when the source is off and nothing is restored.
    static func storedNames(in config: AgentConfig) -> [String]

    /// Reads a stored response (one of storedNames(in:), `name`) back at start (restarts
    /// spend no quota): restored and logged, or logged as not usable.
    static func restore(_ stored: StoredResponse, name: String, _ source: inout SourceContext, now: DaemonInstant)
        -> [DaemonAction]
}

extension SourceRules {
    package static func diagnosticsKeys(in config: AgentConfig) -> [String] { [kind.traits.diagnosticsKey] }

    package static func failure(_ source: SourceContext) -> SourceFailure {
        SourceFailure(diagnosticsKey: kind.traits.diagnosticsKey)
    }
}

/// What a source's rules see: one location, this source's schedule there, the call counts (to
/// read), the configuration and the seeded generator. The parent lends it for one call and
/// takes the location, the schedule and the generator back.
package struct SourceContext {
    package let config: AgentConfig
    /// `--demo`: bundled answers, no Google cap.
    package let demo: Bool
    package var location: LocationRuntime
    package var schedule: FetchSchedule
    package var random: SplitMix64
    package let calls: CallLedger

    /// The calls of this location to `api` on its local day at `now`.
    func callsToday(_ api: CountedAPI, now: DaemonInstant) -> Int {
        calls.calls(location.config.id, api, on: location.today(at: now).description)
    }

    /// This installation's day in the 10–31 January refetch window for the location: stable
    /// across restarts (the MQTT client id defaults to `breeze-agent-<hostname>`), different per hub.
    var stripesSpread: Int { StripesRequest.spread(seed: config.mqtt.clientID + "/" + location.config.id) }

    /// The next local midnight after `now` plus up to `jitter` seconds (a fetch of a new day's data).
    mutating func afterMidnight(_ now: DaemonInstant, jitter: DaemonDuration) -> DaemonInstant {
        location.nextMidnight(after: now) + .seconds(Int64.random(in: 0..<jitter.seconds, using: &random))
    }
}

/// A due fetch as its rules prepared it.
package struct SourceBegin<Request: Sendable> {
    /// Nil: no request now (the Google cap, stripes not due).
    var request: Request?
    /// The API the call counts against.
    var counts: CountedAPI = .openMeteo
    var actions: [DaemonAction] = []
}

/// A fetch's result, whatever the source: a usable answer, or a failure with the server's
/// `Retry-After`, which the one failure path applies alike for every source.
package enum FetchResult<Answer: Sendable>: Sendable {
    case answer(Answer)
    case failure(message: String, retryAfter: RetryAfter?)
}

/// What an answer did: the actions (stores first, then log lines) and how the fetch counts in
/// `<p>/diagnostics`.
package struct SourceReceived {
    enum Count {
        /// A success of the source named so in `<p>/diagnostics`.
        case success(String)
        /// A failure (a rejected key, an unusable archive answer): the source's own verdict.
        case failure(String, message: String)
    }

    var actions: [DaemonAction]
    var count: Count
}

/// How the one failure path words a source's failed fetch: its name in `<p>/diagnostics`,
/// the attempt, whether the data shown turns stale (the stripes' does not), and a note.
package struct SourceFailure {
    /// Its name in `<p>/diagnostics`.
    var diagnosticsKey: String
    /// How the log line names the attempt (`fetch`, `fetch from google`).
    var attempt = "fetch"
    /// Whether the data shown turns stale.
    var marksStale = true
    /// Said after the retry time (`; the stored stripes stay published`).
    var note = ""
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
