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

import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A real HTTP/1.1 server on `127.0.0.1` for tests: libcurl talks to it over TCP like to any server.
///
/// Each request is answered by a handler closure that sees the parsed ``Request`` and returns an
/// ``Action`` — a normal response, a gzip-compressed one, a delay, a truncated body, a dropped
/// connection or a hang — so tests can inject the faults the agent must survive (5xx, 429 with
/// `Retry-After`, truncated JSON, oversized bodies, timeouts). Every request is recorded.
///
/// ```swift
/// let server = LoopbackHTTPServer { request in
///     request.path == "/v1/forecast:lookup" ? .respond(status: 200, text: json) : .respond(status: 404)
/// }
/// try server.start()
/// defer { server.stop() }
/// let url = server.url("/v1/forecast:lookup")
/// ```
///
/// One accept thread plus one thread per connection (POSIX sockets, `poll`). Connections are kept
/// alive until the client closes them, an action ends them, or ``stop()`` is called; `stop()`
/// wakes every waiting thread through a self-pipe and waits for them to finish.
public final class LoopbackHTTPServer: Sendable {
    /// A request as it arrived.
    public struct Request: Sendable {
        public var method: String
        /// The request target exactly as sent, e.g. `/v1/air-quality?latitude=52.52`.
        public var target: String
        /// The target up to `?`, still percent-encoded.
        public var path: String
        /// The target after `?` (empty when there is none), still percent-encoded.
        public var rawQuery: String
        /// Query parameters percent-decoded, in order. `+` stays `+` (RFC 3986, not form encoding).
        public var query: [(name: String, value: String)]
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]
        /// Which accepted connection carried it (1, 2, …): equal numbers mean a reused connection.
        public var connection: Int

        /// The first value of header `name`, compared case-insensitively.
        public func header(_ name: String) -> String? {
            let wanted = name.lowercased()
            return headers.first { $0.name.lowercased() == wanted }?.value
        }

        /// The first decoded value of query parameter `name`.
        public func queryValue(_ name: String) -> String? {
            query.first { $0.name == name }?.value
        }
    }

    /// What the server does with one request.
    public indirect enum Action: Sendable {
        /// A complete response. `Content-Length` is added unless `headers` already set it or a
        /// `Transfer-Encoding` (so a test can lie about the length on purpose). The connection stays
        /// open for the next request unless `headers` include `Connection: close`.
        case respond(status: Int, headers: [(String, String)] = [], body: [UInt8] = [])
        /// The body gzip-compressed (by the `gzip` tool) and sent with `Content-Encoding: gzip`.
        case respondGzip(status: Int, headers: [(String, String)] = [], body: [UInt8])
        /// Waits (interrupted by ``LoopbackHTTPServer/stop()``), then performs `then`.
        case delay(Duration, then: Action)
        /// Status line and headers announcing `Content-Length: body.count`, then only the first
        /// `sentBytes` of `body`, then the connection is closed.
        case truncated(status: Int, headers: [(String, String)] = [], body: [UInt8], sentBytes: Int)
        /// Closes the connection without a response (an orderly FIN: curl sees an empty reply).
        case close
        /// Resets the connection without a response (`SO_LINGER` 0 → RST: "connection reset by peer").
        case reset
        /// Never answers; the connection stays open until the client gives up or the server stops.
        case hang

        /// A response whose body is `text` in UTF-8.
        public static func respond(status: Int, headers: [(String, String)] = [], text: String) -> Action {
            .respond(status: status, headers: headers, body: Array(text.utf8))
        }
    }

    /// Decides the answer to each request; called on the connection's thread.
    public typealias Handler = @Sendable (Request) -> Action

    /// Errors from setting up the listening socket, with `strerror`'s text.
    public struct SocketError: Error, CustomStringConvertible, Sendable {
        public var operation: String
        public var errno: Int32
        public var description: String { "\(operation): \(String(cString: strerror(errno))) (errno \(errno))" }
    }

    /// The `gzip` tool failed.
    public struct GzipError: Error, Sendable {
        public var status: Int32
    }

    private struct State {
        var handler: Handler
        var requests: [Request] = []
        var port = 0
        var listenFD: Int32 = -1
        var wakeRead: Int32 = -1
        var wakeWrite: Int32 = -1
        var running = false
        var connections = 0
    }

    private let state: Mutex<State>
    private let threads = DispatchGroup()

    public init(handler: @escaping Handler = { _ in .respond(status: 200) }) {
        state = Mutex(State(handler: handler))
    }

    /// The port the kernel picked (0 before ``start()``).
    public var port: Int { state.withLock { $0.port } }
    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    /// `baseURL` + `path` (`path` starts with `/`).
    public func url(_ path: String) -> String { baseURL + path }

    /// Every request received so far, in arrival order.
    public var requests: [Request] { state.withLock { $0.requests } }

    /// Forgets the recorded requests, so a long-running test (the soak) does not grow with them.
    public func removeRecordedRequests() {
        state.withLock { $0.requests.removeAll() }
    }

    /// Replaces the handler for requests that arrive from now on.
    public func setHandler(_ handler: @escaping Handler) {
        state.withLock { $0.handler = handler }
    }

    /// Binds 127.0.0.1 on a kernel-chosen port and starts accepting.
    public func start() throws(SocketError) {
        // Close-on-exec, as every descriptor here: a child spawned meanwhile without closing what
        // it inherits (the agent's render helper, RenderRunnerTests' `sleep 30` helpers) would
        // keep the port listening after `stop()` (a connect then succeeds and is reset, 56,
        // instead of being refused, 7: CurlFetcherTests in one fresh-clone run).
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError(operation: "socket", errno: errno) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let error = SocketError(operation: "bind", errno: errno)
            close(fd)
            throw error
        }
        guard listen(fd, 64) == 0 else {
            let error = SocketError(operation: "listen", errno: errno)
            close(fd)
            throw error
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        var pipeFDs: [Int32] = [-1, -1]
        guard pipe(&pipeFDs) == 0, closeOnExec(pipeFDs[0]), closeOnExec(pipeFDs[1]) else {
            let error = SocketError(operation: "pipe", errno: errno)
            close(fd)
            throw error
        }
        let port = Int(UInt16(bigEndian: address.sin_port))
        state.withLock {
            $0.listenFD = fd
            $0.port = port
            $0.wakeRead = pipeFDs[0]
            $0.wakeWrite = pipeFDs[1]
            $0.running = true
        }
        let wakeRead = pipeFDs[0]
        threads.enter()
        Thread.detachNewThread { [self] in
            acceptLoop(listenFD: fd, wakeFD: wakeRead)
            threads.leave()
        }
    }

    /// Stops accepting, wakes every delayed or hanging connection, closes them and waits (up to
    /// 5 s) for the server's threads to end. Safe to call twice.
    public func stop() {
        let fds = state.withLock { state -> (listen: Int32, wakeRead: Int32, wakeWrite: Int32)? in
            guard state.running else { return nil }
            state.running = false
            return (state.listenFD, state.wakeRead, state.wakeWrite)
        }
        guard let fds else { return }
        // The pipe is never drained, so it stays readable and wakes every poll that includes it.
        var byte: UInt8 = 1
        _ = write(fds.wakeWrite, &byte, 1)
        _ = threads.wait(timeout: .now() + 5)
        close(fds.listen)
        close(fds.wakeRead)
        close(fds.wakeWrite)
    }

    // MARK: - Connection handling

    private func acceptLoop(listenFD: Int32, wakeFD: Int32) {
        while true {
            guard waitReadable(listenFD, wakeFD: wakeFD, timeoutMilliseconds: -1) == .ready else { return }
            let connection = accept(listenFD, nil, nil)
            if connection < 0 {
                if errno == EINTR || errno == EAGAIN || errno == ECONNABORTED { continue }
                return
            }
            _ = closeOnExec(connection)
            let number = state.withLock {
                $0.connections += 1
                return $0.connections
            }
            threads.enter()
            Thread.detachNewThread { [self] in
                serve(connection, number: number, wakeFD: wakeFD)
                threads.leave()
            }
        }
    }

    private func serve(_ fd: Int32, number: Int, wakeFD: Int32) {
        var buffer: [UInt8] = []
        var open = true
        defer { if open { close(fd) } }
        while var request = readRequest(fd, wakeFD: wakeFD, buffer: &buffer) {
            request.connection = number
            let handler = state.withLock { state in
                state.requests.append(request)
                return state.handler
            }
            let action = handler(request)
            // After the handler: what it recorded (a stand-in's state) is there when waiters look.
            TestEvents.shared.report()
            let outcome = perform(action, on: fd, wakeFD: wakeFD)
            if outcome == .closed { open = false }
            if outcome != .keepAlive || request.header("Connection")?.lowercased() == "close" { return }
        }
    }

    private enum Outcome { case keepAlive, finish, closed }

    private func perform(_ action: Action, on fd: Int32, wakeFD: Int32) -> Outcome {
        switch action {
        case .respond(let status, let headers, let body):
            let sent = sendResponse(fd, status: status, headers: headers, body: body)
            // A handler that says `Connection: close` gets it: the server closes after this response.
            let closing = headers.contains { $0.0.lowercased() == "connection" && $0.1.lowercased() == "close" }
            return sent && !closing ? .keepAlive : .finish
        case .respondGzip(let status, let headers, let body):
            guard let compressed = try? Self.gzip(body) else {
                _ = sendResponse(fd, status: 500, headers: [], body: Array("gzip failed".utf8))
                return .finish
            }
            let sent = sendResponse(
                fd,
                status: status,
                headers: headers + [("Content-Encoding", "gzip")],
                body: compressed
            )
            return sent ? .keepAlive : .finish
        case .delay(let duration, let next):
            let (seconds, attoseconds) = duration.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
            guard waitReadable(nil, wakeFD: wakeFD, timeoutMilliseconds: milliseconds) == .timeout else {
                return .finish
            }
            return perform(next, on: fd, wakeFD: wakeFD)
        case .truncated(let status, let headers, let body, let sentBytes):
            var head = statusLine(status)
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
            _ = sendAll(fd, Array(head.utf8) + body.prefix(max(0, sentBytes)))
            return .finish
        case .close:
            return .finish
        case .reset:
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            close(fd)
            return .closed
        case .hang:
            _ = waitReadable(nil, wakeFD: wakeFD, timeoutMilliseconds: -1)
            return .finish
        }
    }

    private func statusLine(_ status: Int) -> String {
        let reasons = [
            200: "OK", 204: "No Content", 301: "Moved Permanently", 304: "Not Modified", 400: "Bad Request",
            401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 429: "Too Many Requests",
            500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
        ]
        return "HTTP/1.1 \(status) \(reasons[status] ?? "Status")\r\n"
    }

    private func sendResponse(_ fd: Int32, status: Int, headers: [(String, String)], body: [UInt8]) -> Bool {
        var head = statusLine(status)
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        let names = Set(headers.map { $0.0.lowercased() })
        if !names.contains("content-length") && !names.contains("transfer-encoding") {
            head += "Content-Length: \(body.count)\r\n"
        }
        head += "\r\n"
        return sendAll(fd, Array(head.utf8) + body)
    }

    private func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes {
                send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += sent
        }
        return true
    }

    private enum Wait { case ready, stopped, timeout }

    /// Waits until `fd` is readable, the server stops, or the timeout (-1 = none) passes.
    private func waitReadable(_ fd: Int32?, wakeFD: Int32, timeoutMilliseconds: Int32) -> Wait {
        var fds = [pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
        if let fd { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
        while true {
            let result = poll(&fds, nfds_t(fds.count), timeoutMilliseconds)
            if result < 0 && errno == EINTR { continue }
            if result < 0 { return .stopped }
            if result == 0 { return .timeout }
            if fds[0].revents != 0 { return .stopped }
            return .ready
        }
    }

    /// Reads one request (head and a `Content-Length` body); `nil` at end of stream or on stop.
    private func readRequest(_ fd: Int32, wakeFD: Int32, buffer: inout [UInt8]) -> Request? {
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while true {
            if let end = buffer.firstRange(of: terminator)?.upperBound { headEnd = end }
            if let headEnd {
                let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
                guard var request = Self.parseHead(head) else { return nil }
                let length = Int(request.header("Content-Length") ?? "0") ?? 0
                if buffer.count - headEnd >= length {
                    request.body = Array(buffer[headEnd..<headEnd + length])
                    buffer.removeFirst(headEnd + length)
                    return request
                }
            }
            guard waitReadable(fd, wakeFD: wakeFD, timeoutMilliseconds: -1) == .ready else { return nil }
            var chunk = [UInt8](repeating: 0, count: 16_384)
            let received = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if received < 0 && errno == EINTR { continue }
            guard received > 0 else { return nil }
            buffer.append(contentsOf: chunk[..<received])
        }
    }

    static func parseHead(_ head: String) -> Request? {
        let lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        guard let requestLine = lines.first else { return nil }
        let parts = requestLine.split(separator: " ")
        guard parts.count == 3 else { return nil }
        let target = String(parts[1])
        let path: String
        let rawQuery: String
        if let mark = target.firstIndex(of: "?") {
            path = String(target[..<mark])
            rawQuery = String(target[target.index(after: mark)...])
        } else {
            path = target
            rawQuery = ""
        }
        let query = rawQuery.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let pieces = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (
                name: percentDecode(String(pieces[0])), value: pieces.count > 1 ? percentDecode(String(pieces[1])) : ""
            )
        }
        let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (
                name: String(line[..<colon]).trimmingCharacters(in: .whitespaces),
                value: String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            )
        }
        return Request(
            method: String(parts[0]),
            target: target,
            path: path,
            rawQuery: rawQuery,
            query: query,
            headers: headers,
            body: [],
            connection: 0
        )
    }

    /// `%XX` → byte, everything else kept as is (a malformed escape stays literal).
    public static func percentDecode(_ text: String) -> String {
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "%"), index + 2 < utf8.count,
                let value = UInt8(String(decoding: utf8[index + 1...index + 2], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                index += 3
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `bytes` compressed by the system `gzip` (a real gzip member, not a stored block).
    public static func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("breeze-gzip-\(UUID().uuidString)")
        try Data(bytes).write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        do {
            return Array(try TestProcess.standardOutputBlocking("/bin/gzip", ["-c", "-n", input.path]))
        } catch let failure as TestProcess.Failure {
            throw GzipError(status: failure.status)
        }
    }
}

/// Sets `FD_CLOEXEC` on `fd` (for descriptors made without a close-on-exec flag); false on error.
public func closeOnExec(_ fd: Int32) -> Bool {
    fd >= 0 && fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC) == 0
}
