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
internal import FoundationEssentials

/// What an agent says about itself on `<p>/agent/<shard or "-">` (retained, docs/operations.md, Limits).
package struct AgentAnnouncement: Sendable, Equatable, Codable {
    /// Random per run: two runs never share it.
    var instance: String
    var host: String
    var pid: Int
    /// When this run started (RFC 3339 UTC).
    var started: String
    /// When this announcement was made (Unix seconds in the payload): one older than
    /// ``IdentityGuard/liveSeconds`` is a run that ended without clearing it.
    var at: DaemonInstant

    var payload: String {
        JSONValue.object([
            "instance": .string(instance), "host": .string(host), "pid": .integer(pid), "started": .string(started),
            "at": .integer(Int(at.unixSeconds)),
        ]).serialized
    }

    /// The announcement in `bytes`; nil when they are not one (at most 1 KiB is read).
    static func parse(_ bytes: [UInt8]) -> AgentAnnouncement? {
        guard !bytes.isEmpty, bytes.count <= 1024 else { return nil }
        return try? JSONDecoder().decode(AgentAnnouncement.self, from: Data(bytes))
    }

    /// `instance 3f2a… on hub-2 (pid 812, started …)`, for the log.
    var described: String {
        "instance \(instance) on \(quotedForLog(host)) (pid \(pid), started \(quotedForLog(started)))"
    }
}

/// Two agents with one identity (docs/operations.md, Limits "Two agents, one identity" and "Its own tree, kept"),
/// as a value: a child of ``DaemonState`` with its own actions and deadline.
///
/// - At every connect the agent announces itself (``AgentAnnouncement``, retained) and
///   subscribes to its announcement topic and its own availability topic; it re-announces every
///   ``announceInterval`` seconds, so an announcement older than ``liveSeconds`` is stale.
/// - Another instance's announcement delivered live (its connect, its re-announce, its answer)
///   logs one error naming it, shows in `<p>/diagnostics` (`identity_conflict`), and is
///   answered once with an announcement of this instance, so the other one learns of it too.
///   One delivered before this connection's own announcement came back proves nothing (it
///   may be this agent's own previous run): it is only named when the broker keeps dropping
///   the connection.
/// - A connection the broker drops within ``quickDropSeconds`` of connecting, three times in a
///   row, is a second client with the same client id: one error line, and the reconnect delay
///   doubles from 2 s to ``longestReconnectDelay`` (libmosquitto's own backoff starts afresh
///   after every successful connect, so two such agents reconnected every second). A connection
///   that lasts ``stableSeconds`` restores the configured backoff.
/// - Locations removed from the configuration (their topics in the published set) are held at
///   start and cleared only ``settleSeconds`` after the first connect, and not at all while
///   another live instance is announced on the same identity (without `shard`: with `shard`,
///   ``ShardHandover`` decides).
/// - A retained `offline` someone else publishes on the agent's availability topic while it is
///   connected is answered with `online` at once (one warning per ``announceInterval``).
package struct IdentityGuard: Sendable {
    static let quickDropSeconds: DaemonDuration = .seconds(10)
    static let quickDropsForDuplicate = 3
    static let firstReconnectDelay: DaemonDuration = .seconds(2)
    static let longestReconnectDelay: DaemonDuration = .seconds(300)
    static let stableSeconds: DaemonDuration = .seconds(60)
    static let announceInterval: DaemonDuration = .minutes(5)
    static let liveSeconds: DaemonDuration = announceInterval * 2
    static let settleSeconds: DaemonDuration = .seconds(5)

    enum Event: Sendable, Equatable {
        case connected
        case disconnected
        /// A message on ``topic`` (`retained`: delivered from the broker's store).
        case announcement([UInt8], retained: Bool)
        /// A message on the agent's own availability topic.
        case availability([UInt8])
        case tick
    }

    enum Action: Sendable, Equatable {
        /// Publish this instance's announcement on ``topic`` (retained).
        case announce(String)
        /// Publish `online` on the availability topic (retained).
        case reassertOnline
        /// Reconnect after this long from now on; nil: the configured backoff.
        case reconnectDelay(DaemonDuration?)
        /// Hold the removed locations' scopes until it is safe to clear them (``HandoverStep/hold(scopes:)``).
        case holdRemoved([String])
        /// Clear the removed locations held at start (``HandoverStep/release(scopes:)``).
        case releaseRemoved([String])
        case publishDiagnostics
        case log(LogLevel, String)
    }

    /// `<p>/agent/<shard index or "-">`.
    let topic: String
    let clientID: String
    private(set) var own: AgentAnnouncement
    private(set) var connectedSince: DaemonInstant?
    private(set) var connects = 0
    private(set) var quickDrops = 0
    /// The reconnect delay in force; nil: the configured backoff.
    private(set) var reconnectDelay: DaemonDuration?
    /// The other live instance, and when it was last seen.
    private(set) var other: AgentAnnouncement?
    private(set) var otherSeenAt = DaemonInstant(unixSeconds: 0)
    /// A recent announcement of another instance that was there before this one's: not proof
    /// of a live one.
    private(set) var suspect: AgentAnnouncement?
    /// This connection's own announcement has come back from the broker.
    private var echoSeen = false
    /// Instances already named in an error line (and answered).
    private var named: Set<String> = []
    private(set) var nextAnnounce: DaemonInstant?
    /// Removed locations' scopes held at start, and when to decide about them.
    private(set) var heldRemoved: [String] = []
    private var removedIDs: [String] = []
    private(set) var releaseAt: DaemonInstant?
    private var holdLoggedFor: String?
    /// Overrides of the availability topic since the last warning, and when it was logged.
    private var overrides = 0
    private var overrideLoggedAt: DaemonInstant?

    init(topic: String, clientID: String, instance: String, started: DaemonInstant) {
        self.topic = topic
        self.clientID = clientID
        own = AgentAnnouncement(
            instance: instance, host: "", pid: 0, started: UTCTimestamp.rfc3339(unixSeconds: started.unixSeconds),
            at: started)
    }

    /// Host name and process id for the announcement (the loop knows them; the value does not).
    mutating func identify(host: String, pid: Int, started: DaemonInstant) {
        own.host = host
        own.pid = pid
        own.started = UTCTimestamp.rfc3339(unixSeconds: started.unixSeconds)
    }

    /// Removed locations' scopes to hold until the first connect has shown no other instance.
    mutating func holdRemoved(scopes: [String], ids: [String]) {
        heldRemoved = scopes
        removedIDs = ids
    }

    var isOtherLive: Bool { other != nil }

    var nextDeadline: DaemonInstant? {
        var times = [nextAnnounce, releaseAt].compactMap { $0 }
        if other != nil { times.append(otherSeenAt + Self.liveSeconds) }
        if reconnectDelay != nil, let since = connectedSince { times.append(since + Self.stableSeconds) }
        return times.min()
    }

    mutating func handle(_ event: Event, now: DaemonInstant) -> [Action] {
        switch event {
        case .connected:
            connects += 1
            connectedSince = now
            echoSeen = false
            nextAnnounce = now + Self.announceInterval
            if !heldRemoved.isEmpty, releaseAt == nil { releaseAt = now + Self.settleSeconds }
            return [announce(now: now)]
        case .disconnected:
            defer { connectedSince = nil }
            nextAnnounce = nil
            guard let since = connectedSince else { return [] }
            guard now - since < Self.quickDropSeconds else {
                quickDrops = 0
                return []
            }
            quickDrops += 1
            guard quickDrops >= Self.quickDropsForDuplicate else { return [] }
            let delay = min(
                Self.firstReconnectDelay * (1 << Int64(min(quickDrops - Self.quickDropsForDuplicate, 16))),
                Self.longestReconnectDelay)
            reconnectDelay = delay
            var actions: [Action] = [.reconnectDelay(delay)]
            if quickDrops == Self.quickDropsForDuplicate {
                let who = (other ?? suspect).map { "; instance announced: \($0.described)" } ?? ""
                actions.append(
                    .log(
                        .error,
                        "mqtt: the broker dropped the connection \(quickDrops) times within \(Self.quickDropSeconds) s of connecting: another client is using client id \(quotedForLog(clientID))\(who); reconnecting after \(delay) s, doubling to \(Self.longestReconnectDelay) s (give each agent its own mqtt.client_id or shard index)"
                    ))
            }
            return actions
        case .announcement(let bytes, _):
            guard let seen = AgentAnnouncement.parse(bytes) else { return [] }
            guard seen.instance != own.instance else {
                echoSeen = true
                return []
            }
            // One the broker delivers before this connection's own announcement came back was
            // published before it: maybe by this agent's own last run (restarted, or killed),
            // so only a suspect, named when the broker keeps dropping the connection. One after
            // it proves a live instance: its connect, its re-announce, or its answer to this
            // one's. (The retain flag cannot tell: MQTT 5 subscriptions keep it as published.)
            guard echoSeen else {
                if now - seen.at <= Self.liveSeconds { suspect = seen }
                return []
            }
            other = seen
            otherSeenAt = now
            guard !named.contains(seen.instance) else { return [] }
            named.insert(seen.instance)
            let hold = heldRemoved.isEmpty ? "" : "; removed locations are not cleared while it is live"
            return [
                .log(
                    .error,
                    "agent: another instance announces itself on \(topic): \(seen.described); two agents with one identity fight over one tree (give each its own mqtt.topic_prefix or shard index)\(hold)"
                ),
                // Answered once, so the other instance sees this one as live too.
                announce(now: now), .publishDiagnostics,
            ]
        case .availability(let bytes):
            guard connectedSince != nil, !bytes.elementsEqual(Availability.online.utf8), !bytes.isEmpty else {
                return []
            }
            var actions: [Action] = [.reassertOnline]
            if let at = overrideLoggedAt, now < at + Self.announceInterval {
                overrides += 1
            } else {
                let more = overrides > 0 ? " (\(overrides) more since the last such line)" : ""
                actions.append(
                    .log(
                        .warning,
                        "agent: someone else published \(quotedForLog(String(decoding: bytes.prefix(64), as: UTF8.self))) on this agent's availability topic; replaced with online\(more)"
                    ))
                overrideLoggedAt = now
                overrides = 0
            }
            return actions
        case .tick:
            var actions: [Action] = []
            if let at = nextAnnounce, now >= at {
                nextAnnounce = now + Self.announceInterval
                actions.append(announce(now: now))
            }
            if let seen = other, now >= otherSeenAt + Self.liveSeconds {
                other = nil
                actions.append(
                    .log(.info, "agent: \(seen.described) has not announced itself for \(Self.liveSeconds) s"))
                if !heldRemoved.isEmpty, releaseAt == nil { releaseAt = now }
            }
            if reconnectDelay != nil, let since = connectedSince, now - since >= Self.stableSeconds {
                reconnectDelay = nil
                quickDrops = 0
                actions.append(.reconnectDelay(nil))
                actions.append(
                    .log(.info, "mqtt: connected for \(Self.stableSeconds) s; the usual reconnect backoff again"))
            }
            if let at = releaseAt, now >= at {
                releaseAt = nil
                if let seen = other {
                    if holdLoggedFor != seen.instance {
                        holdLoggedFor = seen.instance
                        actions.append(
                            .log(
                                .warning,
                                "agent: not clearing the topics of removed location(s) \(removedIDs.joined(separator: ", ")) while \(seen.described) is live on this identity"
                            ))
                    }
                } else {
                    actions.append(.releaseRemoved(heldRemoved))
                    actions.append(
                        .log(
                            .info,
                            "agent: clearing the topics of removed location(s) \(removedIDs.joined(separator: ", "))"))
                    heldRemoved = []
                    removedIDs = []
                }
            }
            return actions
        }
    }

    private mutating func announce(now: DaemonInstant) -> Action {
        own.at = now
        return .announce(own.payload)
    }

    /// The `identity_conflict` member of `<p>/diagnostics`; nil when there is none.
    var diagnostics: JSONValue? {
        guard other != nil || reconnectDelay != nil else { return nil }
        // A live instance was seen when its announcement arrived; a suspect (named only after
        // quick drops) was never seen live: its own announcement time is what is known of it.
        let shown: (announcement: AgentAnnouncement, seenAt: DaemonInstant)? =
            if let other { (other, otherSeenAt) } else if reconnectDelay != nil, let suspect {
                (suspect, suspect.at)
            } else { nil }
        let seen: JSONValue =
            shown.map {
                .object([
                    "instance": .string($0.announcement.instance), "host": .string($0.announcement.host),
                    "pid": .integer($0.announcement.pid), "started": .string($0.announcement.started),
                    "seen_at": .string(UTCTimestamp.rfc3339(unixSeconds: $0.seenAt.unixSeconds)),
                ])
            } ?? .null
        return .object([
            "other_instance": seen, "quick_drops": .integer(quickDrops),
            "reconnect_delay_s": reconnectDelay.map { .integer(Int($0.seconds)) } ?? .null,
        ])
    }
}

extension IdentityGuard {
    /// What the daemon publishes when it leaves, connected (docs/operations.md, Limits): its announcement cleared
    /// (it goes with the run) unless another live instance's may be the one retained now, and
    /// `offline` on `status`; QoS 1 at least, so the acknowledgements the loop waits for say
    /// they arrived.
    func farewell(status: String, qos: Int) -> [OutgoingMessage] {
        let qos = max(1, qos)
        let offline = OutgoingMessage(topic: status, payload: Availability.offline, qos: qos, retain: true)
        guard !isOtherLive else { return [offline] }
        return [OutgoingMessage(topic: topic, payload: "", qos: qos, retain: true), offline]
    }

    /// `run` without `shard`: holds the topics of locations removed from the configuration (in
    /// the published set, under `<p>/<loc>/` or a discovery config of no configured location)
    /// until the first connect has shown no other live instance on this identity (docs/operations.md, Limits).
    mutating func holdRemovedLocations(
        published: [String: PayloadDigest], config: AgentConfig, layout: TopicLayout
    ) -> [Action] {
        guard config.shard == nil else { return [] }
        let configured = Set(config.locations.map(\.id))
        let configs = Set(config.locations.map { layout.location($0.id).deviceConfig.name })
        var ids = Set<String>()
        var scopes = Set<String>()
        for topic in published.keys {
            if let id = layout.locationID(of: topic) {
                guard !configured.contains(id), !TopicLayout.reservedLevels.contains(Substring(id)) else { continue }
                ids.insert(id)
                scopes.insert(layout.location(id).base.name)
            } else if layout.isDeviceConfig(topic), !configs.contains(topic) {
                scopes.insert(topic)
            }
        }
        guard !scopes.isEmpty else { return [] }
        let sortedIDs = ids.sorted()
        holdRemoved(scopes: scopes.sorted(), ids: sortedIDs.isEmpty ? ["(discovery only)"] : sortedIDs)
        return [
            .holdRemoved(scopes.sorted()),
            .log(
                .info,
                "agent: holding the topics of removed location(s) \(sortedIDs.joined(separator: ", ")) until the broker shows no other instance of this agent"
            ),
        ]
    }
}
