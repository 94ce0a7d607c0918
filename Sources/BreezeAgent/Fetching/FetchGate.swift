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

import Synchronization

/// Lets at most `limit` fetches run between their start and the loop taking their result;
/// the others wait, first come first served.
///
/// Why: curl answers faster than the loop applies answers (a fleet-wide `refresh` of 1,000
/// locations is 3,000 requests), and an answer nobody bounded waits in the event stream with
/// its decoded data. Those waiting answers were the largest transient block of a cycle, and
/// glibc's heap kept the pages they left between long-lived blocks.
final class FetchGate: Sendable {
    let limit: Int
    private let state: Mutex<Waiting>

    private struct Waiting: ~Copyable {
        var free: Int
        var waiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
        var order: [UInt64] = []
        var head = 0
        var nextID: UInt64 = 0

        /// The next waiter still waiting (a cancelled one left the dictionary, not the order).
        mutating func popFirst() -> CheckedContinuation<Bool, Never>? {
            while head < order.count {
                let id = order[head]
                head += 1
                if let waiter = waiters.removeValue(forKey: id) {
                    compact()
                    return waiter
                }
            }
            compact()
            return nil
        }

        private mutating func compact() {
            if head == order.count {
                order.removeAll(keepingCapacity: false)
                head = 0
            } else if head > 1024 && head * 2 > order.count {
                order.removeFirst(head)
                head = 0
            }
        }
    }

    init(limit: Int) {
        self.limit = max(1, limit)
        self.state = Mutex(Waiting(free: max(1, limit)))
    }

    /// Waits for a place: true once it has one (give it back with ``leave()``), false when the
    /// task was cancelled first (no place taken).
    func enter() async -> Bool {
        let id = state.withLock { waiting in
            waiting.nextID += 1
            return waiting.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                // A cancellation before this point has set the flag already; one after it finds
                // the waiter in the dictionary.
                let answer: Bool? = state.withLock { waiting in
                    if Task.isCancelled { return false }
                    if waiting.free > 0 {
                        waiting.free -= 1
                        return true
                    }
                    waiting.waiters[id] = continuation
                    waiting.order.append(id)
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: false)
        }
    }

    /// Gives a place back: to the first waiter, or to the free ones.
    func leave() {
        let next = state.withLock { waiting -> CheckedContinuation<Bool, Never>? in
            if let next = waiting.popFirst() { return next }
            waiting.free = min(waiting.free + 1, limit)
            return nil
        }
        next?.resume(returning: true)
    }
}

/// One fetch's place in a ``FetchGate``, given back exactly once, whoever is first: the loop
/// taking the result, the loop abandoning the fetch, or the fetch cancelled.
final class FetchTicket: Sendable {
    private enum Phase { case waiting, holding, answered, done }
    private let gate: FetchGate
    private let phase = Mutex(Phase.waiting)

    init(_ gate: FetchGate) { self.gate = gate }

    /// Waits for the place; false when the ticket was given back or the task cancelled first.
    func enter() async -> Bool {
        guard await gate.enter() else { return false }
        let given = phase.withLock { phase in
            guard phase == .waiting else { return false }
            phase = .holding
            return true
        }
        if !given { gate.leave() }
        return given
    }

    /// The fetch's answer is on its way to the loop: the `.fetched` the loop takes next for
    /// this key is this fetch's, not a stale one of a fetch the loop abandoned before.
    func answered() {
        phase.withLock { phase in
            if phase == .holding { phase = .answered }
        }
    }

    var isAnswered: Bool { phase.withLock { $0 == .answered } }

    /// Gives the place back if it is held, and makes a later ``enter()`` give it back at once.
    func release() {
        let held = phase.withLock { phase in
            defer { phase = .done }
            return phase == .holding || phase == .answered
        }
        if held { gate.leave() }
    }
}
