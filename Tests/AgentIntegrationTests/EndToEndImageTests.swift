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
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// SPEC §9.2 end to end: the built agent with the real render helper (`breeze-agent-render`,
/// next to it in the build directory), a real mosquitto, the fake pollen API and the loopback
/// OpenEPaperLink stand-in: the image topic carries the helper's PNG, the tag gets the very
/// JPEG published, a 409 is retried, a 400 is not looped, new data changes the image, an image
/// removed from the config is cleared, and Home Assistant is told about each image.
@Suite("End to end: rendered images and OpenEPaperLink")
struct EndToEndImageTests {
    static let zone = "Europe/Berlin"
    static let mac = "0000021CBA123456"
    static let strangerMac = "0000021CBA000000"

    /// The helper must be built beside the agent: these tests are about the real one.
    static func requireHelper() throws {
        let agent = try agentBinary()
        let helper = URL(fileURLWithPath: agent).deletingLastPathComponent().appendingPathComponent(
            "breeze-agent-render"
        ).path
        try #require(
            FileManager.default.isExecutableFile(atPath: helper),
            "breeze-agent-render not built next to \(agent) (swift build builds every product)")
    }

    static func config(
        _ upstream: FakeAPIs, ap: String, discoveryPrefix: String, images: Bool = true, stranger: Bool = false
    ) -> String {
        var text = """
            homeassistant: {discovery: true, prefix: \(discoveryPrefix)}
            locations:
              - {id: home, name: Home, latitude: 52.52, longitude: 13.405, timezone: \(zone)}
            pollen: {api_key: e2e-image-key, days: 3}
            climate: {enabled: false}
            \(upstream.endpointsYAML)

            """
        guard images else { return text }
        text += """
            images:
              - {id: web, kind: pollen, width: 296, height: 128, palette: bwr}
              - {id: tag, kind: pollen, width: 296, height: 128, palette: bwr, format: jpeg}
            outputs:
              - {type: openepaperlink, ap: "\(ap)", mac: \(mac), image: tag}

            """
        if stranger { text += "  - {type: openepaperlink, ap: \"\(ap)\", mac: \(strangerMac), image: tag}\n" }
        return text
    }

    static func google(_ body: [UInt8]) -> @Sendable (LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Action {
        { _ in .respond(status: 200, headers: [("Content-Type", "application/json")], body: body) }
    }

    /// The retained messages under `prefix/#` as raw bytes (every retained one has arrived when
    /// a probe published after subscribing comes back).
    static func retainedBytes(port: Int, under prefix: String) async throws -> [String: [UInt8]] {
        let client = try MQTTClient(MQTTConfiguration(host: "127.0.0.1", port: port, clientID: "img-\(shortID())"))
        let seen = Mutex<[String: [UInt8]]>([:])
        let token = "probe-\(shortID())"
        let probed = Atomic<Bool>(false)
        let events = client.events
        let pump = Task {
            for await event in events {
                guard case .message(let message) = event else { continue }
                if message.topic.hasSuffix(token) {
                    probed.store(true, ordering: .relaxed)
                    TestEvents.shared.report()
                } else if message.retain {
                    seen.withLock { $0[message.topic] = message.payload }
                }
            }
        }
        defer { pump.cancel() }
        try client.start()
        try #require(await client.waitUntilConnected(timeout: .seconds(15)))
        try client.subscribe(prefix + "/#", qos: 1)
        try client.publish(prefix + "/" + token, "x", qos: 1)
        try #require(await eventually(bound: .seconds(15)) { probed.load(ordering: .relaxed) })
        await client.stop()
        return seen.withLock { $0 }
    }

    /// `(width, height)` from a PNG's IHDR.
    static func pngSize(_ bytes: [UInt8]) -> (Int, Int)? {
        guard bytes.count > 24, bytes.starts(with: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) else { return nil }
        func be32(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (be32(16), be32(20))
    }

    /// `(width, height, baseline)` from a JPEG's first SOF marker.
    static func jpegFrame(_ bytes: [UInt8]) -> (Int, Int, Bool)? {
        guard bytes.starts(with: [0xff, 0xd8]) else { return nil }
        var index = 2
        while index + 9 < bytes.count {
            guard bytes[index] == 0xff else { return nil }
            let marker = bytes[index + 1]
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if (0xc0...0xcf).contains(marker) && ![0xc4, 0xc8, 0xcc].contains(marker) {
                let height = Int(bytes[index + 5]) << 8 | Int(bytes[index + 6])
                let width = Int(bytes[index + 7]) << 8 | Int(bytes[index + 8])
                return (width, height, marker == 0xc0)
            }
            index += 2 + length
        }
        return nil
    }

    @Test("once: PNG and JPEG topics, the tag gets the published JPEG, new data re-renders, removal clears")
    func onceRendersPublishesUploadsAndClears() async throws {
        try Self.requireHelper()
        try await MosquittoBroker.withPlainBroker { port in
            let sandbox = try AgentSandbox()
            let ap = try OpenEPaperLinkAPStandIn(knownTags: [Self.mac])
            defer { ap.stop() }
            let upstream = sandbox.apis
            upstream.set(.init(google: Self.google(try googleBody(zone: Self.zone))))
            let prefix = sandbox.prefix
            try sandbox.writeConfig(
                port: port,
                Self.config(upstream, ap: ap.baseURL, discoveryPrefix: sandbox.discoveryPrefix))

            let (status, _, log) = try await AgentProcess.run(
                ["once", "--config", sandbox.configPath], logDirectory: sandbox.directory, timeout: .seconds(60))
            #expect(status == 0, "\(log)")
            let first = try await Self.retainedBytes(port: port, under: "\(prefix)/home/image")
            let png = try #require(first["\(prefix)/home/image/web"], "\(log)")
            #expect(png.count <= 256 * 1024)
            #expect(Self.pngSize(png).map { [$0.0, $0.1] } == [296, 128])
            let jpeg = try #require(first["\(prefix)/home/image/tag"])
            let frame = try #require(Self.jpegFrame(jpeg))
            #expect(frame.0 == 296 && frame.1 == 128 && frame.2, "a baseline JPEG of the tag's size")

            // The tag got exactly the published JPEG, as mac, dither, file.
            let upload = try #require(ap.uploads.first, "\(log)")
            #expect(ap.uploads.count == 1)
            #expect(upload.order == ["mac", "dither", "file"])
            #expect(upload.mac == Self.mac && upload.dither == 0)
            #expect(upload.filename == "tag.jpg" && upload.contentType == "image/jpeg")
            #expect(upload.file == jpeg)

            // The same data again (a restart, issue 39): the tag already shows this JPEG
            // (state_dir/uploads.json), so nothing is sent.
            let (same, _, logSame) = try await AgentProcess.run(
                ["once", "--config", sandbox.configPath], logDirectory: sandbox.directory, timeout: .seconds(60))
            #expect(same == 0, "\(logSame)")
            #expect(ap.uploads.count == 1, "\(logSame)")
            #expect(logSame.contains("unchanged since the access point took it"), "\(logSame)")

            // New data (grass today 3 → 5): a new image.
            let before = try await BrokerView.snapshot(port: port, ["\(prefix)/home/pollen/max/#"])
            let higher = try googleBody(zone: Self.zone) { days in
                guard var types = days[0]["pollenTypeInfo"] as? [[String: Any]],
                    let grass = types.firstIndex(where: { $0["code"] as? String == "GRASS" }),
                    var index = types[grass]["indexInfo"] as? [String: Any]
                else { return }
                index["value"] = 5
                types[grass]["indexInfo"] = index
                days[0]["pollenTypeInfo"] = types
            }
            upstream.set(.init(google: Self.google(higher)))
            let (again, _, log2) = try await AgentProcess.run(
                ["once", "--config", sandbox.configPath], logDirectory: sandbox.directory, timeout: .seconds(60))
            #expect(again == 0, "\(log2)")
            let after = try await BrokerView.snapshot(port: port, ["\(prefix)/home/pollen/max/#"])
            try #require(
                before["\(prefix)/home/pollen/max/level"] != after["\(prefix)/home/pollen/max/level"]
                    || before["\(prefix)/home/pollen/max/value"] != after["\(prefix)/home/pollen/max/value"],
                "the fixture's two days must differ for this test")
            let second = try await Self.retainedBytes(port: port, under: "\(prefix)/home/image")
            let png2 = try #require(second["\(prefix)/home/image/web"])
            #expect(Self.pngSize(png2).map { [$0.0, $0.1] } == [296, 128])
            #expect(png2 != png, "new data, new picture")
            #expect(ap.uploads.count == 2)
            #expect(ap.uploads.last?.file == second["\(prefix)/home/image/tag"])

            // The images leave the config: both topics are cleared (an empty retained payload).
            try sandbox.writeConfig(
                port: port,
                Self.config(upstream, ap: ap.baseURL, discoveryPrefix: sandbox.discoveryPrefix, images: false))
            let (cleared, _, log3) = try await AgentProcess.run(
                ["once", "--config", sandbox.configPath], logDirectory: sandbox.directory, timeout: .seconds(60))
            #expect(cleared == 0, "\(log3)")
            let third = try await Self.retainedBytes(port: port, under: "\(prefix)/home/image")
            #expect(third.isEmpty, "\(third.keys.sorted())")
            #expect(ap.uploads.count == 2)
        }
    }

    @Test("run: image entities announced; a busy AP is retried, a refused tag is not looped")
    func runAnnouncesRetriesAndDoesNotLoop() async throws {
        try Self.requireHelper()
        try await MosquittoBroker.withPlainBroker { port in
            let sandbox = try AgentSandbox()
            let ap = try OpenEPaperLinkAPStandIn(knownTags: [Self.mac], busyAnswers: 1)
            defer { ap.stop() }
            let upstream = sandbox.apis
            upstream.set(.init(google: Self.google(try googleBody(zone: Self.zone))))
            let prefix = sandbox.prefix
            let httpPort = try FreePort.loopback()
            try sandbox.writeConfig(
                port: port,
                Self.config(upstream, ap: ap.baseURL, discoveryPrefix: sandbox.discoveryPrefix, stranger: true)
                    + "http: {listen: \"127.0.0.1:\(httpPort)\"}\n")
            let agent = try AgentProcess(["run", "--config", sandbox.configPath], logDirectory: sandbox.directory)
            defer { Task { await agent.terminate() } }

            // The first upload is answered 409 (busy), the retry 30 s ±20 % later 200.
            #expect(await eventually(bound: .seconds(60)) { ap.uploads.count == 1 }, "\(agent.log)")
            #expect(ap.answers(mac: Self.mac) == [409, 200])
            #expect(agent.lines(containing: "answered 409 (busy); retry in").count == 1)
            // The unknown tag was refused once and never asked again.
            #expect(ap.answers(mac: Self.strangerMac) == [400])
            #expect(agent.lines(containing: "refused the upload (400").count == 1)

            let images = try await Self.retainedBytes(port: port, under: "\(prefix)/home/image")
            let png = try #require(images["\(prefix)/home/image/web"])
            #expect(Self.pngSize(png).map { [$0.0, $0.1] } == [296, 128])
            #expect(ap.uploads.first?.file == images["\(prefix)/home/image/tag"])

            // HTTP (ESPHome online_image, an OEPL "image URL") serves the same bytes as the topic,
            // each image under its own format's extension only.
            let served = RawHTTP.get(httpPort, "/images/home/web.png")
            #expect(served.status == 200)
            #expect(served.headers.first { $0.0.lowercased() == "content-type" }?.1 == "image/png")
            #expect(served.body == png)
            let jpeg = RawHTTP.get(httpPort, "/images/home/tag.jpg")
            #expect(jpeg.status == 200 && jpeg.body == images["\(prefix)/home/image/tag"])
            #expect(RawHTTP.get(httpPort, "/images/home/web.jpg").status == 404)
            #expect(RawHTTP.get(httpPort, "/images/home/nothing.png").status == 404)
            // An encoded slash or NUL never reaches a route decoded (SPEC §16): 404, not the image.
            for path in ["/images/home%2fweb.png", "/images/home%2Fweb.png", "/images/home/web.png%00.txt"] {
                #expect(RawHTTP.get(httpPort, path).status == 404, "\(path)")
            }

            // Home Assistant: one MQTT image entity per image.
            let topic =
                "\(sandbox.discoveryPrefix)/device/\(prefix.replacingOccurrences(of: "-", with: "_"))_home/config"
            let discovery = try await BrokerView.snapshot(port: port, ["\(sandbox.discoveryPrefix)/device/#"])
            let root = try #require(jsonObject(discovery[topic]), "\(discovery.keys)")
            let components = try #require(root["components"] as? [String: [String: Any]])
            let web = try #require(components["image_web"])
            #expect(web["platform"] as? String == "image")
            #expect(web["image_topic"] as? String == "\(prefix)/home/image/web")
            #expect(web["content_type"] as? String == "image/png")
            let tag = try #require(components["image_tag"])
            #expect(tag["content_type"] as? String == "image/jpeg")
            #expect(tag["image_topic"] as? String == "\(prefix)/home/image/tag")

            #expect(await agent.terminate() == 0)
            #expect(ap.answers(mac: Self.strangerMac) == [400])
        }
    }
}
