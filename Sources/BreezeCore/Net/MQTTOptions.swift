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

// The MQTT connection settings the configuration and the MQTT client share, as plain values:
// the configuration parses them (BreezeConfig), the client speaks them (BreezeMQTT), and neither
// module depends on the other.

/// The MQTT protocol level spoken to the broker.
public enum MQTTProtocolVersion: Sendable, Equatable, CustomStringConvertible {
    case v311
    case v5

    /// Reads the spellings a configuration file uses: `"5"`, `"5.0"`, `"3.1.1"`, `"311"`.
    public init?(_ text: String) {
        switch text {
        case "5", "5.0", "v5": self = .v5
        case "3.1.1", "311", "v311": self = .v311
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .v311: "3.1.1"
        case .v5: "5"
        }
    }

    /// Bounds of a configured maximum packet size: MQTT's largest packet is 268 435 460 bytes
    /// (fixed header included); below 64 no useful publish fits.
    public static let packetSizeRange = 64...268_435_460
}

/// TLS settings. Their presence turns TLS on; server certificate verification is always on,
/// `insecure` only skips the host-name check (for brokers reached by IP with a name-only cert).
public struct MQTTTLSOptions: Sendable, Equatable {
    /// PEM file with the CA(s) to trust; `nil` trusts the system CAs (``systemCAs``).
    public var caFile: String?
    /// Client certificate (PEM) for brokers that require one; needs ``keyFile``.
    public var certFile: String?
    /// Private key (PEM, unencrypted) matching ``certFile``.
    public var keyFile: String?
    /// Skip the check that the certificate names the host connected to. The chain is still verified.
    public var insecure: Bool

    /// The CAs trusted when ``caFile`` is nil.
    public var systemCAs: SystemCAs

    /// Where the system keeps its CAs (Debian's `ca-certificates`): one PEM bundle, and a
    /// directory of certificates under their subject-hash names (`<hash>.0`) that OpenSSL looks
    /// up by name. A full Debian has both; the container image ships only the bundle.
    public struct SystemCAs: Sendable, Equatable {
        public var bundle: String
        public var hashedDirectory: String
        public init(bundle: String, hashedDirectory: String) {
            self.bundle = bundle
            self.hashedDirectory = hashedDirectory
        }
        public static let debian = SystemCAs(
            bundle: "/etc/ssl/certs/ca-certificates.crt", hashedDirectory: "/etc/ssl/certs")
    }

    public init(
        caFile: String? = nil, certFile: String? = nil, keyFile: String? = nil, insecure: Bool = false,
        systemCAs: SystemCAs = .debian
    ) {
        self.caFile = caFile
        self.certFile = certFile
        self.keyFile = keyFile
        self.insecure = insecure
        self.systemCAs = systemCAs
    }
}
