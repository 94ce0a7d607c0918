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

/// A point in the daemon's time: whole Unix seconds of the wall clock.
///
/// Whole seconds because everything the machine decides with it is kept and shown in them: the
/// schedules, local midnight, the stored responses' `fetched_at`, the JSON timestamps and the
/// state files. Wall time because those decisions are about the calendar; what must not move
/// with a clock step (the held-back clears' 3 s) is measured by the publisher on the monotonic
/// clock and reaches the machine only as a deadline of its wake, in these seconds.
///
/// Arithmetic saturates at the ends instead of trapping: a duration from the configuration can
/// be as large as `Int64` allows, and a schedule must never be the thing that crashes the daemon
/// after a fetch and before its response is stored (a crash loop under `Restart=on-failure`
/// spent a Google call per restart).
package struct DaemonInstant: Sendable, Hashable, Comparable, CustomStringConvertible {
    package var unixSeconds: Int64

    package init(unixSeconds: Int64) { self.unixSeconds = unixSeconds }

    /// The earliest and the latest instant: "never yet" and "never".
    package static let distantPast = DaemonInstant(unixSeconds: .min)
    package static let distantFuture = DaemonInstant(unixSeconds: .max)

    /// The seconds, as logs and payloads have always written them.
    package var description: String { String(unixSeconds) }

    package static func < (lhs: DaemonInstant, rhs: DaemonInstant) -> Bool { lhs.unixSeconds < rhs.unixSeconds }

    /// `instant + duration`, saturating at ``distantPast`` and ``distantFuture``.
    package static func + (lhs: DaemonInstant, rhs: DaemonDuration) -> DaemonInstant {
        DaemonInstant(unixSeconds: DaemonDuration.saturatingSum(lhs.unixSeconds, rhs.seconds))
    }

    /// `instant - duration`, saturating at ``distantPast`` and ``distantFuture``.
    package static func - (lhs: DaemonInstant, rhs: DaemonDuration) -> DaemonInstant {
        DaemonInstant(unixSeconds: DaemonDuration.saturatingDifference(lhs.unixSeconds, rhs.seconds))
    }

    /// How long from `rhs` to `lhs`, saturating at the ends of ``DaemonDuration``.
    package static func - (lhs: DaemonInstant, rhs: DaemonInstant) -> DaemonDuration {
        DaemonDuration(seconds: DaemonDuration.saturatingDifference(lhs.unixSeconds, rhs.unixSeconds))
    }

    package static func += (lhs: inout DaemonInstant, rhs: DaemonDuration) { lhs = lhs + rhs }
}

/// A bare JSON number of its seconds: the stored responses' `fetchedAt` and the announcements'
/// `at` were written as `Int64` before they were instants, and the files and payloads already
/// out there must read the same.
extension DaemonInstant: Codable {
    package init(from decoder: any Decoder) throws {
        self.init(unixSeconds: try decoder.singleValueContainer().decode(Int64.self))
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(unixSeconds)
    }
}

/// A length of the daemon's time in whole seconds, the unit of every interval, cooldown and
/// limit in the configuration and the machine. Saturating like ``DaemonInstant``.
package struct DaemonDuration: Sendable, Hashable, Comparable, CustomStringConvertible {
    package var seconds: Int64

    package init(seconds: Int64) { self.seconds = seconds }

    /// The whole seconds of a configured duration (the configuration's unit; a fraction is dropped).
    package init(_ duration: Duration) { self.seconds = duration.components.seconds }

    package static func seconds(_ seconds: Int64) -> DaemonDuration { DaemonDuration(seconds: seconds) }
    package static func minutes(_ minutes: Int64) -> DaemonDuration { .seconds(60) * minutes }
    package static func hours(_ hours: Int64) -> DaemonDuration { .seconds(3600) * hours }

    package static let zero = DaemonDuration(seconds: 0)
    /// The longest duration: added to any instant at or after the epoch it gives
    /// ``DaemonInstant/distantFuture``.
    package static let forever = DaemonDuration(seconds: .max)

    /// The seconds, as logs have always written them ("held until 7 s from now").
    package var description: String { String(seconds) }

    /// Swift's `Duration` of the same length, for the edges that take one (timeouts of the
    /// broker client).
    package var swiftDuration: Duration { .seconds(seconds) }

    package static func < (lhs: DaemonDuration, rhs: DaemonDuration) -> Bool { lhs.seconds < rhs.seconds }

    package static func + (lhs: DaemonDuration, rhs: DaemonDuration) -> DaemonDuration {
        DaemonDuration(seconds: saturatingSum(lhs.seconds, rhs.seconds))
    }

    package static func - (lhs: DaemonDuration, rhs: DaemonDuration) -> DaemonDuration {
        DaemonDuration(seconds: saturatingDifference(lhs.seconds, rhs.seconds))
    }

    package static func * (lhs: DaemonDuration, rhs: Int64) -> DaemonDuration {
        let (result, overflow) = lhs.seconds.multipliedReportingOverflow(by: rhs)
        guard overflow else { return DaemonDuration(seconds: result) }
        return DaemonDuration(seconds: (lhs.seconds < 0) == (rhs < 0) ? .max : .min)
    }

    /// `a + b`, saturating at the ends of `Int64` instead of trapping.
    static func saturatingSum(_ a: Int64, _ b: Int64) -> Int64 {
        let (result, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? .max : .min) : result
    }

    /// `a - b`, saturating at the ends of `Int64` instead of trapping.
    static func saturatingDifference(_ a: Int64, _ b: Int64) -> Int64 {
        let (result, overflow) = a.subtractingReportingOverflow(b)
        return overflow ? (b < 0 ? .max : .min) : result
    }
}
