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

@testable import BreezeAgent
@testable import BreezeDaemon
import BreezeCore
import BreezeHTTP
import BreezeTestSupport
import Foundation
import Testing

/// The runtime's HTTP adapter against a loopback server: the core's query parameters arrive as
/// sent, `Retry-After` (parsed by the core) reaches the sources as sent, and a transport
/// failure arrives as curl's error with its kind.
@Suite("CurlFetcher: the runtime's HTTP over libcurl")
struct CurlFetcherTests {
    @Test func retryAfterReachesTheSources() async throws {
        let server = LoopbackHTTPServer { request in
            switch request.path {
            case "/seconds": .respond(status: 429, headers: [("Retry-After", "120")], text: "slow down")
            case "/past": .respond(status: 503, headers: [("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT")], text: "")
            case "/garbage": .respond(status: 503, headers: [("Retry-After", "soon")], text: "")
            default: .respond(status: 200, text: "fine")
            }
        }
        try server.start()
        defer { server.stop() }
        let fetcher = CurlFetcher(totalTimeout: .seconds(10))
        let limited = try await fetcher.get(server.url("/seconds"), query: [], headers: [])
        #expect(limited.status == 429)
        #expect(limited.retryAfter == .seconds(120))
        // A date reaches the daemon as a date: it counts it from the failure's event.
        let past = try await fetcher.get(server.url("/past"), query: [], headers: []).retryAfter
        #expect(past == .date(1_445_412_480) && past?.delay(at: 1_445_412_480 + 60) == 0)
        #expect(try await fetcher.get(server.url("/garbage"), query: [], headers: []).retryAfter == nil)
        #expect(try await fetcher.get(server.url("/none"), query: [], headers: []).retryAfter == nil)
    }

    @Test func queryParametersArriveInOrder() async throws {
        let server = LoopbackHTTPServer { _ in .respond(status: 200, text: "ok") }
        try server.start()
        defer { server.stop() }
        let query = OpenMeteoPollen.query(latitude: 52.52, longitude: 13.405, timezone: "Europe/Berlin")
        _ = try await CurlFetcher().get(server.url("/air-quality"), query: query, headers: [])
        let seen = try #require(server.requests.first)
        #expect(seen.query.map(\.name) == query.map(\.name))
        #expect(seen.query.map(\.value) == query.map(\.value))
    }

    @Test func transportFailureKeepsCurlsKind() async throws {
        // Nothing listens on the port a stopped server had.
        let server = LoopbackHTTPServer()
        try server.start()
        let url = server.url("/")
        server.stop()
        do {
            _ = try await CurlFetcher(totalTimeout: .seconds(5)).get(url, query: [], headers: [])
            Issue.record("expected a connection failure")
        } catch {
            #expect(error.kind == .couldNotConnect, "\(error)")
            #expect(error.code == 7)  // CURLE_COULDNT_CONNECT
        }
    }
}
