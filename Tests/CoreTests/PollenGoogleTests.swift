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

/// Decodes a Google body that must succeed as data.
func googleReport(_ body: [UInt8]) throws -> PollenReport {
    let outcome = GooglePollen.interpret(httpStatus: 200, body: body)
    guard case .report(let report) = outcome else {
        Issue.record("expected a report, got \(outcome)")
        throw CancellationError()
    }
    return report
}

/// A one-day Google body with GRASS carrying `indexInfo` (as JSON text) and a plain TREE/WEED.
func oneDay(grassIndex: String, extraPlant: String = "") -> [UInt8] {
    utf8(
        """
        {"regionCode":"DE","dailyInfo":[{"date":{"year":2025,"month":8,"day":3},
        "pollenTypeInfo":[{"code":"GRASS","displayName":"Grass","indexInfo":\(grassIndex)},
        {"code":"TREE","displayName":"Tree"},{"code":"WEED","displayName":"Weed"}],
        "plantInfo":[\(extraPlant)]}]}
        """)
}

extension PollenReport {
    func item(_ code: String, day: Int = 0) -> PollenItem? { days[day].items.first { $0.code == code } }
}

@Suite("Google pollen decode")
struct PollenGoogleDecodeTests {
    @Test func germanyFiveDays() throws {
        let report = try googleReport(try PollenFixtures.bytes(PollenFixtures.germany))
        #expect(report.source == .google)
        #expect(report.region == "DE")
        #expect(report.days.map(\.date) == (3...7).map { date(2025, 8, $0) })
        #expect(report.warnings.isEmpty)
        let codes = report.days[0].items.map(\.code)
        #expect(
            codes == [
                "GRASS", "TREE", "WEED", "HAZEL", "ASH", "COTTONWOOD", "OAK", "PINE", "BIRCH", "OLIVE",
                "GRAMINALES", "RAGWEED", "ALDER", "MUGWORT",
            ])
        let grass = try #require(report.item("GRASS"))
        #expect(grass.value == 2)
        #expect(grass.level == .moderate)
        #expect(grass.inSeason == false)  // inSeason:false does not mean "no index"
        #expect(grass.isPlant == false)
        #expect(grass.category == "GRASS")
        #expect(grass.indexCategory == "Low")
        #expect(grass.indexDescription == "People with high allergy to pollen are likely to experience symptoms")
        #expect(grass.indexColor?.description == "#84cf33")
        #expect(grass.healthRecommendations?.count == 2)
        #expect(grass.imageURL == nil && grass.family == nil && grass.grainsPerCubicMetre == nil)
        let tree = try #require(report.item("TREE"))
        #expect(tree.value == nil && tree.level == .unknown && tree.inSeason == nil && tree.isMalformed == false)
        #expect(tree.name == "Tree")
        let weed = try #require(report.item("WEED"))
        #expect(weed.value == 1 && weed.indexColor?.description == "#009e3a")
        let graminales = try #require(report.item("GRAMINALES"))
        #expect(graminales.isPlant)
        #expect(graminales.name == "Grasses")
        #expect(graminales.category == "GRASS")
        #expect(graminales.family == "Poaceae")
        #expect(graminales.season == "Late spring, summer")
        #expect(graminales.appearance?.hasPrefix("The leaves are alternate, long and narrow") == true)
        #expect(graminales.appearance?.hasSuffix(" None") == true)  // specialColors "None" joined by a space
        #expect(graminales.imageURL == "https://storage.googleapis.com/pollen-pictures/graminales_full.jpg")
        #expect(graminales.imageCloseupURL == "https://storage.googleapis.com/pollen-pictures/graminales_closeup.jpg")
        #expect(graminales.crossReaction?.hasPrefix("Plantain") == true)
        #expect(graminales.healthRecommendations == nil)
        let hazel = try #require(report.item("HAZEL"))
        #expect(hazel.value == nil && hazel.category == nil && hazel.family == nil)
        // Days 4 and 5 come back with code + displayName only: Unknown, not errors.
        for day in 3...4 {
            #expect(report.days[day].items.count == 14)
            #expect(report.days[day].items.allSatisfy { $0.value == nil && !$0.isMalformed })
        }
    }

    @Test func spainLocalizedWithIntegerColor() throws {
        let report = try googleReport(try PollenFixtures.bytes(PollenFixtures.spain))
        #expect(report.region == "ES")
        #expect(report.days.map(\.date) == (13...17).map { date(2026, 6, $0) })
        let grass = try #require(report.item("GRASS"))
        #expect(grass.name == "Gramíneas")
        #expect(grass.value == 3 && grass.level == .moderate)
        #expect(grass.indexCategory == "Moderado")
        #expect(grass.indexColor?.description == "#ffff00")  // {"green": 1, "red": 1}: ints, blue missing
        #expect(grass.healthRecommendations?.count == 5)
        #expect(report.item("TREE")?.value == 1)
        #expect(report.item("WEED")?.value == nil)
        // PINE has data on day 1 and none on day 2.
        #expect(report.item("PINE", day: 0)?.value == 1)
        #expect(report.item("PINE", day: 1)?.value == nil)
        #expect(report.item("PINE", day: 0)?.category == "TREE")
        #expect(report.days[4].items.allSatisfy { $0.value == nil })
        #expect(report.item("RAGWEED")?.name == "Ambrosía")
    }

    @Test func unitedStatesOneDay() throws {
        let report = try googleReport(try PollenFixtures.bytes(PollenFixtures.unitedStates))
        #expect(report.region == "US")
        #expect(report.days.count == 1)
        let plants = report.days[0].items.filter(\.isPlant).map(\.code)
        #expect(
            plants == [
                "MAPLE", "ELM", "COTTONWOOD", "ALDER", "BIRCH", "ASH", "PINE", "OAK", "JUNIPER",
                "GRAMINALES", "RAGWEED",
            ])
        #expect(report.item("JUNIPER")?.value == nil)
        #expect(report.item("RAGWEED")?.value == 1)
        #expect(report.item("RAGWEED")?.category == "WEED")
        #expect(report.item("RAGWEED")?.inSeason == true)
    }

    @Test func israelEveryPlantField() throws {
        let report = try googleReport(try PollenFixtures.bytes(PollenFixtures.israel))
        #expect(report.region == "IL")
        #expect(report.days[0].items.map(\.code) == ["GRASS", "BIRCH"])
        let birch = try #require(report.item("BIRCH"))
        #expect(birch.name == "Birch")
        #expect(birch.inSeason == false)
        #expect(birch.value == 1)
        #expect(birch.category == "TREE")
        #expect(birch.family == "Betulaceae (the Birch family)")
        #expect(birch.season == "Late winter, spring")
        #expect(
            birch.appearance
                == "Birch leaves are often triangular with jagged edges. The bark on most birch trees has horizontal "
                + "dark streaks that look like scoring. Birch tree bark is also well-known for its paper-like texture "
                + "and peeling nature. The bark is usually whitish-gray, silver, or sometimes red.")
        #expect(birch.crossReaction?.hasPrefix("Alder, Hazel, Hornbeam") == true)
        #expect(birch.imageURL == "https://storage.googleapis.com/pollen-pictures/birch_full.jpg")
        #expect(birch.imageCloseupURL == "https://storage.googleapis.com/pollen-pictures/birch_closeup.jpg")
        #expect(birch.indexCategory == "Very Low")
        #expect(birch.indexColor == HexColor(red: 0, green: 158, blue: 58))
    }

    @Test func missingValueInsidePresentIndexIsZero() throws {
        let report = try googleReport(oneDay(grassIndex: #"{"code":"UPI","category":"None"}"#))
        let grass = try #require(report.item("GRASS"))
        #expect(grass.value == 0)
        #expect(grass.level == .none)
        #expect(grass.isMalformed == false)
        #expect(report.warnings.isEmpty)
    }

    @Test(arguments: [(4, PollenLevel.high), (5, .veryHigh), (0, .none), (1, .low), (2, .moderate), (3, .moderate)])
    func integerValues(value: Int, level: PollenLevel) throws {
        let report = try googleReport(oneDay(grassIndex: #"{"value":\#(value)}"#))
        #expect(report.item("GRASS")?.value == value)
        #expect(report.item("GRASS")?.level == level)
        #expect(report.warnings.isEmpty)
    }

    @Test func valueAboveFiveIsClampedWithWarning() throws {
        let report = try googleReport(oneDay(grassIndex: #"{"value":7}"#))
        #expect(report.item("GRASS")?.value == 5)
        #expect(report.item("GRASS")?.level == .veryHigh)
        #expect(report.item("GRASS")?.isMalformed == false)
        #expect(report.warnings.count == 1)
        #expect(report.warnings.first?.contains("clamped") == true)
    }

    @Test(arguments: [#"-1"#, #"2.5"#, #""high""#, #"[1]"#])
    func malformedValueIsUnknownWithWarning(raw: String) throws {
        let plant = #"{"code":"BIRCH","displayName":"Birch","indexInfo":{"value":3}}"#
        let report = try googleReport(oneDay(grassIndex: #"{"value":\#(raw),"category":"x"}"#, extraPlant: plant))
        let grass = try #require(report.item("GRASS"))
        #expect(grass.value == nil)
        #expect(grass.isMalformed)
        #expect(grass.level == .unknown)
        #expect(grass.indexCategory == "x")
        #expect(report.warnings.count == 1)
        #expect(report.warnings.first?.contains("malformed") == true)
        // Nothing else is dropped.
        #expect(report.item("BIRCH")?.value == 3)
        #expect(report.days[0].items.count == 4)
    }

    @Test func integralFloatIsAnInteger() throws {
        let report = try googleReport(oneDay(grassIndex: #"{"value":2.0}"#))
        #expect(report.item("GRASS")?.value == 2)
        #expect(report.item("GRASS")?.isMalformed == false)
    }

    @Test func colors() throws {
        func color(_ json: String) throws -> HexColor? {
            try googleReport(oneDay(grassIndex: #"{"value":1,"color":\#(json)}"#)).item("GRASS")?.indexColor
        }
        #expect(try color("{}") == nil)  // empty color object: no color
        #expect(try color(#"{"red":1}"#)?.description == "#ff0000")
        #expect(try color(#"{"red":0.5176471,"green":0.8117647,"blue":0.2}"#)?.description == "#84cf33")
        #expect(try color(#"{"red":2,"green":-1,"blue":0.002}"#)?.description == "#ff0001")  // clamped; 0.51 → 1
        #expect(try color(#"{"blue":0.0019}"#)?.description == "#000000")  // round(0.48) = 0
        #expect(try color(#"{"blue":0.002}"#)?.description == "#000001")
        #expect(try color(#"{"green":1,"alpha":0.5}"#)?.description == "#00ff00")
        let none = try googleReport(oneDay(grassIndex: #"{"value":1}"#)).item("GRASS")
        #expect(none?.indexColor == nil)
    }

    @Test func unknownPlantCodeAndMissingRegion() throws {
        let body = utf8(
            """
            {"dailyInfo":[{"date":{"year":2030,"month":1,"day":2},
            "plantInfo":[{"code":"SUGI-2","displayName":"Sugi","inSeason":true,"indexInfo":{"value":4},
            "plantDescription":{"type":"TREE"}}]}]}
            """)
        let report = try googleReport(body)
        #expect(report.region == nil)
        let sugi = try #require(report.item("SUGI-2"))
        #expect(sugi.value == 4 && sugi.isPlant && sugi.category == "TREE" && sugi.appearance == nil)
        #expect(sugi.topicID == "sugi_2")
    }

    @Test func emptyDailyInfoIsUnsupported() {
        for body in [#"{"regionCode":"IN","dailyInfo":[]}"#, #"{"regionCode":"IN"}"#, "{}"] {
            guard case .unsupportedLocation = GooglePollen.interpret(httpStatus: 200, body: utf8(body)) else {
                Issue.record("expected unsupported for \(body)")
                continue
            }
        }
    }

    @Test func invalidJSONFails() {
        for body in ["", "{\"dailyInfo\":[", "[]", "{\"dailyInfo\":3}"] {
            guard case .failed = GooglePollen.interpret(httpStatus: 200, body: utf8(body)) else {
                Issue.record("expected failed for \(body)")
                continue
            }
        }
    }

    @Test func badEntriesAreSkippedNotFatal() throws {
        let body = utf8(
            """
            {"dailyInfo":[{"date":{"year":2025,"month":2,"day":30},"pollenTypeInfo":[]},
            {"date":{"year":2025,"month":3,"day":1},"pollenTypeInfo":[{"displayName":"No code"},7,
            {"code":"TREE","displayName":3,"inSeason":"yes","indexInfo":{"value":1}}]}]}
            """)
        let report = try googleReport(body)
        #expect(report.days.map(\.date) == [date(2025, 3, 1)])
        #expect(report.days[0].items.map(\.code) == ["TREE"])
        #expect(report.item("TREE")?.name == "TREE")  // wrong-typed displayName: the code stands in
        #expect(report.item("TREE")?.inSeason == nil)
        #expect(report.item("TREE")?.value == 1)
        #expect(report.warnings.count == 2)
    }

    @Test func typesAreOrderedGrassTreeWeed() throws {
        let body = utf8(
            """
            {"dailyInfo":[{"date":{"year":2025,"month":3,"day":1},"pollenTypeInfo":[
            {"code":"WEED","displayName":"Weed"},{"code":"FUNGUS","displayName":"Fungus"},
            {"code":"TREE","displayName":"Tree"},{"code":"GRASS","displayName":"Grass"}]}]}
            """)
        #expect(try googleReport(body).days[0].items.map(\.code) == ["GRASS", "TREE", "WEED", "FUNGUS"])
    }
}

@Suite("Google pollen errors")
struct PollenGoogleErrorTests {
    static let unsupported = #"""
        {"error":{"code":400,"message":"Information is unavailable for this location. Please try a different location.","status":"INVALID_ARGUMENT"}}
        """#
    static let badKey = #"""
        {"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT",
        "details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com",
        "metadata":{"service":"pollen.googleapis.com"}},{"@type":"type.googleapis.com/google.rpc.LocalizedMessage",
        "locale":"en-US","message":"API key not valid. Please pass a valid API key."}]}}
        """#
    static let expired =
        #"{"error":{"code":400,"message":"API key expired. Please renew the API key.","status":"INVALID_ARGUMENT"}}"#
    static let reasonOnly = #"{"error":{"code":400,"message":"Bad.","details":[{"reason":"API_KEY_INVALID"}]}}"#
    static let forbidden =
        #"{"error":{"code":403,"message":"The caller does not have permission","status":"PERMISSION_DENIED"}}"#
    static let quota =
        #"{"error":{"code":429,"message":"Quota exceeded for quota metric 'Requests'.","status":"RESOURCE_EXHAUSTED"}}"#
    static let otherBadRequest = #"{"error":{"code":400,"message":"Invalid days: 9","status":"INVALID_ARGUMENT"}}"#

    @Test func envelopeDecodes() throws {
        let error = try #require(GoogleAPIError.decode(utf8(Self.badKey)))
        #expect(error.code == 400)
        #expect(error.message == "API key not valid. Please pass a valid API key.")
        #expect(error.status == "INVALID_ARGUMENT")
        #expect(error.reasons == ["API_KEY_INVALID"])
        #expect(GoogleAPIError.decode(utf8("<html>Forbidden</html>")) == nil)
    }

    @Test(arguments: [
        (unsupported, 400, GoogleAPIError.Kind.unsupportedLocation),
        (badKey, 400, .keyRejected),
        (expired, 400, .keyRejected),
        (reasonOnly, 400, .keyRejected),
        (forbidden, 403, .keyRejected),
        (quota, 429, .other),
        (otherBadRequest, 400, .other),
        (unsupported, 500, .other),
    ])
    func classification(body: String, status: Int, kind: GoogleAPIError.Kind) throws {
        let error = try #require(GoogleAPIError.decode(utf8(body)))
        #expect(error.kind(httpStatus: status) == kind)
    }

    @Test func interpretMapsToOutcomes() {
        #expect(
            GooglePollen.interpret(httpStatus: 400, body: utf8(Self.unsupported))
                == .unsupportedLocation(
                    message: "HTTP 400: Information is unavailable for this location. Please try a different location.")
        )
        #expect(
            GooglePollen.interpret(httpStatus: 400, body: utf8(Self.badKey))
                == .keyRejected(message: "HTTP 400: API key not valid. Please pass a valid API key."))
        #expect(GooglePollen.interpret(httpStatus: 403, body: utf8("Forbidden")) == .keyRejected(message: "HTTP 403"))
        #expect(
            GooglePollen.interpret(httpStatus: 429, body: utf8(Self.quota))
                == .failed(message: "HTTP 429: Quota exceeded for quota metric 'Requests'."))
        #expect(GooglePollen.interpret(httpStatus: 503, body: []) == .failed(message: "HTTP 503"))
    }

    @Test func queryParameters() {
        let query = GooglePollen.query(latitude: 51.1657, longitude: -0.000001, days: 9, language: "es")
        #expect(
            query.map(\.name) == [
                "location.latitude", "location.longitude", "days", "languageCode",
                "plantsDescription",
            ])
        #expect(query.map(\.value) == ["51.1657", "-0.000001", "5", "es", "true"])
        #expect(
            GooglePollen.query(latitude: 40, longitude: -74.5, days: 0, language: "en").map(\.value)
                == ["40", "-74.5", "1", "en", "true"])
    }
}
