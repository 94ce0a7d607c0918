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

/// A GET-only HTTP/HTTPS client over one libcurl easy handle.
///
/// Requests are serialized on the client's own serial `DispatchQueue`: `curl_easy_perform` blocks,
/// and blocking the cooperative pool (two threads on a hub) would stall every other task. Reusing
/// one handle keeps the connection (and TLS session) alive between polls of the same host.
/// TLS verification is always on; only `http` and `https` URLs are allowed; redirects are not followed.
public final class HTTPClient: Sendable {
    /// The `User-Agent` sent with every request.
    public let userAgent: String
    /// A PEM bundle to trust instead of the system store (tests with a self-signed server).
    public let caFile: String?

    private let queue: DispatchQueue
    /// Created on first use, on `queue`, so creation failures surface as a thrown `CurlError`.
    /// The mutex is never contended (only `queue` takes it); it is what makes the handle Sendable
    /// without an unchecked promise.
    private let handle = Mutex<EasyHandle?>(nil)

    /// A client announcing itself as `breeze-agent/<version> (+https://github.com/breeze-agent)`.
    public convenience init(version: String, caFile: String? = nil) {
        self.init(userAgent: HTTPClient.userAgent(version: version), caFile: caFile)
    }

    public init(userAgent: String, caFile: String? = nil) {
        self.userAgent = userAgent
        self.caFile = caFile
        self.queue = DispatchQueue(label: "breeze.http")
    }

    /// The product `User-Agent` for `version`; APIs ask that clients be identifiable.
    public static func userAgent(version: String) -> String {
        "breeze-agent/\(version) (+https://github.com/breeze-agent)"
    }

    /// Performs `request`. Every HTTP status is a response; only transport failures throw.
    /// Cancelling the calling task aborts the transfer within about a second (``CurlError/Kind/cancelled``).
    public func get(_ request: HTTPRequest) async throws(CurlError) -> HTTPResponse {
        let cancellation = CancellationFlag()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<HTTPResponse, CurlError>, Never>) in
                queue.async {
                    continuation.resume(returning: self.run(request, cancellation: cancellation))
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
        return try result.get()
    }

    /// Performs a `multipart/form-data` POST of `request.multipart` (in part order). Every HTTP
    /// status is a response; only transport failures throw.
    public func postMultipart(_ request: HTTPRequest) async throws(CurlError) -> HTTPResponse {
        guard request.multipart != nil else {
            throw CurlError(code: 43, kind: .other, message: "postMultipart needs multipart parts")
        }
        return try await get(request)
    }

    /// Runs on `queue` only.
    private func run(_ request: HTTPRequest, cancellation: CancellationFlag) -> Result<HTTPResponse, CurlError> {
        handle.withLock { slot -> Result<HTTPResponse, CurlError> in
            if cancellation.isCancelled {
                return .failure(
                    CurlError(code: CurlCodes.abortedByCallback, kind: .cancelled, message: "request cancelled")
                )
            }
            let easy: EasyHandle
            if let existing = slot {
                easy = existing
            } else {
                do throws(CurlError) {
                    easy = try EasyHandle(userAgent: userAgent, caFile: caFile)
                } catch {
                    return .failure(error)
                }
                slot = easy
            }
            return easy.perform(request, cancellation: cancellation)
        }
    }
}

/// Set from the task's cancellation handler (any thread), read by curl's progress callback.
final class CancellationFlag: Sendable {
    private let state = Atomic<Bool>(false)

    func cancel() { state.store(true, ordering: .relaxed) }
    var isCancelled: Bool { state.load(ordering: .relaxed) }
}
