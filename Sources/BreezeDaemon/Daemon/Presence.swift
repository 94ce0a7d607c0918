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

/// The daemon's presence on the broker (docs/reference.md, Topics): the connection, its reconnect count, Home
/// Assistant's births, the `<p>/diagnostics` cadence and the one watch of the broker's
/// outcomes at a time. A child of ``DaemonState``: it
/// decides, the parent maps its actions (``DaemonState`` builds the announcement and the
/// diagnostics payload, which read other children).
package struct Presence: Sendable {
    /// How often `<p>/diagnostics` is published (not retained); also at every connect and birth.
    static let diagnosticsInterval: DaemonDuration = .minutes(5)
    /// `<p>/diagnostics` once more this long after each connect and each re-discovery: Home
    /// Assistant creates the entities from the discovery published in the same moment and
    /// subscribes to their state topic only then, so it can miss the first one and show
    /// `api_calls_today` unknown until the next interval (issue 39).
    static let diagnosticsFollowUp: DaemonDuration = .seconds(30)

    /// The connection as the daemon last heard of it.
    enum Connection: Sendable, Equatable {
        /// Not connected since the start.
        case neverConnected
        case connected(since: DaemonInstant)
        /// Lost at `since`; libmosquitto reconnects with backoff.
        case lost(since: DaemonInstant)
    }

    enum Event: Sendable, Equatable {
        /// The daemon starts: the first diagnostics come one interval later (and at the connect).
        case started
        case connected
        case disconnected(reason: String)
        /// A message on Home Assistant's birth topic.
        case birth(online: Bool)
        /// The timer fired: the re-discovery and diagnostics whose time has come.
        case tick
    }

    enum Action: Sendable, Equatable {
        /// Subscribe, say `online` and publish the whole tree again (the broker may have lost it).
        case announce
        /// Publish `<p>/diagnostics` now (only asked for while connected: it is not retained).
        case publishDiagnostics
        /// Publish every location's Home Assistant device config again.
        case republishDiscovery
        case log(LogLevel, String)
    }

    /// `host:port`, for the log lines.
    let broker: String
    /// Home Assistant discovery is on: births are answered.
    let discoveryEnabled: Bool
    private(set) var connection = Connection.neverConnected
    /// Connects after the first (`<p>/diagnostics`).
    private(set) var reconnects = 0
    private(set) var nextDiagnostics = DaemonInstant(unixSeconds: 0)
    /// A watch of the broker's outcomes is running (``DaemonAction/watchOutcomes(timeout:)``).
    private(set) var watchingOutcomes = false
    /// When the discovery re-send after a birth is due (whole seconds, rounded up); set, further
    /// births are folded into it.
    private(set) var rediscoverAt: DaemonInstant?
    /// When the follow-up diagnostics after a connect or a re-discovery are due.
    private(set) var followUpAt: DaemonInstant?

    init(broker: String, discoveryEnabled: Bool) {
        self.broker = broker
        self.discoveryEnabled = discoveryEnabled
    }

    /// Claims the one watch of the broker's outcomes; false when one is running.
    mutating func watchOutcomes() -> Bool {
        guard !watchingOutcomes else { return false }
        watchingOutcomes = true
        return true
    }

    /// The running watch settled.
    mutating func outcomesSettled() { watchingOutcomes = false }

    var isConnected: Bool {
        if case .connected = connection { return true }
        return false
    }

    /// The next time this child needs the loop: a pending re-discovery, the next diagnostics.
    var nextDeadline: DaemonInstant {
        min(nextDiagnostics, rediscoverAt ?? .distantFuture, followUpAt ?? .distantFuture)
    }

    /// - Parameter random: the parent's seeded generator (the re-announce delay's jitter).
    mutating func handle(_ event: Event, now: DaemonInstant, random: inout SplitMix64) -> [Action] {
        switch event {
        case .started:
            nextDiagnostics = now + Self.diagnosticsInterval
            return []
        case .connected:
            if connection != .neverConnected { reconnects += 1 }
            connection = .connected(since: now)
            followUpAt = now + Self.diagnosticsFollowUp
            // Diagnostics at once, so Home Assistant's sensors are not unknown for minutes.
            return [.log(.info, "mqtt: connected to \(broker)"), .announce, .publishDiagnostics]
        case .disconnected(let reason):
            connection = .lost(since: now)
            return [.log(.warning, "mqtt: disconnected (\(reason)); reconnecting with backoff")]
        case .birth(let online):
            // Births while a re-send is pending are folded into it (docs/reference.md, Topics): a flapping Home
            // Assistant, or a flood of `online`, costs one re-send.
            guard discoveryEnabled, online, rediscoverAt == nil else { return [] }
            let delay = DiscoveryNaming.reannounceDelay(using: &random)
            // A deadline of the one wake, in the machine's whole seconds.
            let (seconds, attoseconds) = delay.components
            rediscoverAt = now + .seconds(seconds + (attoseconds > 0 ? 1 : 0))
            return [.log(.info, "Home Assistant is online: re-sending discovery in \(delay)")]
        case .tick:
            var actions: [Action] = []
            var due = false
            if let at = rediscoverAt, now >= at {
                // Queued for the reconnect's republish while disconnected; no diagnostics then.
                rediscoverAt = nil
                actions.append(.republishDiscovery)
                due = true
                followUpAt = now + Self.diagnosticsFollowUp
            } else if let at = followUpAt, now >= at {
                followUpAt = nil
                due = true
            }
            if now >= nextDiagnostics {
                // Skipped while disconnected (not retained), but always rescheduled, or the
                // timer would keep firing at a time already past.
                nextDiagnostics = now + Self.diagnosticsInterval
                due = true
            }
            return due ? actions + diagnostics() : actions
        }
    }

    private func diagnostics() -> [Action] { isConnected ? [.publishDiagnostics] : [] }
}
