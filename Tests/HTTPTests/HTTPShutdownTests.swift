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
import Testing

@testable import BreezeHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 40: the agent exited (`exit`, which runs OpenSSL's atexit clean-up) while its HTTP
/// threads were still tearing down — one in `curl_multi_cleanup`, one in OpenSSL's thread-exit
/// destructor after a multipart upload — and died of SIGSEGV or a glibc heap abort after its
/// last log line (seen under qemu-user, where the teardown is slow enough to overlap). Before
/// exiting it now calls ``HTTPClient/shutDown()``, which must return only once the thread is gone.
@Suite("HTTPClient.shutDown ends its thread before it returns")
struct HTTPShutdownTests {
    /// Set by the HTTP thread's teardown hook.
    final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        func set() { value.store(true, ordering: .releasing) }
        var isSet: Bool { value.load(ordering: .acquiring) }
    }

    @Test("with a multipart upload done and a transfer hanging: shutDown waits for the thread's whole teardown")
    func shutDownJoinsTheThread() async throws {
        let server = LoopbackHTTPServer { request in
            request.path == "/hang" ? .hang : .respond(status: 200, text: "ok")
        }
        try server.start()
        defer { server.stop() }
        // The thread's teardown made slow on purpose (as under qemu-user, where it overlapped the
        // exit): the hook is its last step, after curl_multi_cleanup. Time must pass here: a
        // shutDown that did not wait for the thread returns within these 300 ms.
        let tornDown = Flag()
        let client = HTTPClient(userAgent: "shutdown-test") {
            usleep(300_000)
            tornDown.set()
        }
        // What the OpenEPaperLink uploader does (curl draws the multipart boundary from OpenSSL's
        // random generator on the HTTP thread): the thread then has OpenSSL state of its own.
        var upload = HTTPRequest(url: server.url("/upload"))
        upload.multipart = [MultipartPart(name: "file", data: [1, 2, 3], filename: "a.jpg", contentType: "image/jpeg")]
        #expect(try await client.postMultipart(upload).status == 200)

        // A transfer still running when the client shuts down fails as cancelled.
        let hanging = Task { () -> CurlError? in
            do throws(CurlError) {
                _ = try await client.get(HTTPRequest(url: server.url("/hang"), totalTimeout: .seconds(60)))
                return nil
            } catch {
                return error
            }
        }
        try #require(await eventually(bound: .seconds(15)) { server.requests.contains { $0.path == "/hang" } })

        await client.shutDown()
        #expect(tornDown.isSet, "shutDown returned before the HTTP thread had finished")
        #expect(await hanging.value?.kind == .cancelled)

        // Afterwards: requests fail as cancelled without reaching the server, and a second
        // shutDown returns at once.
        await #expect(throws: CurlError.self) { try await client.get(HTTPRequest(url: server.url("/late"))) }
        await client.shutDown()
        #expect(!server.requests.contains { $0.path == "/late" })
    }

    @Test("a client released without shutDown still ends its thread (deinit asks it to)")
    func releasedClientEndsItsThread() async throws {
        let tornDown = Flag()
        do {
            let client = HTTPClient(userAgent: "released-test") { tornDown.set() }
            _ = client.userAgent
        }
        #expect(await eventually(bound: .seconds(15)) { tornDown.isSet })
    }
}
