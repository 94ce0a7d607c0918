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

#if canImport(Glibc)
    import Glibc
#endif
import BreezeConfig
import BreezeCore
import BreezeDaemon
import Synchronization

/// One line per event on stderr (journald-friendly: stderr is unbuffered and each line is one
/// `write(2)`), with every configured secret masked (``SecretScrubber``) before it is written.
/// Errors are scrubbed where they are made; this is the last line of defence for the log.
///
/// Under systemd (`JOURNAL_STREAM` set) the timestamp is left out: journald adds its own.
/// `BREEZE_LOG_STREAM=stdout` sends the lines to stdout instead (the container image sets it:
/// docs/installing.md has container logs on stdout); any other value is stderr.
final class Log: Sendable {
    private struct State {
        var level: LogLevel
        var scrubber: SecretScrubber
    }
    private let state: Mutex<State>
    private let withTimestamps: Bool
    private let sink: @Sendable (String) -> Void

    /// - Parameter sink: where finished lines go; stderr by default (tests capture lines).
    init(
        level: LogLevel = .info, timestamps: Bool? = nil,
        sink: (@Sendable (String) -> Void)? = nil
    ) {
        self.state = Mutex(State(level: level, scrubber: .none))
        self.withTimestamps = timestamps ?? (getenv("JOURNAL_STREAM") == nil)
        let descriptor = Self.streamDescriptor(getenv("BREEZE_LOG_STREAM").map { String(cString: $0) })
        self.sink =
            sink ?? { line in
                var bytes = Array(line.utf8)
                bytes.append(UInt8(ascii: "\n"))
                _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            }
    }

    /// The file descriptor log lines go to for a `BREEZE_LOG_STREAM` value: 1 for `stdout`,
    /// 2 (stderr) for anything else or nothing.
    static func streamDescriptor(_ value: String?) -> Int32 { value == "stdout" ? 1 : 2 }

    var level: LogLevel {
        get { state.withLock { $0.level } }
        set { state.withLock { $0.level = newValue } }
    }

    /// Registers values that must never appear in a log line (API keys, passwords).
    func redact(_ scrubber: SecretScrubber) {
        state.withLock { $0.scrubber = scrubber }
    }

    func redact(_ secrets: [String]) { redact(SecretScrubber(secrets: secrets)) }

    func debug(_ message: @autoclosure () -> String) { emit(.debug, message) }
    func info(_ message: @autoclosure () -> String) { emit(.info, message) }
    func warning(_ message: @autoclosure () -> String) { emit(.warning, message) }
    func error(_ message: @autoclosure () -> String) { emit(.error, message) }

    private func emit(_ level: LogLevel, _ message: () -> String) {
        let (minimum, scrubber) = state.withLock { ($0.level, $0.scrubber) }
        guard level >= minimum else { return }
        let text = scrubber.scrub(message())
        let prefix = withTimestamps ? UTCTimestamp.rfc3339(unixSeconds: Timestamp.nowUnixSeconds()) + " " : ""
        sink("\(prefix)\(level.rawValue): \(text)")
    }
}

/// Wall-clock helpers for the edges (the core receives times as plain numbers).
enum Timestamp {
    static func nowUnixSeconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec)
    }

    /// Seconds on the monotonic clock (since an unspecified start, immune to clock steps); the
    /// agent measures its uptime with it. Schedules and cooldowns use ``nowUnixSeconds()``.
    static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
