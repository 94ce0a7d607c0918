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

@testable import BreezeCore
import Testing

/// The topic as a value of levels: what TopicLayout and DeviceTopics return.
@Suite("Topic: levels, not characters")
struct TopicTests {
    @Test func aTopicNameIsValidatedOnceWhereItComesFromOutside() {
        #expect(Topic(validating: "breeze/home")?.name == "breeze/home")
        #expect(Topic(validating: "a//b") != nil)  // MQTT allows an empty level
        for bad in ["", "a/+/b", "a/#", "a\u{0}b", String(repeating: "x", count: 65_536)] {
            #expect(Topic(validating: bad) == nil, "\(bad.prefix(8).debugDescription)")
        }
    }

    @Test func appendingAddsOneWholeLevel() {
        let home: Topic = "breeze/home"
        #expect(home.appending("pollen").appending("max").name == "breeze/home/pollen/max")
        #expect(home.appending("pollen").levels == ["breeze", "home", "pollen"])
        #expect(home.level(1) == "home" && home.level(2) == nil)
        #expect(Topic.isLevel("pollen") && !Topic.isLevel("a/b") && !Topic.isLevel("+") && !Topic.isLevel("#"))
    }

    @Test func descendantsAreByLevels() {
        let home: Topic = "breeze/home"
        #expect(Topic(validating: "breeze/home/pollen")!.isDescendant(of: home))
        #expect(!Topic(validating: "breeze/homeX/pollen")!.isDescendant(of: home))
        #expect(!Topic(validating: "breeze/homeX")!.isAtOrBelow(home))
        #expect(home.isAtOrBelow(home) && !home.isDescendant(of: home))
        #expect(Array(Topic(validating: "a/b/c")!.ancestors) == ["a/b", "a"])
    }

    @Test func theLayoutAndTheDevicesSpellTopicsOfTheSameType() {
        let layout = TopicLayout(prefix: "breeze")
        let location = layout.location("home")
        #expect(location.pollenMax.isDescendant(of: location.base))
        #expect(location.base.isDescendant(of: layout.root))
        #expect(layout.status.isDescendant(of: layout.root))
        #expect(DeviceTopics.wledAPI("wled/desk").isDescendant(of: "wled/desk"))
        #expect(!DeviceTopics.wledAPI("wled/desk").isDescendant(of: "wled/de"))
    }
}
