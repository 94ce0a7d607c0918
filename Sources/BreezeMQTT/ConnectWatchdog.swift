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

/// The connect timeout's decisions as a value (time is its argument): at each tick it is told
/// libmosquitto's socket and the time, and says whether the attempt in progress has run out.
///
/// libmosquitto gives up on a stalled TCP or TLS handshake only after the keepalive (60 s by
/// default); the client ticks this once a second while not connected, on its ``MQTTTimers``,
/// passing in their time, and aborts the attempt when told to.
struct ConnectWatchdog: Sendable, Equatable {
    /// The attempt being timed: libmosquitto's socket for it, and when it was first seen.
    struct Attempt: Sendable, Equatable {
        let socket: Int32
        let since: ContinuousClock.Instant
    }

    enum Decision: Sendable, Equatable {
        /// No attempt in progress (no socket), or a new one whose timing starts now.
        case idle, started
        /// The attempt is younger than the timeout.
        case waiting
        /// The attempt has run out: abort it (its timing is forgotten).
        case abort
    }

    let timeout: Duration
    private(set) var attempt: Attempt?

    init(timeout: Duration) { self.timeout = timeout }

    /// One tick: `socket` is libmosquitto's socket now (negative: none).
    mutating func tick(socket: Int32, now: ContinuousClock.Instant) -> Decision {
        guard socket >= 0 else {
            attempt = nil
            return .idle
        }
        guard let attempt, attempt.socket == socket else {
            attempt = Attempt(socket: socket, since: now)
            return .started
        }
        guard now - attempt.since >= timeout else { return .waiting }
        self.attempt = nil
        return .abort
    }

    /// The attempt ended (connected, failed, stopped): the next socket is a new attempt.
    mutating func forget() { attempt = nil }
}
