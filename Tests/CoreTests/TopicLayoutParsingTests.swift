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
        #expect(Self.layout.isDiscoveryTopic(Self.layout.homeAssistantBirth.name))
        #expect(!Self.layout.isDiscoveryTopic("homeassistant"))
        #expect(!Self.layout.isDiscoveryTopic("homeassistantx/status"))
        #expect(!Self.layout.isDiscoveryTopic("breeze/home/pollen"))
        #expect(Self.layout.deviceConfigs == "homeassistant/device/")
        #expect(Self.layout.agentDeviceConfigs == "homeassistant/device/breeze_")
        let config = Self.layout.location("home").deviceConfig
        #expect(config == "homeassistant/device/breeze_home/config")
        #expect(config.name.hasPrefix(Self.layout.agentDeviceConfigs))
        // A prefix with levels is slugged the same way in both.
        let nested = TopicLayout(prefix: "site/a", discoveryPrefix: "ha")
        #expect(nested.location("x").deviceConfig.name.hasPrefix(nested.agentDeviceConfigs))
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
        #expect(Topic.isAtOrBelow("a/b", "a/b"))
        #expect(Topic.isAtOrBelow("a/b/c", "a/b"))
        #expect(!Topic.isAtOrBelow("a/bc", "a/b"))
        #expect(!Topic.isAtOrBelow("a", "a/b"))
        // A scope that is a prefix of another level's name.
        #expect(!Topic.isAtOrBelow("breeze/homeX/pollen", "breeze/home"))
        #expect(!Topic.isAtOrBelow("breeze/homeX", "breeze/home"))
        #expect(Topic.isAtOrBelow("breeze/home/", "breeze/home"))
        // Empty levels are levels: `a//b` lies under `a` and under `a/`.
        #expect(Topic.isAtOrBelow("a//b", "a"))
        #expect(Topic.isAtOrBelow("a//b", "a/"))
        #expect(!Topic.isAtOrBelow("a/b", "a/"))
        // Wildcards are characters here, not patterns.
        #expect(!Topic.isAtOrBelow("a/b", "a/+"))
        #expect(!Topic.isAtOrBelow("a/b", "#"))
        #expect(Topic.isAtOrBelow("a/+/c", "a/+"))
    }

    @Test func belowIsUnderButNotTheScopeItself() {
        #expect(!Topic.isDescendant("a/b", of: "a/b"))
        #expect(Topic.isDescendant("a/b/c", of: "a/b"))
        #expect(Topic.isDescendant("a/b/", of: "a/b"))
        #expect(!Topic.isDescendant("a/bc", of: "a/b"))
        #expect(!Topic.isDescendant("a", of: "a/b"))
        #expect(!Topic.isDescendant("", of: ""))
        #expect(Topic.isDescendant("/x", of: ""))
        // Every topic below is under; the scope itself only under.
        for topic in ["a", "a/b", "a/b/c", "a/bc", "a//", "b/a/b"] {
            #expect(
                Topic.isAtOrBelow(topic, "a/b")
                    == (topic == "a/b" || Topic.isDescendant(topic, of: "a/b")), "\(topic)")
        }
    }

    @Test func underThePrefixMeansBelowItNotThePrefixItself() {
        #expect(Self.layout.isUnderPrefix("breeze/home/pollen"))
        #expect(Self.layout.isUnderPrefix("breeze/status"))
        #expect(Self.layout.isUnderPrefix("breeze/"))
        #expect(!Self.layout.isUnderPrefix("breeze"))
        #expect(!Self.layout.isUnderPrefix("breezeX/home"))
        #expect(!Self.layout.isUnderPrefix("homeassistant/device/breeze_home/config"))
        let nested = TopicLayout(prefix: "site/a")
        #expect(nested.isUnderPrefix("site/a/home"))
        #expect(!nested.isUnderPrefix("site/ab/home"))
        #expect(!nested.isUnderPrefix("site/home"))
    }

    @Test func theLocationLevelStopsAtTheNextSlash() {
        #expect(Self.layout.locationLevel(of: "breeze/") == "")
        #expect(Self.layout.locationLevel(of: "breeze//pollen") == "")
        #expect(Self.layout.locationLevel(of: "breeze/homeX/pollen") == "homeX")
        #expect(TopicLayout(prefix: "site/a").locationLevel(of: "site/a/home/pollen") == "home")
        #expect(TopicLayout(prefix: "site/a").locationLevel(of: "site/ab/home") == nil)
    }

    @Test func theDeviceLevelOfThisPrefixsDeviceConfigs() {
        #expect(Self.layout.agentDeviceLevel(of: "homeassistant/device/breeze_home/config") == "home")
        #expect(Self.layout.agentDeviceLevel(of: "homeassistant/device/breeze_home") == "home")
        #expect(Self.layout.agentDeviceLevel(of: "homeassistant/device/breeze_") == "")
        #expect(Self.layout.agentDeviceLevel(of: "homeassistant/device/breeze_/config") == "")
        #expect(Self.layout.agentDeviceLevel(of: "homeassistant/device/breeze") == nil)
        #expect(Self.layout.agentDeviceLevel(of: "homeassistant/device/breezeX_home/config") == nil)
        #expect(Self.layout.agentDeviceLevel(of: "homeassistant/device/other_home/config") == nil)
        #expect(Self.layout.agentDeviceLevel(of: "breeze/home/pollen") == nil)
        // A prefix with levels: its slug, not its levels.
        let nested = TopicLayout(prefix: "site/a", discoveryPrefix: "ha")
        let config = nested.location("home").deviceConfig
        #expect(nested.agentDeviceLevel(of: config.name) == "home", "\(config)")
    }

    @Test func theAncestorsOfATopicNearestFirst() {
        #expect(Array(Topic.ancestors(of: "a/b/c")) == ["a/b", "a"])
        #expect(Array(Topic.ancestors(of: "breeze/homeX/pollen")) == ["breeze/homeX", "breeze"])
        #expect(Array(Topic.ancestors(of: "a")).isEmpty)
        #expect(Array(Topic.ancestors(of: "")).isEmpty)
        #expect(Array(Topic.ancestors(of: "a//b")) == ["a/", "a"])
        #expect(Array(Topic.ancestors(of: "/a")) == [""])
        #expect(Array(Topic.ancestors(of: "a/")) == ["a"])
        // Every ancestor holds the topic under it.
        for ancestor in Topic.ancestors(of: "x/y/z/w") {
            #expect(Topic.isDescendant("x/y/z/w", of: String(ancestor)), "\(ancestor)")
        }
    }

    @Test func aLevelByItsIndex() {
        #expect(Topic.level(0, of: "a/b/c") == "a")
        #expect(Topic.level(1, of: "a/b/c") == "b")
        #expect(Topic.level(2, of: "a/b/c") == "c")
        #expect(Topic.level(3, of: "a/b/c") == nil)
        #expect(Topic.level(1, of: "a") == nil)
        #expect(Topic.level(0, of: "a") == "a")
        #expect(Topic.level(0, of: "") == "")
        #expect(Topic.level(1, of: "a/") == "")
        #expect(Topic.level(1, of: "a//c") == "")
        #expect(Topic.level(0, of: "/b") == "")
        #expect(Topic.level(1, of: "/b") == "b")
    }

    @Test func aPlainTopicNamesOneSubtree() {
        for topic in ["breeze", "site/a", "a/b/c", "a/$SYS", String(repeating: "a", count: 1024)] {
            #expect(Topic.isPlain(topic), "\(topic)")
        }
        for topic in [
            "", "/", "/a", "a/", "a//b", "$SYS/x", "a/#", "#", "a/+/b", "+", "a/b+", "a\u{0}b",
            String(repeating: "a", count: 1025),
        ] {
            #expect(!Topic.isPlain(topic), "\(topic.debugDescription)")
        }
    }
}
