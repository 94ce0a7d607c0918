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

public import BreezeCore

/// Everything needed to connect; checked by ``validate()`` before libmosquitto sees it.
public struct MQTTConfiguration: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var clientID: String
    /// Seconds; 0 disables keepalive, otherwise libmosquitto requires at least 5.
    public var keepalive: Int
    public var username: String?
    public var password: String?
    /// `nil` = plain TCP.
    public var tls: MQTTTLSOptions?
    public var protocolVersion: MQTTProtocolVersion
    /// Registered before connecting; the broker publishes it if the client vanishes without a
    /// clean disconnect (and discards it on ``MQTTClient/stop()``).
    public var will: MQTTMessage?
    /// Reconnect backoff in seconds: starts at the minimum, grows, capped at the maximum.
    public var reconnectDelayMin: Int
    public var reconnectDelayMax: Int
    /// A clean session drops broker-side state on reconnect; subscriptions are replayed by the client.
    public var cleanSession: Bool
    /// With ``MQTTProtocolVersion/v5``: when the broker refuses MQTT 5 (CONNACK 0x84, or the
    /// connection closed before any CONNACK), switch to 3.1.1 once and reconnect. For a
    /// protocol the user did not choose explicitly (RabbitMQ 3.10 closes a v5 CONNECT).
    public var protocolFallback: Bool
    /// Largest MQTT packet (bytes, fixed header included) the client sends; a publish over it is
    /// refused locally. The broker's own limit from an MQTT 5 CONNACK applies as well; with 3.1.1
    /// (whose CONNACK has none) this is the only one. `nil`: no limit of our own.
    public var maxPacketSize: Int?
    /// Seconds a connect attempt (TCP, TLS handshake, CONNACK) may take before it is abandoned
    /// and retried with backoff.
    public var connectTimeout: Int
    /// Largest payload of a received message that is copied and delivered; a larger one is
    /// delivered with an empty payload and its size in ``MQTTMessage/droppedPayloadBytes``, so a
    /// flood of huge messages on a subscribed topic costs no copies.
    public var maxIncomingPayload: Int

    /// Bounds of ``connectTimeout`` in seconds.
    public static let connectTimeoutRange = 1...300

    /// `port` defaults to 8883 with TLS and 1883 without.
    public init(
        host: String = "localhost",
        port: Int? = nil,
        clientID: String,
        keepalive: Int = 60,
        username: String? = nil,
        password: String? = nil,
        tls: MQTTTLSOptions? = nil,
        protocolVersion: MQTTProtocolVersion = .v5,
        will: MQTTMessage? = nil,
        reconnectDelayMin: Int = 1,
        reconnectDelayMax: Int = 60,
        cleanSession: Bool = true,
        protocolFallback: Bool = false,
        maxPacketSize: Int? = nil,
        connectTimeout: Int = 10,
        maxIncomingPayload: Int = .max
    ) {
        self.host = host
        self.port = port ?? (tls == nil ? 1883 : 8883)
        self.clientID = clientID
        self.keepalive = keepalive
        self.username = username
        self.password = password
        self.tls = tls
        self.protocolVersion = protocolVersion
        self.will = will
        self.reconnectDelayMin = reconnectDelayMin
        self.reconnectDelayMax = reconnectDelayMax
        self.cleanSession = cleanSession
        self.protocolFallback = protocolFallback
        self.maxPacketSize = maxPacketSize
        self.connectTimeout = connectTimeout
        self.maxIncomingPayload = maxIncomingPayload
    }

    /// Rejects values libmosquitto would refuse later with a bare "Invalid arguments", so the
    /// user sees which setting is wrong.
    public func validate() throws(MosquittoError) {
        func fail(_ text: String) -> MosquittoError { .invalidConfiguration(text) }
        if host.isEmpty { throw fail("host is empty") }
        if !(1...65535).contains(port) { throw fail("port \(port) is outside 1…65535") }
        if clientID.isEmpty { throw fail("client id is empty") }
        if clientID.utf8.count > 65535 { throw fail("client id is longer than 65535 bytes") }
        if keepalive != 0 && !(5...65535).contains(keepalive) {
            throw fail("keepalive \(keepalive) s must be 0 (off) or 5…65535 s")
        }
        if password != nil && username == nil { throw fail("a password needs a username") }
        if reconnectDelayMin < 1 { throw fail("reconnect delay minimum \(reconnectDelayMin) s must be at least 1 s") }
        if reconnectDelayMax < reconnectDelayMin {
            throw fail("reconnect delay maximum \(reconnectDelayMax) s is below the minimum \(reconnectDelayMin) s")
        }
        if let maxPacketSize, !MQTTProtocolVersion.packetSizeRange.contains(maxPacketSize) {
            throw fail("maximum packet size \(maxPacketSize) bytes is outside 64…268435460")
        }
        if !Self.connectTimeoutRange.contains(connectTimeout) {
            throw fail("connect timeout \(connectTimeout) s is outside 1…300 s")
        }
        if let tls {
            if (tls.certFile == nil) != (tls.keyFile == nil) {
                throw fail("TLS client certificate and key must be given together")
            }
        }
        if let will {
            try MQTTConfiguration.validatePublish(topic: will.topic, qos: will.qos, what: "will")
        }
    }

    /// Topic rules for publishing (no wildcards, not empty, at most 65535 bytes) and QoS range.
    static func validatePublish(topic: String, qos: Int, what: String) throws(MosquittoError) {
        if topic.isEmpty { throw .invalidConfiguration("\(what) topic is empty") }
        if topic.utf8.count > 65535 { throw .invalidConfiguration("\(what) topic is longer than 65535 bytes") }
        if topic.contains("+") || topic.contains("#") {
            throw .invalidConfiguration("\(what) topic \"\(topic)\" contains a wildcard")
        }
        if !(0...2).contains(qos) { throw .invalidConfiguration("\(what) QoS \(qos) is not 0, 1 or 2") }
    }
}
