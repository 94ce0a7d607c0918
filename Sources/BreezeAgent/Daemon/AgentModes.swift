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
import BreezeMQTT

#if canImport(Glibc)
    import Glibc
#endif

extension Agent {
    /// `once`: connect, fetch every enabled source of every location, publish, wait for the
    /// broker's acknowledgements, disconnect; `<p>/status` is left alone (a one-shot run is not
    /// the daemon being online). The daemon's loop and state with the one-shot policy
    /// (``LoopPolicy/once``, ``OneShot``): the broker and the clock are the loop's, so the unit
    /// tests run it against an in-memory broker and a clock they move, without sleeping.
    func once(client: any BrokerConnection) async -> Int32 {
        await run(client: client, signals: [], policy: .once)
    }

    /// `print`: fetch and write `topic<TAB>payload` lines to stdout, then the device commands;
    /// no broker (``NullBroker``). The daemon's loop and state with ``LoopPolicy/print``.
    func printTree() async -> Int32 {
        await run(client: NullBroker(), signals: [], policy: .print)
    }
}

/// `print`'s broker: none. Nothing connects, nothing is published; its events end at ``stop()``.
final class NullBroker: BrokerConnection {
    let events: AsyncStream<MQTTEvent>
    private let continuation: AsyncStream<MQTTEvent>.Continuation

    init() { (events, continuation) = AsyncStream<MQTTEvent>.makeStream() }

    var isConnected: Bool { false }
    var lastError: MosquittoError? { nil }
    var protocolVersion: MQTTProtocolVersion { .v5 }
    func start() throws(MosquittoError) {}

    func publish(_ topic: String, _ payload: [UInt8], qos: Int, retain: Bool) throws(MosquittoError) {
        throw MosquittoError(kind: .library, code: 4, message: "print has no broker")
    }

    func subscribe(_ pattern: String, qos: Int) throws(MosquittoError) {}
    func unsubscribe(_ pattern: String) throws(MosquittoError) {}
    func waitForOutcomes(timeout: Duration) async -> PublishOutcomes { PublishOutcomes() }
    func waitForAcknowledgements(timeout: Duration) async -> Bool { true }
    func stop() async { continuation.finish() }
}

func writeStdout(_ text: String) {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeMutableBytes { write(1, $0.baseAddress! + offset, $0.count - offset) }
        if n <= 0 { break }
        offset += n
    }
    bytes.removeAll()
}
