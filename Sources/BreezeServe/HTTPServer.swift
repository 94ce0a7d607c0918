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

public import BreezeCore
import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One request as a ``HTTPServer`` handler sees it.
public struct HTTPServerRequest: Sendable, Equatable {
    /// `GET`, `HEAD`, … as the client sent it.
    public var method: String
    /// The path without the query, percent-decoded (`/images/%2e%2e/x` arrives as
    /// `/images/../x`) except for an encoded `/` or NUL, which stay as written in upper case
    /// (`/images/home%2fx.png` arrives as `/images/home%2Fx.png`, `/healthz%00x` as
    /// `/healthz%00x`): they never split a path into other segments or end it early.
    public var path: String
    /// The query arguments in order, decoded; a key without `=` has a nil value (`?strict`).
    public var query: [(key: String, value: String?)]
    /// The peer's address, nil when unknown.
    public var peer: IPAddress?
    /// The `Host` header as sent (a port included), nil when there was none.
    public var host: String?

    public init(
        method: String, path: String, query: [(key: String, value: String?)] = [], peer: IPAddress?,
        host: String? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.peer = peer
        self.host = host
    }

    /// True when the query has `name`, with or without a value.
    public func hasQuery(_ name: String) -> Bool { query.contains { $0.key == name } }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.method == rhs.method && lhs.path == rhs.path && lhs.peer == rhs.peer && lhs.host == rhs.host
            && lhs.query.map(\.key) == rhs.query.map(\.key) && lhs.query.map(\.value) == rhs.query.map(\.value)
    }
}

/// What a handler answers. For `HEAD` libmicrohttpd sends the headers (and the length of
/// `body`) without the body.
public struct HTTPServerResponse: Sendable, Equatable {
    public var status: Int
    /// Sent in order; `Content-Length` and `Date` are added by libmicrohttpd.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A text body with its content type.
    public init(status: Int, contentType: String, text: String, headers: [(name: String, value: String)] = []) {
        self.init(status: status, headers: [("Content-Type", contentType)] + headers, body: Array(text.utf8))
    }

    /// The first header called `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.status == rhs.status && lhs.body == rhs.body && lhs.headers.map(\.name) == rhs.headers.map(\.name)
            && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }
}

/// The bounds a server runs with (docs/operations.md, Limits).
public struct HTTPServerLimits: Sendable, Equatable {
    /// Open connections at once; beyond it libmicrohttpd closes new ones at accept.
    public var connections: Int
    /// Per connection: the request line, the request's headers and the answer's headers share
    /// this pool; a request that does not fit is answered 414 or 431 and closed.
    public var requestBytes: Int
    /// An idle connection (nothing read or written) is closed after this long.
    public var idleTimeoutSeconds: Int
    /// Connections waiting in the kernel to be accepted.
    public var listenBacklog: Int
    /// Open connections at once from one peer address (0: only ``connections`` applies); one
    /// more is closed at accept.
    public var connectionsPerAddress: Int
    /// The request line and headers must have arrived this long after the connection was
    /// accepted, however steadily they trickle in (0: only the idle timeout applies).
    public var requestHeadSeconds: Int

    public init(
        connections: Int, requestBytes: Int, idleTimeoutSeconds: Int, listenBacklog: Int,
        connectionsPerAddress: Int = 0, requestHeadSeconds: Int = 0
    ) {
        self.connections = connections
        self.requestBytes = requestBytes
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.listenBacklog = listenBacklog
        self.connectionsPerAddress = connectionsPerAddress
        self.requestHeadSeconds = requestHeadSeconds
    }
}

/// A failure to load libmicrohttpd or to start a server, with the library's own words.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The shared library could not be loaded (not installed, or an incompatible one).
        case libraryMissing
        /// The server could not start (address in use, not an address of this host, …).
        case startFailed
    }
    public var kind: Kind
    public var description: String
}

/// An HTTP server on libmicrohttpd, loaded with `dlopen` when the first server starts: a
/// process that never starts one never maps libmicrohttpd (nor the GnuTLS it depends on).
///
/// libmicrohttpd runs one internal thread (epoll) that reads requests and writes answers
/// without blocking, so slow clients cost memory (bounded by ``HTTPServerLimits``), not threads.
/// `handler` runs on that thread for each request, and must answer at once: read a snapshot,
/// never wait on another part of the program.
public final class HTTPServer: Sendable {
    /// The library this build was compiled against (libmicrohttpd 0.9.75, Debian 12), by soname.
    public static let libraryName = "libmicrohttpd.so.12"
    /// The Debian package that ships ``libraryName``.
    public static let packageName = "libmicrohttpd12"

    /// Loads libmicrohttpd; `library` overrides the file name (tests name a missing one).
    public static func loadLibrary(_ library: String = libraryName) throws(HTTPServerError) {
        var buffer = [CChar](repeating: 0, count: 512)
        let result = library.withCString { cmhd_load($0, &buffer, buffer.count) }
        guard result == 0 else {
            let reason = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw HTTPServerError(
                kind: .libraryMissing,
                description:
                    "cannot load \(library) (\(reason)); the HTTP server needs the package \(packageName): apt install \(packageName)"
            )
        }
    }

    /// The box libmicrohttpd's callbacks reach through their context pointer.
    private final class Callbacks: Sendable {
        let accept: (@Sendable (IPAddress?) -> Bool)?
        let handler: @Sendable (HTTPServerRequest) -> HTTPServerResponse
        let logger: @Sendable (String) -> Void
        /// The last line libmicrohttpd logged: why a start failed (bind: Address already in use).
        let lastLine = Mutex<String?>(nil)
        init(
            accept: (@Sendable (IPAddress?) -> Bool)?,
            handler: @escaping @Sendable (HTTPServerRequest) -> HTTPServerResponse,
            logger: @escaping @Sendable (String) -> Void
        ) {
            self.accept = accept
            self.handler = handler
            self.logger = logger
        }
    }

    // The C server pointer is only passed to cmhd_port and cmhd_stop, which libmicrohttpd
    // allows from any thread; `stopped` makes stop idempotent.
    private nonisolated(unsafe) let server: UnsafeMutableRawPointer
    private let callbacks: Unmanaged<Callbacks>
    private let stopped = Atomic<Bool>(false)

    /// The port the server listens on.
    public let port: Int

    /// Loads libmicrohttpd if needed and starts listening on `address` (an IPv4 or IPv6
    /// literal) and `port` (0: any free port, see ``port``). `accept` (nil: every peer) is asked
    /// on the server's thread for each new connection before a byte of it is read, with the
    /// peer's address (nil when unknown); false closes the connection at once.
    public init(
        address: String, port: Int, limits: HTTPServerLimits,
        accept: (@Sendable (IPAddress?) -> Bool)? = nil,
        logger: @escaping @Sendable (String) -> Void = { _ in },
        handler: @escaping @Sendable (HTTPServerRequest) -> HTTPServerResponse
    ) throws(HTTPServerError) {
        try Self.loadLibrary()
        let callbacks = Unmanaged.passRetained(Callbacks(accept: accept, handler: handler, logger: logger))
        let context = callbacks.toOpaque()
        var buffer = [CChar](repeating: 0, count: 512)
        let cLimits = cmhd_limits(
            connection_limit: UInt32(clamping: limits.connections),
            connection_memory_limit: limits.requestBytes,
            connection_timeout_seconds: UInt32(clamping: limits.idleTimeoutSeconds),
            listen_backlog: UInt32(clamping: limits.listenBacklog),
            per_address_limit: UInt32(clamping: limits.connectionsPerAddress),
            request_head_seconds: UInt32(clamping: limits.requestHeadSeconds))
        let started = address.withCString { address in
            cmhd_start(
                address, UInt16(clamping: port), cLimits, accept == nil ? nil : HTTPServer.onAccept,
                HTTPServer.onRequest, context, HTTPServer.onLog, context, &buffer, buffer.count)
        }
        guard let started else {
            var reason = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let line = callbacks.takeUnretainedValue().lastLine.withLock({ $0 }) { reason += ": " + line }
            callbacks.release()
            throw HTTPServerError(kind: .startFailed, description: reason)
        }
        self.server = started
        self.callbacks = callbacks
        self.port = Int(cmhd_port(started))
    }

    deinit { stop() }

    /// Stops listening, closes every connection and waits for libmicrohttpd's thread: no
    /// handler runs after it returns.
    public func stop() {
        guard stopped.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        cmhd_stop(server)
        callbacks.release()
    }

    private static let onAccept: cmhd_accept = { context, family, bytes in
        guard let context else { return 0 }
        let callbacks = Unmanaged<Callbacks>.fromOpaque(context).takeUnretainedValue()
        guard let accept = callbacks.accept else { return 1 }
        return accept(address(family: family, bytes: bytes.map { UnsafeRawPointer($0) })) ? 1 : 0
    }

    private static let onRequest: cmhd_handler = { context, request in
        guard let context, let request else { return 0 }
        let callbacks = Unmanaged<Callbacks>.fromOpaque(context).takeUnretainedValue()
        // A query the C side did not parse (cmicrohttpd.c, on_uri) is answered here, the same
        // for every endpoint: an encoded NUL as a path with one is (404), too many arguments 414.
        let response: HTTPServerResponse
        switch request.pointee.query_problem {
        case CMHD_QUERY_NUL:
            response = HTTPServerResponse(status: 404, contentType: "text/plain; charset=utf-8", text: "not found\n")
        case CMHD_QUERY_TOO_MANY:
            response = HTTPServerResponse(
                status: 414, contentType: "text/plain; charset=utf-8",
                text: "more than \(CMHD_MAX_QUERY_ARGUMENTS) query arguments\n")
        default:
            // HTTP/1.1 requires a Host header (RFC 9112 §3.2: "MUST respond with a 400"); the
            // library serves such a request anyway, so the rule is kept here, for every path.
            if request.pointee.http11 != 0, request.pointee.host == nil {
                response = HTTPServerResponse(
                    status: 400, contentType: "text/plain; charset=utf-8",
                    text: "bad request: an HTTP/1.1 request needs a Host header\n")
            } else {
                response = callbacks.handler(HTTPServer.request(from: request.pointee))
            }
        }
        return HTTPServer.respond(request.pointee.connection, response)
    }

    private static let onLog: cmhd_logger = { context, line in
        guard let context, let line else { return }
        let callbacks = Unmanaged<Callbacks>.fromOpaque(context).takeUnretainedValue()
        let text = String(cString: line)
        callbacks.lastLine.withLock { $0 = text }
        callbacks.logger(text)
    }

    private static func request(from raw: cmhd_request) -> HTTPServerRequest {
        var query: [(key: String, value: String?)] = []
        for index in 0..<raw.query_count {
            guard let key = raw.query_keys?[index] else { continue }
            query.append((String(cString: key), raw.query_values?[index].map { String(cString: $0) }))
        }
        let peer = withUnsafeBytes(of: raw.peer_bytes) { address(family: raw.peer_family, bytes: $0.baseAddress) }
        return HTTPServerRequest(
            method: raw.method.map { String(cString: $0) } ?? "",
            path: raw.path.map { String(cString: $0) } ?? "", query: query, peer: peer,
            host: raw.host.map { String(cString: $0) })
    }

    /// An address from the C side's family (4, 6; anything else: unknown) and bytes.
    private static func address(family: Int32, bytes: UnsafeRawPointer?) -> IPAddress? {
        guard let bytes else { return nil }
        switch family {
        case 4: return .v4(Array(UnsafeRawBufferPointer(start: bytes, count: 4)))
        case 6: return .v6(Array(UnsafeRawBufferPointer(start: bytes, count: 16)))
        default: return nil
        }
    }

    private static func respond(_ connection: UnsafeMutableRawPointer?, _ response: HTTPServerResponse) -> Int32 {
        // Header names and values are C strings for the call's duration; a NUL or line break
        // inside one would split the header, so such a header is dropped (none is built so).
        let headers = response.headers.filter { header in
            !(header.name + header.value).utf8.contains { $0 == 0 || $0 == 10 || $0 == 13 }
        }
        let names = headers.map { strdup($0.name) }
        let values = headers.map { strdup($0.value) }
        defer {
            for pointer in names + values { free(pointer) }
        }
        let constNames = names.map { UnsafePointer($0) }
        let constValues = values.map { UnsafePointer($0) }
        return constNames.withUnsafeBufferPointer { namePointers in
            constValues.withUnsafeBufferPointer { valuePointers in
                response.body.withUnsafeBytes { body in
                    cmhd_respond(
                        connection, UInt32(clamping: response.status), namePointers.baseAddress,
                        valuePointers.baseAddress, headers.count, body.baseAddress, body.count)
                }
            }
        }
    }
}
