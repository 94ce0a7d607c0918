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

import Foundation

/// A throwaway CA with a server certificate for `localhost`/127.0.0.1 and a client certificate,
/// made with the `openssl` CLI (EC P-256 keys: fast to generate on a loaded machine).
public struct TestCertificates: Sendable {
    public let directory: String
    public let caFile: String
    public let serverCertFile: String
    public let serverKeyFile: String
    public let clientCertFile: String
    public let clientKeyFile: String

    /// Generates everything into a fresh temporary directory (or `directory`).
    public static func generate(in directory: String? = nil, caName: String = "Breeze Test CA") async throws
        -> TestCertificates
    {
        let directory = try directory ?? makeTemporaryDirectory(prefix: "breeze-certs")
        func path(_ name: String) -> String { directory + "/" + name }
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try await TestProcess.run(
            "openssl",
            ["req", "-x509"] + key + [
                "-keyout", path("ca.key"), "-out", path("ca.crt"), "-days", "2", "-subj", "/CN=\(caName)",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ])
        func issue(_ name: String, commonName: String, extensions: String) async throws {
            try await TestProcess.run(
                "openssl",
                ["req"] + key + [
                    "-keyout", path("\(name).key"), "-out", path("\(name).csr"), "-subj", "/CN=\(commonName)",
                ])
            try extensions.write(toFile: path("\(name).ext"), atomically: true, encoding: .utf8)
            try await TestProcess.run(
                "openssl",
                [
                    "x509", "-req", "-in", path("\(name).csr"), "-CA", path("ca.crt"), "-CAkey", path("ca.key"),
                    "-CAcreateserial", "-out", path("\(name).crt"), "-days", "2", "-extfile", path("\(name).ext"),
                ])
        }
        try await issue(
            "server", commonName: "localhost",
            extensions:
                "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n")
        try await issue(
            "client", commonName: "breeze-test-client",
            extensions: "basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n")
        return TestCertificates(
            directory: directory, caFile: path("ca.crt"), serverCertFile: path("server.crt"),
            serverKeyFile: path("server.key"), clientCertFile: path("client.crt"), clientKeyFile: path("client.key"))
    }
}

/// A new private directory under the system temporary directory.
public func makeTemporaryDirectory(prefix: String) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}
