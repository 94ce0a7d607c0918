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

/// Runs a command-line tool to completion and fails with its output when it exits non-zero.
/// Used for `openssl` and `mosquitto_passwd`, whose errors are only readable on stderr.
public enum TestProcess {
    public struct Failure: Error, CustomStringConvertible {
        public let command: String
        public let status: Int32
        public let output: String
        public var description: String { "\(command) exited with \(status): \(output)" }
    }

    /// Runs `tool` (looked up in PATH plus the sbin directories) with `arguments`.
    @discardableResult
    public static func run(_ tool: String, _ arguments: [String], in directory: String? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try locate(tool))
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitForTermination()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw Failure(
                command: ([tool] + arguments).joined(separator: " "), status: process.terminationStatus, output: text)
        }
        return text
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
