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
import BreezeCore
import BreezeHTTP
import BreezeMQTT
import Synchronization
import Testing

/// The daemon's loop itself (``Agent/run(client:signals:)``), not only its decisions: an
/// in-memory broker (``InMemoryBroker``), a clock the test moves (``ManualDaemonClock``) and a
/// fetcher that answers every request with a Google pollen body. Hours of the daemon's life
/// take milliseconds; every wait is on an event the broker saw.
@Suite("The daemon loop against an in-memory broker and a hand-moved clock")
struct DaemonLoopTests {
    /// Answers every GET with a one-day Google pollen body (grass, tree and weed at index 2)
    /// and counts the requests.
    final class PollenAnswers: HTTPFetching {
        private let count = Mutex(0)
        var requests: Int { count.withLock { $0 } }

        func get(
            _ url: String, query: [QueryParameter], headers: [(name: String, value: String)]
        ) async throws(CurlError) -> FetchedResponse {
            count.withLock { $0 += 1 }
            return FetchedResponse(status: 200, body: FanOutLimitTests.googleBody(plants: 0))
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func startFetchPublishLoseTheBrokerReconnectAndRepublish() async throws {
        let config = try DaemonStateTests.config("climate: {enabled: false}")
        let layout = config.topicLayout
        let home = layout.location("home")
        let clock = ManualDaemonClock(start: DaemonStateTests.t0)
        let broker = InMemoryBroker()
        let answers = PollenAnswers()
        let run = Task {
            let log = Log(level: .debug, timestamps: false, sink: { _ in })
            let agent = Agent(
                config: config, log: log, store: StateStore(directory: nil, log: log), http: answers, demo: false,
                clock: clock)
            return await agent.run(client: broker, signals: [])
        }

        // Start: connected, `online`, the command topics subscribed.
        let online = await broker.next(after: 0) { $0.topic == layout.status }
        #expect(online.text == Availability.online && online.retain)
        #expect(broker.subscriptions.contains(home.commandTopics[0]))

        // The first fetch comes within the start spread (5 s for one location): moving the clock
        // past it fetches and publishes the pollen tree.
        clock.advance(by: .seconds(6))
        let grass = await broker.next(after: 0) { $0.topic == home.pollenItem("grass") + "/value" }
        #expect(grass.text == "2" && grass.retain)
        #expect(answers.requests == 1)
        let firstUpdate = await broker.next(after: 0) { $0.topic == home.pollenUpdatedAt }.text

        // The diagnostics cadence (300 s) is the barrier: published after the fetch's flush.
        var mark = broker.mark
        clock.advance(by: .seconds(300))
        let diagnostics = await broker.next(after: mark) { $0.topic == layout.diagnostics }
        #expect(!diagnostics.retain)
        let before = broker.retained
        #expect(before.keys.contains(home.pollenMax))

        // The broker goes away and comes back empty: the loop republishes the whole tree
        // (and `online`) without fetching again; the diagnostics after it close the republish.
        broker.dropConnection(reason: "broker restarted", losingRetained: true)
        #expect(broker.retained.isEmpty)
        mark = broker.mark
        broker.reconnect()
        _ = await broker.next(after: mark) { $0.topic == layout.diagnostics }
        #expect(broker.retained == before)
        #expect(answers.requests == 1)

        // The next fetch comes when the interval has passed; its new `updated_at` is published.
        mark = broker.mark
        clock.advance(by: config.pollen.interval)
        let update = await broker.next(after: mark) { $0.topic == home.pollenUpdatedAt }
        #expect(update.text != firstUpdate)
        #expect(answers.requests == 2)

        // Stopping (the task cancelled, as a signal would end it): `offline`, exit 0.
        run.cancel()
        #expect(await run.value == Invocation.ExitCode.success)
        #expect(broker.received.last?.topic == layout.status)
        #expect(broker.retained[layout.status] == Availability.offline)
    }
}
