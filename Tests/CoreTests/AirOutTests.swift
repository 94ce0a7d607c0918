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
import Foundation
import Testing

/// Hourly pollen for tests: `count` consecutive hours from `start` (Unix seconds), each plant's
/// tenths of grains/m³ from `tenths(hourIndex)`; plants not named are 0.
private func hourly(
    from start: Int64, count: Int, _ tenths: (Int) -> [String: Int] = { _ in [:] }
) -> PollenHourly {
    PollenHourly(
        hours: (0..<count).map { i in
            var values = Dictionary(uniqueKeysWithValues: OpenMeteoPollen.plants.map { ($0.code, 0) })
            values.merge(tenths(i)) { _, new in new }
            return PollenHourly.Hour(instant: start + Int64(i) * 3_600, tenths: values)
        })
}

/// Grass tenths per value band (SPEC §1b grass row: 0 | 1–19 | 20–29 | 30–49 | 50–149 | ≥150).
private let grass = [0: 0, 1: 100, 2: 250, 3: 400, 4: 800, 5: 2_000]

/// UTC+2 without transitions (a CEST summer day without the zoneinfo files).
private let plusTwo = ZoneRules.fixed(utcOffset: 7_200, abbreviation: "CEST")

/// The instant of a local wall-clock time at UTC+2.
private func cest(_ y: Int, _ m: Int, _ d: Int, _ h: Int, _ min: Int = 0) -> Int64 { utc(y, m, d, h, min) - 7_200 }

private func view(
    _ hourly: PollenHourly, zone: ZoneRules = plusTwo, now: Int64, fetchedAt: Int64? = nil, stale: Bool = false
) -> PollenHourlyView {
    PollenHourlyView(hourly: hourly, zone: zone, now: now, fetchedAt: fetchedAt ?? now - 600, stale: stale)
}

private func assess(
    _ view: PollenHourlyView, allergens: [String] = AirOutAssessment.locationAllergens, window: Int = 2,
    hours: String = "06-22"
) -> AirOutAssessment {
    AirOutAssessment.assess(
        allergens: allergens, view: view, settings: AirOutSettings(window: window, hours: DaytimeHours(text: hours)!))
}

/// Two local days at UTC+2 from 21 June 00:00, grass by the local hour of the day per day.
private func twoDays(today: (Int) -> Int, tomorrow: (Int) -> Int) -> PollenHourly {
    hourly(from: cest(2026, 6, 21, 0), count: 48) { i in
        ["GRAMINALES": grass[i < 24 ? today(i) : tomorrow(i - 24)]!]
    }
}

@Suite("Air out: the daytime hours setting")
struct DaytimeHoursTests {
    @Test func parsesAndBounds() {
        #expect(DaytimeHours(text: "06-22") == DaytimeHours.standard)
        #expect(DaytimeHours.standard.count == 16)
        #expect(DaytimeHours(text: "22-06")?.count == 8)
        #expect(DaytimeHours(text: "00-24")?.count == 24)
        #expect(DaytimeHours(text: "23-24")?.count == 1)
        #expect(DaytimeHours(text: "00-01")?.description == "00-01")
        for bad in ["6-22", "06-6", "06-06", "24-06", "06-25", "00-00", "06:00-22:00", "0622", "-06-22", "a6-22", ""] {
            #expect(DaytimeHours(text: bad) == nil, "\(bad)")
        }
    }

    @Test func containsWrapsAcrossMidnight() {
        let day = DaytimeHours.standard
        #expect(!day.contains(hour: 5) && day.contains(hour: 6) && day.contains(hour: 21) && !day.contains(hour: 22))
        let night = DaytimeHours(text: "20-04")!
        #expect(
            night.contains(hour: 20) && night.contains(hour: 23) && night.contains(hour: 0) && night.contains(hour: 3))
        #expect(!night.contains(hour: 4) && !night.contains(hour: 19) && !night.contains(hour: 12))
        #expect((0..<24).allSatisfy { DaytimeHours(text: "00-24")!.contains(hour: $0) })
    }
}

@Suite("Hourly pollen: values, now and peak_at")
struct PollenHourlyTests {
    @Test func hourlyValueUsesTheKeyFreeTableOnWholeGrains() {
        func value(_ id: String, _ tenths: [String: Int]) -> Int? {
            PollenHourly.value(of: id, in: PollenHourly.Hour(instant: 0, tenths: tenths))
        }
        // Half up to whole grains, then the grass row: 19.4 → 19 (1), 19.5 → 20 (2).
        #expect(value("graminales", ["GRAMINALES": 194]) == 1)
        #expect(value("graminales", ["GRAMINALES": 195]) == 2)
        #expect(value("graminales", ["GRAMINALES": 4]) == 0)
        #expect(value("graminales", ["GRAMINALES": 5]) == 1)
        #expect(value("grass", ["GRAMINALES": 1_500]) == 5)
        // Types are the highest of their plants, missing plants ignored.
        #expect(value("tree", ["ALDER": 100, "BIRCH": 3_000]) == 5)
        #expect(value("tree", ["OLIVE": 600]) == 2)
        #expect(value("weed", ["MUGWORT": 60, "RAGWEED": 70]) == 2)
        #expect(value("weed", ["MUGWORT": 60, "RAGWEED": 80]) == 3)
        #expect(value("tree", [:]) == nil)
        // Ids the hourly source does not carry.
        #expect(value("oak", ["BIRCH": 100]) == nil)
        #expect(!PollenHourly.carries("oak") && PollenHourly.carries("birch") && PollenHourly.carries("weed"))
        #expect(PollenHourly.carries("TREE"))
    }

    @Test func nowIsTheCurrentLocalHour() {
        let data = twoDays(today: { $0 == 13 ? 3 : 1 }, tomorrow: { _ in 0 })
        #expect(view(data, now: cest(2026, 6, 21, 13, 0)).nowValue(of: "grass") == 3)
        #expect(view(data, now: cest(2026, 6, 21, 13, 59) + 59).nowValue(of: "grass") == 3)
        #expect(view(data, now: cest(2026, 6, 21, 14, 0)).nowValue(of: "grass") == 1)
        #expect(view(data, now: cest(2026, 6, 21, 13, 30)).nowValue(of: "tree") == 0)
        // Past the data's end: Unknown.
        #expect(view(data, now: cest(2026, 6, 23, 0, 30)).nowValue(of: "grass") == nil)
    }

    @Test func peakAtIsTodaysHighestHourEarliestOnTies() {
        // Grass peaks twice today at value 4 (10:00 and 15:00): the earliest. Tomorrow's 5 is not today.
        let data = twoDays(today: { $0 == 10 || $0 == 15 ? 4 : 1 }, tomorrow: { $0 == 12 ? 5 : 0 })
        let v = view(data, now: cest(2026, 6, 21, 8))
        #expect(v.peakAt(of: "grass") == cest(2026, 6, 21, 10))
        #expect(v.localTimeText(v.peakAt(of: "grass")!) == "2026-06-21T10:00+02:00")
        // A plant by its grains: 10:00 has 80.0, 15:00 81.0 → 15:00.
        let plant = hourly(from: cest(2026, 6, 21, 0), count: 24) { i in
            ["GRAMINALES": i == 10 ? 800 : i == 15 ? 810 : 0]
        }
        #expect(view(plant, now: cest(2026, 6, 21, 8)).peakAt(of: "graminales") == cest(2026, 6, 21, 15))
        // An all-zero day has no peak; neither has an id the source does not carry.
        let zero = hourly(from: cest(2026, 6, 21, 0), count: 48)
        #expect(view(zero, now: cest(2026, 6, 21, 8)).peakAt(of: "grass") == nil)
        #expect(view(data, now: cest(2026, 6, 21, 8)).peakAt(of: "oak") == nil)
        // A negative offset prints its sign.
        let west = PollenHourlyView(
            hourly: zero, zone: .fixed(utcOffset: -12_600), now: 0, fetchedAt: 0, stale: false)
        #expect(west.localTimeText(utc(2026, 6, 21, 12)) == "2026-06-21T08:30-03:30")
    }
}

@Suite("Air out: the window choice (SPEC §20)")
struct AirOutWindowTests {
    @Test func lowestHighestLevelWins() throws {
        // Today High all day except Low at 14–15; tomorrow None at 08–09 and 10–11, but 10:00
        // tomorrow is 24 h after the current hour: outside the next 24 h.
        let data = twoDays(
            today: { (14...15).contains($0) ? 1 : 4 }, tomorrow: { (8...9).contains($0) || $0 >= 10 ? 0 : 4 })
        let result = assess(view(data, now: cest(2026, 6, 21, 10, 20)))
        let window = try #require(result.window)
        #expect(window.start == cest(2026, 6, 22, 8) && window.end == cest(2026, 6, 22, 10))
        #expect(window.level == PollenLevel.none && window.value == 0)
        #expect(result.allergens == ["grass", "tree", "weed"] && result.windowHours == 2)
        #expect(result.reason == nil && !result.now && !result.stale)
    }

    @Test func tiesGoToTheEarliestAndCompareLevelsNotValues() throws {
        // Moderate everywhere; 12–13 today are 2 and 3 (Moderate, value 3), 16–17 are 2 and 2
        // (Moderate, value 2): the levels tie, so the earliest wins although its value is higher.
        // Before 12 every pair contains a High hour.
        let data = twoDays(
            today: { h in h == 12 ? 2 : h == 13 ? 3 : (16...17).contains(h) ? 2 : h < 12 ? 4 : 3 },
            tomorrow: { _ in 4 })
        let result = assess(view(data, now: cest(2026, 6, 21, 9, 5)))
        let window = try #require(result.window)
        #expect(window.start == cest(2026, 6, 21, 12) && window.value == 3 && window.level == .moderate)

        // Equal windows all day: the current hour's window (the earliest) is chosen.
        let flat = twoDays(today: { _ in 1 }, tomorrow: { _ in 1 })
        let now = cest(2026, 6, 21, 11, 45)
        let chosen = try #require(assess(view(flat, now: now)).window)
        #expect(chosen.start == cest(2026, 6, 21, 11))
    }

    @Test func theWindowStaysInsideTheHoursAndTheNext24h() throws {
        // None only at 21 and 22 today (22 is outside 06-22) and at 04–05 tomorrow (outside).
        // Low at 07–08 tomorrow, everything else High: the Low window wins.
        let data = twoDays(
            today: { (21...22).contains($0) ? 0 : 4 },
            tomorrow: { (4...5).contains($0) ? 0 : (7...8).contains($0) ? 1 : 4 })
        let result = assess(view(data, now: cest(2026, 6, 21, 20, 10)))
        #expect(try #require(result.window).start == cest(2026, 6, 22, 7))
        // The next 24 h end at 20:00 tomorrow (the current hour 20:00 + 24 h): a None window
        // at 20–21 tomorrow is beyond it.
        let late = twoDays(today: { _ in 4 }, tomorrow: { (20...21).contains($0) ? 0 : 4 })
        let lateResult = assess(view(late, now: cest(2026, 6, 21, 20, 10)))
        #expect(try #require(lateResult.window).level == .high)
        #expect(lateResult.window?.start == cest(2026, 6, 21, 20))
        // Six hours at most, one at least: the six-hour window of the flat day starts now.
        let flat = twoDays(today: { $0 < 12 ? 4 : 1 }, tomorrow: { _ in 4 })
        let six = assess(view(flat, now: cest(2026, 6, 21, 9)), window: 6)
        #expect(six.window?.start == cest(2026, 6, 21, 12) && six.window?.end == cest(2026, 6, 21, 18))
        #expect(six.windowHours == 6)
    }

    @Test func aWindowAcrossMidnight() throws {
        // Night hours 20-04, three hours: None at 23:00, 00:00 and 01:00 across the date change.
        let data = twoDays(today: { $0 == 23 ? 0 : 3 }, tomorrow: { (0...1).contains($0) ? 0 : 3 })
        let result = assess(view(data, now: cest(2026, 6, 21, 19, 0)), window: 3, hours: "20-04")
        let window = try #require(result.window)
        #expect(window.start == cest(2026, 6, 21, 23) && window.end == cest(2026, 6, 22, 2))
        #expect(window.level == PollenLevel.none)
        #expect(result.json.serialized.contains(#""start":"2026-06-21T21:00:00Z","end":"2026-06-22T00:00:00Z""#))
        // With the default daytime hours the same data has no None window: Moderate, from now.
        let day = assess(view(data, now: cest(2026, 6, 21, 19, 0)), window: 3)
        #expect(day.window?.level == .moderate && day.window?.start == cest(2026, 6, 21, 19))
    }

    @Test func theDSTStartDayHas23HoursAndTheWindowSpansTheGap() throws {
        let berlin = try zoneInfo("Europe/Berlin")
        // 29 March 2026: 02:00 CET jumps to 03:00 CEST (01:00Z). The local day runs 23:00Z–22:00Z.
        let start = utc(2026, 3, 28, 23)
        let data = hourly(from: start, count: 47) { i in
            // None at 00:00Z (01:00 CET) and 01:00Z (03:00 CEST); High otherwise.
            ["GRAMINALES": grass[(1...2).contains(i) ? 0 : 4]!]
        }
        let v = view(data, zone: berlin, now: utc(2026, 3, 28, 23, 30))
        let todays = data.hours.filter { berlin.localDate(atUnixTime: $0.instant) == date(2026, 3, 29) }
        #expect(todays.count == 23)
        let result = assess(v, hours: "00-24")
        let window = try #require(result.window)
        // Two real hours across the gap: 01:00 CET to 04:00 CEST.
        #expect(window.start == utc(2026, 3, 29, 0) && window.end == utc(2026, 3, 29, 2))
        #expect(v.localTimeText(window.start) == "2026-03-29T01:00+01:00")
        #expect(v.localTimeText(window.end) == "2026-03-29T04:00+02:00")
        // 02:00 local does not exist; 03:00 CEST is local hour 3, inside "03-05".
        let morning = assess(v, window: 1, hours: "03-05")
        #expect(morning.window?.start == utc(2026, 3, 29, 1))
        // peak_at on that day is written with the summer offset after the change.
        let peak = hourly(from: start, count: 24) { i in ["BIRCH": i == 10 ? 900 : 100] }
        let peakView = view(peak, zone: berlin, now: utc(2026, 3, 29, 5))
        #expect(peakView.localTimeText(try #require(peakView.peakAt(of: "birch"))) == "2026-03-29T11:00+02:00")
    }

    @Test func theDSTEndDayHas25HoursAndTheRepeatedHourCountsTwice() throws {
        let berlin = try zoneInfo("Europe/Berlin")
        // 25 October 2026: 03:00 CEST falls back to 02:00 CET (01:00Z). Local day 22:00Z–23:00Z.
        let start = utc(2026, 10, 24, 22)
        let data = hourly(from: start, count: 49) { i in
            // None at 00:00Z (02:00 CEST) and 01:00Z (02:00 CET): both are local hour 2.
            ["GRAMINALES": grass[(2...3).contains(i) ? 0 : 3]!]
        }
        let todays = data.hours.filter { berlin.localDate(atUnixTime: $0.instant) == date(2026, 10, 25) }
        #expect(todays.count == 25)
        let v = view(data, zone: berlin, now: utc(2026, 10, 24, 22, 10))
        // "02-03" is one hour of the day, but it occurs twice in real time: a two-hour window fits.
        let result = assess(v, hours: "02-03")
        let window = try #require(result.window)
        #expect(window.start == utc(2026, 10, 25, 0) && window.end == utc(2026, 10, 25, 2))
        #expect(v.localTimeText(window.start) == "2026-10-25T02:00+02:00")
        #expect(v.localTimeText(utc(2026, 10, 25, 1)) == "2026-10-25T02:00+01:00")
        #expect(window.level == PollenLevel.none)
        // The default hours: Moderate everywhere in 06-22, the first window is 06:00 CET = 05:00Z.
        #expect(assess(v).window?.start == utc(2026, 10, 25, 5))
    }

    @Test func anAllZeroDayTakesTheFirstHoursAndSaysNow() throws {
        let zero = hourly(from: cest(2026, 6, 21, 0), count: 48)
        let midday = assess(view(zero, now: cest(2026, 6, 21, 10, 30)))
        #expect(midday.window?.start == cest(2026, 6, 21, 10) && midday.window?.level == PollenLevel.none)
        #expect(midday.window?.value == 0 && midday.now)
        // Before the daytime hours the window waits for 06:00; now is ON anyway (None ≤ Low).
        let early = assess(view(zero, now: cest(2026, 6, 21, 3, 10)))
        #expect(early.window?.start == cest(2026, 6, 21, 6) && early.now)
        #expect(
            early.json.serialized
                == #"{"start":"2026-06-21T04:00:00Z","end":"2026-06-21T06:00:00Z","level":"None","value":0,"allergens":["grass","tree","weed"],"window_h":2,"stale":false,"reason":null}"#
        )
    }

    @Test func aProfileWhoseAllergensTheHourlySourceDoesNotCarry() throws {
        let data = twoDays(today: { _ in 0 }, tomorrow: { _ in 0 })
        let none = assess(view(data, now: cest(2026, 6, 21, 10)), allergens: ["oak", "ash"])
        #expect(none.window == nil && none.allergens.isEmpty && !none.now)
        #expect(none.reason == "none of the allergens (oak, ash) is in the hourly data of Open-Meteo")
        #expect(
            none.json.serialized
                == #"{"start":null,"end":null,"level":"Unknown","value":null,"allergens":[],"window_h":2,"stale":false,"reason":"none of the allergens (oak, ash) is in the hourly data of Open-Meteo"}"#
        )
        // A profile with one carried allergen is assessed on that one, over its own values.
        let birch = hourly(from: cest(2026, 6, 21, 0), count: 48) { i in
            ["BIRCH": i < 15 ? 800 : 50, "GRAMINALES": 3_000]
        }
        let mixed = assess(view(birch, now: cest(2026, 6, 21, 9)), allergens: ["oak", "birch"])
        #expect(mixed.allergens == ["birch"] && mixed.window?.start == cest(2026, 6, 21, 15))
        #expect(mixed.window?.level == .low)
    }

    @Test func staleDataFollowsTheSection1Lifetimes() throws {
        let data = twoDays(today: { $0 < 20 ? 4 : 2 }, tomorrow: { _ in 0 })
        let now = cest(2026, 6, 21, 19, 30)
        // Fresh: tomorrow's None hours win.
        #expect(assess(view(data, now: now)).window?.start == cest(2026, 6, 22, 6))
        // 30 h old: tomorrow's hours are no longer served (24 h), today's are (48 h): Moderate tonight.
        let old = assess(view(data, now: now, fetchedAt: now - 30 * 3_600))
        #expect(old.stale && old.window?.start == cest(2026, 6, 21, 20) && old.window?.level == .moderate)
        // 48 h old: nothing is served; no window, said so, and now is OFF.
        let gone = assess(view(data, now: now, fetchedAt: now - 48 * 3_600))
        #expect(gone.window == nil && gone.stale && !gone.now)
        #expect(gone.reason == "no 2 consecutive hour(s) with pollen data within 06-22 in the next 24 h")
        #expect(view(data, now: now, fetchedAt: now - 48 * 3_600).nowValue(of: "grass") == nil)
        #expect(view(data, now: now, fetchedAt: now - 48 * 3_600).peakAt(of: "grass") == nil)
        // A failed fetch (the runtime's flag) keeps the values and says stale.
        let failed = assess(view(data, now: now, stale: true))
        #expect(failed.stale && failed.window?.start == cest(2026, 6, 22, 6))
    }

    @Test func gapsBreakAWindow() throws {
        // The 14:00 hour is missing from the body (null for every plant): 13–14 and 14–15 are no windows.
        var data = twoDays(today: { (13...15).contains($0) ? 0 : 4 }, tomorrow: { _ in 4 })
        data.hours[14].tenths = [:]
        let result = assess(view(data, now: cest(2026, 6, 21, 9)))
        #expect(result.window?.level == .high && result.window?.start == cest(2026, 6, 21, 9))
        let one = assess(view(data, now: cest(2026, 6, 21, 9)), window: 1)
        #expect(one.window?.start == cest(2026, 6, 21, 13))
    }

    @Test func nowIsOnInTheWindowOrWhenEverythingIsLow() {
        let data = twoDays(today: { h in h == 10 ? 2 : (14...15).contains(h) ? 0 : 3 }, tomorrow: { _ in 3 })
        // 14:20: inside the window.
        #expect(assess(view(data, now: cest(2026, 6, 21, 14, 20))).now)
        // 10:20: Moderate now and the window is later.
        #expect(!assess(view(data, now: cest(2026, 6, 21, 10, 20))).now)
        // Low now, outside the window: ON.
        let low = twoDays(today: { h in h == 9 ? 1 : (14...15).contains(h) ? 0 : 3 }, tomorrow: { _ in 3 })
        let lowNow = assess(view(low, now: cest(2026, 6, 21, 9, 20)))
        #expect(lowNow.now && lowNow.window?.start == cest(2026, 6, 21, 14))
        #expect(lowNow.nowPayload == "ON" && assess(view(data, now: cest(2026, 6, 21, 10))).nowPayload == "OFF")
    }
}

@Suite("Hourly pollen: decoding and topics")
struct PollenHourlyTopicsTests {
    /// An Open-Meteo body for 21 June at UTC+2 (iso8601), grass rising to 60.0 at 14:00 and a
    /// null at 23:00.
    static func body(offset: Int = 7_200) -> [UInt8] {
        let times = (0..<48).map { i in "\"2026-06-\(21 + i / 24)T\(i % 24 < 10 ? "0" : "")\(i % 24):00\"" }
        func series(_ f: (Int) -> String) -> String { (0..<48).map(f).joined(separator: ",") }
        let grassSeries = series { i in i == 23 ? "null" : i == 14 ? "60.0" : i % 24 < 6 ? "0.0" : "12.0" }
        let zeros = series { _ in "0.0" }
        let json =
            #"{"utc_offset_seconds":\#(offset),"hourly":{"time":[\#(times.joined(separator: ","))],"alder_pollen":[\#(zeros)],"birch_pollen":[\#(series { $0 == 9 ? "1e300" : "2.5" })],"grass_pollen":[\#(grassSeries)],"mugwort_pollen":[\#(zeros)],"olive_pollen":[\#(zeros)],"ragweed_pollen":[\#(zeros)]}}"#
        return Array(json.utf8)
    }

    @Test func theDecoderKeepsTheHoursOnTheTimeLine() throws {
        guard case .report(let report) = OpenMeteoPollen.interpret(httpStatus: 200, body: Self.body()) else {
            Issue.record("expected a report")
            return
        }
        let hourly = try #require(report.hourly)
        #expect(hourly.hours.count == 48)
        #expect(hourly.hours[0].instant == cest(2026, 6, 21, 0))
        #expect(hourly.hours[14].tenths["GRAMINALES"] == 600)
        #expect(hourly.hours[23].tenths["GRAMINALES"] == nil)
        // An implausible value is missing for that hour, as the daily means skip it.
        #expect(hourly.hours[9].tenths["BIRCH"] == nil && hourly.hours[10].tenths["BIRCH"] == 25)
        // An offset no zone has: the hours cannot be placed by it, so the body is refused
        // (issue 50)…
        #expect(
            OpenMeteoPollen.interpret(httpStatus: 200, body: Self.body(offset: 90_000))
                == .failed(
                    message: "Open-Meteo air-quality response with utc_offset_seconds 90000, "
                        + "not a whole number of seconds within ±86400; refused"))
        // …unless the caller gives the location's own offset at the fetch, which places them.
        guard
            case .report(let odd) = OpenMeteoPollen.interpret(
                httpStatus: 200, body: Self.body(offset: 90_000), fallbackUTCOffset: 7_200)
        else {
            Issue.record("expected a report")
            return
        }
        #expect(odd.hourly == hourly)
        #expect(odd.days == report.days)
        #expect(
            odd.warnings.first
                == "pollen: utc_offset_seconds 90000 is not a whole number of seconds within ±86400; "
                + "the location's own offset at the fetch (7200 s) places the hours instead")
        // Google has no hourly data.
        #expect(PollenReport(source: .google, days: []).hourly == nil)
    }

    @Test func theTreeOfADesignedDay() throws {
        guard case .report(let report) = OpenMeteoPollen.interpret(httpStatus: 200, body: Self.body()) else {
            Issue.record("expected a report")
            return
        }
        let now = cest(2026, 6, 21, 14, 25)
        let selection = PollenSelection.select(
            report: report, today: date(2026, 6, 21), days: 4, fetchedAt: now - 600, now: now, stale: false)
        let topics = TopicLayout(prefix: "breeze").location("home")
        let tree = PollenTopics.hourlyTree(
            topics: topics, selection: selection,
            view: selection.hourlyView(zone: plusTwo, now: now, fetchedAt: now - 600), airOut: AirOutSettings())
        #expect(tree["breeze/home/pollen/grass/now/value"] == "4")
        #expect(tree["breeze/home/pollen/grass/now/level"] == "High")
        #expect(tree["breeze/home/pollen/grass/now/color"] == "#ff3b30")
        #expect(tree["breeze/home/pollen/graminales/now/value"] == "4")
        #expect(tree["breeze/home/pollen/tree/now/level"] == "Low")
        #expect(tree["breeze/home/pollen/weed/now/level"] == "None")
        #expect(tree["breeze/home/pollen/grass/peak_at"] == "2026-06-21T14:00+02:00")
        #expect(tree["breeze/home/pollen/birch/peak_at"] == "2026-06-21T00:00+02:00")
        // Weed is zero all day: no peak_at (cleared).
        #expect(tree["breeze/home/pollen/weed/peak_at"] == nil && tree["breeze/home/pollen/mugwort/peak_at"] == nil)
        // Grass 12.0 (Low) from 06:00 except the 14:00 peak: the window is 15–17 today.
        #expect(
            tree["breeze/home/pollen/air_out"]
                == #"{"start":"2026-06-21T13:00:00Z","end":"2026-06-21T15:00:00Z","level":"Low","value":1,"allergens":["grass","tree","weed"],"window_h":2,"stale":false,"reason":null}"#
        )
        #expect(tree["breeze/home/pollen/air_out/now"] == "OFF")
        // Every item of today has its now topics: 3 types + 6 plants, 3 scalars each; 4 peaks
        // (grass, tree, birch, graminales); air_out 2.
        #expect(tree.count == 9 * 3 + 4 + 2)

        // Profiles: one over birch, one over plants Open-Meteo does not carry.
        let profiles = [
            RiskProfile(id: "anna", name: "Anna", allergens: ["birch"], alertLevel: .high),
            RiskProfile(id: "ben", name: "Ben", allergens: ["oak"], alertLevel: .high),
        ]
        let risk = RiskTopics.tree(
            topics: topics, profiles: profiles, selection: selection,
            view: selection.hourlyView(zone: plusTwo, now: now, fetchedAt: now - 600), airOut: AirOutSettings())
        #expect(risk["breeze/home/risk/anna/air_out/now"] == "ON")
        #expect(risk["breeze/home/risk/anna/air_out"]?.contains(#""start":"2026-06-21T12:00:00Z""#) == true)
        #expect(risk["breeze/home/risk/ben/air_out/now"] == "OFF")
        #expect(risk["breeze/home/risk/ben/air_out"]?.contains(#""reason":"none of the allergens (oak)"#) == true)
        // Without hourly data (Google) none of these topics exist.
        let google = PollenTopics.hourlyTree(
            topics: topics, selection: selection, view: nil, airOut: AirOutSettings())
        #expect(google.isEmpty)
        #expect(
            RiskTopics.tree(topics: topics, profiles: profiles, selection: selection).topics.allSatisfy {
                !$0.contains("air_out")
            })
    }

    @Test func airOutIsAReservedItemID() {
        #expect(PollenItem(code: "AIR_OUT", name: "x", isPlant: true).topicID == "air_out_")
    }
}

@Suite("Hourly pollen on the status page")
struct PollenHourlyStatusTests {
    @Test func theLocationCardShowsNowAndTheWindow() throws {
        guard
            case .report(let report) = OpenMeteoPollen.interpret(httpStatus: 200, body: PollenHourlyTopicsTests.body())
        else {
            Issue.record("expected a report")
            return
        }
        let now = cest(2026, 6, 21, 14, 25)
        let selection = PollenSelection.select(
            report: report, today: date(2026, 6, 21), days: 4, fetchedAt: now - 600, now: now, stale: false)
        let view = selection.hourlyView(zone: plusTwo, now: now, fetchedAt: now - 600)
        let pollen = StatusPollen(selection: selection, fetchedAt: now - 600, view: view)
        #expect(pollen.now.map(\.label) == ["Grass", "Tree", "Weed"])
        #expect(pollen.now.map(\.level) == ["High", "Low", "None"])
        #expect(pollen.airOut == "15:00–17:00 today, Low")
        let profile = RiskProfile(id: "ben", name: "Ben", allergens: ["oak"], alertLevel: .high)
        let risk = StatusRisk(
            assessment: RiskAssessment.evaluate(profile: profile, selection: selection), view: view)
        #expect(risk.airOut == "No window: none of the allergens (oak) is in the hourly data of Open-Meteo")
        let location = StatusLocation(
            id: "home", name: "Home", pollen: .data(pollen), climate: .off, stripes: .off, air: .off, risks: [risk])
        let html = StatusPage(
            version: "1", generatedAt: "2026-06-21T12:25:00Z", mqttConnected: true, demo: false,
            locations: [location], sources: [], attributions: []
        ).html
        #expect(html.contains("<p>Best time to air out: <b>15:00–17:00 today, Low</b></p>"))
        #expect(html.contains("<h4>Now</h4>"))
        #expect(!html.contains("Against the season"))

        // With the day's season standing (SPEC §20): one line per type, in the full card.
        var means: [CivilDate: [String: Int]] = [:]
        for i in 0..<92 { means[date(2026, 6, 21).adding(days: -i)] = ["GRAMINALES": i < 20 ? 50 : 10, "BIRCH": 0] }
        let standing = PollenSeason(means: means).standing(today: date(2026, 6, 21))
        let seasoned = StatusPollen(selection: selection, fetchedAt: now - 600, view: view, season: standing)
        #expect(
            seasoned.season == [
                "Grass: percentile 100 of the last 92 days; in season since 2026-06-02",
                "Tree: off season (no pollen in the last 92 days)", "Weed: no value today",
            ])
        let seasonHTML = StatusPage(
            version: "1", generatedAt: "2026-06-21T12:25:00Z", mqttConnected: true, demo: false,
            locations: [
                StatusLocation(
                    id: "home", name: "Home", pollen: .data(seasoned), climate: .off, stripes: .off, air: .off,
                    risks: [])
            ], sources: [], attributions: []
        ).html
        #expect(
            seasonHTML.contains(
                "<h4>Against the season</h4><ul><li>Grass: percentile 100 of the last 92 days; in season since 2026-06-02</li>"
            ))
        #expect(html.contains("<span class=\"mu\">Air out:</span> No window: none of the allergens (oak)"))
        // Tomorrow's window says so; Google shows neither.
        let evening = cest(2026, 6, 21, 21, 10)
        let late = PollenSelection.select(
            report: report, today: date(2026, 6, 21), days: 4, fetchedAt: evening - 600, now: evening, stale: false)
        let lateView = try #require(late.hourlyView(zone: plusTwo, now: evening, fetchedAt: evening - 600))
        #expect(
            AirOutAssessment.assess(allergens: ["weed"], view: lateView, settings: AirOutSettings(window: 1))
                .summary(view: lateView) == "21:00–22:00 today, None")
        #expect(
            AirOutAssessment.assess(allergens: ["weed"], view: lateView, settings: AirOutSettings(window: 3))
                .summary(view: lateView) == "06:00–09:00 tomorrow, None")
        let google = StatusPollen(selection: late, fetchedAt: evening - 600)
        #expect(google.now.isEmpty && google.airOut == nil)
    }
}

@Suite("Hourly pollen in Home Assistant discovery")
struct PollenHourlyDiscoveryTests {
    static func components(hourly: Bool, profiles: [DiscoveryInput.Profile]) throws -> [String: [String: Any]] {
        var input = DiscoveryInput(
            agentVersion: "1.2.3", location: .init(id: "home", name: "Home"), pollenAvailable: true,
            pollenItems: [
                .init(id: "grass", name: "Grass", isPlant: false, hasIndex: true),
                .init(id: "tree", name: "Tree", isPlant: false, hasIndex: true),
                .init(id: "weed", name: "Weed", isPlant: false, hasIndex: true),
                .init(id: "birch", name: "Birch", isPlant: true, hasIndex: true),
            ], climateEnabled: false)
        input.hourlyPollen = hourly
        input.profiles = profiles
        return try discoveryComponents(decodeDiscovery(HomeAssistantDiscovery.deviceConfig(for: input)))
    }

    @Test func openMeteoLocationsAnnounceNowAndAirOut() throws {
        let comps = try Self.components(hourly: true, profiles: [.init(id: "anna-2", name: "Anna")])
        let best = try #require(comps["pollen_air_out"])
        #expect(best["platform"] as? String == "sensor" && best["name"] as? String == "Best time to air out")
        #expect(best["device_class"] as? String == "timestamp")
        #expect(best["state_topic"] as? String == "breeze/home/pollen/air_out")
        #expect(best["value_template"] as? String == "{{ value_json.start }}")
        #expect(best["json_attributes_topic"] as? String == "breeze/home/pollen/air_out")
        #expect(best["unique_id"] as? String == "breeze_home_pollen_air_out")
        let good = try #require(comps["pollen_air_out_now"])
        #expect(good["platform"] as? String == "binary_sensor" && good["name"] as? String == "Good time to air out")
        #expect(good["state_topic"] as? String == "breeze/home/pollen/air_out/now")
        #expect(good["payload_on"] as? String == "ON" && good["payload_off"] as? String == "OFF")
        #expect(good["device_class"] == nil)
        let anna = try #require(comps["risk_anna_2_air_out"])
        #expect(anna["name"] as? String == "Anna Best time to air out")
        #expect(anna["state_topic"] as? String == "breeze/home/risk/anna-2/air_out")
        #expect(comps["risk_anna_2_air_out_now"]?["state_topic"] as? String == "breeze/home/risk/anna-2/air_out/now")
        for type in ["grass", "tree", "weed"] {
            let now = try #require(comps["pollen_\(type)_now"])
            #expect(now["state_topic"] as? String == "breeze/home/pollen/\(type)/now/level")
            #expect(now["device_class"] as? String == "enum")
            #expect(now["value_template"] as? String == HomeAssistantDiscovery.levelTemplate)
            #expect(now["enabled_by_default"] == nil)
        }
        #expect(comps["pollen_birch_now"] == nil)
        // Today against the season (SPEC §20), per type: a percentile and a date.
        for type in ["grass", "tree", "weed"] {
            let percentile = try #require(comps["pollen_\(type)_percentile"])
            #expect(percentile["state_topic"] as? String == "breeze/home/pollen/\(type)/percentile")
            #expect(percentile["value_template"] as? String == HomeAssistantDiscovery.percentileTemplate)
            #expect(
                percentile["unit_of_measurement"] as? String == "%"
                    && percentile["state_class"] as? String == "measurement")
            let start = try #require(comps["pollen_\(type)_season_start"])
            #expect(start["state_topic"] as? String == "breeze/home/pollen/\(type)/season_start")
            #expect(start["device_class"] as? String == "date")
            #expect(start["value_template"] as? String == HomeAssistantDiscovery.dateTemplate)
        }
        #expect(comps["pollen_birch_percentile"] == nil)
        // Every component still has its qos.
        #expect(comps.values.allSatisfy { $0["qos"] as? Int == 1 })
    }

    @Test func googleLocationsAnnounceNoneOfThem() throws {
        let comps = try Self.components(hourly: false, profiles: [.init(id: "anna", name: "Anna")])
        #expect(
            comps.keys.filter {
                $0.contains("air_out") || $0.hasSuffix("_now") || $0.hasSuffix("_percentile")
                    || $0.hasSuffix("_season_start")
            }.isEmpty)
        #expect(comps["risk_anna"] != nil)
    }
}
