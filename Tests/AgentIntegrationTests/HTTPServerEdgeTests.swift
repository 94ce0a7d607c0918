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

import BreezeCore
import BreezeServe
import BreezeTestSupport
import Foundation
import Synchronization
import Testing

/// The libmicrohttpd edge on its own: the real library through dlopen, raw sockets as clients.
@Suite("HTTPServer: libmicrohttpd through dlopen")
struct HTTPServerEdgeTests {
    static let limits = HTTPServerLimits(connections: 16, requestBytes: 8192, idleTimeoutSeconds: 5, listenBacklog: 16)

    @Test func aMissingLibraryIsAnErrorNamingThePackage() {
        do {
            try HTTPServer.loadLibrary("libmicrohttpd-not-installed.so.99")
            Issue.record("a library that does not exist was loaded")
        } catch {
            #expect(error.kind == .libraryMissing)
            #expect(error.description.hasPrefix("cannot load libmicrohttpd-not-installed.so.99 ("), "\(error)")
            #expect(error.description.contains("apt install libmicrohttpd12"), "\(error)")
        }
    }

    @Test("an HTTP/1.1 request without Host gets 400 and never reaches the handler; HTTP/1.0 without one is served")
    func http11WithoutHostIsABadRequest() throws {
        let seen = Mutex(0)
        let server = try HTTPServer(address: "127.0.0.1", port: 0, limits: Self.limits) { _ in
            seen.withLock { $0 += 1 }
            return HTTPServerResponse(status: 200, contentType: "text/plain", text: "ok\n")
        }
        defer { server.stop() }
        let bare = RawHTTP.request(server.port, "GET /healthz HTTP/1.1\r\n\r\n")
        #expect(bare.status == 400)
        #expect(bare.text == "bad request: an HTTP/1.1 request needs a Host header\n")
        #expect(seen.withLock { $0 } == 0)
        #expect(RawHTTP.request(server.port, "GET /healthz HTTP/1.0\r\n\r\n").status == 200)
        #expect(RawHTTP.request(server.port, "GET /healthz HTTP/1.1\r\nHost: h\r\n\r\n").status == 200)
        #expect(seen.withLock { $0 } == 2)
    }

    @Test func requestsReachTheHandlerAsSent() throws {
        let seen = Mutex<[HTTPServerRequest]>([])
        let server = try HTTPServer(address: "127.0.0.1", port: 0, limits: Self.limits) { request in
            seen.withLock { $0.append(request) }
            return HTTPServerResponse(
                status: 299, contentType: "text/x-test", text: "hello \(request.path)", headers: [("X-Test", "yes")])
        }
        defer { server.stop() }
        #expect(server.port > 0)

        let response = RawHTTP.request(server.port, "GET /a/b%20c?strict&x=1&y=%2F HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(response.status == 299)
        #expect(response.header("Content-Type") == "text/x-test")
        #expect(response.header("X-Test") == "yes")
        #expect(response.header("Content-Length") == "12")
        #expect(response.text == "hello /a/b c")
        let request = try #require(seen.withLock { $0.first })
        #expect(request.method == "GET")
        #expect(request.path == "/a/b c")
        #expect(request.query.map(\.key) == ["strict", "x", "y"])
        #expect(request.query.map(\.value) == [nil, "1", "/"])
        #expect(request.hasQuery("strict"))
        #expect(request.peer == IPAddress("127.0.0.1"))
        #expect(request.host == "h")

        // HEAD: headers with the body's length, no body.
        let head = RawHTTP.request(server.port, "HEAD /x HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(head.status == 299)
        #expect(head.header("Content-Length") == "8")
        #expect(head.body.isEmpty)
        #expect(seen.withLock { $0.last?.method } == "HEAD")
    }

    @Test func aRequestOverTheMemoryLimitNeverReachesTheHandler() throws {
        let calls = Mutex(0)
        let server = try HTTPServer(address: "127.0.0.1", port: 0, limits: Self.limits) { _ in
            calls.withLock { $0 += 1 }
            return HTTPServerResponse(status: 200)
        }
        defer { server.stop() }
        let big = String(repeating: "b", count: 64 * 1024)
        let response = RawHTTP.request(server.port, "GET / HTTP/1.1\r\nHost: h\r\nX-Big: \(big)\r\n\r\n")
        #expect(response.status != 200, "\(response.head)")
        #expect(calls.withLock { $0 } == 0)
        #expect(RawHTTP.request(server.port, "GET / HTTP/1.1\r\nHost: h\r\n\r\n").status == 200)
    }

    @Test func dualStackSeesIPv4PeersMappedAndStopCloses() throws {
        let server = try HTTPServer(address: "::", port: 0, limits: Self.limits) { request in
            HTTPServerResponse(status: 200, contentType: "text/plain", text: request.peer?.description ?? "none")
        }
        let port = server.port
        let response = RawHTTP.request(port, "GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(response.text == "::ffff:127.0.0.1")
        #expect(IPAddress(response.text)?.unmapped == IPAddress("127.0.0.1"))
        server.stop()
        server.stop()  // idempotent
        #expect(!FreePort.isAccepting(port: port))
    }

    @Test func anEncodedSlashOrNULStaysEncodedInThePath() throws {
        let server = try HTTPServer(address: "127.0.0.1", port: 0, limits: Self.limits) { request in
            HTTPServerResponse(status: 200, contentType: "text/plain", text: request.path)
        }
        defer { server.stop() }
        let cases = [
            "/images/home%2fhallway.png": "/images/home%2Fhallway.png",
            "/healthz%00junk": "/healthz%00junk",
            "/a%2Fb%41%2e%2e%20c%zz%4": "/a%2FbA.. c%zz%4",
            "/x%00?a=%2F": "/x%00",
        ]
        for (sent, seen) in cases {
            #expect(RawHTTP.request(server.port, "GET \(sent) HTTP/1.1\r\nHost: h\r\n\r\n").text == seen, "\(sent)")
        }
    }

    /// Issue 39 item 6: an encoded NUL in the query is a 404 as in the path (libmicrohttpd's
    /// decoding would cut `home%00x` to `home`), and a query of 1,000 arguments (2 KB, within
    /// the memory pool as text) is answered 414 instead of a closed connection.
    @Test func aQueryWithANULOrTooManyArgumentsIsAnsweredWithoutTheHandler() throws {
        let calls = Mutex(0)
        let server = try HTTPServer(address: "127.0.0.1", port: 0, limits: Self.limits) { request in
            calls.withLock { $0 += 1 }
            return HTTPServerResponse(
                status: 200, contentType: "text/plain",
                text: request.query.map { $0.value ?? "-" }.joined(separator: ","))
        }
        defer { server.stop() }
        let nul = RawHTTP.request(server.port, "GET /api/state.json?location=home%00x HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(nul.status == 404, "\(nul.head)")
        let many = (0..<1000).map { "a\($0 % 10)" }.joined(separator: "&")
        let flood = RawHTTP.request(server.port, "GET /api/state.json?\(many) HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(flood.status == 414, "\(flood.head)")
        #expect(calls.withLock { $0 } == 0)
        // The bound itself passes, and a plain query still reaches the handler decoded.
        let bound = (0..<64).map { "k=\($0)" }.joined(separator: "&")
        #expect(RawHTTP.request(server.port, "GET /x?\(bound) HTTP/1.1\r\nHost: h\r\n\r\n").status == 200)
        let plain = RawHTTP.request(server.port, "GET /x?location=home%20x&b HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(plain.text == "home x,-")
    }

    @Test func acceptDecidesBeforeTheRequestIsRead() throws {
        let asked = Mutex<[IPAddress?]>([])
        let calls = Mutex(0)
        let server = try HTTPServer(
            address: "127.0.0.1", port: 0, limits: Self.limits,
            accept: { peer in
                asked.withLock { $0.append(peer) }
                return false
            },
            handler: { _ in
                calls.withLock { $0 += 1 }
                return HTTPServerResponse(status: 200)
            })
        defer { server.stop() }
        let response = RawHTTP.request(server.port, "GET /healthz HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(response.status == nil, "\(response.head)")
        #expect(calls.withLock { $0 } == 0)
        #expect(asked.withLock { $0 } == [IPAddress("127.0.0.1")])
    }

    @Test func aTakenPortIsAStartError() throws {
        let first = try HTTPServer(address: "127.0.0.1", port: 0, limits: Self.limits) { _ in
            HTTPServerResponse(status: 200)
        }
        defer { first.stop() }
        do {
            _ = try HTTPServer(address: "127.0.0.1", port: first.port, limits: Self.limits) { _ in
                HTTPServerResponse(status: 200)
            }
            Issue.record("a second server bound the same port")
        } catch {
            #expect(error.kind == .startFailed)
            #expect(error.description.contains("Address already in use"), "\(error)")
        }
    }
}
