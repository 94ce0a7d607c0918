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

/// The commands a location takes on `<p>/<loc>/…` (docs/operations.md, Limits): `refresh`, `unit/set`, and a
/// retained command, which is cleared; with their rate limits (CommandLimits). A child of
/// DaemonState: it decides what a command does, the parent carries it out (the planner
/// refreshes, the location shows the unit).
struct Commands: Sendable {
    enum Action: Sendable {
        /// Clear a retained command: an empty retained payload on its topic.
        case clear(topic: String)
        /// Fetch the location's sources now within their cooldowns; `republish`: its whole
        /// tree again as well (at most once a minute).
        case refresh(location: Int, id: String, republish: Bool)
        /// Show the location's climate in `unit`; `note` says why now (a held command).
        case applyUnit(location: Int, TemperatureUnit, note: String)
        /// A command is held: the wake must cover its due time.
        case wake
        case log(LogLevel, String)
    }

    private(set) var limits: CommandLimits
    /// The retained-command warning is logged at most once per this long (the shorter refresh
    /// cooldown).
    let retainedWindow: DaemonDuration

    init(locations: Int, config: AgentConfig) {
        limits = CommandLimits(locations: locations)
        retainedWindow = min(
            DaemonDuration(config.pollen.refreshCooldown), DaemonDuration(config.climate.refreshCooldown))
    }

    /// The earliest time a held `unit/set` is due.
    var nextDeadline: DaemonInstant? { limits.nextDeadline }

    /// A message on a command topic of one of `locations` (CommandIntent); nil when it is
    /// none (someone else's message).
    mutating func handle(_ message: MQTTMessage, layout: TopicLayout, locations: [LocationRuntime], now: DaemonInstant)
        -> [Action]?
    {
        guard let intent = CommandIntent.route(message, layout: layout, locations: locations.lazy.map(\.config.id))
        else { return nil }
        switch intent {
        case .ignore:
            return []
        case .refuse(let warning):
            return [.log(.warning, warning)]
        case .clearRetained(let warning):
            // Cleared every time; logged once per refresh-cooldown window (docs/operations.md, Limits).
            guard let unlogged = limits.retainedCommand(now: now, window: retainedWindow) else {
                return [.clear(topic: message.topic)]
            }
            let more = unlogged > 0 ? " (\(unlogged) more retained commands since the last such line)" : ""
            return [.log(.warning, warning + more), .clear(topic: message.topic)]
        case .refresh(let id):
            let index = locations.firstIndex { $0.config.id == id }!
            // The whole tree again (docs/operations.md, Limits: another client may have cleared it), at most once a minute.
            return [.refresh(location: index, id: id, republish: limits.mayRepublish(index, now: now))]
        case .setUnit(let id, let unit):
            let index = locations.firstIndex { $0.config.id == id }!
            // The unit already shown, with nothing held: nothing to do, no interval started.
            guard unit != locations[index].unit || limits.units[index].pending != nil else { return [] }
            switch limits.unitSet(index, unit, now: now) {
            case .held(let until, let firstHeld):
                guard firstHeld else { return [] }
                return [
                    .log(
                        .info,
                        "command: unit/set on \(id) again within \(CommandLimits.unitInterval) s; the last one is applied in \(until - now) s"
                    ), .wake,
                ]
            case .apply:
                return [.applyUnit(location: index, unit, note: "")]
            }
        }
    }

    /// The held `unit/set`s whose interval is up (``CommandLimits/dueUnits(now:)``).
    mutating func due(now: DaemonInstant) -> [Action] {
        limits.dueUnits(now: now).map { due in
            .applyUnit(
                location: due.index, due.unit,
                note: "the last of \(due.held) unit/set commands held for \(CommandLimits.unitInterval) s")
        }
    }
}
