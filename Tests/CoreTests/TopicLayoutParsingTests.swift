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

import BreezeCore
import Testing

/// `TopicLayout` reads topics as well as spelling them: the owner of a topic, Home Assistant's
/// topics, the device configs' prefixes, commands.
@Suite("TopicLayout parses the topics it spells")
struct TopicLayoutParsingTests {
    static let layout = TopicLayout(prefix: "breeze", discoveryPrefix: "homeassistant")

    @Test func theLocationLevelIsTheSecondLevelUnderThePrefix() {
        #expect(Self.layout.locationPrefix == "breeze/")
        #expect(Self.layout.locationLevel(of: "breeze/home/pollen/grass/value") == "home")
        #expect(Self.layout.locationLevel(of: "breeze/home") == "home")
        #expect(Self.layout.locationLevel(of: "breeze/status") == "status")
        #expect(Self.layout.locationLevel(of: "breezy/home/pollen") == nil)
        #expect(Self.layout.locationLevel(of: "breeze") == nil)
        #expect(Self.layout.locationLevel(of: "homeassistant/device/breeze_home/config") == nil)
    }

    @Test func homeAssistantTopicsAndTheDeviceConfigPrefixes() {
        #expect(Self.layout.isDiscoveryTopic("homeassistant/device/breeze_home/config"))
        #expect(Self.layout.isDiscoveryTopic(Self.layout.homeAssistantBirth))
        #expect(!Self.layout.isDiscoveryTopic("homeassistant"))
        #expect(!Self.layout.isDiscoveryTopic("homeassistantx/status"))
        #expect(!Self.layout.isDiscoveryTopic("breeze/home/pollen"))
        #expect(Self.layout.deviceConfigs == "homeassistant/device/")
        #expect(Self.layout.agentDeviceConfigs == "homeassistant/device/breeze_")
        let config = Self.layout.location("home").deviceConfig
        #expect(config == "homeassistant/device/breeze_home/config")
        #expect(config.hasPrefix(Self.layout.agentDeviceConfigs))
        // A prefix with levels is slugged the same way in both.
        let nested = TopicLayout(prefix: "site/a", discoveryPrefix: "ha")
        #expect(nested.location("x").deviceConfig.hasPrefix(nested.agentDeviceConfigs))
    }

    @Test func commandsNeedALocationLevelAndACommandUnderIt() {
        #expect(Self.layout.command(on: "breeze/home/refresh")?.locationID == "home")
        #expect(Self.layout.command(on: "breeze/home/refresh")?.command == .refresh)
        #expect(Self.layout.command(on: "breeze/home/climate/unit/set")?.command == .setUnit)
        #expect(Self.layout.command(on: "breeze//refresh") == nil)
        #expect(Self.layout.command(on: "breeze/home") == nil)
        #expect(Self.layout.command(on: "breeze/home/pollen") == nil)
        #expect(Self.layout.command(on: "other/home/refresh") == nil)
    }

    @Test func aLocationIDNeedsALevelBelowIt() {
        #expect(Self.layout.locationID(of: "breeze/home/pollen") == "home")
        #expect(Self.layout.locationID(of: "breeze/status/1") == "status")
        #expect(Self.layout.locationID(of: "breeze/home") == nil)
        #expect(Self.layout.locationID(of: "breeze//pollen") == nil)
        #expect(Self.layout.locationID(of: "other/home/pollen") == nil)
        #expect(TopicLayout.reservedLevels == ["status", "diagnostics", "agent"])
    }

    @Test func deviceConfigsAnyAgentsAndThisPrefixs() {
        #expect(Self.layout.isDeviceConfig("homeassistant/device/other_x/config"))
        #expect(Self.layout.isDeviceConfig("homeassistant/device/breeze_home/config"))
        #expect(!Self.layout.isDeviceConfig("homeassistant/device/breeze_home/state"))
        #expect(!Self.layout.isDeviceConfig("homeassistant/status"))
        #expect(Self.layout.isAgentDeviceConfig("homeassistant/device/breeze_home/config"))
        #expect(!Self.layout.isAgentDeviceConfig("homeassistant/device/other_x/config"))
    }

    @Test func containsReadsLevelsNotCharacters() {
        #expect(TopicLayout.contains("a/b", under: "a/b"))
        #expect(TopicLayout.contains("a/b/c", under: "a/b"))
        #expect(!TopicLayout.contains("a/bc", under: "a/b"))
        #expect(!TopicLayout.contains("a", under: "a/b"))
    }
}
