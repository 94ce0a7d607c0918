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
import BreezeTestSupport
import Testing

/// The gate that bounds the fetches between their start and the loop taking their answer
/// (``FetchGate``, ``FetchTicket``): places, their order, and every way one is given back.
@Suite("The fetch gate")
struct FetchGateTests {
    /// The names of the tickets that got their place, in that order.
    typealias Entered = OnceLoopTests.Lines

    /// Starts `ticket.enter()` in a task that records `name` once it has its place.
    static func enter(_ ticket: FetchTicket, _ name: String, into entered: Entered) -> Task<Bool, Never> {
        Task {
            let given = await ticket.enter()
            if given { entered.append(name) }
            return given
        }
    }

    /// True when nothing more entered within a short while: a check that can only fail (a
    /// place given too early shows within milliseconds), never one that waits for luck.
    static func staysOut(_ entered: Entered, count: Int) async -> Bool {
        await !eventually(bound: .milliseconds(300)) { entered.all.count > count }
    }

    @Test(.timeLimit(.minutes(1)))
    func theFirstLimitEnterAtOnceEachReleaseLetsOneMoreIn() async throws {
        let (gate, entered) = (FetchGate(limit: 2), Entered())
        let tickets = (0..<5).map { _ in FetchTicket(gate) }
        #expect(await tickets[0].enter())
        #expect(await tickets[1].enter())
        let waiting = (2..<5).map { Self.enter(tickets[$0], "t\($0)", into: entered) }
        #expect(await Self.staysOut(entered, count: 0))
        // Each place given back lets one waiter in: the two first holders', then the place of
        // the waiter that entered first (which one that is, the tasks' start decides).
        for round in 0..<3 {
            let holder = round < 2 ? tickets[round] : tickets[Int(entered.all[0].dropFirst())!]
            holder.release()
            try #require(await eventually(bound: .seconds(10)) { entered.all.count == round + 1 })
            #expect(await Self.staysOut(entered, count: round + 1))
        }
        for task in waiting { #expect(await task.value) }
        #expect(Set(entered.all) == ["t2", "t3", "t4"])
    }

    @Test(.timeLimit(.minutes(1)))
    func aPlaceIsGivenBackOnceHoweverOftenItsTicketIsReleased() async throws {
        let (gate, entered) = (FetchGate(limit: 1), Entered())
        let (first, second, third) = (FetchTicket(gate), FetchTicket(gate), FetchTicket(gate))
        #expect(await first.enter())
        let secondTask = Self.enter(second, "second", into: entered)
        #expect(await Self.staysOut(entered, count: 0))
        first.release()
        try #require(await eventually(bound: .seconds(10)) { entered.all == ["second"] })
        // Again, after its place went to the second: it gives nothing back a second time.
        first.release()
        let thirdTask = Self.enter(third, "third", into: entered)
        #expect(await Self.staysOut(entered, count: 1))
        second.release()
        try #require(await eventually(bound: .seconds(10)) { entered.all == ["second", "third"] })
        #expect(await secondTask.value)
        #expect(await thirdTask.value)
    }

    @Test(.timeLimit(.minutes(1)))
    func aWaiterCancelledOrReleasedBeforeItsTurnTakesNoPlace() async throws {
        let (gate, entered) = (FetchGate(limit: 1), Entered())
        let holder = FetchTicket(gate)
        #expect(await holder.enter())
        let (cancelled, released, last) = (FetchTicket(gate), FetchTicket(gate), FetchTicket(gate))
        let cancelledTask = Self.enter(cancelled, "cancelled", into: entered)
        let releasedTask = Self.enter(released, "released", into: entered)
        cancelledTask.cancel()
        #expect(await cancelledTask.value == false)
        // Released while it waits (the loop abandoned its fetch): a place it is given goes on.
        released.release()
        let lastTask = Self.enter(last, "last", into: entered)
        #expect(await Self.staysOut(entered, count: 0))
        holder.release()
        try #require(await eventually(bound: .seconds(10)) { entered.all == ["last"] })
        #expect(await lastTask.value)
        // The one place is the last's: a new ticket waits until it is given back.
        let afterTask = Self.enter(FetchTicket(gate), "after", into: entered)
        #expect(await Self.staysOut(entered, count: 1))
        last.release()
        try #require(await eventually(bound: .seconds(10)) { entered.all == ["last", "after"] })
        #expect(await afterTask.value)
        #expect(await releasedTask.value == false)
    }

    /// The loop frees a place on a `.fetched` only when that key's ticket says its answer is on
    /// the way: a stale answer of an abandoned fetch must not free the newer fetch's place.
    @Test(.timeLimit(.minutes(1)))
    func onlyAnAnsweredTicketCountsAsTheAnswersOwnerAndItsPlaceIsStillGivenBackOnce() async throws {
        let (gate, entered) = (FetchGate(limit: 1), Entered())
        let ticket = FetchTicket(gate)
        #expect(!ticket.isAnswered)
        ticket.answered()
        #expect(!ticket.isAnswered, "a ticket without its place has no answer")
        #expect(await ticket.enter())
        #expect(!ticket.isAnswered)
        ticket.answered()
        #expect(ticket.isAnswered)
        let next = Self.enter(FetchTicket(gate), "next", into: entered)
        #expect(await Self.staysOut(entered, count: 0))
        ticket.release()
        #expect(!ticket.isAnswered)
        try #require(await eventually(bound: .seconds(10)) { entered.all == ["next"] })
        #expect(await next.value)
        ticket.release()
        let last = Self.enter(FetchTicket(gate), "last", into: entered)
        #expect(await Self.staysOut(entered, count: 1))
        last.cancel()
        #expect(await last.value == false)
    }

    @Test(.timeLimit(.minutes(1)))
    func aTaskCancelledBeforeItAsksTakesNoPlace() async throws {
        let gate = FetchGate(limit: 1)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await FetchTicket(gate).enter()
        }
        #expect(await task.value == false)
        #expect(await FetchTicket(gate).enter())
    }
}
