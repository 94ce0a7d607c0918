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

/// A transfer that did not produce a response, with curl's own words for why.
///
/// `message` is `curl_easy_strerror(code)` followed by the `CURLOPT_ERRORBUFFER` detail, with
/// request header values (API keys) scrubbed out. HTTP error statuses are not `CurlError`s: they
/// arrive as an ``HTTPResponse``.
public struct CurlError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What a caller can act on, independent of curl's many codes.
    public enum Kind: String, Sendable, Equatable {
        /// The connect or the total timeout expired.
        case timeout
        /// The TCP connection was refused or could not be made.
        case couldNotConnect
        /// The host (or proxy) name did not resolve.
        case dnsFailure
        /// The body grew past the request's `maxBodyBytes`.
        case tooLarge
        /// TLS handshake or certificate verification failed.
        case tls
        /// The calling task was cancelled and the transfer aborted.
        case cancelled
        /// Anything else (truncated body, reset connection, bad URL, out of memory, …).
        case other
    }

    /// The raw `CURLcode`.
    public var code: Int32
    public var kind: Kind
    public var message: String

    public init(code: Int32, kind: Kind, message: String) {
        self.code = code
        self.kind = kind
        self.message = message
    }

    public var description: String { "HTTP transfer failed (\(kind.rawValue), curl \(code)): \(message)" }
}
