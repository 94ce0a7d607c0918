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

import BreezeCore
import Testing

@Suite struct JSONValueTests {
    @Test func serializesInOrderWithEscapes() {
        let doc: JSONValue = .object([
            "b": .integer(2), "a": .string("q\"\\\n\u{01}é"), "n": .null, "t": .bool(true),
            "list": .array([.fixed(-4, scale: 1), .fixed(500, scale: 3)]),
        ])
        #expect(doc.serialized == #"{"b":2,"a":"q\"\\\n\u0001é","n":null,"t":true,"list":[-0.4,0.500]}"#)
    }

    @Test(arguments: [
        (0, 1, "0.0"), (5, 1, "0.5"), (-5, 1, "-0.5"), (123, 1, "12.3"), (-123, 1, "-12.3"),
        (1000, 3, "1.000"), (7, 3, "0.007"), (42, 0, "42"),
    ])
    func fixedPoint(units: Int, scale: Int, text: String) {
        #expect(FixedPoint.format(units, scale: scale) == text)
    }

    @Test(arguments: [(25, 10, 3), (24, 10, 2), (-25, 10, -3), (-24, 10, -2), (105, 10, 11), (0, 7, 0), (7, 7, 1)])
    func roundedDivision(n: Int, d: Int, expected: Int) {
        #expect(FixedPoint.roundedDivision(n, d) == expected)
    }
}

@Suite struct CivilDateTests {
    @Test func epochAndKnownDays() {
        #expect(CivilDate(daysSinceEpoch: 0).description == "1970-01-01")
        #expect(CivilDate(daysSinceEpoch: -1).description == "1969-12-31")
        #expect(CivilDate(year: 2000, month: 3, day: 1)!.daysSinceEpoch == 11017)
        #expect(CivilDate(year: 2026, month: 11, day: 30)!.daysSinceEpoch == 20787)
    }

    @Test func roundTripsEveryDayOverNineCenturies() {
        var previous = CivilDate(daysSinceEpoch: -200_000)
        for day in -199_999...150_000 {
            let date = CivilDate(daysSinceEpoch: day)
            #expect(date.daysSinceEpoch == day)
            #expect(previous < date)
            #expect(previous.adding(days: 1) == date)
            previous = date
        }
    }

    @Test func leapDays() {
        #expect(CivilDate(year: 2028, month: 2, day: 29) != nil)
        #expect(CivilDate(year: 2027, month: 2, day: 29) == nil)
        #expect(CivilDate(year: 1900, month: 2, day: 29) == nil)
        #expect(CivilDate(year: 2000, month: 2, day: 29) != nil)
        #expect(CivilDate(year: 2028, month: 2, day: 28)!.adding(days: 1).description == "2028-02-29")
        #expect(CivilDate(year: 2027, month: 2, day: 28)!.adding(days: 1).description == "2027-03-01")
    }

    @Test(arguments: ["2026-11-30", "1940-01-01", "2028-02-29"])
    func parsesISO(text: String) {
        #expect(CivilDate(iso: text)?.description == text)
    }

    @Test(arguments: ["2026-11-31", "2026-13-01", "26-11-30", "2026-1-30", "2026/11/30", "", "2027-02-29"])
    func rejectsBadISO(text: String) {
        #expect(CivilDate(iso: text) == nil)
    }
}

@Suite struct UTCTimestampTests {
    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00Z"), (Int64(1_796_008_583), "2026-11-30T03:16:23Z"),
        (Int64(-1), "1969-12-31T23:59:59Z"), (Int64(951_782_400), "2000-02-29T00:00:00Z"),
    ])
    func formatsAndParses(seconds: Int64, text: String) {
        #expect(UTCTimestamp.rfc3339(unixSeconds: seconds) == text)
        #expect(UTCTimestamp.parse(text) == seconds)
    }

    @Test func rejectsNonUTC() {
        #expect(UTCTimestamp.parse("2026-11-30T03:16:23+01:00") == nil)
        #expect(UTCTimestamp.parse("2026-11-30 03:16:23Z") == nil)
    }
}

@Suite struct TopicTreeTests {
    @Test func diffPublishesChangesAndClearsGoneTopics() {
        var tree = TopicTree()
        tree.set("b/x", "1")
        tree.set("b/y", "2")
        tree.set("b/x", "3")
        #expect(tree.topics == ["b/x", "b/y"])
        let changes = tree.changes(from: ["b/x": "3", "b/y": "1", "b/gone": "old", "b/empty": ""])
        #expect(changes.map(\.topic) == ["b/y", "b/gone"])
        #expect(changes.map(\.payload) == ["2", ""])
    }

    @Test func hexColor() {
        #expect(HexColor(hex: "#FF9500")?.description == "#ff9500")
        #expect(HexColor(hex: "#ff950") == nil)
        #expect(HexColor(hex: "ff9500") == nil)
        #expect(HexColor(hex: "#+12345") == nil)
        #expect(HexColor(hex: "#-12345") == nil)
        #expect(HexColor(red: 0, green: 158, blue: 58).json.serialized == "[0,158,58]")
    }
}
