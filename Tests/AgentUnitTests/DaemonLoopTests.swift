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

/// The daemon's loop itself (``Agent/run(client:signals:)``), not only its decisions: an
/// in-memory broker (``InMemoryBroker``), a clock the test moves (``ManualDaemonClock``) and a
/// fetcher that answers every request with a Google pollen body. Hours of the daemon's life
/// take milliseconds; every wait is on an event the broker saw.
@Suite("The daemon loop against an in-memory broker and a hand-moved clock")
struct DaemonLoopTests {
    typealias Answers = OnceLoopTests.Answers
    typealias Lines = OnceLoopTests.Lines

    /// A one-day Google pollen body (grass, tree and weed at index 2) for every GET.
    static func pollenAnswers(
        _ answer: FetchedResponse = FetchedResponse(status: 200, body: FanOutLimitTests.googleBody(plants: 0))
    ) -> Answers {
        Answers { _, _ in answer }
    }

    /// The agent's loop on `broker` and `clock`, fetching from `answers`, in a task the test
    /// cancels to stop it (no signal watcher in the shared test process).
    static func run(
        _ config: AgentConfig, clock: ManualDaemonClock, broker: InMemoryBroker, answers: Answers,
        lines: Lines = Lines(), stateDirectory: String? = nil
    ) -> Task<Int32, Never> {
        Task {
            await OnceLoopTests.agent(
                config, clock: clock, answers: answers, lines: lines, stateDirectory: stateDirectory
            )
            .run(client: broker, signals: [])
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func startFetchPublishLoseTheBrokerReconnectAndRepublish() async throws {
        let config = try DaemonStateTests.config("climate: {enabled: false}")
        let layout = config.topicLayout
        let home = layout.location("home")
        let (clock, broker, answers) = (
            ManualDaemonClock(start: DaemonStateTests.t0), InMemoryBroker(), Self.pollenAnswers()
        )
        let run = Self.run(config, clock: clock, broker: broker, answers: answers)

        // Start: connected, `online`, the command topics subscribed.
        let online = await broker.next(after: 0) { $0.topic == layout.status.name }
        #expect(online.text == Availability.online && online.retain)
        #expect(broker.subscriptions.contains(home.commandTopics[0].name))

        // The first fetch comes within the start spread (5 s for one location): moving the clock
        // past it fetches and publishes the pollen tree.
        clock.advance(by: .seconds(6))
        let grass = await broker.next(after: 0) { $0.topic == home.pollenItem("grass").name + "/value" }
        #expect(grass.text == "2" && grass.retain)
        #expect(answers.requests == 1)
        let firstUpdate = await broker.next(after: 0) { $0.topic == home.pollenUpdatedAt.name }.text

        // The diagnostics cadence (300 s) is the barrier: published after the fetch's flush.
        var mark = broker.mark
        clock.advance(by: .seconds(300))
        let diagnostics = await broker.next(after: mark) { $0.topic == layout.diagnostics.name }
        #expect(!diagnostics.retain)
        let before = broker.retained
        #expect(before.keys.contains(home.pollenMax.name))

        // The broker goes away and comes back empty: the loop republishes the whole tree
        // (and `online`) without fetching again; the diagnostics after it close the republish.
        broker.dropConnection(reason: "broker restarted", losingRetained: true)
        #expect(broker.retained.isEmpty)
        mark = broker.mark
        broker.reconnect()
        _ = await broker.next(after: mark) { $0.topic == layout.diagnostics.name }
        #expect(broker.retained == before)
        #expect(answers.requests == 1)

        // The next fetch comes when the interval has passed; its new `updated_at` is published.
        mark = broker.mark
        clock.advance(by: config.pollen.interval)
        let update = await broker.next(after: mark) { $0.topic == home.pollenUpdatedAt.name }
        #expect(update.text != firstUpdate)
        #expect(answers.requests == 2)

        // Stopping (the task cancelled, as a signal would end it): `offline`, exit 0.
        run.cancel()
        #expect(await run.value == ExitCode.success)
        #expect(broker.received.last?.topic == layout.status.name)
        #expect(broker.retained[layout.status.name] == Availability.offline)
    }

    @Test(.timeLimit(.minutes(1)))
    func aHomeAssistantBirthResendsDiscoveryWhenTheClockReachesItsDelay() async throws {
        let config = try DaemonStateTests.config("climate: {enabled: false}")
        let layout = config.topicLayout
        let deviceConfig = layout.location("home").deviceConfig.name
        let (clock, broker, answers) = (
            ManualDaemonClock(start: DaemonStateTests.t0), InMemoryBroker(), Self.pollenAnswers()
        )
        let run = Self.run(config, clock: clock, broker: broker, answers: answers)
        _ = await broker.next(after: 0) { $0.topic == layout.status.name }
        #expect(broker.subscriptions.contains(layout.homeAssistantBirth.name))
        clock.advance(by: .seconds(6))
        let announced = await broker.next(after: 0) { $0.topic == deviceConfig }
        #expect(announced.retain && announced.text.contains("pollen"))

        // Home Assistant restarts: the re-send waits 1–10 s on the loop's clock, not on real time.
        // A retained command after the births is the barrier: the loop clears it once it has
        // handled everything before it (messages are handled in order).
        let refresh = layout.location("home").commandTopics[0].name
        var mark = broker.mark
        broker.deliver(topic: layout.homeAssistantBirth.name, "online")
        broker.deliver(topic: layout.homeAssistantBirth.name, "online")
        broker.deliver(topic: refresh, "1", retain: true)
        _ = await broker.next(after: mark) { $0.topic == refresh && $0.payload.isEmpty }
        #expect(!broker.received[mark...].contains { $0.topic == deviceConfig })
        mark = broker.mark
        clock.advance(by: .seconds(10))
        let resent = await broker.next(after: mark) { $0.topic == deviceConfig }
        #expect(resent == announced)
        // One re-send for two births, followed by the diagnostics that close it.
        _ = await broker.next(after: mark) { $0.topic == layout.diagnostics.name }
        #expect(broker.received[mark...].filter { $0.topic == deviceConfig }.count == 1)

        run.cancel()
        #expect(await run.value == ExitCode.success)
    }

    /// Google's answer to a key it does not know (API-FACTS.md): 400, reason API_KEY_INVALID.
    static let rejectedKey = FetchedResponse(
        status: 400,
        body: Array(
            #"{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]}}"#
                .utf8))

    /// With `source: google` a rejected key is asked again a day later, not at once and not on
    /// a backoff: a day of the loop's life with the diagnostics cadence (300 s) as the barrier
    /// after every step, so "no second request" is seen, not waited for.
    @Test(.timeLimit(.minutes(1)))
    func aRejectedKeyIsAskedAgainADayLaterAndNotBefore() async throws {
        let config = try DaemonStateTests.config(
            "climate: {enabled: false}", pollen: "source: google, api_key: test-key-123456")
        let layout = config.topicLayout
        let (clock, broker) = (ManualDaemonClock(start: DaemonStateTests.t0), InMemoryBroker())
        // The start spread may make the first fetch due at 0 s, before the clock moves: the
        // answer waits for 6 s on the clock, so the rejection (and the day) counts from 6 s.
        let answers = Answers { _, _ in
            try? await clock.sleep(until: DaemonInstant(unixSeconds: DaemonStateTests.t0 + 6))
            return Self.rejectedKey
        }
        let lines = Lines()
        let run = Self.run(config, clock: clock, broker: broker, answers: answers, lines: lines)
        _ = await broker.next(after: 0) { $0.topic == layout.status.name }
        // The first fetch within the start spread: rejected at 6 s, the day counted from there.
        clock.advance(by: .seconds(6))
        #expect(await eventually(bound: .seconds(20)) { !lines.containing("rejected the API key").isEmpty })
        #expect(answers.requests == 1)
        // To 24 h after the rejection less one step: the diagnostics every 300 s, no request.
        let step: Int64 = 300
        var mark = broker.mark
        clock.advance(by: .seconds(step - 6))
        _ = await broker.next(after: mark) { $0.topic == layout.diagnostics.name }
        for _ in 0..<(FetchSchedule.rejectedKeyDelay.seconds / step - 1) {
            mark = broker.mark
            clock.advance(by: .seconds(step))
            _ = await broker.next(after: mark) { $0.topic == layout.diagnostics.name }
        }
        #expect(answers.requests == 1)
        #expect(lines.containing("rejected the API key").count == 1)
        // A day after the rejection (6 s past the last step): asked again, once.
        clock.advance(by: .seconds(6))
        #expect(await eventually(bound: .seconds(20)) { lines.containing("rejected the API key").count == 2 })
        #expect(answers.requests == 2)
        run.cancel()
        #expect(await run.value == ExitCode.success)
    }

    /// A restart with the responses in `state_dir` fetches nothing they cover: the second run
    /// publishes the restored tree and asks no API, through the start spread and the first
    /// diagnostics (the barrier), on a hand-moved clock.
    @Test(.timeLimit(.minutes(1)))
    func aWarmRestartFetchesNothingItRestored() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = try DaemonStateTests.config("climate: {enabled: false}")
        let layout = config.topicLayout
        let grass = layout.location("home").pollenItem("grass").name + "/value"

        let (clock, broker, answers) = (
            ManualDaemonClock(start: DaemonStateTests.t0), InMemoryBroker(), Self.pollenAnswers()
        )
        let first = Self.run(config, clock: clock, broker: broker, answers: answers, stateDirectory: directory)
        _ = await broker.next(after: 0) { $0.topic == layout.status.name }
        clock.advance(by: .seconds(6))
        _ = await broker.next(after: 0) { $0.topic == grass }
        #expect(answers.requests == 1)
        first.cancel()
        #expect(await first.value == ExitCode.success)

        // A minute later, a new broker (nothing retained) and a fetcher that counts.
        let (again, fresh, counted) = (
            ManualDaemonClock(start: DaemonStateTests.t0 + 60), InMemoryBroker(), Self.pollenAnswers()
        )
        let second = Self.run(config, clock: again, broker: fresh, answers: counted, stateDirectory: directory)
        let restored = await fresh.next(after: 0) { $0.topic == grass }
        #expect(restored.text == "2" && restored.retain)
        let mark = fresh.mark
        again.advance(by: .seconds(300))
        _ = await fresh.next(after: mark) { $0.topic == layout.diagnostics.name }
        #expect(counted.requests == 0, "a restored source was fetched again")
        second.cancel()
        #expect(await second.value == ExitCode.success)
    }

    /// The render helper's timeout and grace are deadlines of the state on the loop's one wake,
    /// timed on the loop's clock, in `run` and in `once`: a helper that hangs and ignores SIGTERM
    /// is sent SIGTERM when the test's clock reaches 30 s after it started, and SIGKILL 2 s
    /// later; the failure is logged (`once` exits 69 naming the image). No real 30 s pass (the
    /// helper script's trap is the one real wait).
    @Test(.timeLimit(.minutes(1)), arguments: [false, true])
    func aHangingRenderIsStoppedAndKilledWhenTheLoopsClockSaysSo(once: Bool) async throws {
        let config = try DaemonStateTests.config(
            """
            climate: {enabled: false}
            images:
              - {id: hall, kind: pollen, width: 296, height: 128, palette: bwr, format: png}
            """)
        let ready = RenderRunnerTests.scratchPath("loop-ignores-term")
        let helper = try RenderRunnerTests.script(
            "trap '' TERM; : > '\(ready)'; cat >/dev/null; while :; do sleep 0.1; done")
        defer {
            unlink(helper)
            unlink(ready)
        }
        let (clock, broker, lines) = (ManualDaemonClock(start: DaemonStateTests.t0), InMemoryBroker(), Lines())
        let log = Log(level: .debug, timestamps: false, sink: { lines.append($0) })
        let agent = Agent(
            config: config, log: log, store: StateStore(directory: nil, log: log), http: Self.pollenAnswers(),
            demo: false, clock: clock, locateRenderHelper: { helper })
        let run = Task { once ? await agent.once(client: broker) : await agent.run(client: broker, signals: []) }
        if !once {
            // The first fetch comes within the 5 s start spread (`once` fetches at once).
            _ = await broker.next(after: 0) { $0.topic == config.topicLayout.status.name }
            clock.advance(by: .seconds(6))
        }
        #expect(await eventually(bound: .seconds(20)) { !lines.containing("the render helper runs").isEmpty })
        try #require(await RenderRunnerTests.fileAppears(ready), "the helper never installed its TERM trap")

        clock.advance(by: .seconds(30))
        #expect(await eventually(bound: .seconds(20)) { !lines.containing("was sent SIGTERM").isEmpty })
        #expect(lines.containing("render failed").isEmpty, "the helper ended before its grace")
        clock.advance(by: .seconds(2))
        let failure = "render failed: breeze-agent-render timed out after 30.0 seconds and was killed"
        #expect(await eventually(bound: .seconds(20)) { !lines.containing(failure).isEmpty })

        if once {
            #expect(await run.value == ExitCode.unavailable)
            #expect(!lines.containing("image(s) not rendered: home/hall").isEmpty)
        } else {
            run.cancel()
            #expect(await run.value == ExitCode.success)
        }
    }
}
