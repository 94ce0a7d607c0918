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
import BreezeMQTT
import BreezeTestSupport
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A JSON payload parsed (fragments allowed), or nil.
func parseJSON(_ text: String?) -> Any? {
    guard let text else { return nil }
    return try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
}

/// A JSON payload decoded as an object (nil when absent or not an object).
func jsonObject(_ text: String?) -> [String: Any]? { parseJSON(text) as? [String: Any] }

// MARK: reading the broker back

/// A second MQTT client that records every message under some filters: the latest payload per
/// topic (an empty payload means the topic was cleared) and every payload seen, in order.
///
/// With ``start(_:)`` (probing) what it holds once `start` returns is exactly the broker's
/// retained tree under those filters: the broker sends retained messages right after the
/// SUBACK, before the probe published afterwards on the same connection comes back.
final class BrokerView: Sendable {
    struct Entry: Sendable {
        var payload: String
        var retained: Bool
    }
    private struct Seen {
        var latest: [String: Entry] = [:]
        var history: [String: [String]] = [:]
        var probes: Set<String> = []
        /// When each topic's first clearing (empty) payload arrived, stamped on arrival.
        var firstCleared: [String: ContinuousClock.Instant] = [:]
    }

    let client: MQTTClient
    private let seen = Mutex(Seen())
    private let pump = Mutex<Task<Void, Never>?>(nil)

    init(port: Int) throws {
        client = try MQTTClient(MQTTConfiguration(host: "127.0.0.1", port: port, clientID: "view-\(shortID())"))
    }

    /// Connects and subscribes to `patterns` without probing (for watching a live agent).
    convenience init(port: Int, patterns: [String]) async throws {
        try self.init(port: port)
        try await start(patterns, probe: false)
    }

    deinit { pump.withLock { $0?.cancel() } }

    /// Connects and subscribes to `filters`; with `probe` (filters ending in `#`), returns only
    /// once every retained message under them has arrived.
    func start(_ filters: [String], probe: Bool = true) async throws {
        let events = client.events
        let task = Task { [self] in
            for await event in events {
                guard case .message(let message) = event else { continue }
                let payload = message.payloadString
                if message.topic.contains("/view-probe-") {
                    seen.withLock { _ = $0.probes.insert(payload) }
                    TestEvents.shared.report()
                    continue
                }
                seen.withLock {
                    $0.latest[message.topic] = Entry(payload: payload, retained: message.retain)
                    $0.history[message.topic, default: []].append(payload)
                    if payload.isEmpty, $0.firstCleared[message.topic] == nil { $0.firstCleared[message.topic] = .now }
                }
                TestEvents.shared.report()
            }
        }
        pump.withLock { $0 = task }
        try client.start()
        let connected = await client.waitUntilConnected(timeout: .seconds(15))
        try #require(connected, "view client did not connect: \(String(describing: client.lastError))")
        for filter in filters {
            try client.subscribe(filter, qos: 1)
            if probe && filter.hasSuffix("#") { try await barrier(under: filter) }
        }
    }

    func stop() async {
        await client.stop()
        pump.withLock { $0?.cancel() }
    }

    /// Topic → payload of every non-empty topic seen (the retained tree after a probing start).
    var tree: [String: String] {
        seen.withLock { $0.latest.compactMapValues { $0.payload.isEmpty ? nil : $0.payload } }
    }
    var latest: [String: String] { tree }

    func entry(_ topic: String) -> Entry? { seen.withLock { $0.latest[topic] } }
    func payload(_ topic: String) -> String? { tree[topic] }
    func value(_ topic: String) -> String? { payload(topic) }
    func history(_ topic: String) -> [String] { seen.withLock { $0.history[topic] ?? [] } }
    /// Every message seen so far, all topics.
    var messageCount: Int { seen.withLock { $0.history.values.reduce(0) { $0 + $1.count } } }

    /// A JSON object payload, parsed.
    func json(_ topic: String) -> [String: Any]? {
        guard let text = payload(topic) else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }

    /// Every topic under `prefix` whose history contains an empty (clearing) payload.
    func clearedTopics(under prefix: String) -> [String] {
        seen.withLock { $0.history.filter { $0.key.hasPrefix(prefix) && $0.value.contains("") }.map(\.key).sorted() }
    }

    /// When each topic under `prefix` was first cleared, as stamped by the pump on arrival.
    func clearTimes(under prefix: String) -> [String: ContinuousClock.Instant] {
        seen.withLock { $0.firstCleared.filter { $0.key.hasPrefix(prefix) } }
    }

    /// The non-empty retained topics under `prefix` (a snapshot). `<p>/diagnostics` is left out:
    /// it is the one topic the agent publishes without retain (at every connect, with a new
    /// uptime), so it is not part of the retained tree two snapshots are compared on.
    /// The retained tree under `prefix` without what changes with time alone: diagnostics, and
    /// the agent's announcement (`<p>/agent/…`, whose `at` is renewed at every connect).
    func tree(under prefix: String) -> [String: String] {
        tree.filter {
            $0.key.hasPrefix(prefix) && !$0.key.hasSuffix("/diagnostics") && !$0.key.hasPrefix(prefix + "/agent/")
        }
    }

    /// Waits until every topic in `topics` has a value (woken by each message).
    func waitForTopics(_ topics: [String], timeout: Duration = .seconds(20)) async -> Bool {
        await eventually(bound: timeout) { topics.allSatisfy { self.value($0) != nil } }
    }

    /// Waits until `topic` carries `payload` ("" = cleared), woken by each message.
    func waitFor(_ topic: String, _ payload: String, timeout: Duration = .seconds(15)) async -> Bool {
        await eventually(bound: timeout) { self.entry(topic)?.payload == payload }
    }

    /// A barrier: publishes a marker on a topic of this view's own (under `filter`'s prefix,
    /// which must end in `#` and be subscribed) and waits for it to come back. Everything the
    /// broker had routed to this view before the marker has then arrived: a negative check
    /// ("nothing was published") made after it needs no sleep.
    func barrier(under filter: String) async throws {
        let token = shortID()
        try client.publish(String(filter.dropLast()) + "view-probe-\(token)", token, qos: 1)
        let arrived = await eventually(bound: .seconds(15)) { seen.withLock { $0.probes.contains(token) } }
        try #require(arrived, "the marker published under \(filter) did not come back (subscription inactive?)")
    }

    /// The broker's retained tree under `filters` right now, read by a fresh client.
    static func snapshot(port: Int, _ filters: [String]) async throws -> [String: String] {
        let view = try BrokerView(port: port)
        try await view.start(filters)
        let tree = view.tree
        await view.stop()
        return tree
    }
}

// MARK: the binary as a subprocess

/// The debug binary `swift build` puts in `<repo>/.build/debug`, or the one named by
/// `BREEZE_TEST_AGENT_BINARY` (`make test-arm64` runs these tests against the arm64 release
/// binary under qemu-user; the agent finds the render helper next to it).
func agentBinary() throws -> String {
    if let chosen = ProcessInfo.processInfo.environment["BREEZE_TEST_AGENT_BINARY"], !chosen.isEmpty {
        return try #require(
            FileManager.default.isExecutableFile(atPath: chosen) ? chosen : nil,
            "BREEZE_TEST_AGENT_BINARY=\(chosen) is not an executable file")
    }
    var root = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { root.deleteLastPathComponent() }
    let candidates = [
        root.appendingPathComponent(".build/debug/breeze-agent").path,
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("breeze-agent").path,
    ]
    let found = candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    return try #require(found, "breeze-agent binary not built (run `swift build` first); looked in \(candidates)")
}

/// A running `breeze-agent` child: its stdout in a file, its stderr read from a pipe as it is
/// written (``waitForLine(_:count:timeout:)`` wakes at the line, ``TestEvents``). Its
/// environment is the test's without `BREEZE_*` and `JOURNAL_STREAM`, plus `environment`.
final class AgentProcess: Sendable {
    /// What the stderr pipe has delivered; `ended` at its end of file.
    private final class Output: Sendable {
        struct Read {
            var bytes: [UInt8] = []
            var ended = false
        }
        let read = Mutex(Read())
        func withLock<R>(_ body: (inout Read) -> R) -> R { read.withLock { body(&$0) } }
    }
    private let process: ChildProcess
    private let output = Output()
    let stdoutPath: String
    let started = ContinuousClock.now

    init(
        _ arguments: [String], directory: String, environment: [String: String] = [:], name: String = "agent"
    ) throws {
        stdoutPath = directory + "/\(name)-\(shortID()).stdout"
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("BREEZE_") }
        env["JOURNAL_STREAM"] = nil
        for (key, value) in environment { env[key] = value }
        let output = self.output
        process = try ChildProcess(
            try agentBinary(), arguments, environment: env, standardOutput: .file(stdoutPath),
            standardError: .pipe({ chunk in
                output.withLock { chunk.isEmpty ? ($0.ended = true) : $0.bytes.append(contentsOf: chunk) }
                TestEvents.shared.report()
            }))
    }

    /// The same, logs in `logDirectory` (the end-to-end tests' spelling).
    convenience init(_ arguments: [String], logDirectory: String) throws {
        try self.init(arguments, directory: logDirectory)
    }

    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var stderr: String { String(decoding: output.withLock { $0.bytes }, as: UTF8.self) }
    /// Everything logged so far (stderr).
    var log: String { stderr }
    var isRunning: Bool { process.isRunning }
    var pid: Int32 { process.processIdentifier }

    func lines(containing text: String) -> [String] {
        log.split(separator: "\n").map(String.init).filter { $0.contains(text) }
    }

    func signal(_ number: Int32) { process.signal(number) }

    /// Waits for the process to end (the event); its exit status, or nil after `timeout`. Once
    /// it has ended, also for the rest of its stderr (the pipe's end of file; a render helper
    /// it started could hold the pipe open a little longer, hence the bound).
    func waitForExit(timeout: Duration) async -> Int32? {
        guard let status = await process.waitForExit(timeout: timeout) else { return nil }
        _ = await eventually(bound: .seconds(10)) { output.withLock { $0.ended } }
        return status
    }

    /// SIGTERM and wait (up to 5 s); the exit status, or nil when it had to be killed.
    @discardableResult
    func terminate() async -> Int32? {
        if process.terminationStatus != nil { return await waitForExit(timeout: .seconds(1)) }
        signal(SIGTERM)
        if let status = await waitForExit(timeout: .seconds(5)) { return status }
        process.signal(SIGKILL)
        _ = await waitForExit(timeout: .seconds(10))
        return nil
    }

    /// Waits until `count` lines of the log contain `text`: woken by each chunk the agent
    /// writes; false after `timeout` (the safety net).
    @discardableResult
    func waitForLine(_ text: String, count: Int = 1, timeout: Duration = .seconds(20)) async -> Bool {
        await eventually(bound: timeout) { self.lines(containing: text).count >= count }
    }

    /// The debug line the agent writes right after it hands its HTTP endpoints a new snapshot
    /// (``AgentHTTPServer/update(_:)``; only at `log_level: debug`).
    static let snapshotLine = "debug: http: serving snapshot "

    /// Waits until `condition`, which reads the agent's HTTP endpoints, holds: asked once now
    /// and again after each ``snapshotLine`` the agent writes (a request made after the line
    /// is answered from that snapshot or a later one), never on a timer; false after `timeout`
    /// (the safety net). The agent must run at `log_level: debug`.
    func waitForSnapshot(timeout: Duration, _ condition: () -> Bool) async -> Bool {
        var (scanned, served, asked) = (0, 0, -1)
        let held = await eventually(bound: timeout) {
            served += completeLines(from: &scanned).count { $0.contains(Self.snapshotLine) }
            guard served > asked else { return false }
            asked = served
            return condition()
        }
        if !held && served == 0 {
            Issue.record("no \"\(Self.snapshotLine)\" line in the agent's log: does it run at log_level: debug?")
        }
        return held
    }

    /// The complete lines written from byte `offset` of the log on; `offset` moves past them
    /// (a line still being written is left for the next call).
    private func completeLines(from offset: inout Int) -> [Substring] {
        let chunk: ArraySlice<UInt8> = output.withLock { read in
            guard let end = read.bytes.lastIndex(of: UInt8(ascii: "\n")), end >= offset else { return [] }
            defer { offset = end + 1 }
            return read.bytes[offset...end]
        }
        return String(decoding: chunk, as: UTF8.self).split(separator: "\n")
    }

    /// Runs to completion (killed after `timeout`) and returns the exit status and output.
    static func run(_ arguments: [String], logDirectory: String, timeout: Duration = .seconds(30)) async throws
        -> (status: Int32?, stdout: String, stderr: String)
    {
        let child = try AgentProcess(arguments, directory: logDirectory)
        let status = await child.waitForExit(timeout: timeout)
        return (status, child.stdout, child.stderr)
    }
}
