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

/// Tracks the QoS 1/2 publishes still waiting for the broker, by message id, and what became
/// of the others (accepted, refused, lost).
///
/// The client records a publish under the same lock the acknowledgement callback takes, before
/// libmosquitto's thread can report on it, so an acknowledgement for an id that is not pending
/// belongs to no tracked publish (a message libmosquitto re-sent after a reconnect, whose
/// publish was already reported lost) and is ignored. Ids are 16-bit and wrap: with more than
/// 65 535 publishes in flight one id is pending several times; libmosquitto completes the
/// oldest message with that id first, and so does this tracker.
struct AcknowledgementTracker: Sendable, Equatable {
    private var pending: [Int32: [String]] = [:]
    private(set) var pendingCount = 0
    private var outcomes = PublishOutcomes()

    init() {}

    /// `mosquitto_publish` queued a QoS 1/2 message as `mid`.
    mutating func published(mid: Int32, topic: String) {
        pending[mid, default: []].append(topic)
        pendingCount += 1
    }

    /// The client refused a publish itself (it was never sent).
    mutating func refusedLocally(topic: String, refusal: PublishRefusal) {
        record(refused: RefusedPublish(topic: topic, refusal: refusal))
    }

    /// The broker answered `mid` with `reasonCode` (below 0x80: accepted). Returns the refusal,
    /// if it was one of ours and refused.
    @discardableResult
    mutating func completed(mid: Int32, reasonCode: Int, reasonString: String? = nil) -> RefusedPublish? {
        guard var topics = pending[mid], !topics.isEmpty else { return nil }
        let topic = topics.removeFirst()
        pending[mid] = topics.isEmpty ? nil : topics
        pendingCount -= 1
        guard reasonCode >= 0x80 else {
            outcomes.accepted += 1
            return nil
        }
        let refused = RefusedPublish(
            topic: topic, refusal: PublishRefusal(brokerCode: reasonCode, reasonString: reasonString))
        record(refused: refused)
        return refused
    }

    /// The connection ended: every pending publish is lost (an acknowledgement on a later
    /// connection is not one for these). Returns how many.
    @discardableResult
    mutating func connectionLost() -> Int {
        let count = pendingCount
        for mid in pending.keys.sorted() {
            for topic in pending[mid]! { recordLost(topic) }
        }
        pending = [:]
        pendingCount = 0
        return count
    }

    /// True when no QoS 1/2 publish is waiting for the broker.
    var settled: Bool { pendingCount == 0 }

    /// True when nothing was refused or lost since the outcomes were last taken.
    var noFailures: Bool { outcomes.noFailures }

    /// Hands over the outcomes recorded so far and starts a new record; pending publishes stay.
    mutating func take() -> PublishOutcomes {
        var taken = outcomes
        outcomes = PublishOutcomes()
        taken.pending = pending.values.flatMap { $0 }.sorted()
        return taken
    }

    private mutating func record(refused: RefusedPublish) {
        if outcomes.refused.count + outcomes.lost.count < PublishOutcomes.recordLimit {
            outcomes.refused.append(refused)
        } else {
            outcomes.unrecorded += 1
        }
    }

    private mutating func recordLost(_ topic: String) {
        if outcomes.refused.count + outcomes.lost.count < PublishOutcomes.recordLimit {
            outcomes.lost.append(topic)
        } else {
            outcomes.unrecorded += 1
        }
    }
}
