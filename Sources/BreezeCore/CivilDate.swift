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

/// A calendar date (proleptic Gregorian) without a time or a zone: "today" at a location.
///
/// Day arithmetic uses days since 1970-01-01 (Howard Hinnant's civil-from-days algorithm),
/// so leap years and month lengths come out right without Foundation's `Calendar`.
public struct CivilDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    /// A date only when it exists (no 2023-02-29, no month 13).
    public init?(year: Int, month: Int, day: Int) {
        guard (1...12).contains(month), day >= 1, day <= CivilDate.daysIn(month: month, year: year) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date `days` days after 1970-01-01 (negative before).
    public init(daysSinceEpoch days: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        self.year = yoe + era * 400 + (m <= 2 ? 1 : 0)
        self.month = m
        self.day = d
    }

    /// Days since 1970-01-01.
    public var daysSinceEpoch: Int { Self.daysSinceEpoch(year: year, month: month, day: day) }

    /// Days since 1970-01-01 of a year, month (1–12) and day that need not exist: day 31 of a
    /// 30-day month is the first of the next (H. Hinnant's `days_from_civil`).
    public static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = month > 2 ? month - 3 : month + 9
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The date `n` days later (earlier for negative `n`).
    public func adding(days n: Int) -> CivilDate { CivilDate(daysSinceEpoch: daysSinceEpoch + n) }

    /// Parses `YYYY-MM-DD` exactly (ten characters).
    public init?(iso text: some StringProtocol) {
        // Ten ASCII bytes `DDDD-DD-DD` directly (what the general reading below gives for them).
        var utf8 = text.utf8.makeIterator()
        var digits = (0, 0, 0)
        var plain = true
        var count = 0
        while let byte = utf8.next() {
            count += 1
            guard count <= 10 else {
                plain = false
                break
            }
            if count == 5 || count == 8 {
                if byte != UInt8(ascii: "-") { plain = false }
                continue
            }
            let digit = byte &- 0x30
            guard digit < 10 else {
                plain = false
                break
            }
            if count <= 4 {
                digits.0 = digits.0 * 10 + Int(digit)
            } else if count <= 7 {
                digits.1 = digits.1 * 10 + Int(digit)
            } else {
                digits.2 = digits.2 * 10 + Int(digit)
            }
        }
        if plain && count == 10 {
            self.init(year: digits.0, month: digits.1, day: digits.2)
            return
        }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.count == 10, parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2])
        else { return nil }
        self.init(year: y, month: m, day: d)
    }

    /// `YYYY-MM-DD`.
    public var description: String {
        func pad(_ v: Int, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    public static func < (a: CivilDate, b: CivilDate) -> Bool {
        (a.year, a.month, a.day) < (b.year, b.month, b.day)
    }

    public static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
