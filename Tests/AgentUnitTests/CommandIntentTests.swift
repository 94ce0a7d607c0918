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

@testable import BreezeAgent
@testable import BreezeDaemon
import BreezeCore
import BreezeMQTT
import Testing

/// Command routing alone: a message in, an intent out, no state (SPEC §3 commands).
@Suite("CommandIntent: a message on a command topic → what it asks for")
struct CommandIntentTests {
    static let layout = TopicLayout(prefix: "breeze", discoveryPrefix: "homeassistant")
    static let locations = ["home", "office"]

    static func route(_ topic: String, _ payload: String, retain: Bool = false) -> CommandIntent? {
        CommandIntent.route(
            MQTTMessage(topic: topic, string: payload, retain: retain), layout: layout, locations: locations)
    }

    @Test func refreshAndUnitAreRoutedToTheirLocation() {
        #expect(Self.route("breeze/home/refresh", "1") == .refresh(location: "home"))
        #expect(Self.route("breeze/office/climate/unit/set", "°F") == .setUnit(location: "office", .fahrenheit))
        #expect(Self.route("breeze/office/climate/unit/set", "celsius") == .setUnit(location: "office", .celsius))
    }

    @Test func topicsThatAreNoKnownLocationsCommandsAreNotCommands() {
        #expect(Self.route("breeze/garden/refresh", "1") == nil)
        #expect(Self.route("breeze/home/pollen", "1") == nil)
        #expect(Self.route("homeassistant/status", "online") == nil)
        #expect(Self.route("other/home/refresh", "1") == nil)
    }

    @Test func retainedCommandsAreClearedAndTheirEmptyEchoIgnored() {
        #expect(
            Self.route("breeze/home/refresh", "1", retain: true)
                == .clearRetained(
                    warning:
                        "command: ignoring retained message on breeze/home/refresh (commands must not be retained); clearing it"
                ))
        #expect(Self.route("breeze/home/refresh", "", retain: true) == .ignore)
        #expect(Self.route("breeze/home/refresh", "") == .ignore)
    }

    @Test func oversizedPayloadsAndUnknownUnitsAreRefused() {
        #expect(Self.route("breeze/home/refresh", String(repeating: "x", count: 64)) == .refresh(location: "home"))
        #expect(
            Self.route("breeze/home/refresh", String(repeating: "x", count: 65))
                == .refuse(warning: "command: ignoring 65-byte payload on breeze/home/refresh (at most 64)"))
        #expect(
            Self.route("breeze/home/climate/unit/set", "kelvin")
                == .refuse(
                    warning:
                        "command: refused unit \"kelvin\" on breeze/home/climate/unit/set; expected celsius, fahrenheit, C, F, °C or °F"
                ))
        // A payload only its size is known of (over the incoming limit) is refused by size.
        let dropped = MQTTMessage(topic: "breeze/home/refresh", payload: [], droppedPayloadBytes: 5_000_000)
        #expect(
            CommandIntent.route(dropped, layout: Self.layout, locations: Self.locations)
                == .refuse(warning: "command: ignoring 5000000-byte payload on breeze/home/refresh (at most 64)"))
    }
}
