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

/// A POSIX `TZ` rule as found in a TZif footer: `CET-1CEST,M3.5.0,M10.5.0/3`, `<+0545>-5:45`, `EST5EDT,M3.2.0,M11.1.0`.
///
/// Grammar (POSIX.1-2017 §8.3 with the RFC 8536 §3.3.1 extensions):
/// `std offset [dst [offset] [,start[/time],end[/time]]]`.
/// Names are three or more letters, or anything alphanumeric/`+`/`-` between `<` and `>`. POSIX offsets count
/// hours *west* of Greenwich (`CET-1` is UTC+1); this type stores them east-positive like TZif.
/// A rule date is `Jn` (1…365, 29 February never counted), `n` (0…365, counted) or `Mm.w.d`
/// (day `d` of week `w` of month `m`, week 5 meaning the last); a rule time is `[+-]hh[:mm[:ss]]`
/// with hours up to 167 (default 02:00), in the local time in force before the transition.
public struct PosixTimeZoneRule: Sendable, Equatable {
    /// A named offset; `utcOffset` is seconds east of UTC.
    public struct Zone: Sendable, Equatable {
        public var name: String
        public var utcOffset: Int

        public init(name: String, utcOffset: Int) {
            self.name = name
            self.utcOffset = utcOffset
        }
    }

    /// The day of the year a transition happens.
    public enum RuleDate: Sendable, Equatable {
        /// `Jn`: 1…365, 29 February is never counted (day 60 is always 1 March).
        case julianNoLeap(Int)
        /// `n`: 0…365, 29 February counted.
        case zeroBased(Int)
        /// `Mm.w.d`: month 1…12, week 1…5 (5 = last), weekday 0…6 (0 = Sunday).
        case monthWeekDay(month: Int, week: Int, weekday: Int)
    }

    /// A transition: the date and the local wall-clock time (seconds, may be negative or exceed a day).
    public struct Transition: Sendable, Equatable {
        public var date: RuleDate
        public var time: Int

        public init(date: RuleDate, time: Int) {
            self.date = date
            self.time = time
        }
    }

    /// Daylight saving time: its zone and when it starts and ends each year.
    public struct Daylight: Sendable, Equatable {
        public var zone: Zone
        public var start: Transition
        public var end: Transition

        public init(zone: Zone, start: Transition, end: Transition) {
            self.zone = zone
            self.start = start
            self.end = end
        }
    }

    public var standard: Zone
    public var daylight: Daylight?

    public init(standard: Zone, daylight: Daylight?) {
        self.standard = standard
        self.daylight = daylight
    }

    /// Parses a TZ string; throws with what was expected where.
    public init(_ text: String) throws(PosixTimeZoneRuleError) {
        var p = Parser(chars: Array(text.utf8), text: text)
        let stdName = try p.name()
        let stdOffset = -(try p.offset(maxHours: 24))
        let standard = Zone(name: stdName, utcOffset: stdOffset)
        if p.atEnd {
            self.init(standard: standard, daylight: nil)
            return
        }
        let dstName = try p.name()
        var dstOffset = stdOffset + 3600
        if !p.atEnd, p.peek != UInt8(ascii: ",") {
            dstOffset = -(try p.offset(maxHours: 24))
        }
        guard !p.atEnd else {
            // POSIX leaves the default rules implementation-defined; tzdata footers always give them.
            throw p.fail("daylight saving time \"\(dstName)\" without transition rules")
        }
        try p.expect(",")
        let start = try p.transition()
        try p.expect(",")
        let end = try p.transition()
        guard p.atEnd else { throw p.fail("unexpected text after the end rule") }
        self.init(
            standard: standard,
            daylight: Daylight(zone: Zone(name: dstName, utcOffset: dstOffset), start: start, end: end))
    }

    /// The zone in force at an instant and whether it is daylight saving time.
    public func zone(atUnixTime t: Int64) -> (zone: Zone, isDaylightSaving: Bool) {
        guard let daylight else { return (standard, false) }
        let localStd = t + Int64(standard.utcOffset)
        let year = CivilDate(daysSinceEpoch: Int(localStd.floorDivided(by: 86_400))).year
        // Transition instants in UTC: the start is given in standard time, the end in daylight time.
        let start = Int64(Self.localSeconds(daylight.start, year: year)) - Int64(standard.utcOffset)
        let end = Int64(Self.localSeconds(daylight.end, year: year)) - Int64(daylight.zone.utcOffset)
        let inDST: Bool
        if start < end {
            inDST = start <= t && t < end
        } else {
            // Southern hemisphere: DST spans the new year.
            inDST = !(end <= t && t < start)
        }
        return inDST ? (daylight.zone, true) : (standard, false)
    }

    /// Local seconds since 1970-01-01T00:00 (no offset applied) of a transition in a given year.
    static func localSeconds(_ transition: Transition, year: Int) -> Int {
        let jan1 = CivilDate(year: year, month: 1, day: 1)!.daysSinceEpoch
        let day: Int
        switch transition.date {
        case .julianNoLeap(let n):
            day = jan1 + n - 1 + (CivilDate.isLeap(year) && n >= 60 ? 1 : 0)
        case .zeroBased(let n):
            day = jan1 + n
        case .monthWeekDay(let month, let week, let weekday):
            let first = CivilDate(year: year, month: month, day: 1)!.daysSinceEpoch
            // 1970-01-01 was a Thursday (weekday 4).
            let firstWeekday = ((first + 4) % 7 + 7) % 7
            var dayOfMonth = 1 + (weekday - firstWeekday + 7) % 7 + 7 * (week - 1)
            let length = CivilDate.daysIn(month: month, year: year)
            while dayOfMonth > length { dayOfMonth -= 7 }
            day = first + dayOfMonth - 1
        }
        return day * 86_400 + transition.time
    }
}

/// A TZ string that does not follow the grammar; says where and what was expected.
public struct PosixTimeZoneRuleError: Error, Equatable, CustomStringConvertible {
    public var text: String
    public var position: Int
    public var reason: String

    public var description: String { "\(reason) at offset \(position) in TZ string \"\(text)\"" }
}

private struct Parser {
    let chars: [UInt8]
    let text: String
    var index = 0

    init(chars: [UInt8], text: String) {
        self.chars = chars
        self.text = text
    }

    var atEnd: Bool { index >= chars.count }
    var peek: UInt8? { atEnd ? nil : chars[index] }

    func fail(_ reason: String) -> PosixTimeZoneRuleError {
        PosixTimeZoneRuleError(text: text, position: index, reason: reason)
    }

    mutating func expect(_ c: Character) throws(PosixTimeZoneRuleError) {
        guard peek == c.asciiValue else { throw fail("expected \"\(c)\"") }
        index += 1
    }

    static func isAlpha(_ c: UInt8) -> Bool { (65...90).contains(c) || (97...122).contains(c) }
    static func isDigit(_ c: UInt8) -> Bool { (48...57).contains(c) }

    mutating func name() throws(PosixTimeZoneRuleError) -> String {
        let begin = index
        if peek == UInt8(ascii: "<") {
            index += 1
            let inner = index
            while let c = peek, Self.isAlpha(c) || Self.isDigit(c) || c == UInt8(ascii: "+") || c == UInt8(ascii: "-") {
                index += 1
            }
            guard index - inner >= 3 else { throw fail("expected a quoted zone name of at least three characters") }
            let name = String(decoding: chars[inner..<index], as: UTF8.self)
            try expect(">")
            return name
        }
        while let c = peek, Self.isAlpha(c) { index += 1 }
        guard index - begin >= 3 else { throw fail("expected a zone name of at least three letters") }
        return String(decoding: chars[begin..<index], as: UTF8.self)
    }

    mutating func number(maxDigits: Int) throws(PosixTimeZoneRuleError) -> Int {
        let begin = index
        var value = 0
        while let c = peek, Self.isDigit(c), index - begin < maxDigits {
            value = value * 10 + Int(c - 48)
            index += 1
        }
        guard index > begin else { throw fail("expected a number") }
        return value
    }

    /// `[+-]hh[:mm[:ss]]` in seconds, sign as written.
    mutating func offset(maxHours: Int) throws(PosixTimeZoneRuleError) -> Int {
        var sign = 1
        if peek == UInt8(ascii: "+") {
            index += 1
        } else if peek == UInt8(ascii: "-") {
            sign = -1
            index += 1
        }
        let hours = try number(maxDigits: 3)
        guard hours <= maxHours else { throw fail("hours must be at most \(maxHours)") }
        var seconds = hours * 3600
        for scale in [60, 1] {
            guard peek == UInt8(ascii: ":") else { break }
            index += 1
            let part = try number(maxDigits: 2)
            guard part < 60 else { throw fail("minutes and seconds must be below 60") }
            seconds += part * scale
        }
        return sign * seconds
    }

    mutating func transition() throws(PosixTimeZoneRuleError) -> PosixTimeZoneRule.Transition {
        let date: PosixTimeZoneRule.RuleDate
        if peek == UInt8(ascii: "J") {
            index += 1
            let n = try number(maxDigits: 3)
            guard (1...365).contains(n) else { throw fail("Jn day must be 1…365") }
            date = .julianNoLeap(n)
        } else if peek == UInt8(ascii: "M") {
            index += 1
            let month = try number(maxDigits: 2)
            try expect(".")
            let week = try number(maxDigits: 1)
            try expect(".")
            let weekday = try number(maxDigits: 1)
            guard (1...12).contains(month), (1...5).contains(week), (0...6).contains(weekday) else {
                throw fail("Mm.w.d needs month 1…12, week 1…5, weekday 0…6")
            }
            date = .monthWeekDay(month: month, week: week, weekday: weekday)
        } else if let c = peek, Self.isDigit(c) {
            let n = try number(maxDigits: 3)
            guard (0...365).contains(n) else { throw fail("day number must be 0…365") }
            date = .zeroBased(n)
        } else {
            throw fail("expected a rule date (Jn, n or Mm.w.d)")
        }
        var time = 7200
        if peek == UInt8(ascii: "/") {
            index += 1
            time = try offset(maxHours: 167)
        }
        return PosixTimeZoneRule.Transition(date: date, time: time)
    }
}
