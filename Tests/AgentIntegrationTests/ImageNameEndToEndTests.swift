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
import BreezeConfig
import BreezeCore
import BreezeMQTT
import BreezeTestSupport
import Foundation
import Testing

/// Issue 27 finding 6 end to end (SPEC §16 "Names"): a Google `displayName` past the render
/// helper's limit is clipped before it reaches the helper, so the image is still drawn; and a
/// render that fails makes `once` exit 69 naming the image, instead of 0 with no picture.
@Suite("End to end: names the render helper takes, failing images")
struct ImageNameEndToEndTests {
    static let zone = "Europe/Berlin"

    static func config(_ upstream: FakeAPIs) -> String {
        """
        locations:
          - {id: home, name: Home, latitude: 52.52, longitude: 13.405, timezone: \(zone)}
        pollen: {api_key: e2e-name-key, days: 3}
        climate: {enabled: false}
        \(upstream.endpointsYAML)
        images:
          - {id: web, kind: pollen, width: 296, height: 128, palette: bwr}

        """
    }

    /// The Google fixture with the grass type's `displayName` 300 bytes long.
    static func longNameBody() throws -> [UInt8] {
        try googleBody(zone: zone) { days in
            for day in days.indices {
                guard var types = days[day]["pollenTypeInfo"] as? [[String: Any]],
                    let grass = types.firstIndex(where: { $0["code"] as? String == "GRASS" })
                else { continue }
                types[grass]["displayName"] = String(repeating: "Gräser ", count: 38)  // 8 bytes × 38 = 304
                days[day]["pollenTypeInfo"] = types
            }
        }
    }

    @Test("once: a 304-byte Google displayName is clipped with an ellipsis and the image is published")
    func longGoogleLabelStillRenders() async throws {
        try EndToEndImageTests.requireHelper()
        try await MosquittoBroker.withPlainBroker { port in
            let sandbox = try AgentSandbox()
            let upstream = sandbox.apis
            upstream.set(.init(google: EndToEndImageTests.google(try Self.longNameBody())))
            try sandbox.writeConfig(port: port, Self.config(upstream))
            let (status, _, log) = try await AgentProcess.run(
                ["once", "--config", sandbox.configPath], logDirectory: sandbox.directory, timeout: .seconds(60))
            #expect(status == 0, "\(log)")
            #expect(!log.contains("render failed"), "\(log)")
            let images = try await EndToEndImageTests.retainedBytes(port: port, under: "\(sandbox.prefix)/home/image")
            let png = try #require(images["\(sandbox.prefix)/home/image/web"], "no image published: \(log)")
            #expect(EndToEndImageTests.pngSize(png).map { [$0.0, $0.1] } == [296, 128])
        }
    }

    @Test("once: a render helper that keeps failing makes once exit 69, naming the image")
    func failingRenderExits69() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let sandbox = try AgentSandbox()
            let upstream = sandbox.apis
            upstream.set(.init(google: EndToEndImageTests.google(try googleBody(zone: Self.zone))))
            try sandbox.writeConfig(port: port, Self.config(upstream))
            // A copy of the agent with a helper beside it that refuses every request, as the real
            // one refuses a label past its limit.
            let bin = sandbox.directory + "/bin"
            try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
            // Copied by `cp`, not by this process: a test running beside this one may fork while
            // a copy is open for writing here, and its child would hold that descriptor until it
            // execs (the copy's exec then fails with ETXTBSY). cp's descriptor is its own.
            try await TestProcess.run("/bin/cp", [try agentBinary(), bin + "/breeze-agent"])
            let helper = bin + "/breeze-agent-render"
            try
                "#!/bin/sh\ncat >/dev/null\necho 'breeze-agent-render: content.locationName: 300 bytes, at most 256' >&2\nexit 65\n"
                .write(toFile: helper, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: helper)
            let stderrPath = sandbox.directory + "/failing.log"
            _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
            var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("BREEZE_") }
            env["JOURNAL_STREAM"] = nil
            let child = try ChildProcess(
                bin + "/breeze-agent", ["once", "--config", sandbox.configPath], environment: env,
                standardError: .file(stderrPath))
            let status = await child.waitForExit(timeout: .seconds(60))
            let log = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
            #expect(log.contains("render failed"), "\(log)")
            #expect(status == 69, "\(log)")
            #expect(log.contains("image[home/web]"), "\(log)")
            // Everything else was still published.
            let tree = try await BrokerView.snapshot(port: port, ["\(sandbox.prefix)/home/pollen/max/#"])
            #expect(tree["\(sandbox.prefix)/home/pollen/max/level"] != nil, "\(log)")
        }
    }
}
