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
import BreezeConfig
import BreezeCore
import Testing

/// `--demo` with a real configuration: sample data never reaches the user's devices (issue 39).
@Suite("Demo guard")
struct DemoGuardTests {
    @Test func devicePublishesAndUploadsBecomeLogLinesAndTheDemoTreeStays() {
        let own = OutgoingMessage(topic: "breeze-demo/home/pollen/level", payload: "3", qos: 1, retain: true)
        let wled = OutgoingMessage(topic: "wled/kitchen/api", payload: #"{"on":true}"#, qos: 1, retain: false)
        let upload = OpenEPaperLinkUpload(
            url: "http://ap.local/imgupload", mac: "0000021F0B2B7A1C", filename: "tag.jpg", jpeg: [1, 2, 3])
        let (actions, uploads) = DemoGuard.filter(
            [.publish(own), .publish(wled), .upload(4, upload), .log(.info, "x")],
            layout: TopicLayout(prefix: "breeze-demo"))
        #expect(uploads == [4])
        #expect(actions.count == 4)
        guard case .publish(let kept) = actions[0] else {
            Issue.record("the demo's own topic was not kept: \(actions[0])")
            return
        }
        #expect(kept == own)
        let lines = actions.compactMap { if case .log(_, let text) = $0 { text } else { nil } }
        #expect(lines.contains(#"demo: would send to "wled/kitchen/api" (qos 1): "{\"on\":true}""#), "\(lines)")
        #expect(
            lines.contains(
                "demo: would upload tag.jpg (3 bytes) to the OpenEPaperLink access point for tag 0000021F0B2B7A1C"),
            "\(lines)")
        #expect(!actions.contains { if case .upload = $0 { true } else { false } })
        // A topic that only starts like the prefix is someone else's.
        let lookalike = OutgoingMessage(topic: "breeze-demo2/x", payload: "1", qos: 0, retain: false)
        #expect(
            DemoGuard.filter([.publish(lookalike)], layout: TopicLayout(prefix: "breeze-demo")).actions.allSatisfy {
                if case .log = $0 { true } else { false }
            })
    }

    @Test func aDevicesRetainedScopeIsLeftAloneAndTheDemoScopesStay() {
        func tree(_ topic: String, _ payload: String) -> TopicTree {
            var tree = TopicTree()
            tree.set(topic, payload)
            return tree
        }
        let own = SinkScope(prefix: "breeze-demo/home/pollen", tree: tree("breeze-demo/home/pollen/level", "3"))
        let clock = SinkScope(prefix: "awtrix_kitchen/custom/breeze", tree: tree("awtrix_kitchen/custom/breeze", "{}"))
        let cleared = SinkScope(prefix: "homeassistant/device/x/config", tree: nil)
        let (actions, _) = DemoGuard.filter(
            [.setScope(own), .setScope(clock), .setScope(cleared)], layout: TopicLayout(prefix: "breeze-demo"))
        #expect(actions.count == 2)
        guard case .setScope(let kept) = actions.first else {
            Issue.record("the demo's own scope was not kept: \(actions)")
            return
        }
        #expect(kept == own)
        guard case .log(_, let line) = actions.last else {
            Issue.record("no line for the device's scope: \(actions)")
            return
        }
        #expect(line == #"demo: would keep 1 retained topic(s) under "awtrix_kitchen/custom/breeze" (a device's)"#)
    }
}
