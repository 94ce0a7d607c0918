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

/// FNV-1a, 32 bits (offset basis 0x811c9dc5, prime 0x01000193): the hash that assigns locations
/// to shards (docs/operations.md, Many locations). Fixed forever: every shard of a fleet, whatever its version, must agree.
public enum FNV1a {
    public static func hash32(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var hash: UInt32 = 0x811c_9dc5
        for byte in bytes {
            hash ^= UInt32(byte)
            hash = hash &* 0x0100_0193
        }
        return hash
    }

    public static func hash32(_ text: String) -> UInt32 { hash32(text.utf8) }
}

/// One agent of a fleet that splits the locations of one configuration (`shard: {index, count}`):
/// it serves the locations whose FNV-1a 32-bit hash of `id` (UTF-8) mod `count` equals `index`.
public struct Shard: Sendable, Equatable {
    /// Most shards one fleet may have; far more agents than one broker should serve.
    public static let maximumCount = 1024

    /// 0 ≤ index < count.
    public let index: Int
    /// 1…``maximumCount``.
    public let count: Int

    /// nil unless `0 ≤ index < count ≤ maximumCount`.
    public init?(index: Int, count: Int) {
        guard count >= 1, count <= Self.maximumCount, index >= 0, index < count else { return nil }
        self.index = index
        self.count = count
    }

    /// The shard index that serves a location id.
    public static func owner(of locationID: String, count: Int) -> Int {
        Int(FNV1a.hash32(locationID) % UInt32(count))
    }

    /// Whether this shard serves the location.
    public func owns(_ locationID: String) -> Bool { Self.owner(of: locationID, count: count) == index }
}
