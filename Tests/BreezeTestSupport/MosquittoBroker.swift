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

import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A real `mosquitto` broker process on a free 127.0.0.1 port, configured from lines written to
/// its own temporary directory. Add users or TLS before ``start()``; ``restart()`` keeps the port.
public final class MosquittoBroker: Sendable {
    public enum Failure: Error, CustomStringConvertible {
        case exited(status: Int32, log: String)
        case notListening(port: Int, log: String)
        public var description: String {
            switch self {
            case .exited(let status, let log): "mosquitto exited with \(status): \(log)"
            case .notListening(let port, let log): "mosquitto did not listen on \(port) in time: \(log)"
            }
        }
    }

    /// The port of the broker `make test` started (env `BREEZE_TEST_MQTT_PORT`), if any.
    public static var sharedPort: Int? {
        ProcessInfo.processInfo.environment["BREEZE_TEST_MQTT_PORT"].flatMap { Int($0) }
    }

    /// Runs `body` with the port of a plain anonymous broker: the shared one when `make test`
    /// provides it, otherwise a private broker started for `body` and stopped after it.
    public static func withPlainBroker<T>(_ body: (Int) async throws -> T) async throws -> T {
        if let sharedPort { return try await body(sharedPort) }
        let broker = try MosquittoBroker()
        try await broker.start()
        defer { broker.stop() }
        return try await body(broker.port)
    }

    public let port: Int
    public let directory: String
    private let settings: Mutex<[String]>
    private let process: Mutex<ChildProcess?>

    /// `configuration` lines are appended after the listener and defaults.
    public init(configuration: [String] = []) throws {
        port = try FreePort.loopback()
        directory = try makeTemporaryDirectory(prefix: "breeze-mosquitto")
        settings = Mutex(configuration)
        process = Mutex(nil)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Requires these users (created with `mosquitto_passwd -b`) and refuses anonymous clients.
    public func addPasswordFile(users: [String: String]) async throws {
        let file = directory + "/passwords"
        for (index, (user, password)) in users.sorted(by: { $0.key < $1.key }).enumerated() {
            try await TestProcess.run("mosquitto_passwd", (index == 0 ? ["-c"] : []) + ["-b", file, user, password])
        }
        settings.withLock { $0 += ["password_file \(file)", "allow_anonymous false"] }
    }

    /// Serves TLS with `certificates` on the listener; optionally requires a client certificate.
    public func enableTLS(_ certificates: TestCertificates, requireClientCertificate: Bool = false) {
        settings.withLock {
            $0 += [
                "cafile \(certificates.caFile)", "certfile \(certificates.serverCertFile)",
                "keyfile \(certificates.serverKeyFile)",
                "require_certificate \(requireClientCertificate)",
            ]
        }
    }

    /// The broker's own log (connections, refusals, wills), for diagnosing a failed test.
    public var log: String {
        (try? String(contentsOfFile: directory + "/mosquitto.log", encoding: .utf8)) ?? ""
    }

    /// Starts mosquitto and returns once the port accepts connections.
    public func start() async throws {
        let lines = settings.withLock { $0 }
        var config = [
            "listener \(port) 127.0.0.1",
            "persistence false",
            "log_dest stderr",
            "log_type error", "log_type warning", "log_type notice", "log_type information",
            "connection_messages true",
        ]
        // As root mosquitto would switch to the `mosquitto` user, who cannot read our 0600 files.
        if geteuid() == 0 { config.append("user root") }
        if !lines.contains("allow_anonymous false") { config.append("allow_anonymous true") }
        // mosquitto queues at most 1 000 QoS 1 messages per subscriber beyond those in flight
        // and drops the rest ("Outgoing messages are being dropped"). A test's watching client
        // that falls behind an agent's burst on a loaded machine (20 locations are ~5 000
        // topics) would then miss topics the agent did publish, and the test would fail.
        if !lines.contains(where: { $0.hasPrefix("max_queued_messages") }) {
            config.append("max_queued_messages 100000")
        }
        config += lines
        let configFile = directory + "/mosquitto.conf"
        try (config.joined(separator: "\n") + "\n").write(toFile: configFile, atomically: true, encoding: .utf8)

        // Its log goes to the file through a pipe this process reads: the line `mosquitto
        // version … running`, which it writes once its listener is open, is the event waited
        // for; the pipe's end of file is its exit.
        let logFile = directory + "/mosquitto.log"
        let logFD = open(logFile, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard logFD >= 0 else { throw Failure.notListening(port: port, log: "cannot open \(logFile): errno \(errno)") }
        let startup = StartupLog()
        let process: ChildProcess
        do {
            process = try ChildProcess(
                try TestProcess.locate("mosquitto"), ["-c", configFile], standardOutput: .file(logFile),
                standardError: .pipe { chunk in
                    if chunk.isEmpty {
                        close(logFD)
                    } else {
                        _ = chunk.withUnsafeBytes { write(logFD, $0.baseAddress, $0.count) }
                    }
                    startup.record(chunk)
                    TestEvents.shared.report()
                })
        } catch {
            close(logFD)
            throw error
        }
        self.process.withLock { $0 = process }

        // The bound is generous: a wait for a cooperative thread (the parallel suite's
        // synchronous tests hold both for seconds) can outlast a short one by itself.
        _ = await eventually(bound: .seconds(20)) { startup.state != .starting }
        switch startup.state {
        case .running:
            return
        case .ended:
            let status = await process.waitForExit(timeout: .seconds(10)) ?? -1
            self.process.withLock { $0 = nil }
            throw Failure.exited(status: status, log: log)
        case .starting:
            stop()
            throw Failure.notListening(port: port, log: log)
        }
    }

    /// What mosquitto's log said while it started: running, or ended (end of file) first.
    private final class StartupLog: Sendable {
        enum State { case starting, running, ended }
        private let seen = Mutex<(text: [UInt8], state: State)>(([], .starting))

        var state: State { seen.withLock { $0.state } }

        func record(_ chunk: [UInt8]) {
            seen.withLock { seen in
                guard seen.state == .starting else { return }
                if chunk.isEmpty {
                    seen.state = .ended
                    return
                }
                seen.text += chunk
                if String(decoding: seen.text, as: UTF8.self).contains(" running\n") { seen.state = .running }
            }
        }
    }

    /// Stops the broker and waits for it to exit. Safe to call when not running.
    ///
    /// SIGKILL: with `persistence false` there is nothing to save, clients just see the
    /// connection drop, and the port is free at once for ``restart()``.
    public func stop() {
        guard let process = self.process.withLock({ $0.take() }) else { return }
        process.kill()
    }

    /// Stops and starts again on the same port (clients see the connection drop).
    public func restart() async throws {
        stop()
        try await start()
    }
}
