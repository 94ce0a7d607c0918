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

import BreezeConfig
import BreezeCore
import BreezeDaemon
import BreezeMQTT

#if canImport(Glibc)
    import Glibc
#endif

/// `run`: the daemon's event loop. It performs what ``DaemonState`` decides — every action,
/// those of `start`, `beginHandover`, `holdRemovedLocations` and the stored responses' restore
/// included, through the one ``perform(_:loop:group:)`` — and decides nothing itself: `--demo`'s
/// guard, the one watch of the broker's outcomes, the held-back clears' time are the state's.
///
/// Events (MQTT, signals, the one wake timer, finished fetches, renders and uploads) arrive on
/// one stream and are handled in arrival order by this task. The services that feed it (the
/// broker's events, the signals) and the fetches, renders and uploads are child tasks, so the
/// one ordered shutdown cancels them and waits for them before the agent says `offline`. A
/// single timer task wakes the loop at the time the state asks for, so an idle agent sleeps
/// instead of polling.
///
/// The broker and the clock are arguments (``BrokerConnection``, ``Agent/clock``): the unit
/// tests run this loop against an in-memory broker and a clock they advance. Cancelling the
/// task that runs it ends the loop as a signal would, without the exit log line.
///
/// `once` and `print` run on this loop too (``LoopPolicy``), their phases decided by the
/// state's ``OneShot`` child: no HTTP server, no subscriptions, no `online`, no announcement,
/// no diagnostics; `print` has no broker (``NullBroker``).
extension Agent {
    /// What the loop is run for.
    enum LoopPolicy: Sendable, Equatable {
        /// `run`: until a signal.
        case daemon
        /// `once`: connect, fetch, publish, wait for the broker's acknowledgements, exit.
        case once
        /// `print`: fetch and write the tree to stdout; no broker.
        case print
    }

    /// The signals the daemon stops (SIGTERM, SIGINT) or reports (SIGHUP) on.
    static let daemonSignals = [SIGTERM, SIGINT, SIGHUP]

    /// The loop and its services. The services — the broker's events and the signals — are child
    /// tasks feeding the one event stream; the HTTP server answers from the snapshots the loop
    /// hands it. One shutdown, in order, whatever ended the loop: the HTTP server stops, the
    /// fetches, renders and uploads in flight are cancelled and awaited, the published set is
    /// saved, the state's farewell is published and acknowledged (`run`), the broker client
    /// stops, and the services end with it.
    ///
    /// - Parameter signals: the signals watched (``daemonSignals``; a test in a shared process
    ///   passes none, and so do `once` and `print`, which keep the default dispositions).
    func run(
        client: any BrokerConnection, signals watched: [Int32] = Agent.daemonSignals, policy: LoopPolicy = .daemon
    ) async -> Int32 {
        // `print` reads and writes no published set.
        let publisher = makePublisher(broker: client, persisting: policy != .print)
        let (events, continuation) = AsyncStream<DaemonEvent>.makeStream()
        return await withDiscardingTaskGroup(returning: Int32.self) { services in
            services.addTask {
                for await event in client.events { continuation.yield(.mqtt(event)) }
            }
            if !watched.isEmpty {
                let signals = SignalWatcher.stream(watched)
                services.addTask {
                    for await number in signals { continuation.yield(.signal(SignalWatcher.daemonSignal(number))) }
                }
            }
            var http: AgentHTTPServer?
            let exitCode = await withDiscardingTaskGroup(returning: Int32?.self) { group in
                var loop = LoopEffects(
                    client: client, publisher: publisher, events: continuation,
                    gate: FetchGate(limit: 2 * config.httpMaxConcurrent))
                guard start(policy, loop: &loop, group: &group, http: &http) else { return nil }
                for await event in events {
                    loop.received(event)
                    perform(state.handle(event, at: time()), loop: &loop, group: &group)
                    refreshHTTP(http, publisher: publisher)
                    if loop.exitCode != nil { break }
                }
                loop.timer?.cancel()
                http?.stop()
                http = nil
                // Fetches in flight are cancelled (curl aborts at its next progress callback) and
                // awaited when the group closes; their results are not applied.
                group.cancelAll()
                return loop.exitCode ?? ExitCode.success
            }
            http?.stop()
            let code = await leave(policy, client: client, publisher: publisher, exitCode: exitCode)
            services.cancelAll()
            return code
        }
    }

    /// The end of the shutdown: the published set is saved, `run` publishes the state's farewell
    /// while connected (acknowledged or given up on), and the broker client stops. A start that
    /// failed returns `unavailable` and saves nothing.
    private func leave(
        _ policy: LoopPolicy, client: any BrokerConnection, publisher: RetainedPublisher, exitCode: Int32?
    ) async -> Int32 {
        guard let exitCode else { return ExitCode.unavailable }
        publisher.persist()
        guard policy == .daemon else {
            await client.stop()
            return exitCode
        }
        if client.isConnected {
            for message in state.farewell {
                try? client.publish(message.topic, message.payload, qos: message.qos, retain: message.retain)
            }
            _ = await client.waitForAcknowledgements(timeout: .milliseconds(1500))
        }
        await client.stop()
        log.info("stopped")
        return exitCode
    }

    /// What the loop keeps while it performs: where events go, the one wake timer it armed, the
    /// held-back clears' time it last reported, each fetch in flight with its place in the gate
    /// (so `.abandonFetch` can cancel just that one), and the exit code once `.stop` came.
    struct LoopEffects {
        let client: any BrokerConnection
        let publisher: RetainedPublisher
        let events: AsyncStream<DaemonEvent>.Continuation
        /// Bounds the answers waiting for the loop (docs/operations.md, the bounds table).
        let gate: FetchGate
        var timer: Task<Void, Never>?
        var timerAt: DaemonInstant?
        var clearsReported: DaemonInstant?
        var fetches: [FetchKey: (task: Task<FetchOutcome?, Never>, ticket: FetchTicket)] = [:]
        var exitCode: Int32?

        /// The timers fire once: the next wake is armed anew, even for the same time. A fetch's
        /// answer taken frees its place for the next fetch; a stale answer (of a fetch abandoned
        /// while it was on its way) leaves the newer fetch of that key alone.
        mutating func received(_ event: DaemonEvent) {
            if case .tick = event { timerAt = nil }
            if case .fetched(let key, _) = event, let fetch = fetches[key], fetch.ticket.isAnswered {
                fetches[key] = nil
                fetch.ticket.release()
            }
        }
    }

    /// The loop's first steps by policy, then its first event; false when the run stops here
    /// (exit `unavailable`).
    private func start(
        _ policy: LoopPolicy, loop: inout LoopEffects, group: inout DiscardingTaskGroup, http: inout AgentHTTPServer?
    ) -> Bool {
        let startTime = time()
        switch policy {
        case .daemon:
            guard startDaemon(at: startTime, loop: &loop, group: &group, http: &http) else { return false }
        case .once:
            state.startOneShot(.once, now: startTime.now)
            do {
                try loop.client.start()
            } catch {
                log.error("mqtt: \(error)")
                return false
            }
        case .print:
            restoreStoredResponses(only: .stripes, loop: &loop, group: &group)
            state.startOneShot(.print, now: startTime.now)
        }
        loop.events.yield(policy == .print ? .prepared : .tick)
        return true
    }

    /// Performs the state's actions: logs and writes here, the rest on the broker, the
    /// publisher, the timers and the task group.
    func perform(_ actions: [DaemonAction], loop: inout LoopEffects, group: inout DiscardingTaskGroup) {
        for action in performLogsAndWrites(actions) { perform(action, loop: &loop, group: &group) }
    }

    private func perform(_ action: DaemonAction, loop: inout LoopEffects, group: inout DiscardingTaskGroup) {
        let (client, publisher, continuation) = (loop.client, loop.publisher, loop.events)
        switch action {
        case .fetch(let key, let request):
            let (fetcher, ticket) = (fetcher, FetchTicket(loop.gate))
            // Nil: cancelled while waiting for its place, so never started.
            let fetch = Task { await ticket.enter() ? await fetcher.run(request) : nil }
            loop.fetches[key] = (fetch, ticket)
            group.addTask {
                // A shutdown cancels the group's children, and so the fetch.
                let outcome = await withTaskCancellationHandler {
                    await fetch.value
                } onCancel: {
                    fetch.cancel()
                }
                // An abandoned fetch reports nothing: the state applied its failure.
                if let outcome, !fetch.isCancelled {
                    ticket.answered()
                    continuation.yield(.fetched(key, outcome))
                } else {
                    ticket.release()
                }
            }
        case .abandonFetch(let key):
            if let abandoned = loop.fetches.removeValue(forKey: key) {
                abandoned.task.cancel()
                abandoned.ticket.release()
            }
        case .setScope(let scope):
            publisher.set(scope: scope.prefix, scope.tree)
        case .handover(.unsubscribe(let topics)):
            for topic in topics { try? client.unsubscribe(topic) }
        case .handover(let step):
            publisher.perform(step)
        case .flush(let persist):
            publisher.flush(persist: persist, at: clock.instant())
            // A batch is done: hand the memory its fetches and trees freed back.
            if persist { MemoryTuning.releaseFreedMemory() }
            reportClears(loop: &loop)
        case .watchOutcomes(let timeout):
            group.addTask {
                continuation.yield(.outcomesSettled(await client.waitForOutcomes(timeout: timeout.swiftDuration)))
            }
        case .reportOutcomes(let outcomes, let pendingIsLost):
            outcomes.report(to: publisher, log: log, pendingIsLost: pendingIsLost)
        case .flushAndReport:
            // Only the clears this flush held back past its time are waited for: one that was
            // due and is still held could not be sent, and waiting for it would never end.
            let flushedAt = clock.instant()
            let sent = publisher.flush(at: flushedAt)
            continuation.yield(
                .flushed(sent: sent, clearsDueAt: clearsDueTime(publisher.nextClearDue(after: flushedAt))))
        case .prepareOnce:
            prepareOnce(loop: &loop, group: &group)
            continuation.yield(.prepared)
        case .awaitOutcomes(let timeout):
            // Every QoS 1/2 publish must be acknowledged on this connection; the state has the
            // refused and lost ones reported (``DaemonAction/reportOutcomes(_:pendingIsLost:)``).
            group.addTask {
                let outcomes = await client.waitForOutcomes(timeout: timeout.swiftDuration)
                await client.stop()
                continuation.yield(.outcomes(outcomes))
            }
        case .reportConnectFailure:
            let reason = client.lastError.map { "\($0)" } ?? "no answer"
            log.error("mqtt: cannot connect to \(config.mqtt.host):\(config.mqtt.port): \(reason)")
        case .write(let text):
            writeStdout(text)
        case .republishAll:
            let sent = publisher.republishAll(at: clock.instant())
            log.debug("mqtt: republished \(sent) retained topics")
            reportClears(loop: &loop)
        case .republish(let scope):
            publisher.republish(scope: scope)
        case .subscribe(let topics):
            for topic in topics { try? client.subscribe(topic, qos: 1) }
        case .publish(let message):
            try? client.publish(message.topic, message.payload, qos: message.qos, retain: message.retain)
        case .wake(let at):
            guard at != loop.timerAt else { break }
            loop.timer?.cancel()
            loop.timerAt = at
            let clock = clock
            loop.timer = Task {
                try? await clock.sleep(until: at)
                if !Task.isCancelled { continuation.yield(.tick) }
            }
        case .reconnectDelay(let delay):
            client.setReconnectDelay(seconds: delay.map { Int($0.seconds) })
        case .stop(let code):
            loop.exitCode = code
        case .render, .stopRender, .killRender, .imageReady, .upload:
            // Renders and uploads run as child tasks, like fetches (ImagePipeline.swift).
            _ = performImageAction(action, report: { continuation.yield($0) }) { work in
                group.addTask { await work() }
            }
        case .log, .store:
            break  // performed by performLogsAndWrites
        }
    }

    /// After a flush: the publisher's held-back clears, when their time changed, go to the state
    /// as a deadline of its one wake (``DaemonEvent/clearsHeld(until:)``).
    private func reportClears(loop: inout LoopEffects) {
        let clearsAt = clearsDueTime(loop.publisher.nextClearDue)
        guard clearsAt != loop.clearsReported else { return }
        loop.clearsReported = clearsAt
        loop.events.yield(.clearsHeld(until: clearsAt))
    }

    /// When held-back clears are due, in the daemon's seconds: the monotonic wait left, rounded
    /// up. The wake sleeps whole seconds from the second it is armed in, so it can still come up
    /// to a second before `due` when the flush and the arming fall in different seconds (a busy
    /// loop): a `run` tick flushes them at a later tick, `once` waits again (``OneShot``).
    private func clearsDueTime(_ due: ContinuousClock.Instant?) -> DaemonInstant? {
        guard let due else { return nil }
        let (seconds, attoseconds) = clock.instant().duration(to: due).components
        return time().now + .seconds(max(0, seconds + (attoseconds > 0 ? 1 : 0)))
    }

    /// `run`'s start: stored responses, the spread first fetches, every scope, the shard
    /// handover, the HTTP endpoints, the connection — every action of `start`, `beginHandover`
    /// and `holdRemovedLocations` performed like any other. False when the start stops here (a
    /// port in use, a client that cannot start); `http` is the server started, to stop in any
    /// case.
    private func startDaemon(
        at startTime: DaemonTime, loop: inout LoopEffects, group: inout DiscardingTaskGroup,
        http: inout AgentHTTPServer?
    ) -> Bool {
        let publisher = loop.publisher
        restoreStoredResponses(loop: &loop, group: &group)
        perform(state.start(at: startTime), loop: &loop, group: &group)
        perform(state.beginHandover(published: publisher.published), loop: &loop, group: &group)
        // Removed locations are cleared once no other instance is seen (docs/operations.md, Limits, IdentityGuard).
        perform(state.holdRemovedLocations(published: publisher.published), loop: &loop, group: &group)

        // The HTTP endpoints (docs/images.md), before MQTT: a port in use stops the start here.
        guard case .success(let server) = startHTTPServer() else { return false }
        http = server
        refreshHTTP(server, publisher: publisher)

        do {
            try loop.client.start()
        } catch {
            log.error("mqtt: \(error)")
            return false
        }
        log.info(
            "breeze-agent \(BreezeVersion.string) running: \(state.locations.count) location(s), broker \(config.mqtt.host):\(config.mqtt.port), prefix \(config.mqtt.topicPrefix)"
        )
        if let shard = config.shard {
            let text =
                "shard \(shard.index) of \(shard.count): serving \(state.locations.count) of "
                + "\(config.locations.count) configured location(s), availability on \(state.layout.status)"
            if state.locations.isEmpty { log.warning(text) } else { log.info(text) }
        }
        return true
    }

    /// `once`, connected: the version the broker accepted goes to the state (a fallback is its
    /// warning); the scopes of locations moved to another shard are held (only `run` hands them
    /// over); the stored responses are restored.
    private func prepareOnce(loop: inout LoopEffects, group: inout DiscardingTaskGroup) {
        perform(state.handle(.brokerProtocol(loop.client.protocolVersion), at: time()), loop: &loop, group: &group)
        perform(state.beginHandover(published: loop.publisher.published), loop: &loop, group: &group)
        restoreStoredResponses(loop: &loop, group: &group)
    }
}
