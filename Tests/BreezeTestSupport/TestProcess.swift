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

public import Foundation

/// Runs a command-line tool to completion and fails with its output when it exits non-zero.
/// Used for `openssl` and `mosquitto_passwd`, whose errors are only readable on stderr.
public enum TestProcess {
    public struct Failure: Error, CustomStringConvertible {
        public let command: String
        public let status: Int32
        public let output: String
        public var description: String { "\(command) exited with \(status): \(output)" }
    }

    /// Runs `tool` (looked up in PATH plus the sbin directories) with `arguments`; its stdout and
    /// stderr together. Fails when it exits non-zero or is still running after `timeout`.
    ///
    /// Waits with `Task.sleep`, so the two threads of the cooperative pool stay free for the
    /// other tests meanwhile (`openssl` under load takes seconds). The output goes through a
    /// file, not a pipe, so nothing waits on a pipe's other end.
    @discardableResult
    public static func run(
        _ tool: String, _ arguments: [String], in directory: String? = nil, timeout: Duration = .seconds(120)
    ) async throws -> String {
        let run = try Run(tool, arguments, in: directory, standardError: .standardOutput)
        let status = await run.child.waitForExit(timeout: timeout)
        return String(decoding: try run.finish(status: status, timeout: timeout), as: UTF8.self)
    }

    /// The same, blocking the calling thread: only for callers that are not async and run on
    /// threads of their own (a loopback server's connection thread) or briefly.
    @discardableResult
    public static func runBlocking(
        _ tool: String, _ arguments: [String], in directory: String? = nil, timeout: Duration = .seconds(120)
    ) throws -> String {
        let run = try Run(tool, arguments, in: directory, standardError: .standardOutput)
        let status = run.child.waitForExitBlocking(timeout: timeout)
        return String(decoding: try run.finish(status: status, timeout: timeout), as: UTF8.self)
    }

    /// Runs `tool` like ``runBlocking(_:_:in:timeout:)`` and returns its stdout alone, as bytes
    /// (stderr is discarded); for tools whose output is binary, such as `gzip -c`.
    public static func standardOutputBlocking(
        _ tool: String, _ arguments: [String], in directory: String? = nil, timeout: Duration = .seconds(120)
    ) throws -> Data {
        let run = try Run(tool, arguments, in: directory, standardError: .null)
        let status = run.child.waitForExitBlocking(timeout: timeout)
        return try run.finish(status: status, timeout: timeout)
    }

    /// One started tool and the file its output goes to (removed on deinit).
    private final class Run {
        let command: String
        let outputFile = NSTemporaryDirectory() + "breeze-output-" + UUID().uuidString
        let child: ChildProcess

        init(_ tool: String, _ arguments: [String], in directory: String?, standardError: ChildProcess.Output) throws {
            command = ([tool] + arguments).joined(separator: " ")
            child = try ChildProcess(
                try locate(tool), arguments, directory: directory, standardOutput: .file(outputFile),
                standardError: standardError)
        }

        deinit { try? FileManager.default.removeItem(atPath: outputFile) }

        /// The output once the tool exited with 0; throws otherwise (killing an overrun).
        func finish(status: Int32?, timeout: Duration) throws -> Data {
            let data = FileManager.default.contents(atPath: outputFile) ?? Data()
            guard let status else {
                child.kill()
                throw Failure(
                    command: command, status: -1,
                    output: "still running after \(timeout): " + String(decoding: data, as: UTF8.self))
            }
            guard status == 0 else {
                throw Failure(command: command, status: status, output: String(decoding: data, as: UTF8.self))
            }
            return data
        }
    }

    /// Finds an executable; mosquitto lives in /usr/sbin, which a non-root PATH often lacks.
    public static func locate(_ tool: String) throws -> String {
        if tool.hasPrefix("/") { return tool }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let directories = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/local/sbin", "/sbin"]
        for directory in directories {
            let candidate = directory + "/" + tool
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw Failure(command: tool, status: -1, output: "not found in \(directories)")
    }
}
