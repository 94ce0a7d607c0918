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

import BreezeTestSupport
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A loopback stand-in for a broker that does not speak MQTT 5, in front of a real mosquitto.
///
/// It reads each connection's CONNECT and records its protocol level byte (5 for MQTT 5, 4 for
/// 3.1.1). An MQTT 5 CONNECT is refused as configured: `.close` drops the connection without a
/// CONNACK (RabbitMQ 3.10's documented behaviour), `.connack84` answers CONNACK with reason code
/// 0x84 "unsupported protocol version" and then closes. Any other CONNECT is forwarded to the
/// mosquitto on `upstreamPort`, and bytes are copied both ways until either side closes.
///
/// Descriptors are shut down by ``stop()`` only while they are still this stand-in's: each is
/// removed from the open set under the same lock as its `close`. A number closed earlier belongs
/// to whatever the process opened next (another test's client socket, a listener), and shutting
/// that down broke other tests in the parallel suite ("client not currently connected" mid-burst)
/// and a later fallback test's own listener (no second CONNECT ever arrived).
final class MQTT5RefusingBroker: Sendable {
    enum Refusal: Sendable { case close, connack84 }

    let port: Int
    private let listenFD: Int32
    private let refusal: Refusal
    private let upstreamPort: Int
    private let levels = Mutex<[UInt8]>([])
    private let open = Mutex<[Int32]>([])

    init(refusal: Refusal, upstreamPort: Int) throws {
        self.refusal = refusal
        self.upstreamPort = upstreamPort
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        listenFD = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// The protocol level byte of every CONNECT received, in order.
    var protocolLevels: [UInt8] { levels.withLock { $0 } }

    /// Stops accepting and ends every connection still open (their threads then close them).
    func stop() {
        shutdown(listenFD, Int32(SHUT_RDWR))
        open.withLock { fds in
            for fd in fds { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    private func track(_ fd: Int32) {
        open.withLock { $0.append(fd) }
    }

    /// Closes `fd` and forgets it in one step, so ``stop()`` never reaches a reused number.
    private func closeTracked(_ fd: Int32) {
        open.withLock { fds in
            fds.removeAll { $0 == fd }
            close(fd)
        }
    }

    deinit {
        stop()
        close(listenFD)
    }

    private func acceptLoop() {
        while true {
            let client = accept(listenFD, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            _ = closeOnExec(client)
            track(client)
            let thread = Thread { [self] in serve(client) }
            thread.start()
        }
    }

    private func serve(_ client: Int32) {
        guard let connect = Self.readPacket(client), connect.first == 0x10 else {
            closeTracked(client)
            return
        }
        // CONNECT: fixed header, remaining length, then 00 04 "MQTT" and the level byte.
        var offset = 1
        while connect[offset] & 0x80 != 0 { offset += 1 }
        offset += 1
        let level = connect.count > offset + 6 ? connect[offset + 6] : 0
        levels.withLock { $0.append(level) }
        if level == 5 {
            if refusal == .connack84 { Self.writeAll(client, [0x20, 0x03, 0x00, 0x84, 0x00]) }
            closeTracked(client)
            return
        }
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = Self.loopback(port: upstreamPort)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(upstream)
            closeTracked(client)
            return
        }
        track(upstream)
        Self.writeAll(upstream, connect)
        // Either pump ending shuts both sockets down, which ends the other; both are closed
        // only once neither thread reads or writes them any more.
        let backDone = DispatchSemaphore(value: 0)
        let back = Thread {
            Self.pump(from: upstream, to: client)
            backDone.signal()
        }
        back.start()
        Self.pump(from: client, to: upstream)
        backDone.wait()
        closeTracked(upstream)
        closeTracked(client)
    }

    /// Copies until `from` ends, then closes both directions.
    private static func pump(from: Int32, to: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(from, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            writeAll(to, Array(buffer[0..<count]))
        }
        shutdown(to, Int32(SHUT_RDWR))
        shutdown(from, Int32(SHUT_RDWR))
    }

    /// One whole MQTT packet (fixed header, remaining length, body), or nil at EOF.
    private static func readPacket(_ fd: Int32) -> [UInt8]? {
        var packet: [UInt8] = []
        func byte() -> UInt8? {
            var value: UInt8 = 0
            return read(fd, &value, 1) == 1 ? value : nil
        }
        guard let first = byte() else { return nil }
        packet.append(first)
        var remaining = 0
        var multiplier = 1
        while true {
            guard let next = byte() else { return nil }
            packet.append(next)
            remaining += Int(next & 0x7F) * multiplier
            multiplier *= 128
            if next & 0x80 == 0 { break }
        }
        for _ in 0..<remaining {
            guard let next = byte() else { return nil }
            packet.append(next)
        }
        return packet
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes {
                send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written <= 0 { return }
            offset += written
        }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}

/// A loopback port that completes TCP handshakes (the kernel's accept queue) but never accepts
/// or answers: a TLS client's ClientHello goes unanswered, an MQTT CONNECT gets no CONNACK.
final class SilentListener: Sendable {
    let port: Int
    private let fd: Int32

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(fd) }
}
