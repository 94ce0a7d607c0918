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

// The broker client's plain values: what it reports and what a message is. They live in the
// core so that the daemon's machine, which imports no broker client, can speak of them.

/// One MQTT message, outgoing (publish, will) or incoming.
public struct MQTTMessage: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: Int
    public var retain: Bool
    /// Set on a received message whose payload was over the client's
    /// `maxIncomingPayload` (BreezeMQTT's `MQTTConfiguration`): its size in bytes; `payload` is then empty
    /// (the bytes were never copied out of libmosquitto's buffer).
    public var droppedPayloadBytes: Int?

    public init(topic: String, payload: [UInt8], qos: Int = 0, retain: Bool = false, droppedPayloadBytes: Int? = nil) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.droppedPayloadBytes = droppedPayloadBytes
    }

    /// The payload's size as sent, dropped or not.
    public var payloadBytes: Int { droppedPayloadBytes ?? payload.count }

    public init(topic: String, string: String, qos: Int = 0, retain: Bool = false) {
        self.init(topic: topic, payload: Array(string.utf8), qos: qos, retain: retain)
    }

    /// The payload read as UTF-8 (invalid sequences become U+FFFD).
    public var payloadString: String { String(decoding: payload, as: UTF8.self) }
}

/// What the client reports, in order, on its `events` stream (BreezeMQTT's `MQTTClient`).
public enum MQTTEvent: Sendable, Equatable {
    /// The broker accepted the connection (first connect and every reconnect). Subscriptions
    /// have been re-sent; retained state a consumer publishes should be re-sent now.
    case connected
    /// The connection ended or was refused; `reason` is libmosquitto's text (for a refusal the
    /// CONNACK/reason-code text, for TLS failures with OpenSSL's message appended).
    case disconnected(reason: String)
    /// A message on a subscribed topic.
    case message(MQTTMessage)
}
