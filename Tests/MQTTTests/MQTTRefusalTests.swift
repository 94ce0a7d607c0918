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

import BreezeCore
@testable import BreezeMQTT
import BreezeTestSupport
import Foundation
import Testing

/// A broker with an ACL file that lets anonymous clients use `ok/#` only.
private func aclBroker(_ extra: [String] = []) async throws -> MosquittoBroker {
    let directory = try makeTemporaryDirectory(prefix: "breeze-acl")
    let aclFile = directory + "/acl"
    try "topic readwrite ok/#\n".write(toFile: aclFile, atomically: true, encoding: .utf8)
    let broker = try MosquittoBroker(configuration: ["acl_file \(aclFile)"] + extra)
    try await broker.start()
    return broker
}

private func disconnectReasons(_ recorder: EventRecorder) -> [String] {
    recorder.events.compactMap { event in
        if case .disconnected(let reason) = event { return reason }
        return nil
    }
}

/// What the broker does with a publish it refuses, per protocol, and what the client reports.
@Suite("MQTT publishes the broker refuses", .serialized)
struct MQTTRefusalTests {
    @Test func aclDenyIsRefusedWith0x87UnderMQTT5() async throws {
        let broker = try await aclBroker()
        defer { broker.stop() }
        let (client, _) = try await makeClient(port: broker.port, role: "acl5")
        try client.publish("ok/allowed", "1", qos: 1, retain: true)
        try client.publish("denied/topic", "2", qos: 1, retain: true)
        try client.publish("ok/also", "3", qos: 2, retain: true)
        try client.publish("denied/qos2", "4", qos: 2, retain: true)
        #expect(await client.waitForAcknowledgements(timeout: .seconds(10)) == false)
        let outcomes = await client.waitForOutcomes(timeout: .seconds(10))
        #expect(outcomes.accepted == 2)
        #expect(outcomes.lost.isEmpty && outcomes.pending.isEmpty)
        #expect(outcomes.refused.map(\.topic).sorted() == ["denied/qos2", "denied/topic"])
        for refused in outcomes.refused {
            #expect(refused.refusal.code == 0x87)
            #expect(refused.refusal.reason == "Not authorized")
            #expect(refused.refusal.local == false)
            #expect(refused.refusal.description == "refused by the broker (0x87): Not authorized")
        }
        // Taken: the next take starts empty.
        #expect(client.takeOutcomes() == PublishOutcomes())
        #expect(await client.waitForAcknowledgements(timeout: .seconds(1)))
        await client.stop()
    }

    /// MQTT 3.1.1's PUBACK has no reason code: mosquitto acknowledges the denied publish like any
    /// other and drops it. The client cannot tell (docs/operations.md says so).
    @Test func aclDenyIsInvisibleUnderMQTT311() async throws {
        let broker = try await aclBroker()
        defer { broker.stop() }
        let (client, _) = try await makeClient(port: broker.port, role: "acl311") { $0.protocolVersion = .v311 }
        try client.publish("ok/allowed", "1", qos: 1, retain: true)
        try client.publish("denied/topic", "2", qos: 1, retain: true)
        let outcomes = await client.waitForOutcomes(timeout: .seconds(10))
        #expect(outcomes.accepted == 2)
        #expect(outcomes.refused.isEmpty)
        await client.stop()
    }

    @Test func messageSizeLimitIsRefusedWith0x95UnderMQTT5() async throws {
        let broker = try MosquittoBroker(configuration: ["message_size_limit 1000"])
        try await broker.start()
        defer { broker.stop() }
        let (client, _) = try await makeClient(port: broker.port, role: "msl")
        #expect(client.brokerMaximumPacketSize == nil)
        try client.publish("big/one", String(repeating: "x", count: 1500), qos: 1, retain: true)
        try client.publish("small/one", String(repeating: "x", count: 900), qos: 1, retain: true)
        let outcomes = await client.waitForOutcomes(timeout: .seconds(10))
        #expect(outcomes.accepted == 1)
        #expect(
            outcomes.refused == [
                RefusedPublish(
                    topic: "big/one", refusal: PublishRefusal(code: 0x95, reason: "Packet too large", local: false))
            ])
        #expect(client.isConnected)
        await client.stop()
    }

    @Test func brokerMaximumPacketSizeFromConnackIsRespected() async throws {
        let broker = try MosquittoBroker(configuration: ["max_packet_size 2000"])
        try await broker.start()
        defer { broker.stop() }
        let (client, recorder) = try await makeClient(port: broker.port, role: "mps5")
        #expect(client.brokerMaximumPacketSize == 2000)
        let topic = "size/exact"
        // The largest payload whose whole packet is exactly 2000 bytes (QoS 1, MQTT 5).
        let fits = (0..<2000).last {
            ClientCore.packetSize(topicBytes: topic.utf8.count, payloadBytes: $0, qos: 1, version: .v5) <= 2000
        }!
        #expect(ClientCore.packetSize(topicBytes: topic.utf8.count, payloadBytes: fits, qos: 1, version: .v5) == 2000)
        try client.publish(topic, String(repeating: "a", count: fits), qos: 1, retain: true)
        let error = #expect(throws: MosquittoError.self) {
            try client.publish("size/exac2", String(repeating: "b", count: fits + 1), qos: 1, retain: true)
        }
        #expect(error?.kind == .publishRefused)
        #expect(error?.code == 0x95)
        #expect(
            error?.message.contains("the packet (2001 bytes) is over the broker's maximum packet size (2000 bytes")
                == true)
        let outcomes = await client.waitForOutcomes(timeout: .seconds(10))
        #expect(outcomes.accepted == 1)
        #expect(outcomes.refused.map(\.topic) == ["size/exac2"])
        #expect(outcomes.refused.first?.refusal.local == true)
        // Nothing oversized reached the broker: the connection was never dropped.
        #expect(client.isConnected)
        #expect(disconnectReasons(recorder).isEmpty)
        await client.stop()
    }

    /// 3.1.1's CONNACK carries no size: mosquitto drops the connection on an oversized packet,
    /// losing whatever was in flight. A configured maximum refuses it locally instead.
    @Test func configuredMaximumPacketSizeUnderMQTT311() async throws {
        let broker = try MosquittoBroker(configuration: ["max_packet_size 2000"])
        try await broker.start()
        defer { broker.stop() }
        let big = String(repeating: "c", count: 2500)

        let (limited, limitedEvents) = try await makeClient(port: broker.port, role: "mps311") {
            $0.protocolVersion = .v311
            $0.maxPacketSize = 2000
        }
        #expect(limited.brokerMaximumPacketSize == nil)
        try limited.publish("small", "fits", qos: 1, retain: true)
        #expect(throws: MosquittoError.self) { try limited.publish("big", big, qos: 1, retain: true) }
        let outcomes = await limited.waitForOutcomes(timeout: .seconds(10))
        #expect(outcomes.accepted == 1)
        #expect(outcomes.refused.map(\.topic) == ["big"])
        #expect(
            outcomes.refused.first?.refusal.reason
                == "the packet (2510 bytes) is over the configured maximum packet size (2000 bytes)")
        #expect(limited.isConnected && disconnectReasons(limitedEvents).isEmpty)
        await limited.stop()

        // Without the setting the broker disconnects; the publish is lost, not acknowledged.
        let (unlimited, events) = try await makeClient(port: broker.port, role: "nolimit311") {
            $0.protocolVersion = .v311
            $0.reconnectDelayMin = 5
            $0.reconnectDelayMax = 5
        }
        try unlimited.publish("big", big, qos: 1, retain: true)
        let lost = await unlimited.waitForOutcomes(timeout: .seconds(10))
        #expect(lost.accepted == 0)
        #expect(lost.lost == ["big"])
        let dropped = await events.waitFor { _ in disconnectReasons(events).first }
        #expect(dropped == "The connection was lost.")
        await unlimited.stop()
    }

    /// The broker dies in the middle of a burst: what was acknowledged before is accepted, the
    /// rest is lost, and acknowledgements on the next connection (libmosquitto re-sends queued
    /// messages after reconnecting) never turn a lost publish into an accepted one.
    @Test func brokerKilledMidBurstReportsNothingAcknowledgedThatWasNot() async throws {
        let broker = try MosquittoBroker()
        try await broker.start()
        defer { broker.stop() }
        let (client, recorder) = try await makeClient(port: broker.port, role: "burst") {
            $0.reconnectDelayMin = 1
            $0.reconnectDelayMax = 1
        }
        let payload = String(repeating: "p", count: 200)
        for index in 0..<3000 { try client.publish("burst/\(index)", payload, qos: 1, retain: true) }
        // Killed while most of the burst is still queued or in flight.
        broker.stop()
        #expect(await client.waitForAcknowledgements(timeout: .seconds(15)) == false)
        let first = client.takeOutcomes()
        #expect(first.pending.isEmpty)
        #expect(first.refused.isEmpty)
        #expect(first.accepted + first.lost.count == 3000)
        #expect(first.lost.isEmpty == false, "the kill must catch publishes in flight")
        // Acknowledged in order on one connection: the accepted ones are the first ones.
        let lostIndices = first.lost.compactMap { Int($0.split(separator: "/").last!) }
        #expect(lostIndices.min() == first.accepted)

        try await broker.start()
        let reconnected = await recorder.waitFor(timeout: .seconds(20)) { _ in recorder.connectedCount >= 2 ? true : nil
        }
        #expect(reconnected == true)
        // The barrier is a publish on the new connection: libmosquitto sends the queue it
        // re-sends before it, and the broker acknowledges one connection's publishes in order,
        // so once this one is acknowledged, so is every re-sent one. Only it may count.
        try client.publish("burst/after", payload, qos: 1, retain: true)
        let later = await client.waitForOutcomes(timeout: .seconds(10))
        #expect(
            later.accepted == 1 && later.allAccepted,
            "acknowledgements on the new connection were counted: \(later.accepted)")
        #expect(later.lost.isEmpty)
        // libmosquitto did re-send (some of) the lost ones on the new connection and the broker
        // took them: those acknowledgements were the ones that must not count.
        let (reader, readerEvents) = try await makeClient(port: broker.port, role: "burst-read")
        try reader.subscribe("burst/#", qos: 1)
        let resent = await readerEvents.waitFor(timeout: .seconds(5)) { events in
            events.contains { if case .message = $0 { true } else { false } } ? true : nil
        }
        #expect(resent == true)
        await reader.stop()
        await client.stop()
    }
}

/// The fallback from MQTT 5 to 3.1.1 for brokers that refuse MQTT 5 (RabbitMQ 3.10), against a
/// loopback stand-in that refuses v5 and forwards 3.1.1 to a real mosquitto.
@Suite("MQTT 5 → 3.1.1 fallback")
struct MQTTFallbackTests {
    @Test(arguments: [MQTT5RefusingBroker.Refusal.close, .connack84])
    func fallsBackOnceAndWorks(refusal: MQTT5RefusingBroker.Refusal) async throws {
        try await MosquittoBroker.withPlainBroker { upstream in
            let gate = try MQTT5RefusingBroker(refusal: refusal, upstreamPort: upstream)
            defer { gate.stop() }
            let (client, recorder) = try await makeClient(port: gate.port, role: "fallback", ready: false) {
                $0.protocolFallback = true
                $0.reconnectDelayMin = 1
                $0.reconnectDelayMax = 2
            }
            #expect(await client.waitUntilConnected(timeout: .seconds(20)), "events: \(recorder.events)")
            #expect(client.protocolVersion == .v311)
            #expect(gate.protocolLevels == [5, 4])
            let reasons = disconnectReasons(recorder)
            #expect(reasons.count == 1)
            #expect(reasons.first?.hasSuffix("falling back to MQTT 3.1.1") == true, "\(reasons)")
            // Through the stand-in, to mosquitto and back, with 3.1.1.
            let topic = uniqueTopic()
            try await subscribeAndConfirm(client, recorder, topic, qos: 1)
            try client.publish(topic, "over 3.1.1", qos: 1)
            #expect(await recorder.waitForMessage(on: topic, payload: "over 3.1.1") != nil)
            let outcomes = await client.waitForOutcomes(timeout: .seconds(10))
            #expect(outcomes.allAccepted && outcomes.accepted == 2)
            await client.stop()
        }
    }

    @Test func noFallbackWhenTheProtocolWasChosen() async throws {
        try await MosquittoBroker.withPlainBroker { upstream in
            let gate = try MQTT5RefusingBroker(refusal: .close, upstreamPort: upstream)
            defer { gate.stop() }
            let (client, _) = try await makeClient(port: gate.port, role: "nofallback", ready: false) {
                $0.protocolFallback = false
                $0.reconnectDelayMin = 1
                $0.reconnectDelayMax = 1
            }
            #expect(await client.waitUntilConnected(timeout: .seconds(4)) == false)
            #expect(client.protocolVersion == .v5)
            #expect(gate.protocolLevels.isEmpty == false)
            #expect(gate.protocolLevels.allSatisfy { $0 == 5 })
            await client.stop()
        }
    }

    @Test func noFallbackWhenMosquittoSpeaksMQTT5() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let (client, _) = try await makeClient(port: port, role: "v5ok") { $0.protocolFallback = true }
            #expect(client.protocolVersion == .v5)
            await client.stop()
        }
    }

    /// The stand-in once shut down, at `stop()`, every descriptor number it had ever accepted,
    /// including those it had closed and the process had since reused: in the parallel suite
    /// that cut other tests' MQTT client sockets ("The client is not currently connected" in the
    /// middle of `brokerKilledMidBurst…`) and the stalled listener of the connect-timeout test.
    /// Here the numbers it closed are taken again at once (the kernel hands out the lowest free
    /// ones), and they must still work after `stop()`.
    @Test func standInStopLeavesReusedDescriptorsAlone() async throws {
        let gate = try MQTT5RefusingBroker(refusal: .close, upstreamPort: 1)
        defer { gate.stop() }
        for _ in 0..<3 {
            let fd = try loopbackConnection(port: gate.port)
            defer { close(fd) }
            // An MQTT 5 CONNECT (empty client id, clean start): the stand-in reads it and closes.
            let connect: [UInt8] = [0x10, 13, 0, 4, 0x4D, 0x51, 0x54, 0x54, 5, 0x02, 0, 60, 0, 0, 0]
            #expect(send(fd, connect, connect.count, Int32(MSG_NOSIGNAL)) == connect.count)
            var byte: UInt8 = 0
            #expect(read(fd, &byte, 1) == 0, "the stand-in did not close the refused connection")
        }
        #expect(gate.protocolLevels == [5, 5, 5])
        var pairs: [[Int32]] = []
        defer { for pair in pairs { close(pair[0]); close(pair[1]) } }
        for _ in 0..<32 {
            var pair: [Int32] = [-1, -1]
            try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
            pairs.append(pair)
        }
        gate.stop()
        for pair in pairs {
            var byte: UInt8 = 7
            #expect(send(pair[0], &byte, 1, Int32(MSG_NOSIGNAL)) == 1, "descriptor \(pair[0]) was shut down")
            #expect(send(pair[1], &byte, 1, Int32(MSG_NOSIGNAL)) == 1, "descriptor \(pair[1]) was shut down")
        }
    }
}

/// A connected TCP socket to 127.0.0.1:`port`.
private func loopbackConnection(port: Int) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard fd >= 0, connected == 0 else {
        close(fd)
        throw POSIXError(.ECONNREFUSED)
    }
    // Reads give up after 10 s instead of hanging the test.
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    return fd
}

/// Connect attempts that never complete give up after the connect timeout (10 s by default),
/// with TLS too, instead of libmosquitto's keepalive (60 s); stop() is prompt meanwhile.
@Suite("MQTT connect timeout")
struct MQTTConnectTimeoutTests {
    enum Target: Sendable, CustomTestStringConvertible {
        case stalledSYN, silentAfterHandshake
        var testDescription: String { self == .stalledSYN ? "SYN unanswered" : "TCP up, no reply" }
    }

    @Test(arguments: [Target.stalledSYN, .silentAfterHandshake], [false, true])
    func attemptGivesUpAfterTheTimeout(target: Target, tls: Bool) async throws {
        let stalled = target == .stalledSYN ? try StalledListener() : nil
        let silent = target == .silentAfterHandshake ? try SilentListener() : nil
        let port = stalled?.port ?? silent!.port
        let certificates = try await TestCertificates.generate()
        let (client, recorder) = try await makeClient(port: port, role: "timeout", ready: false) {
            $0.connectTimeout = 3
            $0.keepalive = hangKeepalive
            $0.reconnectDelayMin = 1
            $0.reconnectDelayMax = 1
            if tls { $0.tls = MQTTTLSOptions(caFile: certificates.caFile, insecure: true) }
        }
        // Read after start(): a wait for the pool before this read only shortens what is measured.
        let started = ContinuousClock.now
        let reason = await recorder.waitFor(timeout: eventWait) { _ in
            disconnectReasons(recorder).first { $0.contains("connect timeout") }
        }
        #expect(reason != nil, "events: \(recorder.events)")
        let timedOut = recorder.firstTime { event in
            if case .disconnected(let reason) = event { reason.contains("connect timeout") } else { false }
        }
        // A 3 s timeout on a 1 s watchdog tick (3–4 s idle), far under the keepalive check (300 s)
        // that would end the attempt without it. The event's time, taken off the pool, counts.
        let elapsed = timedOut.map { $0 - started }
        #expect(elapsed.map { $0 < .seconds(20) } == true, "gave up after \(String(describing: elapsed))")
        // It keeps trying: a second attempt times out as well.
        let second = await recorder.waitFor(timeout: eventWait) { _ in
            disconnectReasons(recorder).filter { $0.contains("connect timeout") }.count >= 2 ? true : nil
        }
        #expect(second == true, "events: \(recorder.events)")
        let stopping = await durationOffThePool { await client.stop() }
        #expect(stopping < promptBound)
        _ = (stalled, silent)
    }

    @Test func stopIsPromptDuringAStalledTLSConnect() async throws {
        let stalled = try StalledListener()
        let certificates = try await TestCertificates.generate()
        let (client, _) = try await makeClient(port: stalled.port, role: "stall-stop", ready: false) {
            $0.keepalive = hangKeepalive
            $0.tls = MQTTTLSOptions(caFile: certificates.caFile, insecure: true)
        }
        // Time must pass here: the stop is to come while libmosquitto's thread is inside its
        // stalled connect, which no event announces.
        try await Task.sleep(for: .seconds(2))
        let stopping = await durationOffThePool { await client.stop() }
        #expect(stopping < promptBound)
    }
}
