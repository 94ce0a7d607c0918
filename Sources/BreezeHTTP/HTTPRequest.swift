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

/// One header line: a name (matched case-insensitively) and its value.
public struct HTTPHeader: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// One part of a `multipart/form-data` body (RFC 7578), sent in the order given.
public struct MultipartPart: Sendable, Equatable {
    public var name: String
    public var data: [UInt8]
    /// The part's `filename` (a file upload), nil for a plain field.
    public var filename: String?
    /// The part's `Content-Type`, nil for a plain field.
    public var contentType: String?

    public init(name: String, data: [UInt8], filename: String? = nil, contentType: String? = nil) {
        self.name = name
        self.data = data
        self.filename = filename
        self.contentType = contentType
    }
}

/// A GET request (or, with ``multipart``, a `multipart/form-data` POST): where to go, what to send, and how long and how much to accept.
///
/// Header values are treated as secrets (API keys travel as `X-Goog-Api-Key`): they are sent
/// but never appear in a ``CurlError``.
public struct HTTPRequest: Sendable {
    /// The URL without the query (it may already carry one; the items are appended).
    public var url: String
    /// Query parameters, unescaped, in the order they are sent; ``HTTPClient/urlWithQuery(_:_:)``
    /// escapes them. Plain pairs rather than a type of this module: the requests are built by the
    /// core as its `QueryParameter` values, and this module does not depend on the core (nor the
    /// core on it), so the runtime hands each over as `(name, value)`.
    public var query: [(name: String, value: String)]
    public var headers: [HTTPHeader]
    /// Time allowed for DNS + TCP + TLS setup.
    public var connectTimeout: Duration
    /// Time allowed for the whole transfer, connect included.
    public var totalTimeout: Duration
    /// The largest (decoded) body accepted; a bigger one aborts the transfer with ``CurlError/Kind/tooLarge``.
    public var maxBodyBytes: Int
    /// A `multipart/form-data` body: the request is then a POST of these parts, in order
    /// (libcurl's mime API), sent without `Expect: 100-continue`.
    public var multipart: [MultipartPart]? = nil

    public init(
        url: String,
        query: [(name: String, value: String)] = [],
        headers: [HTTPHeader] = [],
        connectTimeout: Duration = .seconds(10),
        totalTimeout: Duration = .seconds(30),
        maxBodyBytes: Int = 4 << 20
    ) {
        self.url = url
        self.query = query
        self.headers = headers
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.maxBodyBytes = maxBodyBytes
    }

    /// The full URL that goes on the wire.
    public var fullURL: String { HTTPClient.urlWithQuery(url, query) }
}
