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

#if canImport(Glibc)
    import Glibc
#endif

/// Against a real mosquitto: the shared `make test` broker when there is one, else private ones.
@Suite("MQTT client against mosquitto")
struct MQTTBrokerTests {
    @Test("publish/subscribe round trip", arguments: [0, 1, 2])
    func roundTrip(qos: Int) async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let topic = uniqueTopic("roundTrip\(qos)")
            let (subscriber, received) = try await makeClient(port: port, role: "sub")
            let (publisher, _) = try await makeClient(port: port, role: "pub")
            try await subscribeAndConfirm(subscriber, received, topic, qos: 2)
            try publisher.publish(topic, "hello \(qos)", qos: qos)
            let message = await received.waitForMessage(on: topic, payload: "hello \(qos)")
            #expect(message?.qos == qos)
            #expect(message?.retain == false)
            #expect(await publisher.waitForAcknowledgements(timeout: .seconds(10)))
            await publisher.stop()
            await subscriber.stop()
        }
    }

    /// SPEC §12: five 100 MB `refresh` payloads once peaked at 315 MB in the agent. A payload
    /// over `maxIncomingPayload` arrives as its size only, never copied.
    @Test("a payload over maxIncomingPayload arrives as its size, without its bytes")
    func oversizedIncomingPayloadIsDropped() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let topic = uniqueTopic("oversized")
            let (subscriber, received) = try await makeClient(port: port, role: "sub") {
                $0.maxIncomingPayload = 64
            }
            let (publisher, _) = try await makeClient(port: port, role: "pub")
            try await subscribeAndConfirm(subscriber, received, topic, qos: 1)
            try publisher.publish(topic, [UInt8](repeating: 0x41, count: 10_000_000), qos: 1)
            try publisher.publish(topic, [UInt8](repeating: 0x42, count: 64), qos: 1)
            let big = await received.waitFor(timeout: .seconds(20)) { _ in
                received.messages(on: topic).first { $0.droppedPayloadBytes != nil }
            }
            #expect(big?.droppedPayloadBytes == 10_000_000)
            #expect(big?.payload.isEmpty == true)
            #expect(big?.payloadBytes == 10_000_000)
            let small = await received.waitForMessage(on: topic, payload: String(repeating: "B", count: 64))
            #expect(small?.droppedPayloadBytes == nil)
            #expect(small?.payloadBytes == 64)
            await publisher.stop()
            await subscriber.stop()
        }
    }

    @Test("MQTT 3.1.1 and 5 both connect and exchange messages", arguments: [MQTTProtocolVersion.v311, .v5])
    func protocolVersions(version: MQTTProtocolVersion) async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let topic = uniqueTopic()
            let (client, recorder) = try await makeClient(port: port, role: "v\(version)") {
                $0.protocolVersion = version
            }
            try await subscribeAndConfirm(client, recorder, topic)
            try client.publish(topic, [0, 255, 10], qos: 1)
            let message = await recorder.waitFor { _ in
                recorder.messages(on: topic).first { $0.payload == [0, 255, 10] }
            }
            #expect(message != nil)
            await client.stop()
        }
    }

    @Test func acknowledgementsAfterQoS1Publishes() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let topic = uniqueTopic()
            let (client, _) = try await makeClient(port: port, role: "acks")
            for index in 0..<50 { try client.publish(topic, "\(index)", qos: 1) }
            #expect(await client.waitForAcknowledgements(timeout: .seconds(15)))
            await client.stop()
        }
    }

    @Test func retainedMessageReadBackBySecondClient() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let topic = uniqueTopic()
            let (publisher, _) = try await makeClient(port: port, role: "retain-pub")
            try publisher.publish(topic, "kept", qos: 1, retain: true)
            #expect(await publisher.waitForAcknowledgements(timeout: .seconds(10)))

            let (reader, recorder) = try await makeClient(port: port, role: "retain-read")
            try reader.subscribe(topic, qos: 1)
            let message = await recorder.waitForMessage(on: topic, payload: "kept")
            #expect(message?.retain == true)
            // Leave a shared broker clean: an empty retained payload deletes it.
            try publisher.publish(topic, [], qos: 1, retain: true)
            #expect(await publisher.waitForAcknowledgements(timeout: .seconds(10)))
            await reader.stop()
            await publisher.stop()
        }
    }

    @Test func willIsPublishedWhenTheClientDiesUncleanly() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let willTopic = uniqueTopic()
            let (watcher, watched) = try await makeClient(port: port, role: "watcher")
            try await subscribeAndConfirm(watcher, watched, willTopic, qos: 1)
            let (victim, _) = try await makeClient(port: port, role: "victim") {
                $0.will = MQTTMessage(topic: willTopic, string: "offline", qos: 1, retain: false)
            }
            // Cut the TCP connection under libmosquitto without a DISCONNECT: to the broker this
            // client died, so it must publish the will.
            let socket = victim.socketDescriptorForTesting
            try #require(socket >= 0)
            #expect(shutdown(socket, Int32(SHUT_RDWR)) == 0)
            let will = await watched.waitForMessage(on: willTopic, payload: "offline")
            #expect(will?.qos == 1)
            await victim.stop()
            await watcher.stop()
        }
    }

    @Test func willIsNotPublishedOnCleanStop() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let willTopic = uniqueTopic()
            let (watcher, watched) = try await makeClient(port: port, role: "watcher")
            try await subscribeAndConfirm(watcher, watched, willTopic, qos: 1)
            let (leaver, _) = try await makeClient(port: port, role: "leaver") {
                $0.will = MQTTMessage(topic: willTopic, string: "offline", qos: 1, retain: false)
            }
            // A copy of the leaver's socket, kept open here: libmosquitto's close after its
            // DISCONNECT then leaves the connection up, and its end of file is the broker's close,
            // which comes when the broker has handled the DISCONNECT (where it would send a will).
            let leaverSocket = dup(leaver.socketDescriptorForTesting)
            try #require(leaverSocket >= 0)
            defer { close(leaverSocket) }
            await leaver.stop()
            #expect(leaver.isConnected == false)
            var closing = pollfd(fd: leaverSocket, events: Int16(POLLIN), revents: 0)
            var byte: UInt8 = 0
            let closed = poll(&closing, 1, 10_000) == 1 && recv(leaverSocket, &byte, 1, Int32(MSG_DONTWAIT)) == 0
            try #require(closed, "the broker did not close the leaver's connection within 10 s")
            // A marker after the close: a will would have been routed to the watcher before it.
            try watcher.publish(willTopic, "marker", qos: 1)
            #expect(await watched.waitForMessage(on: willTopic, payload: "marker") != nil)
            #expect(watched.messages(on: willTopic).contains { $0.payloadString == "offline" } == false)
            await watcher.stop()
        }
    }

    @Test func usernameAndPassword() async throws {
        let broker = try MosquittoBroker()
        try await broker.addPasswordFile(users: ["breeze": "correct horse"])
        try await broker.start()
        defer { broker.stop() }

        let (accepted, _) = try await makeClient(port: broker.port, role: "auth-ok") {
            $0.username = "breeze"
            $0.password = "correct horse"
        }
        #expect(accepted.isConnected)
        await accepted.stop()

        for version in [MQTTProtocolVersion.v311, .v5] {
            let (refused, recorder) = try await makeClient(port: broker.port, role: "auth-bad", ready: false) {
                $0.username = "breeze"
                $0.password = "wrong"
                $0.protocolVersion = version
            }
            let reason = await recorder.waitFor { events in
                events.lazy.compactMap { event -> String? in
                    if case .disconnected(let reason) = event { return reason }
                    return nil
                }.first
            }
            #expect(refused.isConnected == false)
            let error = try #require(refused.lastError)
            #expect(error.kind == .connectionRefused)
            // The broker's answer in the library's words, per protocol table.
            let expected = version == .v5 ? "Not authorized" : "Connection Refused: not authorised."
            #expect(error.message == expected, "broker log: \(broker.log)")
            #expect(reason == error.message)
            await refused.stop()
        }
    }

    @Test func tlsVerifiesTheBrokerAgainstTheConfiguredCA() async throws {
        let certificates = try await TestCertificates.generate()
        let otherCA = try await TestCertificates.generate(caName: "Some Other CA")
        let broker = try MosquittoBroker()
        broker.enableTLS(certificates)
        try await broker.start()
        defer { broker.stop() }

        let topic = uniqueTopic()
        let (trusting, recorder) = try await makeClient(port: broker.port, role: "tls-ok") {
            $0.host = "localhost"
            $0.tls = MQTTTLSOptions(caFile: certificates.caFile)
        }
        try await subscribeAndConfirm(trusting, recorder, topic)
        await trusting.stop()

        // The handshake fails either inside start() (thrown) or on mosquitto's thread (event);
        // which one depends on timing. Both must carry OpenSSL's reason.
        let distrusting = try MQTTClient(
            MQTTConfiguration(
                host: "localhost", port: broker.port, clientID: uniqueClientID("tls-bad"),
                tls: MQTTTLSOptions(caFile: otherCA.caFile)))
        let rejected = EventRecorder(distrusting)
        var reason: String?
        do {
            try distrusting.start()
            reason = await rejected.waitFor { events in
                events.lazy.compactMap { event -> String? in
                    if case .disconnected(let reason) = event { return reason }
                    return nil
                }.first
            }
        } catch {
            #expect(error.code == 8)  // MOSQ_ERR_TLS
            reason = error.message
        }
        #expect(distrusting.isConnected == false)
        #expect(
            reason?.contains("certificate verify failed") == true,
            "reason: \(String(describing: reason)), error: \(String(describing: distrusting.lastError)), events: \(rejected.events)"
        )
        await distrusting.stop()
    }

    /// Without `ca_file` the system's CAs are trusted, wherever the system keeps them: the §14
    /// container image (and the add-on's, whose Supervisor may announce `ssl: true`) ships only
    /// Debian's bundle file in /etc/ssl/certs, a full Debian also the subject-hash links. Here
    /// the "system" is a folder holding the test CA one way or the other.
    @Test(arguments: [true, false])
    func tlsTrustsTheSystemCAsFromTheBundleOrTheHashedDirectory(bundleOnly: Bool) async throws {
        let certificates = try await TestCertificates.generate()
        let broker = try MosquittoBroker()
        broker.enableTLS(certificates)
        try await broker.start()
        defer { broker.stop() }
        let system = try makeTemporaryDirectory(prefix: "breeze-system-cas")
        defer { try? FileManager.default.removeItem(atPath: system) }
        if bundleOnly {
            try FileManager.default.copyItem(atPath: certificates.caFile, toPath: system + "/ca-certificates.crt")
        } else {
            try FileManager.default.copyItem(atPath: certificates.caFile, toPath: system + "/test-ca.pem")
            try await TestProcess.run("openssl", ["rehash", system])
        }
        let (client, recorder) = try await makeClient(port: broker.port, role: "tls-system") {
            $0.host = "localhost"
            $0.tls = MQTTTLSOptions(
                systemCAs: .init(bundle: system + "/ca-certificates.crt", hashedDirectory: system))
        }
        try await subscribeAndConfirm(client, recorder, uniqueTopic())
        await client.stop()
    }

    @Test func tlsClientCertificate() async throws {
        let certificates = try await TestCertificates.generate()
        let broker = try MosquittoBroker()
        broker.enableTLS(certificates, requireClientCertificate: true)
        try await broker.start()
        defer { broker.stop() }
        let (client, _) = try await makeClient(port: broker.port, role: "tls-cert") {
            $0.host = "127.0.0.1"
            $0.tls = MQTTTLSOptions(
                caFile: certificates.caFile, certFile: certificates.clientCertFile, keyFile: certificates.clientKeyFile)
        }
        #expect(client.isConnected)
        await client.stop()
    }

    @Test func reconnectsAfterBrokerRestartAndResubscribes() async throws {
        let broker = try MosquittoBroker()
        try await broker.start()
        defer { broker.stop() }
        let topic = uniqueTopic()
        let (client, recorder) = try await makeClient(port: broker.port, role: "reconnect") {
            $0.reconnectDelayMin = 1
            $0.reconnectDelayMax = 2
        }
        try await subscribeAndConfirm(client, recorder, topic, qos: 1)

        broker.stop()
        let dropped = await recorder.waitFor { events in
            events.contains { if case .disconnected = $0 { true } else { false } } ? true : nil
        }
        #expect(dropped == true)
        #expect(client.isConnected == false)
        // libmosquitto 2.0 refuses publishing while disconnected, QoS 1 included.
        #expect(throws: MosquittoError(code: 4)) { try client.publish(topic, "while down", qos: 1) }

        try await broker.start()
        let reconnected = await recorder.waitFor(timeout: .seconds(20)) { _ in recorder.connectedCount >= 2 ? true : nil
        }
        #expect(reconnected == true)
        #expect(await client.waitForAcknowledgements(timeout: .seconds(15)))
        // The subscription was replayed: the client sends it before it reports the connection,
        // so a message of its own published now comes back behind it. Only then is the broker
        // known to hold it for another client's publish (waitForAcknowledgements covers
        // publishes, not the SUBACK; 2 of 16 suite runs lost the other's message without this).
        try client.publish(topic, "own marker", qos: 1)
        #expect(await recorder.waitForMessage(on: topic, payload: "own marker") != nil)
        // Another client's publish reaches us.
        let (other, _) = try await makeClient(port: broker.port, role: "after-restart")
        try other.publish(topic, "after restart", qos: 1)
        #expect(await recorder.waitForMessage(on: topic, payload: "after restart") != nil)
        await other.stop()
        await client.stop()
    }

    @Test func connectsOnceABrokerAppearsLater() async throws {
        let broker = try MosquittoBroker()
        defer { broker.stop() }
        let (client, _) = try await makeClient(port: broker.port, role: "early", ready: false) {
            $0.reconnectDelayMin = 1
            $0.reconnectDelayMax = 1
        }
        #expect(client.isConnected == false)
        try await broker.start()
        #expect(await client.waitUntilConnected(timeout: .seconds(20)))
        await client.stop()
    }

    /// The client waits 300 s between attempts here; stop() must not wait that out.
    @Test func stopIsPromptWhileTheBrokerIsDown() async throws {
        let port = try FreePort.loopback()
        let (client, _) = try await makeClient(port: port, role: "nobroker", ready: false) {
            $0.reconnectDelayMin = 300
            $0.reconnectDelayMax = 600
        }
        let stopping = await durationOffThePool { await client.stop() }
        #expect(stopping < promptBound)
    }
}
