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

import BreezeConfig
import BreezeCore
import BreezeMQTT
import BreezeTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// SPEC §12 through the built binary: a key echoed by the API reaches no sink, and check-config
/// refuses unbounded durations, oversized or special config files and a key sent in clear.
@Suite("Hardening: secrets and bounds end to end", .serialized)
struct HardeningEndToEndTests {
    static let key = "AIzaSyEchoedKey-0123456789abcdef"

    /// Google error bodies that quote the key back, as some proxies and API front ends do.
    static let echoes: [(status: Int, body: String)] = [
        (
            400,
            #"{"error":{"code":400,"message":"API key not valid. Please pass a valid API key: \#(key)","status":"INVALID_ARGUMENT","details":[{"reason":"API_KEY_INVALID"}]}}"#
        ),
        (500, #"{"error":{"code":500,"message":"Internal error serving key \#(key)","status":"INTERNAL"}}"#),
    ]

    @Test(
        "an API error body echoing the key reaches neither <p>/diagnostics, the log nor the state files",
        arguments: echoes)
    func echoedKeyIsScrubbedAtTheSource(status: Int, body: String) async throws {
        let sandbox = try AgentSandbox(faultLocations: [FakeAPIs.Location(id: "home", latitude: 47.0)])
        sandbox.apis.setGoogle(.respond(status: status, headers: [("Content-Type", "application/json")], text: body))
        try await MosquittoBroker.withPlainBroker { port in
            try sandbox.writeConfig(brokerPort: port, pollen: "source: google\n  api_key: \(Self.key)")
            let diagnostics = "\(sandbox.prefix)/diagnostics"
            let view = try await BrokerView(port: port, patterns: [diagnostics])
            defer { Task { await view.stop() } }
            let agent = try AgentProcess(["run", "--config", sandbox.configPath], directory: sandbox.directory)
            defer { Task { await agent.terminate() } }

            try #require(await agent.waitForLine("HTTP \(status)"), "no failed fetch logged:\n\(agent.log)")
            // Diagnostics go out at connect (before the fetch) and after a Home Assistant birth.
            try view.client.publish(sandbox.discoveryPrefix + "/status", "online", qos: 1)
            let reported = await eventually(bound: .seconds(20)) {
                view.history(diagnostics).contains { $0.contains("HTTP \(status)") }
            }
            try #require(reported, "no diagnostics with the error:\n\(view.history(diagnostics))\n\(agent.log)")
            let payload = try #require(view.history(diagnostics).last { $0.contains("HTTP \(status)") })
            let errors = try #require(jsonObject(payload)?["last_error"] as? [String: Any], "\(payload)")
            let lastError = try #require(
                (errors["google_pollen"] as? [String: Any])?["message"] as? String, "\(payload)")
            #expect(!lastError.contains(Self.key), "\(lastError)")
            #expect(lastError.contains("********"), "\(lastError)")
            #expect(!view.history(diagnostics).contains { $0.contains(Self.key) })
            #expect(!agent.log.contains(Self.key))
            await agent.terminate()
            let stateFiles = FileManager.default.enumerator(atPath: sandbox.stateDir)?.allObjects as? [String] ?? []
            for file in stateFiles {
                let text = (try? String(contentsOfFile: sandbox.stateDir + "/" + file, encoding: .utf8)) ?? ""
                #expect(!text.contains(Self.key), "key in state file \(file)")
            }
        }
    }

    // MARK: check-config with the binary

    private static func checkConfig(_ path: String, in directory: String) async throws -> (
        status: Int32?, stdout: String, stderr: String
    ) {
        try await AgentProcess.run(["check-config", "--config", path], logDirectory: directory, timeout: .seconds(10))
    }

    private static let location =
        "locations:\n  - {id: home, latitude: 52.5, longitude: 13.4, timezone: UTC}\nstate_dir: /tmp/breeze-unused\n"

    @Test("check-config refuses an interval of 2^63-1 seconds: exit 78, file:line:key")
    func unboundedIntervalRefused() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/config.yaml"
        try (Self.location + "pollen:\n  interval: 9223372036854775807s\n").write(
            toFile: path, atomically: true, encoding: .utf8)
        let result = try await Self.checkConfig(path, in: dir)
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains("\(path):5: pollen.interval: expected a duration"), "\(result.stderr)")
        #expect(result.stderr.contains("at most 30d"), "\(result.stderr)")
    }

    @Test("check-config on a FIFO, a device or a file over 1 MiB exits 78 at once, without hanging or truncating")
    func specialConfigFilesRefused() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fifo = dir + "/fifo.yaml"
        try #require(mkfifo(fifo, 0o600) == 0)
        let big = dir + "/big.yaml"
        try (Self.location + String(repeating: "# padding to push the file past one mebibyte\n", count: 25_000))
            .write(toFile: big, atomically: true, encoding: .utf8)
        for (path, reason) in [
            (fifo, "not a regular file (a FIFO)"), ("/dev/zero", "not a regular file (a character device)"),
            (big, "larger than 1 MiB"),
        ] {
            let result = try await Self.checkConfig(path, in: dir)
            #expect(result.status == 78, "\(path): \(result)")
            #expect(
                result.stderr.contains("\(path): cannot read the configuration file: \(reason)"), "\(result.stderr)")
        }
    }

    @Test(
        "check-config refuses a Google key over plain http:// off loopback, masks endpoint userinfo, warns on a loose key file"
    )
    func checkConfigSecrets() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let keyFile = dir + "/key"
        try "\(Self.key)\n".write(toFile: keyFile, atomically: true, encoding: .utf8)
        chmod(keyFile, 0o644)
        let path = dir + "/config.yaml"
        try (Self.location + "pollen:\n  api_key_file: \(keyFile)\nendpoints:\n  pollen: http://10.1.2.3/v1\n").write(
            toFile: path, atomically: true, encoding: .utf8)
        let refused = try await Self.checkConfig(path, in: dir)
        #expect(refused.status == 78, "\(refused)")
        #expect(
            refused.stderr.contains(
                "\(path):7: endpoints.pollen: the Google API key would cross the network unencrypted to 10.1.2.3"),
            "\(refused.stderr)")

        try
            (Self.location
            + "pollen:\n  api_key_file: \(keyFile)\nendpoints:\n  pollen: https://u:proxy-secret-77@10.1.2.3/v1\n")
            .write(
                toFile: path, atomically: true, encoding: .utf8)
        let accepted = try await Self.checkConfig(path, in: dir)
        #expect(accepted.status == 0, "\(accepted)")
        #expect(accepted.stdout.contains("  pollen: \"https://********@10.1.2.3/v1\""), "\(accepted.stdout)")
        #expect(!accepted.stdout.contains("proxy-secret-77"))
        #expect(!(accepted.stdout + accepted.stderr).contains(Self.key))
        #expect(
            accepted.stderr.contains(
                "warning: pollen.api_key_file: \(keyFile) can be read by others or changed by its group (mode 0644)"),
            "\(accepted.stderr)")
    }
}
