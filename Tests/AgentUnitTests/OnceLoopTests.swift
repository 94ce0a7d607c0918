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
import BreezeHTTP
import BreezeMQTT
import BreezeTestSupport
import Foundation
import Synchronization
import Testing

/// `once` on the daemon loop's broker protocol and clock (``Agent/once(client:)``): an
/// in-memory broker and a clock the test moves. Its waits (the connect timeout, Open-Meteo's
/// per-minute window) are sleeps on that clock, so the test sees each as an event
/// (``ManualDaemonClock/nextSleep()``) and moves the clock past it; nothing sleeps for real.
@Suite("once against an in-memory broker and a hand-moved clock")
struct OnceLoopTests {
    /// Answers every GET with `answer(url)` and counts the requests.
    final class Answers: HTTPFetching {
        private let count = Mutex(0)
        private let answer: @Sendable (String, [QueryParameter]) async -> FetchedResponse
        var requests: Int { count.withLock { $0 } }

        init(_ answer: @escaping @Sendable (String, [QueryParameter]) async -> FetchedResponse) {
            self.answer = answer
        }

        func get(
            _ url: String, query: [QueryParameter], headers: [(name: String, value: String)]
        ) async throws(CurlError) -> FetchedResponse {
            count.withLock { $0 += 1 }
            return await answer(url, query)
        }
    }

    /// The log lines an agent wrote, each a ``TestEvents`` report (``eventually(bound:_:)`` wakes).
    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        func append(_ line: String) {
            lines.withLock { $0.append(line) }
            TestEvents.shared.report()
        }
        func containing(_ text: String) -> [String] { all.filter { $0.contains(text) } }
    }

    static func agent(
        _ config: AgentConfig, clock: ManualDaemonClock, answers: Answers, lines: Lines = Lines(),
        stateDirectory: String? = nil
    ) -> Agent {
        let log = Log(level: .debug, timestamps: false, sink: { lines.append($0) })
        return Agent(
            config: config, log: log, store: StateStore(directory: stateDirectory, log: log), http: answers,
            demo: false, clock: clock)
    }

    /// Every request answered by the bundled demo responses (Open-Meteo pollen, air).
    static func demoAnswers() -> Answers {
        let demo = DemoResponder(today: { CivilDate(iso: "2026-06-15")! })
        return Answers { url, query in
            (try? await demo.get(url, query: query, headers: [])) ?? .init(status: 500, body: [])
        }
    }

    /// A one-day Google pollen body for every request (a new counter per test).
    static func googlePollen() -> Answers {
        Answers { _, _ in FetchedResponse(status: 200, body: FanOutLimitTests.googleBody(plants: 0)) }
    }

    @Test(.timeLimit(.minutes(1)))
    func publishesTheTreeLeavesTheStatusAloneAndExitsZeroWithoutTheClockMoving() async throws {
        let config = try DaemonStateTests.config("climate: {enabled: false}")
        let home = config.topicLayout.location("home")
        let (clock, broker, answers) = (
            ManualDaemonClock(start: DaemonStateTests.t0), InMemoryBroker(), Self.googlePollen()
        )
        let code = await Self.agent(config, clock: clock, answers: answers).once(client: broker)
        #expect(code == ExitCode.success)
        #expect(answers.requests == 1)
        #expect(broker.retained[home.pollenItem("grass").name + "/value"] == "2")
        #expect(broker.retained[config.topicLayout.status.name] == nil)
        #expect(clock.elapsed == .zero)
        #expect(!broker.isConnected)
    }

    @Test(.timeLimit(.minutes(1)))
    func waitsForOpenMeteosNextMinuteOnTheClock() async throws {
        let config = try FleetPacingTests.openMeteoPollen(2, extra: "endpoints: {max_calls_per_minute: 1}")
        let layout = config.topicLayout
        let demo = DemoResponder(today: { CivilDate(iso: "2026-06-15")! })
        let answers = Answers { url, query in
            (try? await demo.get(url, query: query, headers: [])) ?? .init(status: 500, body: [])
        }
        let (clock, broker) = (ManualDaemonClock(start: DaemonStateTests.t0), InMemoryBroker())
        let once = Task { await Self.agent(config, clock: clock, answers: answers).once(client: broker) }

        // One request fits the minute; the second waits for the next window, on the clock (the
        // connect timeout's sleep, cancelled once connected, is not that wait).
        let wait = await clock.nextSleep { $0 > OneShot.connectTimeout.swiftDuration }
        #expect(wait > .zero && wait <= OneShot.maximumPacingWait.swiftDuration, "\(wait)")
        #expect(answers.requests == 1)
        clock.advance(to: wait)
        #expect(await once.value == ExitCode.success)
        #expect(answers.requests == 2)
        for id in ["loc0", "loc1"] {
            #expect(broker.retained[layout.location(id).pollenMax.name] != nil, "\(id)")
        }
    }

    /// The loop's fetch gate: at most twice `http.max_concurrent` fetches between their start
    /// and the loop taking the answer, however many the state asks for at once.
    @Test(.timeLimit(.minutes(1)))
    func fetchesRunAtMostTwiceMaxConcurrentAtOnceAndAllArrive() async throws {
        let config = try FleetPacingTests.openMeteoPollen(8, extra: "http: {max_concurrent: 1}")
        let demo = DemoResponder(today: { CivilDate(iso: "2026-06-15")! })
        let running = Mutex((now: 0, most: 0))
        let answers = Answers { url, query in
            running.withLock { $0 = (now: $0.now + 1, most: max($0.most, $0.now + 1)) }
            defer { running.withLock { $0.now -= 1 } }
            // Long enough for all eight to be under way at once, were they not held back.
            try? await Task.sleep(for: .milliseconds(30))
            return (try? await demo.get(url, query: query, headers: [])) ?? .init(status: 500, body: [])
        }
        let (clock, broker) = (ManualDaemonClock(start: DaemonStateTests.t0), InMemoryBroker())
        let code = await Self.agent(config, clock: clock, answers: answers).once(client: broker)
        #expect(code == ExitCode.success)
        #expect(answers.requests >= 8)
        #expect(running.withLock { $0.most } <= 2)
        for index in 0..<8 {
            #expect(broker.retained[config.topicLayout.location("loc\(index)").pollenMax.name] != nil, "loc\(index)")
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aBrokerThatDoesNotAnswerIsExit69AfterTenSecondsOnTheClock() async throws {
        let config = try DaemonStateTests.config("climate: {enabled: false}")
        let (clock, broker, answers) = (
            ManualDaemonClock(start: DaemonStateTests.t0), InMemoryBroker(up: false), Self.googlePollen()
        )
        let once = Task { await Self.agent(config, clock: clock, answers: answers).once(client: broker) }
        let timeout = await clock.nextSleep()
        #expect(timeout == OneShot.connectTimeout.swiftDuration)
        clock.advance(to: timeout)
        #expect(await once.value == ExitCode.unavailable)
        #expect(answers.requests == 0)
        #expect(broker.received.isEmpty)
    }

    @Test(.timeLimit(.minutes(1)))
    func aSourceWithNoUsableDataIsExit69AfterPublishing() async throws {
        let config = try DaemonStateTests.config("climate: {enabled: false}")
        let (clock, broker) = (ManualDaemonClock(start: DaemonStateTests.t0), InMemoryBroker())
        let answers = Answers { _, _ in FetchedResponse(status: 503, body: Array("unavailable".utf8)) }
        let lines = Lines()
        let code = await Self.agent(config, clock: clock, answers: answers, lines: lines).once(client: broker)
        #expect(code == ExitCode.unavailable)
        #expect(answers.requests == 1)
        // The publish itself went through; what fails the run is the source without data.
        #expect(lines.all.contains { $0.contains("once: ") && $0.contains("published") })
        #expect(lines.all.contains { $0.contains("no usable data for pollen[home]") })
    }

    @Test(.timeLimit(.minutes(1)))
    func runsOnTheDaemonLoopWithNoneOfTheDaemonsPresence() async throws {
        let config = try DaemonStateTests.config("climate: {enabled: false}")
        let layout = config.topicLayout
        let (clock, broker, answers, lines) = (
            ManualDaemonClock(start: DaemonStateTests.t0), InMemoryBroker(), Self.googlePollen(), Lines()
        )
        let started = ContinuousClock.now
        let code = await Self.agent(config, clock: clock, answers: answers, lines: lines).once(client: broker)
        let took = ContinuousClock.now - started
        #expect(code == ExitCode.success)
        // No subscriptions, no `online`, no announcement, no diagnostics, no `offline`.
        #expect(broker.subscriptions.isEmpty)
        let topics = Set(broker.received.map(\.topic))
        for topic in [layout.status.name, layout.agent.name, layout.diagnostics.name] {
            #expect(!topics.contains(topic), "\(topic)")
        }
        #expect(broker.retained[layout.location("home").pollenMax.name] != nil)
        // Nor the daemon's lines.
        #expect(
            !lines.all.contains { $0.contains("running:") || $0.contains("mqtt: connected") || $0.contains("stopped") })
        #expect(
            lines.all.last?.contains("once: ") == true && lines.all.last?.contains("published and acknowledged") == true
        )
        #expect(clock.elapsed == .zero)
        print("once on the loop against the in-memory broker took \(took)")
    }

    // The clears' time comes with `.flushed` and is a deadline of the state's one wake, so no
    // second timer can race the report (it once did: `.clearsDue` delivered while `once` was
    // still flushing was dropped, and `once` hung about one run in 70).
    @Test(.timeLimit(.minutes(1)))
    func theClearsHeldBackBehindADiscoveryChangeWaitForTheirDelayOnTheClock() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let withAir = try FleetPacingTests.openMeteoPollen(1, extra: "air: {enabled: true}")
        let first = ManualDaemonClock(start: DaemonStateTests.t0)
        let code = await Self.agent(withAir, clock: first, answers: Self.demoAnswers(), stateDirectory: directory)
            .once(client: InMemoryBroker())
        #expect(code == ExitCode.success)

        // Air is switched off: its discovery goes at once, its state topics 3 s later.
        let withoutAir = try FleetPacingTests.openMeteoPollen(1)
        let air = withoutAir.topicLayout.location("loc0").air.name
        let (clock, broker) = (ManualDaemonClock(start: DaemonStateTests.t0 + 60), InMemoryBroker())
        let once = Task {
            await Self.agent(withoutAir, clock: clock, answers: Self.demoAnswers(), stateDirectory: directory)
                .once(client: broker)
        }
        let delay = await clock.nextSleep { $0 == Agent.clearDelayAfterDiscovery }
        let cleared = { broker.received.filter { $0.topic.hasPrefix(air) && $0.payload.isEmpty } }
        #expect(cleared().isEmpty)
        clock.advance(to: delay)
        #expect(await once.value == ExitCode.success)
        #expect(!cleared().isEmpty)
    }
}
