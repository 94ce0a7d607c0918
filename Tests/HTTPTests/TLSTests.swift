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
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `openssl s_server` with a fresh self-signed certificate for 127.0.0.1: certificate
/// verification must refuse it, and accept it once its certificate is the trusted CA file.
@Suite("HTTPClient over TLS")
struct TLSTests {
    /// A running `openssl s_server -www` and the certificate it presents.
    final class SelfSignedServer {
        let directory: URL
        let process: ChildProcess
        let port: Int
        var certificate: String { directory.appendingPathComponent("cert.pem").path }

        init() async throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("breeze-tls-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try await TestProcess.run(
                "/usr/bin/openssl",
                [
                    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", directory.appendingPathComponent("key.pem").path,
                    "-out", directory.appendingPathComponent("cert.pem").path,
                ]
            )
            port = try FreePort.loopback()
            // s_server says `ACCEPT` on stdout once it listens (it flushes the line): that line
            // is the event waited for. Later output (a few lines per connection) is kept unread.
            let said = Output()
            process = try ChildProcess(
                "/usr/bin/openssl",
                [
                    "s_server", "-accept", "127.0.0.1:\(port)", "-www",
                    "-cert", directory.appendingPathComponent("cert.pem").path,
                    "-key", directory.appendingPathComponent("key.pem").path,
                ],
                standardOutput: .pipe { chunk in
                    said.text.withLock { $0 += String(decoding: chunk, as: UTF8.self) }
                    TestEvents.shared.report()
                })
            let listening = await eventually(bound: .seconds(10)) { said.text.withLock { $0.contains("ACCEPT\n") } }
            if !listening {
                Issue.record("openssl s_server did not start listening on \(port): \(said.text.withLock { $0 })")
            }
        }

        deinit {
            // SIGKILL: nothing to shut down cleanly, and it cannot be ignored.
            process.kill()
            try? FileManager.default.removeItem(at: directory)
        }

        /// What s_server wrote on stdout so far.
        final class Output: Sendable {
            let text = Mutex("")
        }
    }

    @Test("a self-signed certificate is refused, then accepted from a trusted CA file")
    func selfSigned() async throws {
        let server = try await SelfSignedServer()
        let url = "https://127.0.0.1:\(server.port)/"

        do {
            let response = try await HTTPClient(version: "test").get(HTTPRequest(url: url, totalTimeout: .seconds(10)))
            Issue.record("verification should have failed, got status \(response.status)")
        } catch {
            #expect(error.kind == .tls)
            #expect(error.code == 60)  // CURLE_PEER_FAILED_VERIFICATION
            #expect(error.message.contains("self-signed"))
        }

        let trusting = HTTPClient(version: "test", caFile: server.certificate)
        let response = try await trusting.get(HTTPRequest(url: url, totalTimeout: .seconds(10)))
        #expect(response.status == 200)
        #expect(response.text.contains("s_server"))
        withExtendedLifetime(server) {}
    }
}
