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
import BreezeYAML

/// `http:` (SPEC §9.2): off unless present.
///
/// ```yaml
/// http:
///   listen: "127.0.0.1:8765"        # an IPv4 or [IPv6] address and a port; the default
///   allow: [127.0.0.1/32, 192.168.1.0/24, "fd00::/8"]   # default: loopback only
/// ```
public struct HTTPSettings: Sendable, Equatable {
    /// The address to listen on (a literal, `0.0.0.0` or `::` for every interface).
    public var address: IPAddress
    public var port: Int
    /// Peers allowed to ask (checked per request, 403 otherwise).
    public var allow: [CIDR]
    /// `allow` was written in the file (a non-loopback `listen` without it gets a warning).
    public var allowExplicit: Bool

    public init(address: IPAddress, port: Int, allow: [CIDR] = CIDR.loopback, allowExplicit: Bool = false) {
        self.address = address
        self.port = port
        self.allow = allow
        self.allowExplicit = allowExplicit
    }

    /// `127.0.0.1:8765`, `[::1]:8765`.
    public var listenText: String {
        switch address {
        case .v4: "\(address):\(port)"
        case .v6: "[\(address)]:\(port)"
        }
    }

    /// The start-up warning for a listener off the loopback interface that keeps the default
    /// `allow` (images and location names are household data), nil otherwise.
    public var exposureWarning: String? {
        guard !address.isLoopback, !allowExplicit else { return nil }
        return
            "http: listening on \(listenText), beyond the loopback interface, without http.allow: only loopback peers are served (403 for the rest); list the networks that may read images and location names in http.allow"
    }

    static let defaultListen = "127.0.0.1:8765"
    /// At most this many `allow` entries (each is checked per request).
    static let maximumAllowEntries = 64
    static let keys = ["listen", "allow"]

    /// Parses `a.b.c.d:port` or `[v6]:port`; nil when it is not one (host names are refused:
    /// what a name resolves to can change under a running server).
    static func parseListen(_ text: String) -> (IPAddress, Int)? {
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":"),
                let address = IPAddress(String(text[text.index(after: text.startIndex)..<close])),
                case .v6 = address, let port = parsePort(text[text.index(close, offsetBy: 2)...])
            else { return nil }
            return (address, port)
        }
        guard let colon = text.lastIndex(of: ":"), let address = IPAddress(String(text[..<colon])),
            case .v4 = address, let port = parsePort(text[text.index(after: colon)...])
        else { return nil }
        return (address, port)
    }

    private static func parsePort(_ text: Substring) -> Int? {
        guard (1...5).contains(text.count), text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let port = Int(text),
            (1...65535).contains(port)
        else { return nil }
        return port
    }
}

/// Parsing of `http:` with the same file:line:key errors as the rest of the config.
enum HTTPConfigParser {
    static func apply(_ top: MappingReader, to config: inout AgentConfig) throws(ConfigError) {
        guard top.isPresent("http") else { return }
        let r = try MappingReader(top.rawNode("http"), path: "http", keys: HTTPSettings.keys, file: top.file)
        let listenExpected = "an address and port like 127.0.0.1:8765, 0.0.0.0:8765 or [::1]:8765"
        let listen = try r.text("listen", expected: listenExpected) ?? HTTPSettings.defaultListen
        guard let (address, port) = HTTPSettings.parseListen(listen) else {
            throw r.fail("listen", "expected \(listenExpected), got \(doubleQuoted(listen))")
        }
        var settings = HTTPSettings(address: address, port: port)
        if let node = r.node("allow") {
            let expected = "a list of networks like [192.168.1.0/24, \"fd00::/8\"]"
            guard case .sequence(let items) = node.kind, !items.isEmpty else {
                throw r.fail("allow", "expected \(expected), got \(MappingReader.describe(node))", at: node)
            }
            guard items.count <= HTTPSettings.maximumAllowEntries else {
                throw r.fail(
                    "allow", "at most \(HTTPSettings.maximumAllowEntries) networks, got \(items.count)", at: node)
            }
            var allow: [CIDR] = []
            for (index, item) in items.enumerated() {
                let path = "http.allow[\(index)]"
                guard let text = item.scalarText else {
                    throw ConfigError(
                        file: top.file, line: item.line, keyPath: path,
                        message: "expected a network like 192.168.1.0/24, got \(MappingReader.describe(item))")
                }
                do {
                    allow.append(try CIDR(parsing: text))
                } catch {
                    throw ConfigError(file: top.file, line: item.line, keyPath: path, message: error.description)
                }
            }
            settings.allow = allow
            settings.allowExplicit = true
        }
        config.http = settings
    }
}
