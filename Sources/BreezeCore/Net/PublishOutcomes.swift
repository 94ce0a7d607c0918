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

/// Why a publish was not taken by the broker.
///
/// `code` is an MQTT 5 reason code: the broker's (PUBACK/PUBREC, e.g. 0x87 not authorized, 0x97
/// quota exceeded, 0x95 packet too large) or, for a refusal the client made before sending,
/// 0x95 with `local` set.
public struct PublishRefusal: Sendable, Equatable, CustomStringConvertible {
    public let code: Int
    /// libmosquitto's text for the code, with the broker's reason string appended when it sent one;
    /// for a local refusal the sizes involved.
    public let reason: String
    /// Refused by this client (packet over the maximum size), never sent.
    public let local: Bool

    public init(code: Int, reason: String, local: Bool) {
        self.code = code
        self.reason = reason
        self.local = local
    }

    /// 0x95: the code MQTT 5 uses for a packet over the maximum size.
    public static let packetTooLargeCode = 0x95

    public var description: String {
        let hex = "0x" + String(code, radix: 16, uppercase: true)
        return local ? "refused by the client (\(hex)): \(reason)" : "refused by the broker (\(hex)): \(reason)"
    }
}

/// A topic whose publish was refused.
public struct RefusedPublish: Sendable, Equatable {
    public let topic: String
    public let refusal: PublishRefusal

    public init(topic: String, refusal: PublishRefusal) {
        self.topic = topic
        self.refusal = refusal
    }
}

/// What became of the QoS 1/2 publishes since the outcomes were last taken
/// (``MQTTClient/waitForOutcomes(timeout:)``, ``MQTTClient/takeOutcomes()``).
///
/// A publish is *accepted* only when the broker acknowledged that very message on the live
/// connection (PUBACK, or PUBREC/PUBCOMP for QoS 2, with a reason code below 0x80). When the
/// connection ends first, it is *lost*, even though libmosquitto may send it again after
/// reconnecting: republish it after the next ``MQTTEvent/connected``. QoS 0 publishes are never
/// acknowledged, so they appear only when the client refused them itself.
public struct PublishOutcomes: Sendable, Equatable {
    /// How many publishes the broker accepted.
    public var accepted = 0
    /// Refused publishes, in the order the refusals arrived (at most ``recordLimit`` entries
    /// together with ``lost``; the rest are only counted in ``unrecorded``).
    public var refused: [RefusedPublish] = []
    /// Topics of publishes in flight when the connection ended.
    public var lost: [String] = []
    /// Refusals and losses past ``recordLimit``, counted but not listed.
    public var unrecorded = 0
    /// Topics still waiting for the broker when the outcomes were taken (they stay tracked).
    public var pending: [String] = []

    /// Refused and lost entries kept between two takes, so a caller that never takes them
    /// (or a flood of refusals) cannot grow memory without bound.
    public static let recordLimit = 100_000

    public init() {}

    /// Every publish accounted for was accepted: nothing refused, lost or still pending.
    public var allAccepted: Bool { refused.isEmpty && lost.isEmpty && unrecorded == 0 && pending.isEmpty }

    /// Nothing refused or lost (publishes may still be pending).
    public var noFailures: Bool { refused.isEmpty && lost.isEmpty && unrecorded == 0 }
}
