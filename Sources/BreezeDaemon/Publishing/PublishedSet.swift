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

import BreezeConfig
package import BreezeCore

/// What the agent remembers of one published payload: the 64-bit FNV-1a hash of its bytes and
/// their count — 16 bytes instead of the payload (a discovery config is ~18 KB). Enough to tell
/// whether a wanted payload differs from the published one and whether the broker still holds
/// this agent's payload (``ShardHandover``). Two different payloads of one topic that agree in
/// both hash and length would be taken as equal (a change not published): with a 64-bit hash,
/// negligible for a change detector.
package struct PayloadDigest: Hashable, Sendable, CustomStringConvertible {
    package let hash: UInt64
    package let length: Int

    package init(hash: UInt64, length: Int) {
        self.hash = hash
        self.length = length
    }

    /// The digest of the bytes `payload` puts on the broker: text as UTF-8, a ``BinaryPayload``
    /// reference as the bytes it stands for (the reference carries their count and FNV-1a hash).
    package init(payload: String) {
        if BinaryPayload.isReference(payload), let digest = Self(reference: payload) {
            self = digest
            return
        }
        var payload = payload
        self = payload.withUTF8 { Self(bytes: $0) }
    }

    /// The digest of raw bytes (what the broker delivers).
    package init(bytes: some Sequence<UInt8>) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var count = 0
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
            count += 1
        }
        self.init(hash: hash, length: count)
    }

    /// `\0bytes:<count>:<16 hex digits>` (``BinaryPayload/reference(for:)``).
    private init?(reference: String) {
        let fields = reference.dropFirst(BinaryPayload.marker.count).split(separator: ":")
        guard fields.count == 2, let count = Int(fields[0]), fields[1].utf8.count == 16,
            let hash = UInt64(fields[1], radix: 16)
        else { return nil }
        self.init(hash: hash, length: count)
    }

    /// The empty payload (a cleared topic).
    package var isEmpty: Bool { length == 0 }

    /// `<16 lowercase hex digits>:<length>`, as stored in `state_dir/published/`.
    package var description: String {
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.utf8.count) + hex + ":" + String(length)
    }

    /// Parses ``description``; nil for anything else.
    package init?(stored text: some StringProtocol) {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 2, fields[0].utf8.count == 16,
            fields[0].utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
            let hash = UInt64(fields[0], radix: 16), let length = Int(fields[1]), length >= 0,
            String(length) == fields[1]
        else { return nil }
        self.init(hash: hash, length: length)
    }
}

/// Which file of `state_dir/published/` a topic is remembered in: one per location, so a save
/// rewrites only the locations that changed and every file stays far below the 8 MiB bound of a
/// state file (docs/operations.md, Limits).
///
/// The group is read from the topic alone (not from the configuration), so a location removed
/// from the config still finds its topics in its own file and they are cleared after a restart:
///
/// - `<p>/<level>` and `<p>/<level>/…` → `slug(level)` (`<p>/<loc>/pollen/…` → the location;
///   `<p>/status` → `status`, a small file of its own);
/// - `<dp>/device/<slug(p)>_<rest>` and below → `rest` (the discovery config of `<loc>` →
///   `slug(loc)`, the same file as `<p>/<loc>/…`);
/// - anything else (another prefix, say after `mqtt.topic_prefix` changed) → the `other` group.
///
/// `slug` maps `-` to `_` as device ids do; two ids that differ only there share a file, which
/// is harmless (a file is a container, not an identity). A level that is not `[a-z0-9_-]{1,64}`
/// goes to `other`.
package struct PublishedGrouping: Sendable {
    /// The group of topics that belong to no location.
    package static let other = ""
    /// Longest group name (a file name part); longer levels go to ``other``.
    static let maximumNameBytes = 64

    private let layout: TopicLayout?

    /// Groups by `layout`'s prefix and discovery prefix.
    package init(layout: TopicLayout) {
        self.layout = layout
    }

    /// Groups by the second topic level (`<p>/<loc>/…` for a one-level prefix); for tests and
    /// tools that have no layout.
    package init() {
        layout = nil
    }

    /// The group (file) `topic` is remembered in.
    package func group(of topic: String) -> String {
        guard let layout else {
            return Topic.level(1, of: topic).map { Self.name($0, allowHyphen: true) } ?? Self.other
        }
        if let level = layout.agentDeviceLevel(of: topic) { return Self.name(level, allowHyphen: false) }
        return layout.locationLevel(of: topic).map { Self.name($0, allowHyphen: true) } ?? Self.other
    }

    /// The one group every topic at or under `scope` is in, or nil when they may be in several
    /// (a scope above the location level, e.g. `<p>` itself).
    package func group(covering scope: String) -> String? {
        let group = group(of: scope)
        guard group == Self.other else { return group }
        guard let layout else { return nil }
        if Topic.isAtOrBelow(layout.prefix, scope) { return nil }
        // Above the agent's device configs (`<dp>`, `<dp>/device`), or one of them whose level
        // is not a group's name.
        if Topic.isDescendant(layout.agentDeviceConfigs, of: scope) || layout.agentDeviceLevel(of: scope) != nil {
            return nil
        }
        return Self.other
    }

    /// The level up to the next `/`, slugged; ``other`` unless `[a-z0-9_-]{1,64}` (no `-` under
    /// devices: a device id is already slugged).
    private static func name(_ level: Substring, allowHyphen: Bool) -> String {
        let level = level.utf8
        guard !level.isEmpty, level.count <= maximumNameBytes else { return other }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(level.count)
        for byte in level {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
                bytes.append(byte)
            case UInt8(ascii: "-") where allowHyphen: bytes.append(UInt8(ascii: "_"))
            default: return other
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether the agent keeps `topic`'s payload whole, not only its digest: Home Assistant
    /// device configs, whose next version must name the components the published one had
    /// (``HomeAssistantDiscovery/addingRemovals(to:replacing:)``), across restarts too.
    package func keepsPayload(_ topic: String) -> Bool {
        layout?.isAgentDeviceConfig(topic) ?? false
    }
}

/// One file of `state_dir/published/`: the digests of the topics of one group, and the payloads
/// kept whole (``PublishedGrouping/keepsPayload(_:)``).
///
/// ```json
/// {"format":1,
///  "payloads":{"homeassistant/device/breeze_home/config":"{\"device\":…}"},
///  "topics":{"breeze/home/pollen":"8f0e3c5a1b2d4e6f:5120", …}}
/// ```
package struct PublishedGroup: Sendable, Equatable {
    package var digests: [String: PayloadDigest] = [:]
    package var payloads: [String: String] = [:]

    package init(digests: [String: PayloadDigest] = [:], payloads: [String: String] = [:]) {
        self.digests = digests
        self.payloads = payloads
    }

    package var isEmpty: Bool { digests.isEmpty }

    static let format = 1

    /// The file's text, topics sorted (a stable file for a stable set).
    package func encoded(topics: [String]? = nil) -> [UInt8] {
        // Written byte by byte (one file per location and batch: this runs ~1,000 times a
        // refresh cycle at 1,000 locations, so it stays a plain loop over UTF-8).
        let names = topics ?? digests.keys.sorted()
        var out: [UInt8] = []
        out.reserveCapacity(names.count * 80 + payloads.values.reduce(0) { $0 + $1.utf8.count + 64 })
        out.append(contentsOf: #"{"format":"#.utf8)
        out.append(contentsOf: String(Self.format).utf8)
        out.append(contentsOf: #","payloads":{"#.utf8)
        var first = true
        for topic in names {
            guard digests[topic] != nil, let payload = payloads[topic] else { continue }
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            Self.appendString(topic, to: &out)
            out.append(UInt8(ascii: ":"))
            Self.appendString(payload, to: &out)
        }
        out.append(contentsOf: #"},"topics":{"#.utf8)
        first = true
        for topic in names {
            guard let digest = digests[topic] else { continue }
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            Self.appendString(topic, to: &out)
            out.append(UInt8(ascii: ":"))
            out.append(UInt8(ascii: "\""))
            Self.appendHex(digest.hash, to: &out)
            out.append(UInt8(ascii: ":"))
            out.append(contentsOf: String(digest.length).utf8)
            out.append(UInt8(ascii: "\""))
        }
        out.append(contentsOf: "}}".utf8)
        return out
    }

    /// A JSON string: `"`, `\` and control characters escaped, every other byte as it is (the
    /// text is valid UTF-8, so the output is too).
    static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "\\"))
                out.append(byte)
            case 0x0A: out.append(contentsOf: #"\n"#.utf8)
            case 0x0D: out.append(contentsOf: #"\r"#.utf8)
            case 0x09: out.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20:
                out.append(contentsOf: #"\u00"#.utf8)
                appendHexDigit(byte >> 4, to: &out)
                appendHexDigit(byte & 0xF, to: &out)
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func appendHex(_ value: UInt64, to out: inout [UInt8]) {
        for shift in stride(from: 60, through: 0, by: -4) {
            appendHexDigit(UInt8((value >> UInt64(shift)) & 0xF), to: &out)
        }
    }

    private static func appendHexDigit(_ digit: UInt8, to out: inout [UInt8]) {
        out.append(digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10)
    }
}

extension PublishedGroup: Decodable {
    private enum CodingKeys: String, CodingKey { case format, payloads, topics }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let format = try container.decode(Int.self, forKey: .format)
        guard format == Self.format else {
            throw DecodingError.dataCorruptedError(
                forKey: .format, in: container, debugDescription: "unknown format \(format)")
        }
        let topics = try container.decode([String: String].self, forKey: .topics)
        var digests: [String: PayloadDigest] = [:]
        digests.reserveCapacity(topics.count)
        for (topic, text) in topics {
            guard let digest = PayloadDigest(stored: text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .topics, in: container, debugDescription: "bad digest for \(topic)")
            }
            digests[topic] = digest
        }
        let payloads = try container.decodeIfPresent([String: String].self, forKey: .payloads) ?? [:]
        self.digests = digests
        // A kept payload must match its digest; one that does not is dropped (the digest stays).
        self.payloads = payloads.filter { digests[$0.key] == PayloadDigest(payload: $0.value) }
    }
}

/// A binary payload in the retained tree: topic trees and the published set hold text, so an
/// image stands there as a reference — a NUL (no text payload of the agent contains one), its
/// size and a 64-bit FNV-1a digest — and the publisher sends the bytes it refers to. The
/// published set (persisted in `state_dir`) then says which image the broker holds, and an
/// image that renders to the same bytes is not sent again.
package enum BinaryPayload {
    static let marker = "\u{0}bytes:"

    package static func reference(for bytes: [UInt8]) -> String {
        marker + String(bytes.count) + ":" + hex(fnv1a(bytes))
    }

    package static func isReference(_ payload: String) -> Bool { payload.hasPrefix(marker) }

    /// 64-bit FNV-1a: a change detector, not a cryptographic hash.
    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }

    private static func hex(_ value: UInt64) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }
}
