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
import Testing

@Suite("MQTT configuration and errors (no broker)")
struct MQTTUnitTests {
    static let invalid: [(String, @Sendable (inout MQTTConfiguration) -> Void, String)] = [
        ("empty host", { $0.host = "" }, "host is empty"),
        ("port 0", { $0.port = 0 }, "port 0 is outside 1…65535"),
        ("port too big", { $0.port = 70000 }, "port 70000 is outside 1…65535"),
        ("empty client id", { $0.clientID = "" }, "client id is empty"),
        ("keepalive 3", { $0.keepalive = 3 }, "keepalive 3 s must be 0 (off) or 5…65535 s"),
        ("password alone", { $0.password = "secret" }, "a password needs a username"),
        ("delay 0", { $0.reconnectDelayMin = 0 }, "reconnect delay minimum 0 s must be at least 1 s"),
        (
            "max below min",
            {
                $0.reconnectDelayMin = 10; $0.reconnectDelayMax = 5
            },
            "reconnect delay maximum 5 s is below the minimum 10 s"
        ),
        (
            "cert without key", { $0.tls = MQTTTLSOptions(certFile: "/tmp/c.pem") },
            "TLS client certificate and key must be given together"
        ),
        (
            "will wildcard", { $0.will = MQTTMessage(topic: "a/#", string: "x") },
            "will topic \"a/#\" contains a wildcard"
        ),
        ("will qos 3", { $0.will = MQTTMessage(topic: "a", string: "x", qos: 3) }, "will QoS 3 is not 0, 1 or 2"),
    ]

    @Test("invalid configurations name the offending setting", arguments: 0..<invalid.count)
    func invalidConfiguration(index: Int) throws {
        let (_, adjust, message) = Self.invalid[index]
        var configuration = MQTTConfiguration(clientID: "unit")
        adjust(&configuration)
        let error = #expect(throws: MosquittoError.self) { try configuration.validate() }
        #expect(error?.kind == .invalidConfiguration)
        #expect(error?.message == message)
        // The client refuses it too, before libmosquitto is involved.
        #expect(throws: MosquittoError.self) { _ = try MQTTClient(configuration) }
    }

    @Test func defaultsAreValid() throws {
        let plain = MQTTConfiguration(clientID: "unit")
        try plain.validate()
        #expect(plain.port == 1883)
        #expect(plain.protocolVersion == .v5)
        #expect(MQTTConfiguration(clientID: "unit", tls: MQTTTLSOptions()).port == 8883)
        #expect(MQTTConfiguration(port: 1234, clientID: "unit", tls: MQTTTLSOptions()).port == 1234)
    }

    @Test func protocolVersionSpellings() {
        #expect(MQTTProtocolVersion("5") == .v5)
        #expect(MQTTProtocolVersion("3.1.1") == .v311)
        #expect(MQTTProtocolVersion("3.1") == nil)
        #expect(MQTTProtocolVersion.v311.description == "3.1.1")
    }

    @Test func errorsCarryLibmosquittoText() {
        let noConnection = MosquittoError(code: 4)  // MOSQ_ERR_NO_CONN
        #expect(noConnection.message == "The client is not currently connected.")
        #expect(noConnection.description == "mosquitto: The client is not currently connected. (error 4)")
        // Same number, different tables: 3.1.1 CONNACK 5 vs MQTT 5 reason code 135.
        let refused311 = MosquittoError(connackCode: 5, protocolVersion: .v311)
        #expect(refused311.message == "Connection Refused: not authorised.")
        let refused5 = MosquittoError(connackCode: 134, protocolVersion: .v5)
        #expect(refused5.message == "Bad User Name or Password")
        #expect(refused5.kind == .connectionRefused)
    }

    @Test func publishRejectsBadTopicAndQoSBeforeTheLibrary() throws {
        let client = try MQTTClient(MQTTConfiguration(clientID: "unit-publish"))
        #expect(throws: MosquittoError.invalidConfiguration("publish topic \"a/+/b\" contains a wildcard")) {
            try client.publish("a/+/b", "x")
        }
        #expect(throws: MosquittoError.invalidConfiguration("publish QoS 5 is not 0, 1 or 2")) {
            try client.publish("a", "x", qos: 5)
        }
        // An invalid filter is refused by libmosquitto's own check, with its text.
        let error = #expect(throws: MosquittoError.self) { try client.subscribe("a/#/b") }
        #expect(error?.message == "Invalid function arguments provided.")
        #expect(client.isConnected == false)
    }

    @Test func stopWithoutStartEndsEventsAndRefusesPublishing() async throws {
        let client = try MQTTClient(MQTTConfiguration(clientID: "unit-stop"))
        await client.stop()
        var iterator = client.events.makeAsyncIterator()
        #expect(await iterator.next() == nil)
        let error = #expect(throws: MosquittoError.self) { try client.publish("a", "x") }
        #expect(error?.message == "The client is not currently connected.")
        #expect(await client.waitUntilConnected(timeout: .seconds(1)) == false)
    }

    @Test func newSettingsAreBounded() throws {
        var configuration = MQTTConfiguration(clientID: "unit")
        configuration.maxPacketSize = 63
        #expect(throws: MosquittoError.invalidConfiguration("maximum packet size 63 bytes is outside 64…268435460")) {
            try configuration.validate()
        }
        configuration.maxPacketSize = 2000
        configuration.connectTimeout = 0
        #expect(throws: MosquittoError.invalidConfiguration("connect timeout 0 s is outside 1…300 s")) {
            try configuration.validate()
        }
        configuration.connectTimeout = 10
        try configuration.validate()
        #expect(MQTTConfiguration(clientID: "unit").protocolFallback == false)
        #expect(MQTTConfiguration(clientID: "unit").connectTimeout == 10)
    }

    @Test func publishPacketSizes() {
        // 3.1.1, QoS 0, topic "a", payload "b": 30 05 00 01 61 62 → hmm, 1 + 1 + (2 + 1 + 1) = 6.
        #expect(ClientCore.packetSize(topicBytes: 1, payloadBytes: 1, qos: 0, version: .v311) == 6)
        // MQTT 5 adds the property length byte; QoS 1 the packet id.
        #expect(ClientCore.packetSize(topicBytes: 1, payloadBytes: 1, qos: 1, version: .v5) == 9)
        // The remaining length grows to two bytes at 128.
        #expect(ClientCore.packetSize(topicBytes: 1, payloadBytes: 124, qos: 0, version: .v311) == 129)
        #expect(ClientCore.packetSize(topicBytes: 1, payloadBytes: 125, qos: 0, version: .v311) == 131)
        #expect(ClientCore.sizeRefusal(size: 2000, brokerLimit: 2000, configuredLimit: nil) == nil)
        #expect(ClientCore.sizeRefusal(size: 2001, brokerLimit: nil, configuredLimit: 3000) == nil)
        #expect(
            ClientCore.sizeRefusal(size: 2001, brokerLimit: nil, configuredLimit: 2000)
                == "the packet (2001 bytes) is over the configured maximum packet size (2000 bytes)")
    }

    @Test func trackerResolvesAcceptedRefusedAndLost() {
        var tracker = AcknowledgementTracker()
        #expect(tracker.settled)
        tracker.published(mid: 1, topic: "a")
        tracker.published(mid: 2, topic: "b")
        tracker.published(mid: 3, topic: "c")
        #expect(!tracker.settled && tracker.pendingCount == 3)
        tracker.completed(mid: 1, reasonCode: 0)
        tracker.completed(mid: 2, reasonCode: 0x10)  // "no matching subscribers" is success
        let refused = tracker.completed(mid: 3, reasonCode: 0x87)
        #expect(refused?.topic == "c")
        #expect(refused?.refusal == PublishRefusal(code: 0x87, reason: "Not authorized", local: false))
        #expect(tracker.settled && !tracker.noFailures)
        // An acknowledgement for an id nobody waits for changes nothing.
        #expect(tracker.completed(mid: 9, reasonCode: 0) == nil)
        var outcomes = tracker.take()
        #expect(outcomes.accepted == 2 && outcomes.refused.map(\.topic) == ["c"] && !outcomes.allAccepted)
        #expect(tracker.noFailures)

        tracker.published(mid: 4, topic: "d")
        tracker.published(mid: 5, topic: "e")
        tracker.completed(mid: 4, reasonCode: 0)
        #expect(tracker.connectionLost() == 1)
        // The re-sent message acknowledged on the next connection is not counted.
        tracker.completed(mid: 5, reasonCode: 0)
        outcomes = tracker.take()
        #expect(outcomes.accepted == 1 && outcomes.lost == ["e"])
        #expect(tracker == AcknowledgementTracker())
    }

    @Test func trackerHandlesWrappedIdsOldestFirstAndBoundsItsRecord() {
        var tracker = AcknowledgementTracker()
        tracker.published(mid: 7, topic: "old")
        tracker.published(mid: 7, topic: "new")
        tracker.completed(mid: 7, reasonCode: 0x97)
        var outcomes = tracker.take()
        #expect(outcomes.refused.map(\.topic) == ["old"])
        #expect(outcomes.refused.first?.refusal.reason == "Quota exceeded")
        #expect(outcomes.pending == ["new"])
        tracker.completed(mid: 7, reasonCode: 0)
        #expect(tracker.take().accepted == 1)

        for index in 0..<(PublishOutcomes.recordLimit + 5) {
            tracker.published(mid: Int32(index % 65_535 + 1), topic: "t")
        }
        tracker.connectionLost()
        tracker.refusedLocally(topic: "x", refusal: PublishRefusal(code: 0x95, reason: "big", local: true))
        outcomes = tracker.take()
        #expect(outcomes.lost.count == PublishOutcomes.recordLimit)
        #expect(outcomes.unrecorded == 6)
    }
}
