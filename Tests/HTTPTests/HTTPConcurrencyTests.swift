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

@Suite("HTTPClient runs requests concurrently up to its limit (curl multi)")
struct HTTPConcurrencyTests {
    func run(_ count: Int, on client: HTTPClient, server: LoopbackHTTPServer) async throws -> [Int: String] {
        try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for n in 0..<count {
                group.addTask {
                    let response = try await client.get(
                        HTTPRequest(url: server.url("/slow"), query: [("n", "\(n)")], totalTimeout: .seconds(30)))
                    return (n, response.text)
                }
            }
            return try await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
        }
    }

    @Test("12 slow requests with max_concurrent 4: the server sees exactly 4 at once, never more", arguments: [1, 4])
    func reachesAndKeepsTheLimit(limit: Int) async throws {
        let gauge = ConcurrencyGauge()
        let server = LoopbackHTTPServer { request in
            gauge.serve(holding: .milliseconds(250))
            return .respond(status: 200, text: request.queryValue("n") ?? "?")
        }
        try server.start()
        defer { server.stop() }
        let client = HTTPClient(version: "test", maxConcurrent: limit)
        let started = ContinuousClock.now
        let results = try await run(12, on: client, server: server)
        let elapsed = ContinuousClock.now - started
        #expect(results.count == 12)
        for (n, text) in results { #expect(text == "\(n)") }
        #expect(gauge.total == 12)
        #expect(gauge.peak == limit)
        // 12 answers of 250 ms each, `limit` at a time: at least 12/limit rounds of 250 ms.
        #expect(elapsed >= .milliseconds(250 * (12 / limit)) - .milliseconds(50))
    }

    @Test("the limit is clamped to 1...64")
    func clamped() {
        #expect(HTTPClient(version: "t", maxConcurrent: 0).maxConcurrent == 1)
        #expect(HTTPClient(version: "t", maxConcurrent: 500).maxConcurrent == HTTPClient.maximumConcurrency)
        #expect(HTTPClient(version: "t").maxConcurrent == 4)
    }

    @Test("cancelling running and queued requests ends them at once; the client keeps serving")
    func cancellationRunningAndQueued() async throws {
        let gauge = ConcurrencyGauge()
        let server = LoopbackHTTPServer { request in
            if request.path == "/hang" {
                gauge.serve(holding: .milliseconds(0))
                return .hang
            }
            return .respond(status: 200, text: "fine")
        }
        try server.start()
        defer { server.stop() }
        let client = HTTPClient(version: "test", maxConcurrent: 2)
        // The requests, too, run on TimingExecutor's thread (a CI run once saw neither reach the
        // server within the 10 s wait below while they waited for the pool).
        func hanging() -> Task<CurlError?, Never> {
            Task(executorPreference: TimingExecutor.shared) { () -> CurlError? in
                do throws(CurlError) {
                    _ = try await client.get(HTTPRequest(url: server.url("/hang"), totalTimeout: .seconds(60)))
                    return nil
                } catch {
                    return error
                }
            }
        }
        // Two hang on the server (the limit); only then two more, which must wait in the
        // client's queue. (Started together, which two run is not known, and cancelling one
        // running request frees a slot for a queued one before the next cancel.)
        // Every step runs on TimingExecutor's thread: on the cooperative pool, which parallel
        // render tests hold for many seconds, a CI run once slept through the 200 ms below until
        // the hanging requests' own timeout freed their slots for the queued ones.
        try await withTaskExecutorPreference(TimingExecutor.shared) {
            let running = [hanging(), hanging()]
            _ = await eventually(bound: .seconds(10)) { gauge.total >= 2 }
            #expect(gauge.total == 2)
            let queued = [hanging(), hanging()]
            // Time must pass here (a negative check without a barrier): nothing the client does
            // is ordered behind "not sent", so a wrongly sent request is given 200 ms to arrive.
            try await Task.sleep(for: .milliseconds(200))
            #expect(gauge.total == 2)  // the other two are queued, not sent
            // The queued ones first: they end without ever reaching the server.
            var took = try await durationOffThePool {
                for task in queued { task.cancel() }
                for task in queued {
                    let error = try #require(await task.value)
                    #expect(error.kind == .cancelled)
                }
            }
            #expect(took < .seconds(5))
            #expect(gauge.total == 2)  // the queued ones never reached the server
            // Then the running ones: removed from curl at once, nowhere near the 60 s timeout.
            took = try await durationOffThePool {
                for task in running { task.cancel() }
                for task in running {
                    let error = try #require(await task.value)
                    #expect(error.kind == .cancelled)
                }
            }
            #expect(took < .seconds(5))
            #expect(gauge.total == 2)
            let response = try await client.get(HTTPRequest(url: server.url("/ok")))
            #expect(response.text == "fine")
        }
    }

    @Test("a task cancelled before it asks fails at once without a request (200 times: no lost wake-up)")
    func cancelledBeforeStart() async throws {
        let server = LoopbackHTTPServer { _ in .respond(status: 200, text: "fine") }
        try server.start()
        defer { server.stop() }
        let client = HTTPClient(version: "test")
        for _ in 0..<200 {
            let task = Task { () -> CurlError? in
                withUnsafeCurrentTask { $0?.cancel() }
                do throws(CurlError) {
                    _ = try await client.get(HTTPRequest(url: server.url("/x")))
                    return nil
                } catch {
                    return error
                }
            }
            let error = try #require(await task.value)
            #expect(error.kind == .cancelled)
        }
        #expect(server.requests.isEmpty)
    }
}
