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

#if canImport(Glibc)
    import Glibc
#endif

/// A loopback port whose TCP handshakes never complete, for connect-timeout tests.
///
/// It listens with a backlog of 0, never calls `accept`, and fills its accept queue with its own
/// connections; Linux then drops further SYNs, so a client's `connect` hangs until its connect
/// timeout fires (unlike a closed port, which refuses at once).
public final class StalledListener: Sendable {
    private let listenFD: Int32
    private let fillers: [Int32]
    /// The stalled port on 127.0.0.1.
    public let port: Int

    public init() throws(LoopbackHTTPServer.SocketError) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .init(operation: "socket", errno: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 0) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else {
            let error = LoopbackHTTPServer.SocketError(operation: "bind/listen", errno: errno)
            close(fd)
            throw error
        }
        listenFD = fd
        // Non-blocking connects: the first ones fill the queue, the rest sit in SYN-SENT.
        var fillers: [Int32] = []
        for _ in 0..<4 {
            let filler = socket(
                AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard filler >= 0 else { continue }
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, length) }
            }
            fillers.append(filler)
        }
        self.fillers = fillers
        port = Int(UInt16(bigEndian: address.sin_port))
        // The queue is full once a connection waits in it (a backlog of 0 holds one): the
        // listening socket is then readable. Waited for, bounded at 2 s (loopback handshakes
        // finish within the connect calls; the bound is for a machine that stalls).
        var queued = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        _ = poll(&queued, 1, 2000)
    }

    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    deinit {
        for filler in fillers { close(filler) }
        close(listenFD)
    }
}
