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
@testable import BreezeConfig
import BreezeCore
import Testing

/// The retained ledger alone: plans and records without a transport, time as an argument.
@Suite("RetainedLedger: a flush planned, sent elsewhere, recorded")
struct RetainedLedgerTests {
    static let t0 = ContinuousClock.now
    static let config = "homeassistant/device/breeze_home/config"

    static func ledger(delay: Duration = .zero) -> RetainedLedger {
        RetainedLedger(
            grouping: PublishedGrouping(layout: TopicLayout(prefix: "breeze")), clearDelay: delay,
            clearsAtOnce: { $0.hasPrefix("homeassistant/") }, dropsFlushedTrees: false,
            deviceConfigs: TopicLayout(prefix: "breeze", discoveryPrefix: "homeassistant"))
    }

    static func tree(_ pairs: [(String, String)]) -> TopicTree {
        var tree = TopicTree()
        for (topic, payload) in pairs { tree.set(topic, payload) }
        return tree
    }

    /// Plans a flush at `now`, every send succeeding; returns what it sent (clears as `topic=`).
    static func flush(_ ledger: inout RetainedLedger, at now: ContinuousClock.Instant) -> [String] {
        let plan = ledger.plan(everything: false, now: now)
        ledger.record(
            plan, plan.deliveries.map { _ in .sent }, cleared: plan.clears, failed: false)
        return plan.deliveries.map { "\($0.topic)=\($0.payload)" } + plan.clears.map { "\($0)=" }
    }

    @Test func aCompactedPayloadIsTheSameText() {
        var built = ""
        for index in 0..<2000 { built += "{\"entity_\(index)\": \"Gräser ✓\"}," }
        for text in ["", "x", "short ascii", "Gräser", built, String(built.prefix(17))] {
            #expect(text.compacted == text)
            #expect(text.compacted.utf8.count == text.utf8.count)
        }
    }

    @Test func aPlanSendsTheDifferenceAndTheRecordMakesItPublished() {
        var ledger = Self.ledger()
        ledger.set(
            scope: "breeze/home/pollen", Self.tree([("breeze/home/pollen", "{}"), ("breeze/home/pollen/a", "1")]))
        #expect(Self.flush(&ledger, at: Self.t0) == ["breeze/home/pollen={}", "breeze/home/pollen/a=1"])
        #expect(ledger.publishedCount == 2)
        ledger.set(
            scope: "breeze/home/pollen", Self.tree([("breeze/home/pollen", "{}"), ("breeze/home/pollen/a", "2")]))
        #expect(Self.flush(&ledger, at: Self.t0) == ["breeze/home/pollen/a=2"])
        #expect(ledger.publishedDigests["breeze/home/pollen/a"] == PayloadDigest(payload: "2"))
    }

    /// The broker's outcomes come back as events, after the flush that sent them was recorded
    /// (the loop owns the publisher): a refusal of this flush's own send takes the topic out of
    /// the published set then.
    @Test func aRefusalReportedAfterTheFlushKeepsTheTopicOutOfThePublishedSet() {
        var ledger = Self.ledger()
        ledger.set(
            scope: "breeze/home/pollen", Self.tree([("breeze/home/pollen", "{}"), ("breeze/home/pollen/a", "1")]))
        let plan = ledger.plan(everything: false, now: Self.t0)
        #expect(plan.deliveries.map(\.topic) == ["breeze/home/pollen", "breeze/home/pollen/a"])
        ledger.record(plan, [.sent, .sent], cleared: [], failed: false)
        // The outcomes: the broker refused `a`, the connection lost nothing else.
        ledger.notPublished(refused: ["breeze/home/pollen/a"], lost: [])
        #expect(ledger.publishedDigests.keys.sorted() == ["breeze/home/pollen"])
        #expect(ledger.refused == ["breeze/home/pollen/a"])
        // Not sent again at the next flush of that tree (a refusal is not repeated until a
        // republish) …
        ledger.set(
            scope: "breeze/home/pollen", Self.tree([("breeze/home/pollen", "{}"), ("breeze/home/pollen/a", "1")]))
        #expect(Self.flush(&ledger, at: Self.t0).isEmpty)
        // … and a refusal reported after a flush was recorded concerns only that topic.
        ledger.set(scope: "breeze/home/pollen", Self.tree([("breeze/home/pollen", "{\"v\":2}")]))
        #expect(Self.flush(&ledger, at: Self.t0) == [#"breeze/home/pollen={"v":2}"#])
        #expect(ledger.publishedDigests["breeze/home/pollen"] == PayloadDigest(payload: #"{"v":2}"#))
    }

    @Test func aTopicLostAfterTheFlushIsSentAgainByTheNextFlush() {
        var ledger = Self.ledger()
        ledger.set(scope: "breeze/home/pollen", Self.tree([("breeze/home/pollen", "{}")]))
        let plan = ledger.plan(everything: false, now: Self.t0)
        ledger.record(plan, [.sent], cleared: [], failed: false)
        ledger.notPublished(refused: [], lost: ["breeze/home/pollen"])
        #expect(ledger.publishedCount == 0)
        ledger.set(scope: "breeze/home/pollen", Self.tree([("breeze/home/pollen", "{}")]))
        #expect(Self.flush(&ledger, at: Self.t0) == ["breeze/home/pollen={}"])
    }

    @Test func aFailedSendIsNotRecordedAndIsPlannedAgain() {
        var ledger = Self.ledger()
        ledger.set(scope: "breeze/home/pollen", Self.tree([("breeze/home/pollen", "{}")]))
        let plan = ledger.plan(everything: false, now: Self.t0)
        ledger.record(plan, [.failed], cleared: [], failed: true)
        #expect(ledger.publishedCount == 0)
        #expect(Self.flush(&ledger, at: Self.t0) == ["breeze/home/pollen={}"])
    }

    @Test func aHeldBackClearIsDueClearDelayAfterTheFlushThatDecidedIt() {
        var ledger = Self.ledger(delay: .seconds(3))
        ledger.set(
            scope: "breeze/home/pollen", Self.tree([("breeze/home/pollen", "{}"), ("breeze/home/pollen/a", "1")]))
        _ = Self.flush(&ledger, at: Self.t0)
        ledger.set(scope: "breeze/home/pollen", Self.tree([("breeze/home/pollen", "{}")]))
        let decided = Self.t0 + .seconds(10)
        #expect(Self.flush(&ledger, at: decided).isEmpty)
        #expect(ledger.nextClearDue == decided + .seconds(3))
        #expect(Self.flush(&ledger, at: decided + .milliseconds(2_999)).isEmpty)
        #expect(Self.flush(&ledger, at: decided + .seconds(3)) == ["breeze/home/pollen/a="])
        #expect(ledger.nextClearDue == nil)
        #expect(ledger.publishedCount == 1)
    }

    /// `once` waits only for clears not yet due at its flush: one due but not sent (not
    /// connected) stays held, and is not waited for (it would never come).
    @Test func aClearDueButNotSentIsNotAClearStillToComeAfterThatFlush() {
        var ledger = Self.ledger(delay: .seconds(3))
        ledger.set(
            scope: "breeze/home/pollen", Self.tree([("breeze/home/pollen", "{}"), ("breeze/home/pollen/a", "1")]))
        _ = Self.flush(&ledger, at: Self.t0)
        ledger.set(scope: "breeze/home/pollen", Self.tree([("breeze/home/pollen", "{}")]))
        #expect(Self.flush(&ledger, at: Self.t0).isEmpty)
        #expect(ledger.nextClearDue(after: Self.t0) == Self.t0 + .seconds(3))
        #expect(ledger.nextClearDue(after: Self.t0 + .milliseconds(2_999)) == Self.t0 + .seconds(3))
        let due = ledger.plan(everything: false, now: Self.t0 + .seconds(3))
        #expect(due.clears == ["breeze/home/pollen/a"])
        ledger.record(due, [], cleared: [], failed: true)
        #expect(ledger.nextClearDue == Self.t0 + .seconds(3))
        #expect(ledger.nextClearDue(after: Self.t0 + .seconds(3)) == nil)
    }

    @Test func aDeviceConfigThatDropsAComponentNamesItForRemovalOnce() {
        var ledger = Self.ledger()
        let both =
            #"{"components":{"a":{"platform":"sensor","unique_id":"x_a"},"b":{"platform":"binary_sensor","unique_id":"x_b"}}}"#
        let onlyA = #"{"components":{"a":{"platform":"sensor","unique_id":"x_a"}}}"#
        ledger.set(scope: Self.config, Self.tree([(Self.config, both)]))
        #expect(Self.flush(&ledger, at: Self.t0) == ["\(Self.config)=\(both)"])
        #expect(ledger.publishedPayload(Self.config) == both)
        // The component left out is named with its platform alone, for this one publish.
        ledger.set(scope: Self.config, Self.tree([(Self.config, onlyA)]))
        let removal = #"{"components":{"a":{"platform":"sensor","unique_id":"x_a"},"b":{"platform":"binary_sensor"}}}"#
        #expect(Self.flush(&ledger, at: Self.t0) == ["\(Self.config)=\(removal)"])
        ledger.set(scope: Self.config, Self.tree([(Self.config, onlyA)]))
        #expect(Self.flush(&ledger, at: Self.t0) == ["\(Self.config)=\(onlyA)"])
        // Outside the device configs nothing is rewritten.
        ledger.set(scope: "breeze/home/pollen", Self.tree([("breeze/home/pollen", both)]))
        ledger.set(scope: "breeze/home/pollen", Self.tree([("breeze/home/pollen", onlyA)]))
        #expect(Self.flush(&ledger, at: Self.t0) == ["breeze/home/pollen=\(onlyA)"])
    }
}
