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

import Foundation
import Testing

@testable import BreezeCore

/// The system's zoneinfo, read directly (the oracle below is Foundation's ICU-backed `TimeZone`,
/// which the dynamically linked test build has; the shipped binary must not rely on it).
private func systemZone(_ name: String) throws -> ZoneRules {
    let data = try Data(contentsOf: URL(fileURLWithPath: "/usr/share/zoneinfo/" + name))
    return try ZoneRules(tzif: [UInt8](data))
}

private func unix(_ y: Int, _ m: Int, _ d: Int, _ h: Int = 0, _ min: Int = 0, _ s: Int = 0) -> Int64 {
    Int64(CivilDate(year: y, month: m, day: d)!.daysSinceEpoch) * 86_400 + Int64(h * 3600 + min * 60 + s)
}

@Suite struct TimeZoneOracleTests {
    static let zones = [
        "Europe/Berlin", "America/New_York", "America/Los_Angeles", "Australia/Sydney", "Asia/Kathmandu",
        "Pacific/Kiritimati", "Pacific/Pago_Pago", "UTC", "Europe/London", "America/Sao_Paulo", "Asia/Tokyo",
        "Pacific/Auckland", "Africa/Casablanca", "America/St_Johns", "Pacific/Chatham", "Australia/Lord_Howe",
    ]

    /// Instants every ~7.3 days from 1975 to 2100 (past the 2037 end of the tables, so the footer rule
    /// is exercised), each compared with the oracle.
    @Test(arguments: zones)
    func offsetsMatchTheOracle(_ name: String) throws {
        let rules = try systemZone(name)
        let oracle = try #require(TimeZone(identifier: name))
        var t = unix(1975, 1, 1, 0, 17)
        var compared = 0
        var mismatches: [String] = []
        while t < unix(2100, 1, 1) {
            let expected = oracle.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(t)))
            let got = rules.utcOffset(atUnixTime: t)
            if got != expected { mismatches.append("\(UTCTimestamp.rfc3339(unixSeconds: t)): \(got) != \(expected)") }
            compared += 1
            t += 631_193  // 7 days, 7 h, 19 min, 53 s: walks through every hour of the day and weekday
        }
        #expect(compared > 6000)
        let mismatchCount = mismatches.count
        #expect(mismatchCount == 0, "\(name): \(mismatches.prefix(5))")
    }

    /// One second before and at every transition the oracle sees between 1990 and 2099.
    @Test(arguments: zones)
    func transitionEdgesMatchTheOracle(_ name: String) throws {
        let rules = try systemZone(name)
        let oracle = try #require(TimeZone(identifier: name))
        var date = Date(timeIntervalSince1970: TimeInterval(unix(1990, 1, 1)))
        let end = Date(timeIntervalSince1970: TimeInterval(unix(2099, 1, 1)))
        var edges = 0
        while let next = oracle.nextDaylightSavingTimeTransition(after: date), next < end {
            let t = Int64(next.timeIntervalSince1970)
            for probe in [t - 1, t] {
                let expected = oracle.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(probe)))
                #expect(
                    rules.utcOffset(atUnixTime: probe) == expected,
                    "\(name) at \(UTCTimestamp.rfc3339(unixSeconds: probe))")
            }
            edges += 1
            date = next
        }
        if ["Europe/Berlin", "America/New_York", "Australia/Sydney", "America/Los_Angeles"].contains(name) {
            #expect(edges > 200)
        }
    }
}

@Suite struct TimeZoneKnownFactsTests {
    @Test func berlinSpringForward2026() throws {
        let berlin = try systemZone("Europe/Berlin")
        // 2026-03-29 01:00 UTC: 02:00 CET becomes 03:00 CEST.
        #expect(berlin.utcOffset(atUnixTime: unix(2026, 3, 29, 0, 59, 59)) == 3600)
        #expect(berlin.utcOffset(atUnixTime: unix(2026, 3, 29, 1)) == 7200)
        #expect(berlin.localTimeType(atUnixTime: unix(2026, 7, 1)).abbreviation == "CEST")
        // 2026-10-25 01:00 UTC back to CET.
        #expect(berlin.utcOffset(atUnixTime: unix(2026, 10, 25, 0, 59, 59)) == 7200)
        #expect(berlin.utcOffset(atUnixTime: unix(2026, 10, 25, 1)) == 3600)
    }

    @Test func footerRuleAfter2037() throws {
        let ny = try systemZone("America/New_York")
        // 2050: second Sunday of March is 13 March, first Sunday of November 6 November; 2:00 local.
        #expect(ny.utcOffset(atUnixTime: unix(2050, 3, 13, 6, 59, 59)) == -18_000)
        #expect(ny.utcOffset(atUnixTime: unix(2050, 3, 13, 7)) == -14_400)
        #expect(ny.utcOffset(atUnixTime: unix(2050, 11, 6, 5, 59, 59)) == -14_400)
        #expect(ny.utcOffset(atUnixTime: unix(2050, 11, 6, 6)) == -18_000)
        let sydney = try systemZone("Australia/Sydney")
        // Southern hemisphere: DST across the new year; ends first Sunday of April 2050 (3 April) 03:00 AEDT.
        #expect(sydney.utcOffset(atUnixTime: unix(2050, 1, 15)) == 39_600)
        #expect(sydney.utcOffset(atUnixTime: unix(2050, 4, 2, 15, 59, 59)) == 39_600)
        #expect(sydney.utcOffset(atUnixTime: unix(2050, 4, 2, 16)) == 36_000)
        #expect(sydney.utcOffset(atUnixTime: unix(2050, 7, 1)) == 36_000)
    }

    @Test func kiritimatiLocalDateDiffersFromUTC() throws {
        let zone = try systemZone("Pacific/Kiritimati")
        let noon = unix(2026, 11, 30, 12)
        #expect(zone.utcOffset(atUnixTime: noon) == 50_400)
        #expect(zone.localDate(atUnixTime: noon) == CivilDate(year: 2026, month: 12, day: 1))
        let pago = try systemZone("Pacific/Pago_Pago")
        #expect(pago.localDate(atUnixTime: unix(2026, 11, 30, 5)) == CivilDate(year: 2026, month: 11, day: 29))
        #expect(ZoneRules.utc.localDate(atUnixTime: noon) == CivilDate(year: 2026, month: 11, day: 30))
        #expect(ZoneRules.utc.localDate(atUnixTime: -1) == CivilDate(year: 1969, month: 12, day: 31))
    }

    @Test func version1FileUsesTheThirtyTwoBitBlock() throws {
        // Hand-built v1 file: one transition at 1000 from type 0 (+1h) to type 1 (+2h, DST).
        var bytes = Array("TZif".utf8) + [0] + Array(repeating: 0, count: 15)
        for count: UInt32 in [0, 0, 0, 1, 2, 8] { bytes += withUnsafeBytes(of: count.bigEndian, Array.init) }
        bytes += withUnsafeBytes(of: Int32(1000).bigEndian, Array.init)
        bytes += [1]
        bytes += withUnsafeBytes(of: Int32(3600).bigEndian, Array.init) + [0, 0]
        bytes += withUnsafeBytes(of: Int32(7200).bigEndian, Array.init) + [1, 4]
        bytes += Array("AAA\0BBB\0".utf8)
        let rules = try ZoneRules(tzif: bytes)
        #expect(rules.footer == nil)
        #expect(rules.utcOffset(atUnixTime: 999) == 3600)
        #expect(rules.utcOffset(atUnixTime: 1000) == 7200)
        #expect(
            rules.localTimeType(atUnixTime: 5000) == .init(utcOffset: 7200, isDaylightSaving: true, abbreviation: "BBB")
        )
        #expect(throws: ZoneRulesError.truncated) { try ZoneRules(tzif: Array(bytes.dropLast(3))) }
    }

    @Test func rejectsNonTZif() {
        #expect(throws: ZoneRulesError.notTZif) { try ZoneRules(tzif: Array("hello".utf8)) }
        #expect(throws: ZoneRulesError.notTZif) { try ZoneRules(tzif: Array(repeating: 65, count: 60)) }
    }
}

@Suite struct PosixTimeZoneRuleTests {
    @Test func parsesCentralEurope() throws {
        let rule = try PosixTimeZoneRule("CET-1CEST,M3.5.0,M10.5.0/3")
        #expect(rule.standard == .init(name: "CET", utcOffset: 3600))
        #expect(rule.daylight?.zone == .init(name: "CEST", utcOffset: 7200))
        #expect(rule.daylight?.start == .init(date: .monthWeekDay(month: 3, week: 5, weekday: 0), time: 7200))
        #expect(rule.daylight?.end == .init(date: .monthWeekDay(month: 10, week: 5, weekday: 0), time: 10_800))
    }

    @Test func parsesQuotedAndFractionalOffsets() throws {
        let nepal = try PosixTimeZoneRule("<+0545>-5:45")
        #expect(nepal.standard == .init(name: "+0545", utcOffset: 20_700))
        #expect(nepal.daylight == nil)
        let minus = try PosixTimeZoneRule("<-03>3<-02>,M3.5.0/-2,M10.5.0/-1")
        #expect(minus.standard.utcOffset == -10_800)
        #expect(minus.daylight?.zone.utcOffset == -7200)
        #expect(minus.daylight?.start.time == -7200)
        let kiribati = try PosixTimeZoneRule("<+14>-14")
        #expect(kiribati.zone(atUnixTime: 0).zone.utcOffset == 50_400)
    }

    @Test func julianAndZeroBasedDays() throws {
        // J60 is 1 March even in a leap year; 59 (zero-based) is 29 February in a leap year.
        let j = try PosixTimeZoneRule("AAA0BBB,J60/0,J300/0")
        #expect(j.daylight?.start.date == .julianNoLeap(60))
        #expect(j.zone(atUnixTime: unix(2028, 2, 29, 23, 59, 59)).isDaylightSaving == false)
        #expect(j.zone(atUnixTime: unix(2028, 3, 1)).isDaylightSaving == true)
        let n = try PosixTimeZoneRule("AAA0BBB,59/0,300/0")
        #expect(n.zone(atUnixTime: unix(2028, 2, 28, 23, 59, 59)).isDaylightSaving == false)
        #expect(n.zone(atUnixTime: unix(2028, 2, 29)).isDaylightSaving == true)
        #expect(n.zone(atUnixTime: unix(2027, 3, 1)).isDaylightSaving == true)
        #expect(n.zone(atUnixTime: unix(2027, 2, 28, 23)).isDaylightSaving == false)
    }

    @Test func allYearDaylightTime() throws {
        // RFC 8536 §3.3.1 example: DST all year.
        let rule = try PosixTimeZoneRule("EST5EDT4,0/0,J365/25")
        for t in [unix(2030, 1, 1, 0, 30), unix(2030, 6, 1), unix(2030, 12, 31, 23)] {
            #expect(rule.zone(atUnixTime: t).zone.utcOffset == -14_400)
        }
    }

    @Test(arguments: [
        "", "C", "CET", "CET-1CEST", "CET-1CEST,M3.5.0", "CET-1CEST,M13.5.0,M10.5.0", "CET-1CEST,J0,J10",
        "CET-1CEST,M3.5.0,M10.5.0/3x", "<+1>-1", "CET-25",
    ])
    func rejectsMalformed(_ text: String) {
        #expect(throws: PosixTimeZoneRuleError.self) { try PosixTimeZoneRule(text) }
    }
}

@Suite struct RFC3339FormatTests {
    @Test func formatsUTC() {
        #expect(UTCTimestamp.rfc3339(unixSeconds: 0) == "1970-01-01T00:00:00Z")
        #expect(UTCTimestamp.rfc3339(unixSeconds: unix(2026, 11, 30, 3, 6, 23)) == "2026-11-30T03:06:23Z")
        #expect(UTCTimestamp.rfc3339(unixSeconds: -1) == "1969-12-31T23:59:59Z")
        #expect(UTCTimestamp.rfc3339(unixSeconds: unix(2028, 2, 29, 23, 59, 59)) == "2028-02-29T23:59:59Z")
    }
}
