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

/// What the agent's daemon loop needs of a broker: connect, publish (and learn what became of
/// it), subscribe, and the connection's events in order.
///
/// ``MQTTClient`` is the production conformer; the unit tests drive the whole loop against an
/// in-memory broker of their own and a test clock, so a reconnect and its republish take
/// milliseconds. Integration tests keep using a real mosquitto through ``MQTTClient``.
public protocol BrokerConnection: AnyObject, Sendable {
    /// Events in order; a single consumer. The stream ends after ``stop()``.
    var events: AsyncStream<MQTTEvent> { get }
    /// Whether the broker has accepted the current connection.
    var isConnected: Bool { get }
    /// The most recent connection failure, `nil` once connected (`once` reports it).
    var lastError: MosquittoError? { get }
    /// The protocol spoken now: the configured one, or 3.1.1 after a fallback.
    var protocolVersion: MQTTProtocolVersion { get }
    /// Starts connecting and returns at once; the connection comes up (and comes back after a
    /// loss) as ``MQTTEvent/connected``.
    func start() throws(MosquittoError)
    /// Queues one publish; throws when it cannot be queued (not connected, refused for its size).
    func publish(_ topic: String, _ payload: [UInt8], qos: Int, retain: Bool) throws(MosquittoError)
    /// Subscribes now if connected, and again after every reconnect.
    func subscribe(_ pattern: String, qos: Int) throws(MosquittoError)
    /// Removes a subscription (now and for later reconnects).
    func unsubscribe(_ pattern: String) throws(MosquittoError)
    /// Waits (up to `timeout`) until no QoS 1/2 publish is waiting for the broker, then hands
    /// over what became of the publishes since the outcomes were last taken.
    func waitForOutcomes(timeout: Duration) async -> PublishOutcomes
    /// Waits (up to `timeout`) until nothing is waiting for the broker; true when everything
    /// published since the outcomes were last taken was accepted.
    func waitForAcknowledgements(timeout: Duration) async -> Bool
    /// Disconnects cleanly and ends ``events``. Idempotent.
    func stop() async
    /// Reconnects after a fixed `seconds` from the next loss on; nil: the configured backoff.
    func setReconnectDelay(seconds: Int?)
}

extension MQTTClient: BrokerConnection {}

extension BrokerConnection {
    /// A connection that does not reconnect by itself (a test's in-memory broker) has no delay
    /// to set.
    public func setReconnectDelay(seconds: Int?) {}

    /// Publishes a UTF-8 string payload.
    public func publish(_ topic: String, _ payload: String, qos: Int = 0, retain: Bool = false) throws(MosquittoError) {
        try publish(topic, Array(payload.utf8), qos: qos, retain: retain)
    }
}
