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

/// `http:` (docs/images.md): off unless present.
///
/// ```yaml
/// http:
///   listen: "127.0.0.1:8765"        # an IPv4 or [IPv6] address and a port; the default
///   allow: [127.0.0.1/32, 192.168.1.0/24, "fd00::/8"]   # default: loopback only
///   max_per_ip: 8                   # connections at once from one address, 1–256
///   hosts: [hub.local]              # names the server answers to besides IP literals and localhost
/// ```
public struct HTTPSettings: Sendable, Equatable {
    /// The address to listen on (a literal, `0.0.0.0` or `::` for every interface).
    public var address: IPAddress
    public var port: Int
    /// Peers allowed to connect (checked at accept, and per request: 403 otherwise).
    public var allow: [CIDR]
    /// `allow` was written in the file (a non-loopback `listen` without it gets a warning).
    public var allowExplicit: Bool
    /// Connections at once from one peer address (docs/operations.md, Limits).
    public var maxPerIP: Int
    /// Host names (lower case, no port) a request's `Host` may carry besides an IP literal and
    /// `localhost`: a DNS-rebinding page names its own host, which is in none of them (403).
    public var hosts: [String] = []

    public init(
        address: IPAddress, port: Int, allow: [CIDR] = CIDR.loopback, allowExplicit: Bool = false,
        maxPerIP: Int = HTTPSettings.defaultMaxPerIP
    ) {
        self.address = address
        self.port = port
        self.allow = allow
        self.allowExplicit = allowExplicit
        self.maxPerIP = maxPerIP
    }

    /// The `hosts` entry that turns the `Host` check off: for a server only a proxy that passes
    /// the browser's `Host` on can reach (the add-on behind Home Assistant's ingress).
    public static let anyHost = "*"

    /// `name` lower-cased without a trailing dot when it is a DNS name (letters, digits, `-`, `.`,
    /// at most 253 bytes, no empty label), else nil.
    public static func hostName(_ name: String) -> String? {
        var lower = name.lowercased()
        if lower.hasSuffix(".") { lower.removeLast() }
        guard !lower.isEmpty, lower.utf8.count <= 253,
            lower.split(separator: ".", omittingEmptySubsequences: false).allSatisfy({ !$0.isEmpty }),
            lower.utf8.allSatisfy({
                ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2d || $0 == 0x2e
            })
        else { return nil }
        return lower
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
    /// At most this many `allow` entries (each is checked per connection and per request).
    static let maximumAllowEntries = 64
    /// `max_per_ip`: the default, and its range (up to every connection the server holds).
    public static let defaultMaxPerIP = 8
    static let maxPerIPRange = 1...256
    /// The keys that turn the server on.
    static let serverKeys = ["listen", "allow", "max_per_ip", "hosts"]
    /// The keys of `http:`; `max_concurrent` tunes the HTTP *client* (docs/operations.md, Many locations, FleetConfig).
    static let keys = ["listen", "allow", "max_per_ip", "hosts", "max_concurrent"]
    /// At most this many `hosts` entries, each a DNS name of at most 253 bytes.
    static let maximumHosts = 32

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
        // `http: {max_concurrent: 8}` alone tunes the client and serves nothing; any server key
        // (or an empty `http: {}`) turns the server on.
        guard HTTPSettings.serverKeys.contains(where: r.isPresent) || !r.isPresent("max_concurrent") else { return }
        let listenExpected = "an address and port like 127.0.0.1:8765, 0.0.0.0:8765 or [::1]:8765"
        let listen = try r.text("listen", expected: listenExpected) ?? HTTPSettings.defaultListen
        guard let (address, port) = HTTPSettings.parseListen(listen) else {
            throw r.fail("listen", "expected \(listenExpected), got \(doubleQuoted(listen))")
        }
        var settings = HTTPSettings(address: address, port: port)
        settings.maxPerIP = try r.int("max_per_ip", in: HTTPSettings.maxPerIPRange) ?? HTTPSettings.defaultMaxPerIP
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
                let network: CIDR
                do {
                    network = try CIDR(parsing: text)
                } catch {
                    throw ConfigError(file: top.file, line: item.line, keyPath: path, message: error.description)
                }
                if let message = mappedEntryMessage(network, text: text) {
                    throw ConfigError(file: top.file, line: item.line, keyPath: path, message: message)
                }
                allow.append(network)
            }
            settings.allow = allow
            settings.allowExplicit = true
        }
        if let node = r.node("hosts") {
            let expected = "a list of host names like [hub.local, pollen.example.org]"
            guard case .sequence(let items) = node.kind, items.count <= HTTPSettings.maximumHosts else {
                throw r.fail(
                    "hosts",
                    "expected \(expected) (at most \(HTTPSettings.maximumHosts)), got \(MappingReader.describe(node))",
                    at: node)
            }
            for (index, item) in items.enumerated() {
                if item.scalarText == HTTPSettings.anyHost {
                    settings.hosts.append(HTTPSettings.anyHost)
                    continue
                }
                guard let text = item.scalarText, let name = HTTPSettings.hostName(text) else {
                    throw ConfigError(
                        file: top.file, line: item.line, keyPath: "http.hosts[\(index)]",
                        message:
                            "expected a host name of letters, digits, - and . (at most 253 bytes, no port), got \(MappingReader.describe(item))"
                    )
                }
                settings.hosts.append(name)
            }
        }
        config.http = settings
    }

    /// Peers are matched as IPv4 when they are IPv4 (a dual-stack listener's `::ffff:a.b.c.d`
    /// included), so an entry in IPv4-mapped IPv6 form would never match anyone: the error
    /// names the IPv4 form to write. Nil for every other entry.
    static func mappedEntryMessage(_ network: CIDR, text: String) -> String? {
        guard case .v6 = network.network, case .v4 = network.network.unmapped, network.prefixLength >= 96 else {
            return nil
        }
        let single = network.prefixLength == 128
        let ipv4 = single ? "\(network.network.unmapped)" : "\(network.network.unmapped)/\(network.prefixLength - 96)"
        return
            "\(doubleQuoted(text)) is an IPv4 \(single ? "address" : "network") in IPv4-mapped IPv6 form, which no peer matches (IPv4 peers are matched as IPv4); write \(ipv4)"
    }
}
