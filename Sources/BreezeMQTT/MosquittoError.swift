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
import CMosquitto

/// An error from libmosquitto, carrying the library's own text.
///
/// `code` is the raw number the library returned: a `mosq_err_t` for ``Kind/library``, a CONNACK
/// return code (MQTT 3.1.1) or reason code (MQTT 5) for ``Kind/connectionRefused``. `message` is
/// what libmosquitto says about it (`mosquitto_strerror`, `mosquitto_connack_string`,
/// `mosquitto_reason_string`), so a log line reads the same as mosquitto's own tools.
public struct MosquittoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where the code comes from, which decides how it is read.
    public enum Kind: Sendable, Equatable {
        /// A `mosq_err_t` returned by a libmosquitto call.
        case library
        /// The broker refused the connection (CONNACK return code or MQTT 5 reason code).
        case connectionRefused
        /// The configuration was rejected before libmosquitto saw it.
        case invalidConfiguration
        /// A publish the client refused before sending it (`code` is the MQTT 5 reason code,
        /// 0x95 for a packet over the maximum size); also recorded in the publish outcomes.
        case publishRefused
    }

    public let kind: Kind
    public let code: Int32
    public let message: String

    public init(kind: Kind, code: Int32, message: String) {
        self.kind = kind
        self.code = code
        self.message = message
    }

    /// Wraps a `mosq_err_t`. For `MOSQ_ERR_ERRNO` libmosquitto's text is `strerror(errno)`, so
    /// build this immediately after the failing call, before anything else can touch `errno`.
    public init(code: Int32) {
        self.init(kind: .library, code: code, message: String(cString: mosquitto_strerror(code)))
    }

    /// A refused connection: MQTT 5 reason codes and 3.1.1 CONNACK codes overlap numerically
    /// (5 is "not authorised" in 3.1.1, while 5.0 uses 135), so the protocol picks the table.
    public init(connackCode code: Int32, protocolVersion: MQTTProtocolVersion) {
        let text: String
        switch protocolVersion {
        case .v311: text = String(cString: mosquitto_connack_string(code))
        case .v5: text = String(cString: mosquitto_reason_string(code))
        }
        self.init(kind: .connectionRefused, code: code, message: text)
    }

    /// A configuration value the client refuses before calling libmosquitto.
    public static func invalidConfiguration(_ message: String) -> MosquittoError {
        MosquittoError(kind: .invalidConfiguration, code: MosquittoError.invalidCode, message: message)
    }

    static let invalidCode = Int32(MOSQ_ERR_INVAL.rawValue)

    public var description: String {
        switch kind {
        case .library: "mosquitto: \(message) (error \(code))"
        case .connectionRefused: "mosquitto: connection refused: \(message) (code \(code))"
        case .invalidConfiguration: "mosquitto: invalid configuration: \(message)"
        case .publishRefused: "mosquitto: publish refused: \(message)"
        }
    }
}

/// Turns a libmosquitto return value into a thrown error (the one place results are checked).
@inline(__always)
func check(_ result: Int32) throws(MosquittoError) {
    if result != Int32(MOSQ_ERR_SUCCESS.rawValue) { throw MosquittoError(code: result) }
}

/// `mosq_err_t` constants as the `Int32` the C functions return.
extension Int32 {
    static let mosqSuccess = Int32(MOSQ_ERR_SUCCESS.rawValue)
    static let mosqNoConnection = Int32(MOSQ_ERR_NO_CONN.rawValue)
}
