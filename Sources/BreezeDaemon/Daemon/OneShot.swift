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

/// `once` and `print` (docs/reference.md, Configuration) as a child machine of ``DaemonState``: the daemon's loop and
/// state run them, this decides the phases. `once`: connecting (at most ``connectTimeout``) →
/// preparing (the loop restores the stored responses) → fetching (every enabled source of every
/// location once) → rendering the images → flushing (and the clears held back behind a
/// discovery change, after their delay) → the device commands → awaiting the broker's outcomes
/// (``outcomeTimeout``) → stop with the exit code. `print` has no broker: preparing → fetching
/// → printing the tree → stop.
///
/// Open-Meteo's pacing holds a request back as in `run` (``DaemonState/pace(_:now:)``): a hold
/// of at most ``maximumPacingWait`` (the per-minute window) is waited for, on the loop's clock
/// (``nextDeadline``); a longer one (the daily limit) skips the request. `auto` pollen whose
/// Google key is rejected is fetched a second time, from Open-Meteo.
///
/// The parent starts the fetches this wants (``wants(_:)``), and reports each key's end with
/// whether the location has usable data of that kind then (fresh or stored): what is left
/// without is the run's failure (exit 69).
package struct OneShot: Sendable {
    package enum Mode: Sendable, Equatable {
        case once
        case print
    }

    /// How long `once` waits for the broker to accept the connection (seconds).
    static let connectTimeout: DaemonDuration = .seconds(10)
    /// The longest Open-Meteo pacing hold waited for (seconds): the per-minute window; a longer
    /// one (the daily limit) skips the request.
    static let maximumPacingWait: DaemonDuration = .seconds(120)
    /// How long `once` waits for the broker to acknowledge what it published.
    static let outcomeTimeout: DaemonDuration = .seconds(10)

    enum Phase: Sendable, Equatable {
        case connecting(deadline: DaemonInstant)
        /// Waiting for the loop's ``Event/prepared``.
        case preparing
        case fetching
        /// Renders and uploads in flight.
        case rendering
        /// A flush asked for, its count not reported yet.
        case flushing
        /// Clears held back behind a discovery change: waiting for their time.
        case awaitingClears(until: DaemonInstant)
        case awaitingOutcomes
        case done(exitCode: Int32)
    }

    enum Event: Sendable, Equatable {
        /// The loop's timer fired (the connect deadline, the end of a pacing hold).
        case tick
        /// The broker accepted the connection.
        case connected
        /// The loop did what ``Action/prepare`` asked.
        case prepared
        /// `key` was begun: a request is in flight (`fetching`), or none was needed (the Google
        /// cap, stripes not due), and then `hasData` says whether the location has data of it.
        case began(FetchKey, fetching: Bool, hasData: Bool)
        /// Open-Meteo's pacing holds `key` back until `until`.
        case deferred(FetchKey, until: DaemonInstant, hasData: Bool)
        /// `key`'s fetch was applied; `fallBack` when `auto` pollen is to be asked again from
        /// Open-Meteo (Google rejected the key).
        case fetched(FetchKey, fallBack: Bool, hasData: Bool)
        /// No render or upload is in flight any more.
        case rendersSettled
        /// The flush asked for sent `sent` messages; `clearsDueAt` when clears are held back that
        /// were not due at that flush (then this waits and flushes again, however many flushes
        /// came before).
        case flushed(sent: Int, clearsDueAt: DaemonInstant?)
        /// What became of the publishes (handed to the publisher and logged already), and the
        /// images whose last render failed.
        case outcomes(PublishOutcomes, failingImages: [String])
    }

    enum Action: Sendable, Equatable {
        /// Warn of a protocol fallback, hold the scopes of handed-over locations, restore the
        /// stored responses; the loop answers ``Event/prepared``.
        case prepare
        /// Make `due` due now, then start every due fetch this ``wants(_:)``.
        case startFetches(due: [FetchKey])
        case saveCallCounts
        /// Set every sink's scopes of every location.
        case setScopes
        /// Start the renders of every image with data.
        case render
        /// Publish what changed; the loop answers ``Event/flushed(sent:clearsDueAt:)``.
        case flush
        /// Send every device the commands it should have (not retained, no status awaited).
        case sendDeviceCommands
        /// Wait for the broker's outcomes; the loop answers ``Event/outcomes(_:failingImages:)``.
        case awaitOutcomes(timeout: DaemonDuration)
        /// Write the tree and the device commands to stdout (`print`).
        case printTree
        /// Log that the broker did not accept the connection (the loop knows why).
        case connectFailed
        case log(LogLevel, String)
        case stop(exitCode: Int32)
    }

    let mode: Mode
    /// `mqtt.qos`: with 0 the broker acknowledges nothing, and the last line says so.
    let qos: Int
    private(set) var phase: Phase
    /// Every enabled source of every location, in the order the failures are named.
    let keys: [FetchKey]
    /// `pollen[home]`, for the log lines.
    private let names: [FetchKey: String]
    /// Keys not begun yet (or to be begun again: the `auto` fallback; or held by pacing).
    private(set) var pending: Set<FetchKey>
    /// Keys held by Open-Meteo's pacing, and until when.
    private(set) var holds: [FetchKey: DaemonInstant] = [:]
    private(set) var inFlight: Set<FetchKey> = []
    private var attempts: [FetchKey: Int] = [:]
    /// Whether each key's location has usable data of it, as of the key's last event.
    private var hasData: [FetchKey: Bool] = [:]
    /// Messages sent by the flushes.
    private(set) var sent = 0

    /// - Parameter keys: every enabled source of every location, with its name (`pollen[home]`).
    init(_ mode: Mode, keys: [(FetchKey, String)], qos: Int, now: DaemonInstant) {
        self.mode = mode
        self.qos = qos
        self.keys = keys.map(\.0)
        self.names = Dictionary(keys, uniquingKeysWith: { first, _ in first })
        self.pending = Set(self.keys)
        phase = mode == .once ? .connecting(deadline: now + Self.connectTimeout) : .preparing
    }

    /// Whether the parent should start `key`'s fetch when it is due.
    func wants(_ key: FetchKey) -> Bool { phase == .fetching && pending.contains(key) }

    /// The next time this needs the loop: the connect deadline, the end of a pacing hold, the
    /// held-back clears.
    var nextDeadline: DaemonInstant? {
        switch phase {
        case .connecting(let deadline): deadline
        case .fetching: holds.values.min()
        case .awaitingClears(let until): until
        default: nil
        }
    }

    /// The sources left with no usable data, by name, in ``keys`` order.
    var unusable: [String] { keys.filter { hasData[$0] != true }.map { names[$0] ?? "\($0)" } }

    mutating func handle(_ event: Event, now: DaemonInstant) -> [Action] {
        switch (phase, event) {
        case (.connecting(let deadline), .tick):
            guard now >= deadline else { return [] }
            return finish(.connectFailed, exitCode: ExitCode.unavailable)
        case (.connecting, .connected):
            phase = .preparing
            return [.prepare]
        case (.preparing, .prepared):
            phase = .fetching
            return [.startFetches(due: keys)] + fetchingDone()
        case (.fetching, .tick):
            let ended = holds.filter { $0.value <= now }.map(\.key)
            guard !ended.isEmpty else { return [] }
            for key in ended { holds[key] = nil }
            return [.startFetches(due: [])]
        case (.fetching, .began(let key, let fetching, let data)):
            pending.remove(key)
            holds[key] = nil
            if fetching {
                inFlight.insert(key)
                attempts[key, default: 0] += 1
                return []
            }
            hasData[key] = data
            return fetchingDone()
        case (.fetching, .deferred(let key, let until, let data)):
            guard until - now > Self.maximumPacingWait else {
                holds[key] = until
                return []
            }
            pending.remove(key)
            holds[key] = nil
            hasData[key] = data
            return [
                .log(.warning, "once: \(names[key] ?? "\(key)") not fetched: Open-Meteo's daily limit is reached")
            ] + fetchingDone()
        case (.fetching, .fetched(let key, let fallBack, let data)):
            inFlight.remove(key)
            if fallBack && attempts[key, default: 0] < 2 {
                pending.insert(key)
                return [.startFetches(due: [key])]
            }
            hasData[key] = data
            return fetchingDone()
        case (.rendering, .rendersSettled):
            phase = .flushing
            return [.flush]
        case (.flushing, .flushed(let count, let clearsDueAt)):
            sent += count
            // Clears still held back, whichever flush this was: the loop's wake is timed in
            // whole seconds of wall time and can come before the clears' monotonic due time
            // (the flush it starts then sends none of them), so `once` waits again rather than
            // exiting with them unsent. Only clears not yet due are reported, so this ends.
            if let clearsDueAt {
                phase = .awaitingClears(until: clearsDueAt)
                return []
            }
            phase = .awaitingOutcomes
            return [.sendDeviceCommands, .awaitOutcomes(timeout: Self.outcomeTimeout)]
        case (.awaitingClears(let until), .tick):
            guard now >= until else { return [] }
            phase = .flushing
            return [.flush]
        case (.awaitingOutcomes, .outcomes(let outcomes, let failingImages)):
            return verdict(outcomes, failingImages: failingImages)
        default:
            return []
        }
    }

    /// Fetching ends when no key is left to begin and none is in flight.
    private mutating func fetchingDone() -> [Action] {
        guard phase == .fetching, pending.isEmpty, inFlight.isEmpty else { return [] }
        switch mode {
        case .once:
            phase = .rendering
            return [.saveCallCounts, .setScopes, .render]
        case .print:
            var actions: [Action] = [.saveCallCounts, .printTree]
            let code = unusableLine(into: &actions) ? ExitCode.unavailable : ExitCode.success
            return finish(actions, exitCode: code)
        }
    }

    /// `once`'s last lines and exit code: what the broker did not take, the sources without
    /// data, the images that did not render (docs/reference.md, Configuration; docs/operations.md, Limits).
    private mutating func verdict(_ outcomes: PublishOutcomes, failingImages: [String]) -> [Action] {
        var actions: [Action] = []
        if !outcomes.pending.isEmpty {
            actions.append(
                .log(
                    .error,
                    "mqtt: the broker did not acknowledge \(outcomes.pending.count) publish(es) within \(Self.outcomeTimeout) s"
                ))
        }
        guard outcomes.allAccepted else {
            let refused = outcomes.refused.count + outcomes.unrecorded
            let notAcknowledged = outcomes.lost.count + outcomes.pending.count
            actions.append(
                .log(
                    .error,
                    "once: \(outcomes.accepted) of \(sent) topics acknowledged; \(refused) refused, \(notAcknowledged) not acknowledged"
                ))
            return finish(actions, exitCode: ExitCode.unavailable)
        }
        if qos == 0 {
            actions.append(.log(.info, "once: \(sent) topics published (QoS 0: the broker does not acknowledge them)"))
        } else {
            actions.append(.log(.info, "once: \(sent) topics published and acknowledged"))
        }
        if unusableLine(into: &actions) { return finish(actions, exitCode: ExitCode.unavailable) }
        // An image that did not render is not a success (docs/operations.md, Limits "Names").
        if !failingImages.isEmpty {
            actions.append(
                .log(
                    .error,
                    "once: \(failingImages.count) image(s) not rendered: \(failingImages.joined(separator: ", "))"))
            return finish(actions, exitCode: ExitCode.unavailable)
        }
        return finish(actions, exitCode: ExitCode.success)
    }

    /// Appends the "no usable data" line when a source has none; true then.
    private func unusableLine(into actions: inout [Action]) -> Bool {
        let unusable = unusable
        guard !unusable.isEmpty else { return false }
        actions.append(.log(.error, "no usable data for \(unusable.joined(separator: ", "))"))
        return true
    }

    private mutating func finish(_ action: Action, exitCode: Int32) -> [Action] {
        finish([action], exitCode: exitCode)
    }

    private mutating func finish(_ actions: [Action], exitCode: Int32) -> [Action] {
        phase = .done(exitCode: exitCode)
        return actions + [.stop(exitCode: exitCode)]
    }
}
