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
public import BreezeCore
import Synchronization

/// The latest rendered bytes of every image (SPEC §9.2): what the retained publisher sends on
/// `<p>/<loc>/image/<id>` and what the HTTP server serves at `/images/<loc>/<id>.png|.jpg`.
/// Thread-safe: the daemon's loop writes, the publisher and the HTTP server read.
public final class ImageStore: Sendable {
    public struct Entry: Sendable, Equatable {
        public var format: ImageFormat
        public var bytes: [UInt8]
        /// ``BinaryPayload/reference(for:)`` of the bytes: what the published set records.
        public var reference: String
    }

    private let entries = Mutex<[String: Entry]>([:])

    public init() {}

    private static func key(_ location: String, _ id: String) -> String { location + "/" + id }

    /// Keeps `bytes` as the image `id` of `location`.
    public func put(location: String, id: String, format: ImageFormat, bytes: [UInt8]) {
        let entry = Entry(format: format, bytes: bytes, reference: BinaryPayload.reference(for: bytes))
        entries.withLock { $0[Self.key(location, id)] = entry }
    }

    /// Forgets the image (it left the config).
    public func remove(location: String, id: String) {
        entries.withLock { $0[Self.key(location, id)] = nil }
    }

    /// The latest image `id` of `location`, if one was rendered in this run.
    public func image(location: String, id: String) -> (format: ImageFormat, bytes: [UInt8])? {
        entries.withLock { $0[Self.key(location, id)] }.map { ($0.format, $0.bytes) }
    }

    /// The bytes a published-set reference stands for, if they are still the latest.
    func bytes(location: String, id: String, reference: String) -> [UInt8]? {
        guard let entry = entries.withLock({ $0[Self.key(location, id)] }), entry.reference == reference else {
            return nil
        }
        return entry.bytes
    }
}

/// A binary payload in the retained tree: topic trees and the published set hold text, so an
/// image stands there as a reference — a NUL (no text payload of the agent contains one), its
/// size and a 64-bit FNV-1a digest — and the publisher sends the bytes it refers to. The
/// published set (persisted in `state_dir`) then says which image the broker holds, and an
/// image that renders to the same bytes is not sent again.
public enum BinaryPayload {
    static let marker = "\u{0}bytes:"

    public static func reference(for bytes: [UInt8]) -> String {
        marker + String(bytes.count) + ":" + hex(fnv1a(bytes))
    }

    public static func isReference(_ payload: String) -> Bool { payload.hasPrefix(marker) }

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
