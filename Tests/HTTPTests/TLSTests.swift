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
            process = try ChildProcess(
                "/usr/bin/openssl",
                [
                    "s_server", "-accept", "127.0.0.1:\(port)", "-www", "-quiet",
                    "-cert", directory.appendingPathComponent("cert.pem").path,
                    "-key", directory.appendingPathComponent("key.pem").path,
                ])
            try await waitUntilListening()
        }

        deinit {
            // SIGKILL: nothing to shut down cleanly, and it cannot be ignored.
            process.kill()
            try? FileManager.default.removeItem(at: directory)
        }

        private func waitUntilListening() async throws {
            for _ in 0..<100 {
                let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = UInt16(port).bigEndian
                address.sin_addr.s_addr = inet_addr("127.0.0.1")
                let connected = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                    }
                }
                close(fd)
                if connected { return }
                try await Task.sleep(for: .milliseconds(50))
            }
            Issue.record("openssl s_server did not start listening on \(port)")
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
