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

/// An IPv4 or IPv6 address as bytes (network order): a peer of the HTTP server, an `http.listen`
/// address, the base of a ``CIDR``.
public enum IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// Four bytes.
    case v4([UInt8])
    /// Sixteen bytes.
    case v6([UInt8])

    /// Parses a literal: dotted IPv4 (`192.168.1.20`, four decimal parts 0–255 without leading
    /// zeros, which some parsers read as octal) or IPv6 (`::1`, `fe80::1`, `::ffff:10.0.0.1`;
    /// no zone index). Nil for anything else, host names included.
    public init?(_ text: String) {
        if let bytes = Self.parseV4(Substring(text)) {
            self = .v4(bytes)
        } else if let bytes = Self.parseV6(text) {
            self = .v6(bytes)
        } else {
            return nil
        }
    }

    public var bytes: [UInt8] {
        switch self {
        case .v4(let bytes), .v6(let bytes): bytes
        }
    }

    /// An IPv4 address seen through an IPv6 socket (`::ffff:a.b.c.d`) as the IPv4 address it
    /// is; every other address as it is. Peers of a dual-stack listener arrive mapped.
    public var unmapped: IPAddress {
        guard case .v6(let bytes) = self, bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }),
            bytes[10] == 0xff, bytes[11] == 0xff
        else { return self }
        return .v4(Array(bytes[12..<16]))
    }

    /// `127.0.0.0/8` or `::1` (also when mapped).
    public var isLoopback: Bool { CIDR.loopback.contains { $0.contains(self) } }

    /// The unspecified address (`0.0.0.0`, `::`): a listener on every interface.
    public var isUnspecified: Bool { bytes.allSatisfy { $0 == 0 } }

    /// Dotted IPv4; IPv6 in the RFC 5952 form (lower case, the longest run of two or more zero
    /// groups as `::`, the leftmost on a tie).
    public var description: String {
        switch self {
        case .v4(let bytes):
            return bytes.map(String.init).joined(separator: ".")
        case .v6(let bytes):
            let groups = (0..<8).map { Int(bytes[2 * $0]) << 8 | Int(bytes[2 * $0 + 1]) }
            var best: (start: Int, count: Int) = (0, 0)
            var index = 0
            while index < 8 {
                guard groups[index] == 0 else {
                    index += 1
                    continue
                }
                var end = index
                while end < 8, groups[end] == 0 { end += 1 }
                if end - index > best.count { best = (index, end - index) }
                index = end
            }
            let text = { (range: Range<Int>) in
                groups[range].map { String($0, radix: 16) }.joined(separator: ":")
            }
            // An IPv4-mapped (::ffff:a.b.c.d) or -compatible (::a.b.c.d) address ends in dotted
            // IPv4, as RFC 5952 §5 and glibc's inet_ntop write it.
            if best.start == 0, best.count == 6 || (best.count == 5 && groups[5] == 0xffff) {
                let prefix = best.count == 6 ? "::" : "::ffff:"
                return prefix + bytes[12..<16].map(String.init).joined(separator: ".")
            }
            guard best.count >= 2 else { return text(0..<8) }
            return text(0..<best.start) + "::" + text((best.start + best.count)..<8)
        }
    }

    private static func parseV4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                part.count == 1 || part.first != "0", let value = UInt8(part)
            else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    private static func parseV6(_ text: String) -> [UInt8]? {
        guard text.contains(":"), text.utf8.count <= 45 else { return nil }
        let halves = text.components(separatedByString: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String, allowV4Tail: Bool) -> [UInt16]? {
            if part.isEmpty { return [] }
            var result: [UInt16] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if allowV4Tail, index == pieces.count - 1, piece.contains(".") {
                    guard let v4 = parseV4(piece) else { return nil }
                    result.append(UInt16(v4[0]) << 8 | UInt16(v4[1]))
                    result.append(UInt16(v4[2]) << 8 | UInt16(v4[3]))
                    continue
                }
                guard (1...4).contains(piece.count), let value = UInt16(piece, radix: 16),
                    piece.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || (($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x66) }
                    )
                else { return nil }
                result.append(value)
            }
            return result
        }
        var all: [UInt16]
        if halves.count == 2 {
            guard let head = groups(halves[0], allowV4Tail: false), let tail = groups(halves[1], allowV4Tail: true),
                head.count + tail.count <= 7
            else { return nil }
            all = head + [UInt16](repeating: 0, count: 8 - head.count - tail.count) + tail
        } else {
            guard let only = groups(text, allowV4Tail: true), only.count == 8 else { return nil }
            all = only
        }
        return all.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] }
    }
}

extension String {
    /// Splits on a multi-character separator (FoundationEssentials has no `components(separatedBy:)`
    /// for strings on every platform).
    fileprivate func components(separatedByString separator: String) -> [String] {
        var result: [String] = []
        var rest = Substring(self)
        while let range = rest.firstRange(of: separator) {
            result.append(String(rest[..<range.lowerBound]))
            rest = rest[range.upperBound...]
        }
        result.append(String(rest))
        return result
    }
}

/// A network in CIDR notation (`10.0.0.0/8`, `fd00::/8`, or a single address), for the HTTP
/// server's `allow` list (docs/images.md).
public struct CIDR: Sendable, Hashable, CustomStringConvertible {
    /// The network's first address (host bits zero).
    public let network: IPAddress
    /// 0–32 for IPv4, 0–128 for IPv6.
    public let prefixLength: Int

    /// `127.0.0.0/8` and `::1/128`: the default `allow` list.
    public static let loopback: [CIDR] = [
        CIDR(network: .v4([127, 0, 0, 0]), prefixLength: 8),
        CIDR(network: .v6([UInt8](repeating: 0, count: 15) + [1]), prefixLength: 128),
    ]

    private init(network: IPAddress, prefixLength: Int) {
        self.network = network
        self.prefixLength = prefixLength
    }

    /// Why a text is not a CIDR; the message says what was expected.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// Parses `address/prefix` or a bare address (`/32` or `/128`). A network with host bits
    /// set (`192.168.1.5/24`) is refused, naming the network meant, since it usually hides a
    /// typo in the prefix.
    public init(parsing text: String) throws(ParseError) {
        let expected = "a network like 192.168.1.0/24, 10.0.0.0/8, fd00::/8 or a single address"
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let address = IPAddress(String(parts[0])) else {
            throw ParseError(description: "expected \(expected), got \"\(text)\"")
        }
        let width = address.bytes.count * 8
        var length = width
        if parts.count == 2 {
            let digits = parts[1]
            guard (1...3).contains(digits.count), digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let value = Int(digits), value <= width
            else {
                throw ParseError(description: "expected a prefix length 0–\(width) after the /, got \"\(text)\"")
            }
            length = value
        }
        let masked = Self.mask(address.bytes, prefixLength: length)
        guard masked == address.bytes else {
            let network: IPAddress = width == 32 ? .v4(masked) : .v6(masked)
            throw ParseError(
                description: "\"\(text)\" has host bits set; the network is \(network)/\(length)")
        }
        self.init(network: address, prefixLength: length)
    }

    /// True when `address` is in this network. An IPv4-mapped IPv6 address (`::ffff:10.1.2.3`)
    /// is matched as the IPv4 address it carries.
    public func contains(_ address: IPAddress) -> Bool {
        let candidate = address.unmapped
        switch (network, candidate) {
        case (.v4, .v4), (.v6, .v6):
            return Self.mask(candidate.bytes, prefixLength: prefixLength) == network.bytes
        default:
            return false
        }
    }

    public var description: String { "\(network)/\(prefixLength)" }

    private static func mask(_ bytes: [UInt8], prefixLength: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let bits = min(max(prefixLength - index * 8, 0), 8)
            return bits == 8 ? byte : byte & ~(UInt8(0xff) >> bits)
        }
    }
}
