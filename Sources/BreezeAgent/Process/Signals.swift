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

import BreezeDaemon
import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Unix signals as callbacks on a Dispatch queue (never a C signal handler touching Swift state).
final class SignalWatcher: Sendable {
    // DispatchSourceSignal is not Sendable; the array is written once in init and only read
    // (to cancel) in deinit, so sharing the reference is safe.
    private struct Sources: @unchecked Sendable { let list: [any DispatchSourceSignal] }
    private let sources: Sources

    init(_ signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        var list: [any DispatchSourceSignal] = []
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            source.resume()
            list.append(source)
        }
        sources = Sources(list: list)
    }

    /// The watched signals as an async sequence: the loop's signal service iterates it; when the
    /// iteration ends (the service is cancelled at shutdown) the sources are cancelled.
    static func stream(_ signals: [Int32]) -> AsyncStream<Int32> {
        AsyncStream { continuation in
            let watcher = SignalWatcher(signals) { continuation.yield($0) }
            continuation.onTermination = { _ in _ = watcher }
        }
    }

    /// The daemon's name for a signal number it watches.
    static func daemonSignal(_ number: Int32) -> DaemonSignal {
        switch number {
        case SIGHUP: .hangup
        case SIGINT: .interrupt
        default: .terminate
        }
    }

    deinit {
        for source in sources.list { source.cancel() }
    }
}
