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
import Testing

@Suite("forget: which topics, in which order")
struct ForgetPlanTests {
    let layout = TopicLayout(prefix: "breeze", discoveryPrefix: "homeassistant")
    let digest = PayloadDigest(hash: 1, length: 3)
    let cleared = PayloadDigest(hash: 0xcbf2_9ce4_8422_2325, length: 0)

    func group(_ topics: [String], cleared extra: [String] = []) -> PublishedGroup {
        var group = PublishedGroup()
        for topic in topics { group.digests[topic] = digest }
        for topic in extra { group.digests[topic] = cleared }
        return group
    }

    var published: [String: PublishedGroup] {
        [
            "home": group(
                ["breeze/home/pollen", "breeze/home/pollen/max/level", "homeassistant/device/breeze_home/config"],
                cleared: ["breeze/home/pollen/oak"]),
            "my_cabin": group(["breeze/my-cabin/climate", "homeassistant/device/breeze_my_cabin/config"]),
            "status": group(["breeze/status"]),
            "agent": group(["breeze/agent/-"]),
        ]
    }

    @Test func oneOfTwoLocations() {
        let plan = ForgetPlan.make(
            locations: ["home"], all: ["home", "my-cabin"], published: published, layout: layout)
        #expect(plan.discovery == ["homeassistant/device/breeze_home/config"])
        #expect(plan.state == ["breeze/home/pollen", "breeze/home/pollen/max/level"])
        #expect(plan.agent == [])
        #expect(plan.groups == ["home"])
        #expect(plan.unrecorded == [])
        #expect(plan.total == 3)
    }

    @Test("the last location takes the agent's own topics with it, status always")
    func theLastLocation() {
        let plan = ForgetPlan.make(
            locations: ["home", "my-cabin"], all: ["home", "my-cabin"], published: published, layout: layout)
        #expect(
            plan.discovery == [
                "homeassistant/device/breeze_home/config", "homeassistant/device/breeze_my_cabin/config",
            ])
        #expect(plan.state == ["breeze/home/pollen", "breeze/home/pollen/max/level", "breeze/my-cabin/climate"])
        #expect(plan.agent == ["breeze/agent/-", "breeze/status"])
        #expect(plan.groups == ["agent", "home", "my_cabin", "status"])
        let alone = ForgetPlan.make(locations: ["home"], all: ["home"], published: [:], layout: layout)
        #expect(alone.agent == ["breeze/status"])
        #expect(alone.unrecorded == ["home"])
    }

    @Test("topics found on the broker are sorted into device configs and state, once each")
    func foundTopics() {
        var plan = ForgetPlan()
        plan.add(
            found: ["breeze/x/pollen", "homeassistant/device/breeze_x/config", "breeze/x/pollen"], layout: layout)
        #expect(plan.discovery == ["homeassistant/device/breeze_x/config"])
        #expect(plan.state == ["breeze/x/pollen"])
    }
}
