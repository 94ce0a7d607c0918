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

/// The DWD's Pollenflug-Gefahrenindex (docs/reference.md, "DWD"): the real document, the index
/// table, Berlin's calendar days, the 48 h freshness, the bounds and the region rule.
@Suite("DWD pollen: document, index table, days, regions")
struct DWDPollenTests {
    /// A real `s31fg.json`: thorin-eifel/maps `tests/fixtures/dwd_s31fg.json` at 52c863ef
    /// (issued 2026-09-29 11:00 Berlin time, 27 regions, 8 species).
    static let realDocument = "thorin-eifel-maps__dwd_s31fg.json"

    /// A document of one region written in a test: Hasel's three days and Erle's today.
    static func document(
        lastUpdate: String = "2026-09-29 11:00 Uhr", next: String = "2026-09-30 11:00 Uhr",
        hasel: (String, String, String) = ("1", "2", "3"), partregion: Int = -1, region: Int = 50
    ) -> [UInt8] {
        utf8(
            """
            {"last_update":"\(lastUpdate)","next_update":"\(next)","content":[{"region_id":\(region),\
            "region_name":"Brandenburg und Berlin","partregion_id":\(partregion),"partregion_name":"",\
            "Pollen":{"Hasel":{"today":"\(hasel.0)","tomorrow":"\(hasel.1)","dayafter_to":"\(hasel.2)"},\
            "Erle":{"today":"-1","tomorrow":"0","dayafter_to":"0"}}}]}
            """)
    }

    @Test("every index string: value, level, 0–3 in half steps, the German words; -1 and the rest no data")
    func indexTable() {
        let table: [(String?, Int?, PollenLevel, String?, String?)] = [
            ("0", 0, .none, "0", "keine Belastung"),
            ("0-1", 1, .low, "0.5", "keine bis geringe Belastung"),
            ("1", 1, .low, "1", "geringe Belastung"),
            ("1-2", 2, .moderate, "1.5", "geringe bis mittlere Belastung"),
            ("2", 3, .moderate, "2", "mittlere Belastung"),
            ("2-3", 4, .high, "2.5", "mittlere bis hohe Belastung"),
            ("3", 4, .high, "3", "hohe Belastung"),
            ("-1", nil, .unknown, nil, nil),
            (nil, nil, .unknown, nil, nil),
            ("4", nil, .unknown, nil, nil),
            ("", nil, .unknown, nil, nil),
        ]
        for (text, value, level, dwd, words) in table {
            let index = DWDPollen.Index(text)
            #expect(index.value == value, "\(String(describing: text))")
            #expect(PollenLevel(value: index.value) == level, "\(String(describing: text))")
            #expect(index.dwdValueText == dwd, "\(String(describing: text))")
            #expect(index.description == words, "\(String(describing: text))")
        }
    }

    @Test("the real document: 27 regions, 20 and 50 by region id, Berlin time to UTC")
    func realDocument() throws {
        let berlin = try zoneInfo("Europe/Berlin")
        let document = try DWDPollen.decode(try PollenFixtures.bytes(Self.realDocument), berlin: berlin)
        #expect(document.rows.count == 27)
        #expect(document.lastUpdate == utc(2026, 9, 29, 9))
        #expect(document.nextUpdate == utc(2026, 9, 30, 9))
        #expect(Set(document.rows.map(\.key)) == Set(DWDRegions.regions.map(\.key)))
        #expect(document.row(key: 50)?.regionName == "Brandenburg und Berlin")
        #expect(document.row(key: 20)?.regionName == "Mecklenburg-Vorpommern")
        #expect(document.row(key: 11)?.days["Graeser"]?.first?.text == "0-1")
        let report = try #require(DWDPollen.report(document, key: 50, now: utc(2026, 9, 29, 12), berlin: berlin))
        #expect(report.source == .dwd)
        #expect(report.days.map(\.date.description) == ["2026-09-29", "2026-09-30", "2026-10-01"])
        let hazel = try #require(report.days[0].items.first { $0.code == "HAZEL" })
        #expect(hazel.value == 0)
        #expect(hazel.indexCategory == "0")
        #expect(hazel.source == .dwd)
        #expect(hazel.dwdRegion == 50)
        #expect(
            report.days[0].items.map(\.code) == [
                "TREE", "GRASS", "WEED", "HAZEL", "ALDER", "ASH", "BIRCH", "GRAMINALES", "RYE", "MUGWORT", "RAGWEED",
            ])
    }

    @Test("last_update across DST: 11:00 is 09:00 UTC in summer time, 10:00 UTC in winter time")
    func daylightSaving() throws {
        let berlin = try zoneInfo("Europe/Berlin")
        let summer = try DWDPollen.decode(Self.document(lastUpdate: "2026-10-24 11:00 Uhr"), berlin: berlin)
        let winter = try DWDPollen.decode(Self.document(lastUpdate: "2026-10-25 11:00 Uhr"), berlin: berlin)
        let spring = try DWDPollen.decode(Self.document(lastUpdate: "2026-03-29 11:00 Uhr"), berlin: berlin)
        #expect(summer.lastUpdate == utc(2026, 10, 24, 9))
        #expect(winter.lastUpdate == utc(2026, 10, 25, 10))
        #expect(spring.lastUpdate == utc(2026, 3, 29, 9))
        #expect(throws: DWDPollen.DecodeError.self) {
            try DWDPollen.decode(Self.document(lastUpdate: "2026-10-25T11:00"), berlin: berlin)
        }
    }

    @Test("at Berlin midnight a document not yet replaced shifts by one day")
    func berlinMidnightShift() throws {
        let berlin = try zoneInfo("Europe/Berlin")
        let document = try DWDPollen.decode(Self.document(), berlin: berlin)
        func hazel(_ now: Int64) throws -> [Int?] {
            let report = try #require(DWDPollen.report(document, key: 50, now: now, berlin: berlin))
            return report.days.map { day in day.items.first { $0.code == "HAZEL" }?.value }
        }
        // 23:59 Berlin (21:59 UTC): the document's own today.
        #expect(try hazel(utc(2026, 9, 29, 21, 59)) == [1, 3, 4])
        // 00:00 Berlin (22:00 UTC the day before): tomorrow is today; the third day unknown.
        #expect(try hazel(utc(2026, 9, 29, 22, 0)) == [3, 4, nil])
        let shifted = try #require(DWDPollen.report(document, key: 50, now: utc(2026, 9, 29, 22), berlin: berlin))
        #expect(shifted.days.first?.date.description == "2026-09-30")
    }

    @Test("fresh for 48 h after last_update, then every day Unknown")
    func staleAfter48Hours() throws {
        let berlin = try zoneInfo("Europe/Berlin")
        let document = try DWDPollen.decode(Self.document(), berlin: berlin)
        let issued = utc(2026, 9, 29, 9)
        let edge = try #require(DWDPollen.report(document, key: 50, now: issued + 48 * 3600, berlin: berlin))
        #expect(edge.days[0].items.first { $0.code == "HAZEL" }?.value == 4)
        let stale = try #require(DWDPollen.report(document, key: 50, now: issued + 48 * 3600 + 1, berlin: berlin))
        #expect(stale.days.allSatisfy { day in day.items.allSatisfy { $0.value == nil } })
    }

    @Test("-1 is no data; a type is the highest known member; a missing region has no report")
    func noDataAndTypes() throws {
        let berlin = try zoneInfo("Europe/Berlin")
        let document = try DWDPollen.decode(Self.document(hasel: ("-1", "0-1", "-1")), berlin: berlin)
        let report = try #require(DWDPollen.report(document, key: 50, now: utc(2026, 9, 29, 12), berlin: berlin))
        func item(_ day: Int, _ code: String) -> PollenItem? { report.days[day].items.first { $0.code == code } }
        #expect(item(0, "HAZEL")?.value == nil)
        #expect(item(0, "TREE")?.value == nil)  // hazel and alder both -1, the rest missing
        #expect(item(1, "TREE")?.value == 1)  // hazel 0-1, alder 0
        #expect(item(1, "GRASS")?.value == nil)
        #expect(report.warnings.isEmpty)
        #expect(DWDPollen.report(document, key: 121, now: utc(2026, 9, 29, 12), berlin: berlin) == nil)
    }

    @Test("bounds: a truncated body, a body over 256 KB, too many regions are refused")
    func bounds() throws {
        let berlin = try zoneInfo("Europe/Berlin")
        let real = try PollenFixtures.bytes(Self.realDocument)
        #expect(throws: DWDPollen.DecodeError.self) { try DWDPollen.decode(Array(real.prefix(4000)), berlin: berlin) }
        let big =
            utf8(#"{"last_update":"2026-09-29 11:00 Uhr","content":[],"pad":""#)
            + Array(repeating: 0x61, count: 300_000)
            + utf8(#""}"#)
        do {
            _ = try DWDPollen.decode(big, berlin: berlin)
            Issue.record("a 300 KB body was read")
        } catch {
            #expect(error.description.contains("more than 262144"))
        }
        let row = #"{"region_id":50,"partregion_id":-1,"Pollen":{}}"#
        let many = utf8(
            #"{"last_update":"2026-09-29 11:00 Uhr","content":["#
                + Array(repeating: row, count: 65).joined(separator: ",") + "]}")
        #expect(throws: DWDPollen.DecodeError.self) { try DWDPollen.decode(many, berlin: berlin) }
    }

    @Test("regions: Berlin 50, Rostock 20, Munich 121 from the coordinates; Paris and Vienna none")
    func regions() {
        #expect(DWDRegions.nearest(latitude: 52.52, longitude: 13.405)?.key == 50)
        #expect(DWDRegions.nearest(latitude: 54.09, longitude: 12.13)?.key == 20)
        #expect(DWDRegions.nearest(latitude: 48.137, longitude: 11.575)?.key == 121)
        #expect(DWDRegions.nearest(latitude: 48.85, longitude: 2.35) == nil)
        #expect(DWDRegions.nearest(latitude: 48.21, longitude: 16.37) == nil)
        #expect(DWDRegions.regions.count == 27)
        #expect(DWDRegions.region(key: 20)?.name == "Mecklenburg-Vorpommern")
        #expect(DWDRegions.region(key: 50)?.name == "Brandenburg und Berlin")
        // Every region's own town is inside the outline and nearest to its own region (Westerland,
        // on Sylt, was outside the first outline: a user there got no DWD).
        for region in DWDRegions.regions {
            #expect(
                DWDRegions.nearest(latitude: region.latitude, longitude: region.longitude)?.key == region.key,
                "\(region.town)")
        }
        // The islands: List (Sylt), Wyk (Föhr), Burg (Fehmarn), Borkum, Sassnitz (Rügen).
        for (lat, lon) in [(55.02, 8.43), (54.69, 8.57), (54.44, 11.19), (53.59, 6.67), (54.52, 13.64)] {
            #expect(DWDRegions.isInGermany(latitude: lat, longitude: lon), "\(lat), \(lon)")
        }
        // Just across the border: Tønder (DK), Strasbourg (FR), Basel (CH), Salzburg (AT), Szczecin (PL).
        for (lat, lon) in [(54.93, 8.87), (48.58, 7.75), (47.56, 7.59), (47.80, 13.04), (53.43, 14.55)] {
            #expect(!DWDRegions.isInGermany(latitude: lat, longitude: lon), "\(lat), \(lon)")
        }
    }

    @Test("re-ask: at next_update when ahead, else every 15 minutes; an HTTP date for If-Modified-Since")
    func cadence() throws {
        let berlin = try zoneInfo("Europe/Berlin")
        let document = try DWDPollen.decode(Self.document(), berlin: berlin)
        #expect(
            DWDPollen.nextAsk(after: utc(2026, 9, 29, 12), document: document, changed: true) == utc(2026, 9, 30, 9))
        #expect(
            DWDPollen.nextAsk(after: utc(2026, 9, 30, 9, 1), document: document, changed: false)
                == utc(2026, 9, 30, 9, 16))
        #expect(DWDPollen.httpDate(unixSeconds: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(DWDPollen.httpDate(unixSeconds: utc(2026, 12, 6, 15, 5)) == "Sun, 06 Dec 2026 15:05:00 GMT")
    }

    @Test("merged: the first source's items stay, the DWD's new ones are added with their source")
    func merging() throws {
        let berlin = try zoneInfo("Europe/Berlin")
        let document = try DWDPollen.decode(Self.document(), berlin: berlin)
        let dwd = try #require(DWDPollen.report(document, key: 50, now: utc(2026, 9, 29, 12), berlin: berlin))
        let day = CivilDate(year: 2026, month: 9, day: 29)!
        let openMeteo = PollenReport(
            source: .openMeteo,
            days: [
                PollenDay(
                    date: day,
                    items: [
                        PollenItem(code: "TREE", name: "Tree", isPlant: false, value: 2),
                        PollenItem(code: "ALDER", name: "Alder", isPlant: true, category: "TREE", value: 2),
                    ])
            ])
        let merged = openMeteo.merging(dwd)
        let items = merged.days[0].items
        #expect(items.first { $0.code == "TREE" }?.value == 2)
        #expect(items.first { $0.code == "TREE" }?.source == nil)
        #expect(items.first { $0.code == "HAZEL" }?.value == 1)
        #expect(items.first { $0.code == "HAZEL" }?.source == .dwd)
        #expect(items.filter { $0.code == "ALDER" }.count == 1)
        let topics = TopicLayout(prefix: "breeze").location("home")
        let tree = PollenTopics.tree(
            topics: topics, report: merged, today: day, days: 3, fetchedAt: utc(2026, 9, 29, 10),
            now: utc(2026, 9, 29, 12), stale: false)
        let hazel = try #require(tree[topics.pollenItem("hazel")])
        #expect(hazel.contains(#""source":"dwd""#))
        #expect(hazel.contains(#""dwd_index":"1""#))
        #expect(hazel.contains(#""dwd_value":1"#))
        #expect(hazel.contains(#""index_description":"geringe Belastung""#))
        #expect(hazel.contains(#""region":50"#))
        #expect(try #require(tree[topics.pollenItem("tree")]).contains(#""source":"open-meteo""#))
    }
}
