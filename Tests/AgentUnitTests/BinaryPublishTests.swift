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

@testable import BreezeAgent
@testable import BreezeDaemon
@testable import BreezeConfig
import BreezeCore
import BreezeTestSupport
import Synchronization
import Testing

/// Images go through the retained publisher as references (the published set stays text and
/// is persisted) and reach the transport as their raw bytes (SPEC §9.2).
@Suite("Publisher: binary payloads by reference")
struct BinaryPublishTests {
    static let topic = "b/home/image/hall"
    static let png: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 0xff]

    func tree(_ payload: String) -> TopicTree {
        var tree = TopicTree()
        tree.set(Self.topic, payload)
        return tree
    }

    @Test func referencesAreSentAsTheirBytesOnceAndClearedWhenGone() {
        let transport = RecordingTransport()
        let store = ImageStore()
        store.put(location: "home", id: "hall", format: .png, bytes: Self.png)
        let publisher = RetainedPublisher(
            transport: transport, store: nil,
            binary: { topic, reference in
                topic == Self.topic ? store.bytes(location: "home", id: "hall", reference: reference) : nil
            })
        let reference = BinaryPayload.reference(for: Self.png)
        #expect(BinaryPayload.isReference(reference))
        #expect(reference.hasPrefix("\u{0}bytes:12:"))
        publisher.set(scope: Self.topic, tree(reference))
        #expect(publisher.flush(at: .now) == 1)
        #expect(transport.binary.withLock { $0.map(\.bytes) } == [Self.png])
        #expect(transport.take() == ["\(Self.topic)=<12 bytes>"])
        #expect(publisher.publishedDigest(Self.topic) == PayloadDigest(bytes: Self.png))
        // The same image again: nothing sent.
        publisher.set(scope: Self.topic, tree(reference))
        #expect(publisher.flush(at: .now) == 0)
        // A reconnect sends the bytes again.
        #expect(publisher.republishAll(at: .now) == 1)
        #expect(transport.binary.withLock { $0.count } == 2)
    }

    @Test func theReferenceIsPersistedAndTheTopicClearedAfterTheImageLeavesTheConfig() {
        let dir = temporaryDirectory()
        let state = StateStore(directory: dir, log: Log(level: .error))
        let transport = RecordingTransport()
        let reference = BinaryPayload.reference(for: Self.png)
        let first = RetainedPublisher(transport: transport, store: state, binary: { _, _ in Self.png })
        first.set(scope: Self.topic, tree(reference))
        first.flush(at: .now)
        #expect(state.publishedDigests() == [Self.topic: PayloadDigest(bytes: Self.png)])
        _ = transport.take()
        // The next run has no such image: its topic is under no scope, and is cleared.
        let next = RetainedPublisher(transport: transport, store: state)
        next.set(scope: "b/home/pollen", nil)
        next.flush(at: .now)
        #expect(transport.take() == ["\(Self.topic)="])
        #expect(state.publishedDigests().isEmpty)
    }

    @Test func aKeptReferenceWithoutBytesIsNotSentAndNoLongerCounted() {
        let transport = RecordingTransport()
        let publisher = RetainedPublisher(transport: transport, store: nil, binary: { _, _ in nil })
        let old = BinaryPayload.reference(for: Self.png)
        // Published by an earlier run (as if restored), kept while this run has not rendered.
        publisher.set(scope: Self.topic, tree(old))
        _ = publisher.flush(at: .now)  // bytes unavailable: nothing sent
        #expect(transport.take().isEmpty)
        #expect(publisher.publishedDigest(Self.topic) == nil)
    }

    @Test func referencesDifferWithTheBytes() {
        let a = BinaryPayload.reference(for: Self.png)
        #expect(a == BinaryPayload.reference(for: Self.png))
        #expect(a != BinaryPayload.reference(for: Self.png + [0]))
        #expect(a != BinaryPayload.reference(for: [0x89] + Self.png.dropFirst().map { $0 ^ 1 }))
        #expect(!BinaryPayload.isReference("{\"a\":1}"))
        // FNV-1a 64 of "a" (the published test vector).
        #expect(BinaryPayload.fnv1a(Array("a".utf8)) == 0xaf63_dc4c_8601_ec8c)
    }

    @Test func theStoreServesTheLatestImageOnly() {
        let store = ImageStore()
        #expect(store.image(location: "home", id: "hall") == nil)
        store.put(location: "home", id: "hall", format: .jpeg, bytes: [1, 2])
        store.put(location: "home", id: "hall", format: .jpeg, bytes: [3])
        #expect(store.image(location: "home", id: "hall")?.bytes == [3])
        #expect(store.image(location: "home", id: "hall")?.format == .jpeg)
        #expect(store.bytes(location: "home", id: "hall", reference: BinaryPayload.reference(for: [1, 2])) == nil)
        #expect(store.bytes(location: "home", id: "hall", reference: BinaryPayload.reference(for: [3])) == [3])
        store.remove(location: "home", id: "hall")
        #expect(store.image(location: "home", id: "hall") == nil)
    }
}
