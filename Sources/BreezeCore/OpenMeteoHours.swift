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

/// The hourly times of an air-quality body placed on the time line once, for both of its readers
/// (the key-free pollen and the air source), by one rule (docs/operations.md "Open-Meteo hours
/// and offsets"):
/// - an hour is the instant it stands for: ISO local text minus the offset, or Unix seconds;
/// - a time that is not `YYYY-MM-DDTHH:MM` (or Unix seconds), or whose local time overflows,
///   is unreadable and skipped;
/// - an hour listed again is skipped: the first occurrence wins (the server writes each hour
///   once, in time order; a repeat is not a second measurement);
/// - the hours are used in time order, whatever order the body lists them in.
///
/// One pass over the body's times plus, only when they are out of order, one sort: linear in the
/// body (the pollen decoder's quadratic date check cost 37.7 s on a 340,000-hour body, issue 50).
struct OpenMeteoHours {
    /// One hour kept: where its values sit in the body's series, and when it is.
    struct Hour {
        /// The index into the body's `time` array and every series.
        var index: Int
        /// Unix seconds of the hour's start.
        var instant: Int64
        /// The local wall time (instant plus the offset): its day is the hour's local date.
        var local: Int64

        /// The local date (by the body's offset, as the ISO text writes it).
        var date: CivilDate { CivilDate(daysSinceEpoch: Int(local.floorDivided(by: 86_400))) }
    }

    /// The hours kept, ascending by instant, each instant once.
    var hours: [Hour] = []
    /// The unreadable times, in body order.
    var unreadable: [OpenMeteoTime] = []
    /// How many listed hours repeated one listed before them.
    var repeated = 0
    /// Whether the body listed its hours out of time order.
    var outOfOrder = false
    /// Times not looked at because `limit` hours were kept before them.
    var dropped = 0

    /// Places `times` with the body's offset, keeping at most `limit` hours.
    init(times: [OpenMeteoTime], utcOffsetSeconds offset: Int, limit: Int) {
        var seen = Set<Int64>(minimumCapacity: Swift.min(times.count, limit))
        hours.reserveCapacity(Swift.min(times.count, limit))
        for (index, time) in times.enumerated() {
            guard hours.count < limit else {
                dropped = times.count - index
                break
            }
            guard let (instant, local) = Self.place(time, utcOffsetSeconds: offset) else {
                unreadable.append(time)
                continue
            }
            guard seen.insert(instant).inserted else {
                repeated += 1
                continue
            }
            if let last = hours.last, instant < last.instant { outOfOrder = true }
            hours.append(Hour(index: index, instant: instant, local: local))
        }
        if outOfOrder { hours.sort { $0.instant < $1.instant } }
    }

    /// The one warning about repeats and order, if any (`source`: `pollen`, `air`).
    func orderWarning(_ source: String) -> String? {
        var parts: [String] = []
        if repeated > 0 { parts.append("\(repeated) repeated hour(s) skipped, the first of each used") }
        if outOfOrder { parts.append("hours out of time order, used in time order") }
        return parts.isEmpty ? nil : "\(source): " + parts.joined(separator: "; ")
    }

    /// The instant and local wall time of one `time`; nil when unreadable.
    static func place(_ time: OpenMeteoTime, utcOffsetSeconds offset: Int) -> (instant: Int64, local: Int64)? {
        switch time {
        case .unix(let seconds):
            let (local, overflow) = seconds.addingReportingOverflow(Int64(offset))
            return overflow ? nil : (seconds, local)
        case .iso(let text):
            let parts = text.split(separator: "T", omittingEmptySubsequences: false)
            guard parts.count == 2, let date = CivilDate(iso: parts[0]) else { return nil }
            let clock = parts[1].split(separator: ":", omittingEmptySubsequences: false)
            guard clock.count == 2, clock[0].count == 2, clock[1].count == 2, let h = Int(clock[0]),
                let m = Int(clock[1]), (0..<24).contains(h), (0..<60).contains(m)
            else { return nil }
            let local = Int64(date.daysSinceEpoch) * 86_400 + Int64(h * 3600 + m * 60)
            return (local - Int64(offset), local)
        }
    }
}
