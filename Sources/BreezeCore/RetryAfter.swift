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

/// `Retry-After` (RFC 9110 §10.2.3): either delay-seconds or an HTTP-date.
///
/// Written by hand because FoundationEssentials has no `DateFormatter`, and the full Foundation
/// one drags ICU into the binary. It lives in the core because the calendar arithmetic is
/// ``CivilDate``'s: the HTTP edge hands over the header text. It is read without a clock: a
/// date is turned into a wait by the daemon, against the time of the event that applies the
/// failure (``delay(at:)``), as every other time the daemon decides on.
public enum RetryAfter: Sendable, Equatable {
    /// `Retry-After: 120`.
    case seconds(Int64)
    /// `Retry-After: Wed, 21 Oct 2015 07:28:00 GMT`, as Unix seconds.
    case date(Int64)

    /// The header's value; nil when it is neither form (the caller falls back to its own backoff).
    public static func parse(_ value: String) -> RetryAfter? {
        let trimmed = String(
            value.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed()
        )
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // Digits only but too big: still "a very long time", not "unparseable".
            return .seconds(Int64(trimmed) ?? .max)
        }
        return parseHTTPDate(trimmed).map { .date(Int64($0)) }
    }

    /// The wait in seconds from `now` (Unix seconds); a date already past is 0.
    public func delay(at now: Int64) -> Int64 {
        switch self {
        case .seconds(let seconds): max(0, seconds)
        case .date(let at): now >= at ? 0 : at &- now
        }
    }

    /// Seconds since 1970 for an HTTP-date in any of the three forms RFC 9110 §5.6.7 obliges a
    /// recipient to accept: IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT`, obsolete RFC 850
    /// `Sunday, 06-Nov-94 08:49:37 GMT`, and asctime `Sun Nov  6 08:49:37 1994`.
    public static func parseHTTPDate(_ text: String) -> Int? {
        let tokens = text.split { $0 == " " || $0 == "," || $0 == "-" || $0 == "\t" }.map(String.init)
        guard tokens.count >= 5, weekdays.contains(String(tokens[0].prefix(3)).lowercased()) else { return nil }
        let day: Int
        let month: Int
        var year: Int
        let clock: String
        if let d = Int(tokens[1]) {
            // IMF-fixdate or RFC 850: weekday day month year time zone
            guard tokens.count == 6, ["gmt", "utc"].contains(tokens[5].lowercased()),
                let m = monthNumber(tokens[2]), let y = Int(tokens[3])
            else { return nil }
            day = d
            month = m
            year = y
            clock = tokens[4]
            if tokens[3].count == 2 { year += year < 70 ? 2000 : 1900 }
        } else {
            // asctime: weekday month day time year
            guard tokens.count == 5, let m = monthNumber(tokens[1]), let d = Int(tokens[2]), let y = Int(tokens[4])
            else { return nil }
            day = d
            month = m
            year = y
            clock = tokens[3]
        }
        let parts = clock.split(separator: ":").compactMap { Int($0) }
        guard parts.count == 3, (0...23).contains(parts[0]), (0...59).contains(parts[1]), (0...60).contains(parts[2]),
            (1...31).contains(day), (1000...9999).contains(year)
        else { return nil }
        // Day 31 of a 30-day month (or 29 February of a common year) counts on into the next month, as before.
        let days = CivilDate.daysSinceEpoch(year: year, month: month, day: day)
        return days * 86_400 + parts[0] * 3600 + parts[1] * 60 + parts[2]
    }

    private static let weekdays: Set<String> = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    private static func monthNumber(_ token: String) -> Int? {
        guard token.count == 3, let index = months.firstIndex(of: token.lowercased()) else { return nil }
        return index + 1
    }
}
