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
import Synchronization

/// An HTTP/HTTPS client over libcurl's multi interface: GETs (the fetches) and multipart POSTs
/// (OpenEPaperLink uploads, ``postMultipart(_:)``).
///
/// Requests run on the client's own thread (``MultiDriver``), up to ``maxConcurrent`` at once;
/// further ones wait in arrival order. Blocking curl calls never run on the cooperative pool (two
/// threads on a hub), and the thread sleeps in `curl_multi_poll` while transfers are in flight.
/// Finished handles are reused, and the multi handle keeps idle connections (and TLS sessions)
/// alive between polls of the same host. TLS verification is always on; only `http` and `https`
/// URLs are allowed; redirects are not followed.
public final class HTTPClient: Sendable {
    /// The `User-Agent` sent with every request.
    public let userAgent: String
    /// A PEM bundle to trust instead of the system store (tests with a self-signed server).
    public let caFile: String?
    /// Transfers running at the same time (``maximumConcurrency`` at most).
    public let maxConcurrent: Int

    /// The most transfers one client runs at once, whatever is asked (`http.max_concurrent`).
    public static let maximumConcurrency = 64

    private let driver: MultiDriver

    /// A client announcing itself as `breeze-agent/<version> (+https://github.com/breeze-agent)`.
    public convenience init(version: String, caFile: String? = nil, maxConcurrent: Int = 4) {
        self.init(userAgent: HTTPClient.userAgent(version: version), caFile: caFile, maxConcurrent: maxConcurrent)
    }

    public convenience init(userAgent: String, caFile: String? = nil, maxConcurrent: Int = 4) {
        self.init(userAgent: userAgent, caFile: caFile, maxConcurrent: maxConcurrent, teardownHookForTesting: nil)
    }

    /// The same, with `teardownHookForTesting` run by the HTTP thread as the last step of its
    /// teardown (after `curl_multi_cleanup`).
    init(
        userAgent: String, caFile: String? = nil, maxConcurrent: Int = 4,
        teardownHookForTesting: (@Sendable () -> Void)?
    ) {
        self.userAgent = userAgent
        self.caFile = caFile
        self.maxConcurrent = min(max(1, maxConcurrent), Self.maximumConcurrency)
        self.driver = MultiDriver(
            userAgent: userAgent, caFile: caFile, maxConcurrent: self.maxConcurrent,
            teardownHookForTesting: teardownHookForTesting)
    }

    /// Asks the HTTP thread to end; it may still be cleaning up when the client is gone. A
    /// process that is about to exit calls ``shutDown()`` instead.
    deinit {
        driver.shutDown()
    }

    /// Ends the client's HTTP thread and returns once it has exited: every queued or running
    /// request fails as cancelled, curl's handles are cleaned up, and no thread of this client
    /// runs libcurl or OpenSSL code any more. Requests made afterwards fail as cancelled.
    ///
    /// Call it before the process exits: `exit` runs OpenSSL's atexit clean-up, and a thread
    /// still tearing down its transfers then used freed memory (issue 40: the emulated agent's
    /// `once` died of SIGSEGV or a glibc heap abort after its last line).
    public func shutDown() async {
        let driver = self.driver
        // `pthread_join` blocks: on a queue of its own, never on the cooperative pool.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue(label: "breeze.http.shutdown").async {
                driver.shutDownAndWait()
                continuation.resume()
            }
        }
    }

    /// The product `User-Agent` for `version`; APIs ask that clients be identifiable.
    public static func userAgent(version: String) -> String {
        "breeze-agent/\(version) (+https://github.com/breeze-agent)"
    }

    /// Performs a `multipart/form-data` POST of `request.multipart` (in part order), through the
    /// same bounded pool as every request. Every HTTP status is a response; only transport
    /// failures throw.
    public func postMultipart(_ request: HTTPRequest) async throws(CurlError) -> HTTPResponse {
        guard request.multipart != nil else {
            throw CurlError(code: 43, kind: .other, message: "postMultipart needs multipart parts")
        }
        return try await get(request)
    }

    /// Performs `request`. Every HTTP status is a response; only transport failures throw.
    /// Cancelling the calling task removes the request from the queue, or aborts its transfer at
    /// once (``CurlError/Kind/cancelled``).
    public func get(_ request: HTTPRequest) async throws(CurlError) -> HTTPResponse {
        let pending = PendingRequest(request)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: PendingRequest.Continuation) in
                if pending.attach(continuation) {
                    driver.submit(pending)
                } else {
                    continuation.resume(returning: .failure(PendingRequest.cancelledError))
                }
            }
        } onCancel: {
            pending.markCancelled()
            driver.cancel(pending)
        }
        return try result.get()
    }
}
