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

/// Why a render failed, and the exit status the helper reports it with (sysexits.h).
public struct RenderFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, as the helper's protocol tells the agent.
    public enum Kind: Sendable, Equatable {
        /// The request is wrong (malformed JSON, a size or color out of bounds): exit 65.
        case badRequest
        /// Drawing or encoding failed (Cairo, libjpeg, writing stdout): exit 70.
        case internalError
    }

    public let kind: Kind
    /// One line naming what is wrong (`width: 1700 is outside 64…1600`).
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        // The protocol promises one line on stderr.
        self.message = String(message.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }

    static func badRequest(_ message: String) -> RenderFailure { RenderFailure(.badRequest, message) }
    static func internalError(_ message: String) -> RenderFailure { RenderFailure(.internalError, message) }

    /// EX_DATAERR (65) for a bad request, EX_SOFTWARE (70) otherwise.
    public var exitStatus: Int32 { kind == .badRequest ? 65 : 70 }

    public var description: String { message }
}
