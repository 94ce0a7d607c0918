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

/// Times, dates and numbers as people read them (the status page and the images): in the
/// location's own zone and the language's patterns. Topics and JSON keep RFC 3339 UTC and a
/// decimal point (docs/reference.md, Topics); nothing here reaches them. No ICU: the patterns are catalogue text.
extension Language {
    /// A number text written with a decimal point (`+2.3°C`, `14.2`, `0.5`) in the language's
    /// way: every `.` between two digits becomes its decimal separator (`+2,3°C`).
    public func decimal(_ text: String) -> String {
        let separator = self.text(.formatDecimalSeparator)
        guard separator != ".", text.contains(".") else { return text }
        let characters = Array(text)
        var out = ""
        for (index, character) in characters.enumerated() {
            if character == ".", index > 0, index + 1 < characters.count, characters[index - 1].isASCIIDigit,
                characters[index + 1].isASCIIDigit
            {
                out += separator
            } else {
                out.append(character)
            }
        }
        return out
    }

    /// The local wall-clock time of an instant in `zone`, hours and minutes: `12:20` (`12.20`
    /// in Finnish and Danish).
    public func clock(_ instant: Int64, zone: ZoneRules) -> String {
        let local = instant + Int64(zone.utcOffset(atUnixTime: instant))
        let seconds = Int(((local % 86_400) + 86_400) % 86_400)
        return text(.formatClock, ["hour": Self.two(seconds / 3_600), "minute": Self.two(seconds % 3_600 / 60)])
    }

    /// The short weekday name of a date (`Mon`, `Mo`, `lun.`).
    public func weekday(_ date: CivilDate) -> String {
        // 1970-01-01 was a Thursday: index 0 is Monday.
        let index = ((date.daysSinceEpoch % 7) + 10) % 7
        return text(Self.weekdayKeys[index])
    }

    /// A forecast day: the weekday and the day of the month (`Mon 7`, `Mo 7`).
    public func weekdayAndDay(_ date: CivilDate) -> String {
        text(.formatWeekdayDay, ["weekday": weekday(date), "day": String(date.day)])
    }

    /// A date without its year: `1 December`, `1. Dezember`, `1 grudnia`.
    public func dayAndMonth(_ date: CivilDate) -> String {
        let month = text(Self.monthKeys[min(11, max(0, date.month - 1))])
        return text(.formatDayMonth, ["day": String(date.day), "month": month])
    }

    /// When something happened, for a line like "updated …": the local time alone when it is
    /// on `today` (the location's local date now), else the weekday and day before it
    /// (`Mon 7 12:20`).
    public func moment(_ instant: Int64, zone: ZoneRules, today: CivilDate?) -> String {
        let time = clock(instant, zone: zone)
        let date = zone.localDate(atUnixTime: instant)
        if let today, date == today { return time }
        return text(.formatDayClock, ["day": weekdayAndDay(date), "clock": time])
    }

    static let weekdayKeys: [CatalogueKey] = [
        .weekdayMon, .weekdayTue, .weekdayWed, .weekdayThu, .weekdayFri, .weekdaySat, .weekdaySun,
    ]
    static let monthKeys: [CatalogueKey] = [
        .month1, .month2, .month3, .month4, .month5, .month6, .month7, .month8, .month9, .month10, .month11,
        .month12,
    ]

    private static func two(_ n: Int) -> String { n < 10 ? "0\(n)" : String(n) }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
