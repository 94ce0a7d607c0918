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

package import BreezeCore

/// What a message on a location's command topic asks for (docs/reference.md, Topics commands), decided from the
/// message alone: pure, no state. ``DaemonState`` then carries a refresh or a unit change out
/// against the location's schedules and unit.
package enum CommandIntent: Sendable, Equatable {
    /// Fetch the location's sources now, within their cooldowns.
    case refresh(location: String)
    /// Show the location's climate in `unit` (stored, climate rebuilt) when it differs.
    case setUnit(location: String, TemperatureUnit)
    /// A retained command: ignored, and cleared on the broker with an empty retained payload.
    case clearRetained(warning: String)
    /// Not carried out: the reason, logged as a warning.
    case refuse(warning: String)
    /// Nothing to do and nothing to say (the empty echo of clearing a retained command).
    case ignore

    /// Longest accepted command payload; anything larger is garbage for these commands.
    static let maximumPayloadBytes = 64

    /// The intent of `message`; nil when its topic is not a command topic of one of
    /// `locations` (the message is someone else's: a device's, a birth, a handover's).
    static func route(_ message: MQTTMessage, layout: TopicLayout, locations: some Sequence<String>) -> Self? {
        guard let (id, command) = layout.command(on: message.topic), locations.contains(id) else { return nil }
        if message.retain {
            guard message.payloadBytes > 0 else { return .ignore }
            return .clearRetained(
                warning:
                    "command: ignoring retained message on \(message.topic) (commands must not be retained); clearing it"
            )
        }
        // An empty payload is the echo of clearing a retained command, not a command.
        guard message.payloadBytes > 0 else { return .ignore }
        guard message.payloadBytes <= maximumPayloadBytes else {
            return .refuse(
                warning:
                    "command: ignoring \(message.payloadBytes)-byte payload on \(message.topic) (at most \(maximumPayloadBytes))"
            )
        }
        switch command {
        case .refresh:
            return .refresh(location: id)
        case .setUnit:
            let text = String(decoding: message.payload, as: UTF8.self)
            guard String(validating: message.payload, as: UTF8.self) != nil, let unit = TemperatureUnit(command: text)
            else {
                return .refuse(
                    warning:
                        "command: refused unit \(quotedForLog(text)) on \(message.topic); expected celsius, fahrenheit, C, F, °C or °F"
                )
            }
            return .setUnit(location: id, unit)
        }
    }
}
