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

@testable import BreezeAgent
@testable import BreezeDaemon
@testable import BreezeConfig
import BreezeCore
import BreezeMQTT
import Testing

/// SPEC §12 "unbounded fan-out": one 3.6 MB response listing 20,000 plant codes became 320k
/// retained topics, a 15 MB discovery message and 407 MB of agent memory. Items per response
/// and topics per location are bounded now.
@Suite("Fan-out limits: items per response, topics per location")
struct FanOutLimitTests {
    /// A Google `forecast:lookup` body in the real shape (see the fixtures) with `plants` plant codes.
    static func googleBody(plants: Int) -> [UInt8] {
        var plantInfo: [String] = []
        plantInfo.reserveCapacity(plants)
        for n in 0..<plants {
            plantInfo.append(
                #"{"code":"PLANT_\#(n)","displayName":"Plant \#(n)","inSeason":true,"indexInfo":{"code":"UPI","displayName":"Universal Pollen Index","value":\#(n % 6),"category":"Low"}}"#
            )
        }
        let types = ["GRASS", "TREE", "WEED"].map {
            #"{"code":"\#($0)","displayName":"\#($0)","inSeason":true,"indexInfo":{"code":"UPI","displayName":"Universal Pollen Index","value":2,"category":"Low"}}"#
        }
        let body =
            #"{"regionCode":"DE","dailyInfo":[{"date":{"year":2026,"month":6,"day":15},"pollenTypeInfo":[\#(types.joined(separator: ","))],"plantInfo":[\#(plantInfo.joined(separator: ","))]}]}"#
        return Array(body.utf8)
    }

    @Test func aResponseWith20000PlantsKeepsTheTypesAndTheFirst61Plants() throws {
        let body = Self.googleBody(plants: 20_000)
        #expect(body.count > 3_000_000)
        let result = PollenFetch.interpret(.init(status: 200, body: body), source: .google, fetchedAt: 0)
        guard case .answer(let answer) = result, case .report(let report, _) = answer.outcome else {
            Issue.record("not a report: \(result)")
            return
        }
        let codes = report.days[0].items.map(\.code)
        #expect(codes.count == PollenReport.maximumItems)
        #expect(Array(codes.prefix(3)) == ["GRASS", "TREE", "WEED"])
        #expect(codes.last == "PLANT_60")
        #expect(
            report.warnings.contains(
                "pollen: the response lists 20003 items; the first 64 are published, 19939 dropped (at most 64 per response)"
            ))
    }

    @Test func theLimitKeepsTheSameCodesOnEveryDayAndNothingBelowIt() {
        let day1 = CivilDate(year: 2026, month: 6, day: 15)!
        let day2 = day1.adding(days: 1)
        let items = (0..<5).map { PollenItem(code: "P\($0)", name: "P\($0)", isPlant: true, value: 1) }
        let report = PollenReport(
            source: .google,
            days: [PollenDay(date: day1, items: items), PollenDay(date: day2, items: items.reversed())])
        let limited = report.limitingItems(to: 3)
        #expect(limited.days[0].items.map(\.code) == ["P0", "P1", "P2"])
        #expect(limited.days[1].items.map(\.code) == ["P2", "P1", "P0"])
        #expect(limited.warnings.count == 1)
        #expect(report.limitingItems(to: 5) == report)
        // Nothing dropped: each day keeps its own array, not a filtered copy with grown capacity
        // (a location holds its report until the next fetch).
        func storage(_ items: [PollenItem]) -> UnsafePointer<PollenItem>? {
            items.withUnsafeBufferPointer(\.baseAddress)
        }
        let kept = report.limitingItems(to: 5)
        for (day, original) in zip(kept.days, report.days) { #expect(storage(day.items) == storage(original.items)) }
        #expect(storage(limited.days[0].items) != storage(report.days[0].items))
    }

    @Test func aLocationOverTheTopicLimitKeepsWhatIsPublishedAndLogsOnce() throws {
        // An uncapped report injected straight into the state (the decoder would cap it):
        // 200 items over 5 days are about 3,200 pollen topics.
        var (state, _) = DaemonStateTests.started(
            try DaemonStateTests.config(pollen: "api_key: test-key-123456, days: 5"))
        let day = CivilDate(year: 2026, month: 6, day: 15)!
        let items = (0..<200).map { PollenItem(code: "P\($0)", name: "P\($0)", isPlant: true, value: 2) }
        let report = PollenReport(
            source: .google, days: (0..<5).map { PollenDay(date: day.adding(days: $0), items: items) })
        let now = DaemonStateTests.t0 + 8
        let outcome = FetchOutcome.answer(
            .pollen,
            PollenAnswer(
                source: .google, outcome: .report(report, body: []),
                fetchedAt: DaemonInstant(unixSeconds: now)))
        var actions = state.handle(.fetched(DaemonStateTests.pollenKey, outcome), at: DaemonStateTests.at(now))
        let pollen = DaemonStateTests.scopes(actions).first { $0.prefix == "breeze/home/pollen" }
        #expect(pollen != nil && pollen?.tree == nil)
        #expect(
            DaemonStateTests.logs(actions, .error) == [
                "home: more than 2000 topics; not updating breeze/home/pollen (what is published there stays)"
            ])
        // The discovery config still fits and is updated.
        #expect(DaemonStateTests.scopes(actions).contains { $0.prefix.hasPrefix("homeassistant/") && $0.tree != nil })
        // A full update (a reconnect rebuilds every scope) logs it no second time.
        actions = state.handle(.mqtt(.connected), at: DaemonStateTests.at(now + 1))
        #expect(DaemonStateTests.scopes(actions).contains { $0.prefix == "breeze/home/pollen" && $0.tree == nil })
        #expect(DaemonStateTests.logs(actions, .error).isEmpty)
    }
}
