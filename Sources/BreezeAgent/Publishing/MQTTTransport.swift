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
import BreezeDaemon
import BreezeMQTT

/// The publisher's transport over the broker connection: retained publishes at the configured QoS.
struct MQTTTransport: RetainedTransport {
    let broker: any BrokerConnection
    let qos: Int
    let log: Log

    func send(topic: String, payload: String, retain: Bool) -> Bool {
        send(topic: topic, bytes: Array(payload.utf8), retain: retain)
    }

    func send(topic: String, bytes: [UInt8], retain: Bool) -> Bool {
        do {
            try broker.publish(topic, bytes, qos: qos, retain: retain)
            return true
        } catch  where error.kind == .publishRefused {
            // Refused by the client for its size: recorded in the client's outcomes, which
            // `report(to:)` logs and keeps out of the published set. Not a send to retry.
            return true
        } catch {
            log.debug("mqtt: publish \(topic) not sent: \(error)")
            return false
        }
    }
}

extension PublishOutcomes {
    /// Logs what the broker did not take (each refusal at warning, with topic and reason) and
    /// keeps those topics out of the publisher's published set. Returns whether everything
    /// was accepted.
    /// - Parameter pendingIsLost: publishes still unacknowledged when the wait ended count as
    ///   not published (`once`, which exits next). The daemon passes false: its publishes keep
    ///   flowing, a busy connection is not a failure, and a dead one reports them as lost.
    @discardableResult
    func report(to publisher: RetainedPublisher, log: Log, pendingIsLost: Bool = true) -> Bool {
        for entry in refused { log.warning("mqtt: publish \(entry.topic) \(entry.refusal)") }
        if !lost.isEmpty {
            log.warning(
                "mqtt: \(lost.count) publish(es) lost: the connection ended before the broker acknowledged them (first: \(lost[0])); sent again after the reconnect"
            )
        }
        if unrecorded > 0 {
            log.warning(
                "mqtt: \(unrecorded) more publishes refused or lost than are listed (bound \(Self.recordLimit))")
        }
        publisher.notPublished(refused: refused.map(\.topic), lost: pendingIsLost ? lost + pending : lost)
        return allAccepted
    }
}
