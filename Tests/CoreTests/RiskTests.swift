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

/// A selection of `days` consecutive days from 2026-04-01 with the given values per item code.
func riskSelection(_ values: [[String: Int?]], fetchedAt: Int64 = 0, now: Int64 = 0) -> PollenSelection {
    let start = date(2026, 4, 1)
    let codes = ["GRASS", "TREE", "WEED", "BIRCH", "ALDER", "RAGWEED"]
    let report = PollenReport(
        source: .google, region: "DE",
        days: values.enumerated().map { n, day in
            PollenDay(
                date: start.adding(days: n),
                items: codes.map { code in
                    PollenItem(
                        code: code, name: String(code.prefix(1)) + code.dropFirst().lowercased(),
                        isPlant: !["GRASS", "TREE", "WEED"].contains(code),
                        value: day[code] ?? nil)
                })
        })
    return PollenSelection.select(
        report: report, today: start, days: values.count, fetchedAt: fetchedAt, now: now, stale: false)
}

func profile(_ allergens: [String], alert: PollenLevel = .high, id: String = "anna") -> RiskProfile {
    RiskProfile(id: id, name: "Anna", allergens: allergens, alertLevel: alert)
}

@Suite("Risk profiles")
struct RiskTests {
    @Test func highestAllergenDrives() {
        let selection = riskSelection([["GRASS": 2, "BIRCH": 4, "TREE": 4, "RAGWEED": 1]])
        let risk = RiskAssessment.evaluate(profile: profile(["grass", "birch", "ragweed"]), selection: selection)
        #expect(risk.today.value == 4 && risk.today.driver == "birch" && risk.today.driverName == "Birch")
        #expect(risk.today.level == .high)
        #expect(risk.alert)
    }

    /// Ties go to the allergen listed first in the profile, whatever the response order.
    @Test(arguments: [
        (["grass", "birch"], "grass"), (["birch", "grass"], "birch"), (["ragweed", "birch", "grass"], "birch"),
        (["tree", "birch"], "tree"), (["birch", "tree"], "birch"),
    ])
    func tiesGoToTheFirstListed(allergens: [String], driver: String) {
        let selection = riskSelection([["GRASS": 3, "TREE": 3, "BIRCH": 3, "RAGWEED": 2]])
        let risk = RiskAssessment.evaluate(profile: profile(allergens), selection: selection)
        #expect(risk.today.driver == driver)
        #expect(risk.today.value == 3)
    }

    @Test func unknownAllergensAreIgnored() {
        let selection = riskSelection([["GRASS": nil, "BIRCH": 1, "RAGWEED": nil]])
        let risk = RiskAssessment.evaluate(profile: profile(["grass", "ragweed", "birch"]), selection: selection)
        #expect(risk.today.driver == "birch" && risk.today.value == 1 && risk.today.level == .low)
    }

    @Test func allUnknownIsUnknownWithoutAlert() {
        let selection = riskSelection([["GRASS": nil, "BIRCH": nil, "TREE": 5]])
        let risk = RiskAssessment.evaluate(profile: profile(["grass", "birch"], alert: .low), selection: selection)
        #expect(risk.today.value == nil && risk.today.driver == nil && risk.today.level == .unknown)
        #expect(!risk.alert)
        let tree = RiskTopics.tree(topics: TopicLayout(prefix: "breeze").location("home"), assessment: risk)
        #expect(tree["breeze/home/risk/anna/level"] == "Unknown")
        #expect(tree["breeze/home/risk/anna/color"] == "#8e8e93")
        #expect(tree["breeze/home/risk/anna/alert"] == "false")
        #expect(
            tree["breeze/home/risk/anna"]
                == ##"{"level":"Unknown","value":null,"color":"#8e8e93","driver":null,"##
                + ##""days":[{"date":"2026-04-01","level":"Unknown","value":null,"color":"#8e8e93","driver":null}],"##
                + #""name":"Anna","alert":false,"alert_level":"Low"}"#)
    }

    /// An allergen the source never lists is ignored and reported for the start-up warning.
    @Test func unlistedAllergens() {
        let selection = riskSelection([["GRASS": 2]])
        let anna = profile(["japanese_cedar", "grass", "olive"])
        let risk = RiskAssessment.evaluate(profile: anna, selection: selection)
        #expect(risk.today.driver == "grass")
        #expect(anna.unlistedAllergens(in: selection) == ["japanese_cedar", "olive"])
        #expect(profile(["grass", "birch"]).unlistedAllergens(in: selection).isEmpty)
    }

    /// `alert` is level ≥ alert_level, on every edge; None (zero pollen) is below Low.
    @Test(arguments: [
        (0, PollenLevel.low, false), (1, .low, true), (1, .moderate, false), (2, .moderate, true),
        (3, .moderate, true), (3, .high, false), (4, .high, true), (5, .high, true), (4, .veryHigh, false),
        (5, .veryHigh, true), (0, .veryHigh, false),
    ])
    func alertEdges(value: Int, threshold: PollenLevel, alert: Bool) {
        let selection = riskSelection([["BIRCH": value]])
        let risk = RiskAssessment.evaluate(profile: profile(["birch"], alert: threshold), selection: selection)
        #expect(risk.alert == alert)
        let tree = RiskTopics.tree(topics: TopicLayout(prefix: "p").location("l"), assessment: risk)
        #expect(tree["p/l/risk/anna/alert"] == (alert ? "true" : "false"))
    }

    @Test func reachesOrder() {
        #expect(!RiskAssessment.reaches(.unknown, .low))
        #expect(RiskAssessment.reaches(.veryHigh, .low))
        #expect(!RiskAssessment.reaches(.none, .low))
        #expect(RiskProfile.alertLevels == [.low, .moderate, .high, .veryHigh])
    }

    @Test func forecastDays() {
        let selection = riskSelection([
            ["GRASS": 1, "BIRCH": 2], ["GRASS": 4, "BIRCH": 2], ["GRASS": nil, "BIRCH": nil], ["GRASS": 0, "BIRCH": 0],
        ])
        let risk = RiskAssessment.evaluate(profile: profile(["birch", "grass"]), selection: selection)
        #expect(risk.days.map(\.date) == (0..<4).map { date(2026, 4, 1).adding(days: $0) })
        #expect(risk.days.map(\.value) == [2, 4, nil, 0])
        #expect(risk.days.map(\.driver) == ["birch", "grass", nil, "birch"])
        #expect(risk.days.map(\.level) == [.moderate, .high, .unknown, .none])
        #expect(!risk.alert)  // today is Moderate, tomorrow's High does not count
        let json = RiskTopics.json(risk)
        #expect(
            json.serialized
                == ##"{"level":"Moderate","value":2,"color":"#ff9500","driver":"birch","days":["##
                + ##"{"date":"2026-04-01","level":"Moderate","value":2,"color":"#ff9500","driver":"birch"},"##
                + ##"{"date":"2026-04-02","level":"High","value":4,"color":"#ff3b30","driver":"grass"},"##
                + ##"{"date":"2026-04-03","level":"Unknown","value":null,"color":"#8e8e93","driver":null},"##
                + ##"{"date":"2026-04-04","level":"None","value":0,"color":"#34c759","driver":"birch"}],"##
                + #""name":"Anna","alert":false,"alert_level":"High"}"#)
    }

    /// After 24 h the forecast days are Unknown (selection freshness), so is their risk; after 48 h
    /// today is Unknown too and the alert goes off.
    @Test func freshness() {
        let values: [[String: Int?]] = [["BIRCH": 5], ["BIRCH": 5]]
        let day: Int64 = 86_400
        let fresh = RiskAssessment.evaluate(
            profile: profile(["birch"]), selection: riskSelection(values, fetchedAt: 0, now: day - 1))
        #expect(fresh.days.map(\.value) == [5, 5] && fresh.alert)
        let old = RiskAssessment.evaluate(
            profile: profile(["birch"]), selection: riskSelection(values, fetchedAt: 0, now: day))
        #expect(old.days.map(\.value) == [5, nil] && old.alert)
        let gone = RiskAssessment.evaluate(
            profile: profile(["birch"]), selection: riskSelection(values, fetchedAt: 0, now: 2 * day))
        #expect(gone.days.map(\.value) == [nil, nil] && !gone.alert)
    }

    @Test func paletteApplies() {
        let custom = PollenPalette(high: HexColor(hex: "#123456")!)
        let risk = RiskAssessment.evaluate(profile: profile(["birch"]), selection: riskSelection([["BIRCH": 4]]))
        let tree = RiskTopics.tree(topics: TopicLayout(prefix: "p").location("l"), assessment: risk, palette: custom)
        #expect(tree["p/l/risk/anna/color"] == "#123456")
        #expect(tree["p/l/risk/anna/level"] == "High")
    }

    @Test func severalProfiles() {
        let selection = riskSelection([["GRASS": 3, "BIRCH": 1]])
        let tree = RiskTopics.tree(
            topics: TopicLayout(prefix: "breeze").location("home"),
            profiles: [profile(["grass"], id: "anna"), profile(["birch"], alert: .low, id: "ben")],
            selection: selection)
        #expect(tree.count == 8)
        #expect(tree["breeze/home/risk/anna/level"] == "Moderate" && tree["breeze/home/risk/anna/alert"] == "false")
        #expect(tree["breeze/home/risk/ben/level"] == "Low" && tree["breeze/home/risk/ben/alert"] == "true")
        #expect(
            tree.topics == [
                "breeze/home/risk/anna", "breeze/home/risk/anna/level", "breeze/home/risk/anna/color",
                "breeze/home/risk/anna/alert", "breeze/home/risk/ben", "breeze/home/risk/ben/level",
                "breeze/home/risk/ben/color", "breeze/home/risk/ben/alert",
            ])
    }

    /// Real responses: Open-Meteo (Brno) and Google (Germany), through the real decoders.
    @Test func onRealOpenMeteoReport() throws {
        let report = try openMeteoReport(try PollenFixtures.bytes(PollenFixtures.brno))
        let selection = PollenSelection.select(
            report: report, today: date(2026, 10, 1), days: 5, fetchedAt: 1_790_830_000, now: 1_790_830_000,
            stale: false)
        // Mugwort and ragweed are both 1 today: the first listed wins.
        let weeds = RiskAssessment.evaluate(profile: profile(["ragweed", "mugwort"]), selection: selection)
        #expect(weeds.today.driver == "ragweed" && weeds.today.value == 1)
        // Tomorrow ragweed is 0, mugwort 1.
        #expect(weeds.days[1].driver == "mugwort" && weeds.days[1].value == 1)
        #expect(weeds.days.count == 4)  // Open-Meteo serves today + 3
        let reversed = RiskAssessment.evaluate(profile: profile(["mugwort", "ragweed"]), selection: selection)
        #expect(reversed.today.driver == "mugwort")
        #expect(profile(["birch", "japanese_cedar"]).unlistedAllergens(in: selection) == ["japanese_cedar"])
    }

    @Test func onRealGoogleReport() throws {
        let outcome = GooglePollen.interpret(
            httpStatus: 200, body: try PollenFixtures.bytes(PollenFixtures.germany))
        guard case .report(let report) = outcome else {
            Issue.record("expected a report, got \(outcome)")
            return
        }
        let today = try #require(report.days.first?.date)
        let selection = PollenSelection.select(
            report: report, today: today, days: 5, fetchedAt: 0, now: 0, stale: false)
        let ids = selection.items.map(\.topicID)
        let valued = selection.items.filter { $0.value != nil }
        let top = try #require(valued.max { ($0.value ?? 0) < ($1.value ?? 0) })
        let risk = RiskAssessment.evaluate(profile: profile(ids), selection: selection)
        #expect(risk.today.value == top.value)
        // The driver is the first item (in profile order) carrying the top value.
        #expect(risk.today.driver == ids.first { id in selection.items.first { $0.topicID == id }?.value == top.value })
        #expect(risk.days.count == selection.days.count)
    }
}

extension RiskProfile {
    /// The allergens the selection never lists (a source may list a plant only in season;
    /// Open-Meteo never lists Google-only plants): what the tests check a profile against.
    func unlistedAllergens(in selection: PollenSelection) -> [String] {
        let listed = Set(selection.days.flatMap { $0.items.map(\.topicID) })
        return allergens.filter { !listed.contains($0) }
    }
}
