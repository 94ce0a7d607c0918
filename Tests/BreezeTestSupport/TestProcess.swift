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
    /// Synchronous (it blocks the calling thread): only for short tools. The output goes through
    /// a file, not a pipe, so nothing waits on a pipe's other end.
    @discardableResult
    public static func run(
        _ tool: String, _ arguments: [String], in directory: String? = nil, timeout: Duration = .seconds(120)
    ) throws -> String {
        let output = try capture(tool, arguments, in: directory, standardError: .standardOutput, timeout: timeout)
        return String(decoding: output, as: UTF8.self)
    }

    /// Runs `tool` like ``run(_:_:in:timeout:)`` and returns its stdout alone, as bytes (stderr is
    /// discarded); for tools whose output is binary, such as `gzip -c`.
    public static func standardOutput(
        _ tool: String, _ arguments: [String], in directory: String? = nil, timeout: Duration = .seconds(120)
    ) throws -> Data {
        try capture(tool, arguments, in: directory, standardError: .null, timeout: timeout)
    }

    private static func capture(
        _ tool: String, _ arguments: [String], in directory: String?, standardError: ChildProcess.Output,
        timeout: Duration
    ) throws -> Data {
        let command = ([tool] + arguments).joined(separator: " ")
        let outputFile = NSTemporaryDirectory() + "breeze-output-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: outputFile) }
        let child = try ChildProcess(
            try locate(tool), arguments, directory: directory, standardOutput: .file(outputFile),
            standardError: standardError)
        let status = child.waitForExitBlocking(timeout: timeout)
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
