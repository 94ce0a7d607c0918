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
import BreezeMQTT

#if canImport(Glibc)
    import Glibc
#endif

extension Agent {
    /// Fetches every enabled source of every location now (`once`, `print`), through the same
    /// steps as the daemon (``DaemonState/begin(_:now:)``, ``DaemonState/apply(_:_:now:)``);
    /// returns the sources that failed with no usable data (stored or fresh) behind them.
    ///
    /// Up to `http.max_concurrent` fetches run at once (child tasks over the one curl multi
    /// driver); the state is only touched here, between them. Open-Meteo's pacing applies as in
    /// `run` (``DaemonState/pace(_:now:)``): a request over the per-minute limit waits for the
    /// next window; one held back by the daily limit is not sent (``onceMaximumPacingWait``).
    ///
    /// Time is the loop's (``Agent/clock``): the pacing waits sleep on it, so a test on a clock
    /// it moves by hand sees them without waiting.
    func fetchEverything(now: Int64) async -> [String] {
        var keys: [FetchKey] = []
        for index in state.locations.indices {
            for kind in SourceKind.allCases where state.enabled(kind) {
                keys.append(FetchKey(location: index, kind: kind))
            }
        }
        // Each entry: the key and its attempt (`auto` falls back to Open-Meteo at once when
        // Google rejects the key: the rejection makes the source due again with the other source).
        var queue = keys.map { (key: $0, attempt: 1) }
        var head = 0
        var waiting: [(key: FetchKey, attempt: Int, at: Int64)] = []
        let limit = max(1, config.httpMaxConcurrent)
        let (fetchers, log, clock) = (fetchers, self.log, self.clock)
        await withTaskGroup(of: (FetchKey, Int, FetchOutcome).self) { group in
            var running = 0
            while true {
                let current = clock.now().now
                if !waiting.isEmpty {
                    queue += waiting.filter { $0.at <= current }.map { ($0.key, $0.attempt) }
                    waiting.removeAll { $0.at <= current }
                }
                while running < limit, head < queue.count {
                    let (key, attempt) = queue[head]
                    head += 1
                    if let deferred = state.pace(key, now: current) {
                        _ = performLogsAndWrites(deferred)
                        let at = state.schedule(key).nextDue
                        if at - current > Self.onceMaximumPacingWait {
                            log.warning(
                                "once: \(key.kind.rawValue)[\(state.locations[key.location].config.id)] not fetched: Open-Meteo's daily limit is reached"
                            )
                        } else {
                            waiting.append((key, attempt, at))
                        }
                        continue
                    }
                    let (request, notes) = state.begin(key, now: now)
                    _ = performLogsAndWrites(notes)
                    guard let request else { continue }
                    running += 1
                    group.addTask { (key, attempt, await Agent.fetch(request, with: fetchers, log: log)) }
                }
                if running > 0, let done = await group.next() {
                    running -= 1
                    let (key, attempt, outcome) = done
                    _ = performLogsAndWrites(state.apply(key, outcome, now: now))
                    if attempt < 2, case .pollen(let result) = outcome, case .keyRejected = result.outcome,
                        state.locations[key.location].googleRejected, config.pollen.source == .auto
                    {
                        queue.append((key, attempt + 1))
                    }
                } else if let first = waiting.map(\.at).min() {
                    try? await clock.sleep(untilUnixTime: first)
                } else {
                    break
                }
            }
        }
        var unusable: [String] = []
        for key in keys where !state.hasData(key) {
            unusable.append("\(key.kind.rawValue)[\(state.locations[key.location].config.id)]")
        }
        _ = performLogsAndWrites(state.callCountStore(now: now, force: true))
        return unusable
    }

    /// `once` waits at most this long (seconds) for a request Open-Meteo's pacing holds back (the
    /// per-minute window); a longer hold (the daily limit) skips the request.
    static let onceMaximumPacingWait: Int64 = 120

    /// How long `once` waits for the broker to accept the connection.
    static let onceConnectTimeout: Duration = .seconds(10)

    /// Waits for the connection's first ``MQTTEvent/connected``, at most `timeout` on the loop's
    /// clock; false when it does not come (the caller reports ``BrokerConnection/lastError``).
    /// Takes the client's event stream: only `once` calls it, which reads no other event.
    private func connected(_ client: any BrokerConnection, within timeout: Duration) async -> Bool {
        let (clock, deadline) = (clock, clock.instant() + timeout)
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await event in client.events {
                    if case .connected = event { return true }
                }
                return false
            }
            group.addTask {
                try? await clock.sleep(until: deadline)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// `print`: fetch and write `topic<TAB>payload` lines to stdout; no broker.
    func printTree() async -> Int32 {
        let now = time().now
        for index in state.locations.indices { restoreStoredStripes(index) }
        let unusable = await fetchEverything(now: now)
        var out = ""
        let tree = state.printableTree(now: now)
        for topic in tree.topics { out += "\(topic)\t\(tree[topic]!)\n" }
        // Then the device commands (not retained) `once` and `run` would send.
        for case .publish(let message) in performLogsAndWrites(state.sendAllDeviceCommands()) {
            out += "\(message.topic)\t\(message.payload)\n"
        }
        writeStdout(out)
        if !unusable.isEmpty {
            log.error("no usable data for \(unusable.joined(separator: ", "))")
            return Invocation.ExitCode.unavailable
        }
        return Invocation.ExitCode.success
    }

    /// `once`: connect, fetch, publish, wait for the broker's acknowledgements, disconnect.
    /// `<p>/status` is left alone: a one-shot run is not the daemon being online.
    ///
    /// The broker and the clock are the daemon loop's (``BrokerConnection``, ``Agent/clock``):
    /// the connect timeout, the pacing waits and the held-back clears are timed on the clock,
    /// so the unit tests run `once` against an in-memory broker without sleeping.
    func once(client: any BrokerConnection) async -> Int32 {
        let publisher = makePublisher(broker: client)
        do {
            try client.start()
        } catch {
            log.error("mqtt: \(error)")
            return Invocation.ExitCode.unavailable
        }
        guard await connected(client, within: Self.onceConnectTimeout) else {
            let reason = client.lastError.map { "\($0)" } ?? "no answer"
            log.error("mqtt: cannot connect to \(config.mqtt.host):\(config.mqtt.port): \(reason)")
            await client.stop()
            return Invocation.ExitCode.unavailable
        }
        if client.protocolVersion != config.mqtt.protocolVersion {
            log.warning(
                "mqtt: the broker refused MQTT 5; fell back to MQTT \(client.protocolVersion) (set mqtt.protocol to choose)"
            )
        }
        let now = time().now
        // Topics of locations moved to another shard are kept: only `run` hands them over.
        for case .handover(let step) in performLogsAndWrites(state.beginHandover(published: publisher.published)) {
            publisher.perform(step)
        }
        restoreStoredResponses(now: now)
        let unusable = await fetchEverything(now: now)
        setAllScopes(on: publisher, now: now)
        // Images are rendered (waited for) before the flush that publishes them.
        await renderImagesOnce(on: publisher, now: now)
        var sent = publisher.flush(at: clock.instant())
        // State topics whose entities went away are cleared after the discovery change.
        if let due = publisher.nextClearDue {
            try? await clock.sleep(until: due)
            sent += publisher.flush(at: clock.instant())
        }
        // Device commands (WLED, Tasmota) are not retained: `once` sends each device what it
        // should show, without waiting for its status.
        for case .publish(let message) in performLogsAndWrites(state.sendAllDeviceCommands()) {
            try? client.publish(message.topic, message.payload, qos: message.qos, retain: message.retain)
        }
        // Every QoS 1/2 publish must be acknowledged by the broker on this connection; refused
        // ones (MQTT 5 reason code, or over the packet size) and lost ones are not published.
        let outcomes = await client.waitForOutcomes(timeout: .seconds(10))
        await client.stop()
        let accepted = outcomes.report(to: publisher, log: log)
        if !outcomes.pending.isEmpty {
            log.error("mqtt: the broker did not acknowledge \(outcomes.pending.count) publish(es) within 10 s")
        }
        guard accepted else {
            let refused = outcomes.refused.count + outcomes.unrecorded
            log.error(
                "once: \(outcomes.accepted) of \(sent) topics acknowledged; \(refused) refused, \(outcomes.lost.count + outcomes.pending.count) not acknowledged"
            )
            return Invocation.ExitCode.unavailable
        }
        if config.mqtt.qos == 0 {
            log.info("once: \(sent) topics published (QoS 0: the broker does not acknowledge them)")
        } else {
            log.info("once: \(sent) topics published and acknowledged")
        }
        if !unusable.isEmpty {
            log.error("no usable data for \(unusable.joined(separator: ", "))")
            return Invocation.ExitCode.unavailable
        }
        // An image that did not render is not a success (SPEC §16 "Names").
        let failing = state.images.failing
        if !failing.isEmpty {
            log.error("once: \(failing.count) image(s) not rendered: \(failing.map(\.image).joined(separator: ", "))")
            return Invocation.ExitCode.unavailable
        }
        return Invocation.ExitCode.success
    }
}

func writeStdout(_ text: String) {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeMutableBytes { write(1, $0.baseAddress! + offset, $0.count - offset) }
        if n <= 0 { break }
        offset += n
    }
    bytes.removeAll()
}
