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

/// The locations whose whole tree a `refresh` asked to publish again, sent a batch at a time
/// (docs/operations.md, Limits).
///
/// A `refresh` sent to every location of a fleet at once asked for every tree at once: at 1,000
/// locations 285,000 QoS 1 messages queued in libmosquitto in one go, and glibc kept the memory
/// they had taken long after they were sent. Queued here, a batch goes out while connected, when
/// the state's one watch of the outcomes has settled: the broker acknowledged everything before
/// it, or 30 s passed. Each location is queued once however often it asks; a disconnect empties
/// the queue (the reconnect re-publishes everything).
struct RepublishQueue {
    /// Locations re-sent together: about 2,300 messages with the bench's 285-topic trees.
    static let batch = 8

    private var queued: [Int] = []
    private var waiting: Set<Int> = []

    var isEmpty: Bool { queued.isEmpty }
    var count: Int { queued.count }

    /// Queues a location's whole tree; a location already waiting keeps its place.
    mutating func add(_ location: Int) {
        if waiting.insert(location).inserted { queued.append(location) }
    }

    /// The next batch, oldest first, taken off the queue.
    mutating func next() -> [Int] {
        let taken = Array(queued.prefix(Self.batch))
        queued.removeFirst(taken.count)
        waiting.subtract(taken)
        return taken
    }

    /// A reconnect re-publishes everything anyway.
    mutating func removeAll() {
        queued = []
        waiting = []
    }
}
