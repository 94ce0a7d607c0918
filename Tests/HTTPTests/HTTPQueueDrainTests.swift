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

import BreezeHTTP
import BreezeTestSupport
import Foundation
import Testing

/// Issue 30: transfers that end at once (a refused connection, a loopback answer in
/// microseconds) while the driver starts the next queued ones must not leave it asleep with a
/// free slot and a queue. Before the fix the driver performed twice and then slept in
/// `curl_multi_poll` for up to an hour with nothing running: refused connections stalled after
/// 2 × `max_concurrent` requests, every time.
@Suite("HTTPClient drains its queue when transfers end at once")
struct HTTPQueueDrainTests {
    /// Far above what a healthy run takes (300 refused connections: well under a second; 300
    /// loopback answers: a few seconds under the parallel suite) and far below the hour a
    /// stalled driver sleeps.
    static let bound: Duration = .seconds(60)
    static let count = 300

    /// Runs `count` requests made by `request(n)` at once; returns how many ended (answered
    /// or failed) before ``bound``, and what each ended with.
    func drain(
        on client: HTTPClient, _ request: @escaping @Sendable (Int) -> HTTPRequest
    ) async -> (ended: Int, results: [Int: Result<Int, CurlError>]) {
        await withTaskGroup(of: (Int, Result<Int, CurlError>)?.self) { group in
            for n in 0..<Self.count {
                group.addTask {
                    do throws(CurlError) {
                        return (n, .success(try await client.get(request(n)).status))
                    } catch {
                        return (n, .failure(error))
                    }
                }
            }
            // The watchdog's nil ends the wait; the rest are cancelled and not counted. A bound
            // only: cancelled as soon as every request has ended, it passes in a failing run.
            group.addTask {
                try? await Task.sleep(for: Self.bound)
                return nil
            }
            var results: [Int: Result<Int, CurlError>] = [:]
            while let next = await group.next() {
                guard let (n, result) = next else { break }
                results[n] = result
                if results.count == Self.count { break }
            }
            group.cancelAll()
            return (results.count, results)
        }
    }

    @Test("300 requests to a refused port all fail promptly as couldNotConnect", arguments: [1, 2, 4])
    func refusedConnections(limit: Int) async throws {
        let refusing = try RefusingPort()
        defer { withExtendedLifetime(refusing) {} }
        let port = refusing.port
        let client = HTTPClient(version: "test", maxConcurrent: limit)
        let (ended, results) = await drain(on: client) { _ in
            HTTPRequest(url: "http://127.0.0.1:\(port)/", totalTimeout: .seconds(30))
        }
        #expect(ended == Self.count, "\(Self.count - ended) requests still waiting after \(Self.bound)")
        for (n, result) in results {
            guard case .failure(let error) = result else {
                Issue.record("request \(n) to a closed port answered: \(result)")
                continue
            }
            #expect(error.kind == .couldNotConnect, "request \(n): \(error)")
        }
    }

    @Test("300 requests to a server that answers at once all get their own answer", arguments: [1, 2, 4])
    func instantAnswers(limit: Int) async throws {
        let server = LoopbackHTTPServer { request in .respond(status: 200, text: request.queryValue("n") ?? "?") }
        try server.start()
        defer { server.stop() }
        let client = HTTPClient(version: "test", maxConcurrent: limit)
        let (ended, results) = await drain(on: client) { n in
            HTTPRequest(url: server.url("/fast"), query: [("n", "\(n)")], totalTimeout: .seconds(30))
        }
        #expect(ended == Self.count, "\(Self.count - ended) requests still waiting after \(Self.bound)")
        #expect(results.values.allSatisfy { (try? $0.get()) == 200 })
        #expect(server.requests.count == Self.count)
    }

    @Test("refused and answered requests mixed on one client: none is left behind")
    func mixed() async throws {
        let refusing = try RefusingPort()
        defer { withExtendedLifetime(refusing) {} }
        let port = refusing.port
        let server = LoopbackHTTPServer { _ in .respond(status: 204) }
        try server.start()
        defer { server.stop() }
        let client = HTTPClient(version: "test", maxConcurrent: 3)
        let (ended, results) = await drain(on: client) { n in
            n % 3 == 0
                ? HTTPRequest(url: server.url("/ok"), totalTimeout: .seconds(30))
                : HTTPRequest(url: "http://127.0.0.1:\(port)/", totalTimeout: .seconds(30))
        }
        #expect(ended == Self.count, "\(Self.count - ended) requests still waiting after \(Self.bound)")
        let answered = results.values.filter { (try? $0.get()) == 204 }.count
        #expect(answered == Self.count / 3)
    }
}
