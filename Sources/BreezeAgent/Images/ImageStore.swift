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
import BreezeCore
import BreezeDaemon
import Synchronization

/// The latest rendered bytes of every image (docs/images.md): what the retained publisher sends on
/// `<p>/<loc>/image/<id>` and what the HTTP server serves at `/images/<loc>/<id>.png|.jpg`.
/// Thread-safe: the daemon's loop writes, the publisher and the HTTP server read.
final class ImageStore: Sendable {
    struct Entry: Sendable, Equatable {
        var format: ImageFormat
        var bytes: [UInt8]
        /// ``BinaryPayload/reference(for:)`` of the bytes: what the published set records.
        var reference: String
    }

    private let entries = Mutex<[String: Entry]>([:])

    init() {}

    private static func key(_ location: String, _ id: String) -> String { location + "/" + id }

    /// Keeps `bytes` as the image `id` of `location`.
    func put(location: String, id: String, format: ImageFormat, bytes: [UInt8]) {
        let entry = Entry(format: format, bytes: bytes, reference: BinaryPayload.reference(for: bytes))
        entries.withLock { $0[Self.key(location, id)] = entry }
    }

    /// Forgets the image (it left the config).
    func remove(location: String, id: String) {
        entries.withLock { $0[Self.key(location, id)] = nil }
    }

    /// The latest image `id` of `location`, if one was rendered in this run.
    func image(location: String, id: String) -> (format: ImageFormat, bytes: [UInt8])? {
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
