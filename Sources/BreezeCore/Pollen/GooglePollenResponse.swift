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

internal import FoundationEssentials

/// The Google Pollen API `forecast:lookup` body (API-FACTS §1.2), decoded leniently.
///
/// Proto3 JSON omits zero values and Google adds codes over time, so: codes are open strings,
/// missing color channels are 0, a present `indexInfo` without `value` means 0, and a field of
/// the wrong type is treated as absent (and an index value of the wrong type as malformed)
/// instead of failing the whole response — one bad plant must not hide the other fourteen.
public struct GooglePollenResponse: Sendable, Hashable, Decodable {
    public var regionCode: String?
    public var dailyInfo: [DayInfo]

    public struct CalendarDate: Sendable, Hashable, Decodable {
        public var year: Int
        public var month: Int
        public var day: Int

        /// nil for a date that does not exist (month 13, 31 April …) or lies outside the years
        /// 1–9999: day arithmetic on a year near `Int.max` overflows (found by fuzzing), and an
        /// ISO date has four year digits anyway.
        public var civil: CivilDate? {
            guard (1...9999).contains(year) else { return nil }
            return CivilDate(year: year, month: month, day: day)
        }
    }

    public struct DayInfo: Sendable, Hashable, Decodable {
        public var date: CalendarDate?
        public var pollenTypeInfo: [TypeInfo]
        public var plantInfo: [PlantInfo]

        enum CodingKeys: String, CodingKey { case date, pollenTypeInfo, plantInfo }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            date = c.lenient(CalendarDate.self, .date)
            pollenTypeInfo = c.lenientArray(TypeInfo.self, .pollenTypeInfo)
            plantInfo = c.lenientArray(PlantInfo.self, .plantInfo)
        }
    }

    public struct TypeInfo: Sendable, Hashable, Decodable {
        public var code: String?
        public var displayName: String?
        public var inSeason: Bool?
        public var indexInfo: IndexInfo?
        public var healthRecommendations: [String]?

        enum CodingKeys: String, CodingKey { case code, displayName, inSeason, indexInfo, healthRecommendations }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            code = c.lenient(String.self, .code)
            displayName = c.lenient(String.self, .displayName)
            inSeason = c.lenient(Bool.self, .inSeason)
            indexInfo = c.lenient(IndexInfo.self, .indexInfo)
            healthRecommendations = c.lenient([String].self, .healthRecommendations)
        }
    }

    public struct PlantInfo: Sendable, Hashable, Decodable {
        public var code: String?
        public var displayName: String?
        public var inSeason: Bool?
        public var indexInfo: IndexInfo?
        public var plantDescription: PlantDescription?

        enum CodingKeys: String, CodingKey { case code, displayName, inSeason, indexInfo, plantDescription }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            code = c.lenient(String.self, .code)
            displayName = c.lenient(String.self, .displayName)
            inSeason = c.lenient(Bool.self, .inSeason)
            indexInfo = c.lenient(IndexInfo.self, .indexInfo)
            plantDescription = c.lenient(PlantDescription.self, .plantDescription)
        }
    }

    public struct PlantDescription: Sendable, Hashable, Decodable {
        public var type: String?
        public var family: String?
        public var season: String?
        public var specialColors: String?
        public var specialShapes: String?
        public var crossReaction: String?
        public var picture: String?
        public var pictureCloseup: String?

        enum CodingKeys: String, CodingKey {
            case type, family, season, specialColors, specialShapes, crossReaction, picture, pictureCloseup
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            type = c.lenient(String.self, .type)
            family = c.lenient(String.self, .family)
            season = c.lenient(String.self, .season)
            specialColors = c.lenient(String.self, .specialColors)
            specialShapes = c.lenient(String.self, .specialShapes)
            crossReaction = c.lenient(String.self, .crossReaction)
            picture = c.lenient(String.self, .picture)
            pictureCloseup = c.lenient(String.self, .pictureCloseup)
        }
    }

    public struct IndexInfo: Sendable, Hashable, Decodable {
        public var code: String?
        public var displayName: String?
        /// The value as sent; see ``RawIndexValue``. Missing (proto3 zero) decodes as 0.
        var rawValue: RawIndexValue
        public var category: String?
        public var indexDescription: String?
        public var color: Color?

        enum CodingKeys: String, CodingKey { case code, displayName, value, category, indexDescription, color }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            code = c.lenient(String.self, .code)
            displayName = c.lenient(String.self, .displayName)
            category = c.lenient(String.self, .category)
            indexDescription = c.lenient(String.self, .indexDescription)
            color = c.lenient(Color.self, .color)
            rawValue = IndexInfo.decodeValue(c)
        }

        /// Proto3 JSON drops a zero `value` (and parsers read `null` as the default), so both
        /// mean 0; an integral float such as `2.0` is the integer 2.
        private static func decodeValue(_ c: KeyedDecodingContainer<CodingKeys>) -> RawIndexValue {
            guard c.contains(.value), (try? c.decodeNil(forKey: .value)) != true else { return .integer(0) }
            if let v = try? c.decode(Int.self, forKey: .value) { return .integer(v) }
            if let d = try? c.decode(Double.self, forKey: .value) {
                if d == d.rounded(), abs(d) < 1e15 { return .integer(Int(d)) }
                return .fraction(String(d))
            }
            if let s = try? c.decode(String.self, forKey: .value) { return .text(s) }
            return .other
        }
    }

    /// `google.type.Color`: channels 0…1, absent when 0.
    public struct Color: Sendable, Hashable, Decodable {
        public var red: Double?
        public var green: Double?
        public var blue: Double?

        enum CodingKeys: String, CodingKey { case red, green, blue }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            red = c.lenient(Double.self, .red)
            green = c.lenient(Double.self, .green)
            blue = c.lenient(Double.self, .blue)
        }

        /// `#rrggbb` with each channel `round(c × 255)` clamped to 0…255 and a missing channel 0;
        /// nil for an empty object (Google sent no color at all).
        public var hexColor: HexColor? {
            if red == nil, green == nil, blue == nil { return nil }
            func channel(_ c: Double?) -> UInt8 {
                let scaled = ((c ?? 0) * 255).rounded()
                guard scaled.isFinite else { return 0 }
                return UInt8(min(255, max(0, scaled)))
            }
            return HexColor(red: channel(red), green: channel(green), blue: channel(blue))
        }
    }

    enum CodingKeys: String, CodingKey { case regionCode, dailyInfo }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        regionCode = c.lenient(String.self, .regionCode)
        // An absent dailyInfo is an empty one (proto3 omits empty repeated fields).
        dailyInfo = try c.decodeIfPresent([DayInfo].self, forKey: .dailyInfo) ?? []
    }

    /// Decodes a 200 body; throws only when it is not JSON or not an object of this shape.
    public static func decode(_ body: some Collection<UInt8>) throws -> GooglePollenResponse {
        try JSONDecoder().decode(GooglePollenResponse.self, from: Data(body))
    }
}

/// Google's `google.rpc.Status` error envelope: `{"error":{"code","message","status","details"}}`.
public struct GoogleAPIError: Sendable, Hashable, Decodable, Error {
    public var code: Int?
    public var message: String
    public var status: String?
    /// `reason` of each `google.rpc.ErrorInfo` detail (`API_KEY_INVALID`, …).
    public var reasons: [String]

    /// What the runtime should do about it (docs/reference.md, Pollen levels and colors; docs/reference.md, Key-free pollen thresholds; docs/operations.md, Faults).
    public enum Kind: Sendable, Hashable {
        /// HTTP 400 "Information is unavailable for this location": clear the pollen topics.
        case unsupportedLocation
        /// Invalid or expired key (400), or 403 (API disabled, billing off, key restricted).
        case keyRejected
        /// Quota, server errors, anything else: retry with backoff.
        case other
    }

    public init(code: Int?, message: String, status: String?, reasons: [String] = []) {
        self.code = code
        self.message = message
        self.status = status
        self.reasons = reasons
    }

    private struct Envelope: Decodable { var error: GoogleAPIError }
    private struct Detail: Decodable { var reason: String? }
    enum CodingKeys: String, CodingKey { case code, message, status, details }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        code = c.lenient(Int.self, .code)
        message = c.lenient(String.self, .message) ?? ""
        status = c.lenient(String.self, .status)
        reasons = c.lenientArray(Detail.self, .details).compactMap(\.reason)
    }

    /// The envelope in an error body, nil when the body is not one (an HTML page from a proxy…).
    public static func decode(_ body: some Collection<UInt8>) -> GoogleAPIError? {
        try? JSONDecoder().decode(Envelope.self, from: Data(body)).error
    }

    /// Classifies by the HTTP status and the envelope; keyed off codes and English server
    /// messages (error messages are not localized by `languageCode`).
    public func kind(httpStatus: Int) -> Kind {
        let keyProblem =
            reasons.contains { $0 == "API_KEY_INVALID" || $0 == "API_KEY_EXPIRED" }
            || message.contains("API key not valid") || message.contains("API key expired")
        if httpStatus == 403 { return .keyRejected }
        if httpStatus == 400 {
            if keyProblem { return .keyRejected }
            if message.contains("Information is unavailable for this location") { return .unsupportedLocation }
        }
        return .other
    }
}

extension KeyedDecodingContainer {
    /// The value when present and of the right type, else nil (never throws).
    func lenient<T: Decodable>(_ type: T.Type, _ key: Key) -> T? {
        (try? decodeIfPresent(type, forKey: key)) ?? nil
    }

    /// The decodable elements of an array; a malformed element is dropped, not fatal.
    func lenientArray<T: Decodable>(_ type: T.Type, _ key: Key) -> [T] {
        guard var items = try? nestedUnkeyedContainer(forKey: key) else { return [] }
        var out: [T] = []
        while !items.isAtEnd {
            if let item = try? items.decode(T.self) {
                out.append(item)
            } else if (try? items.decode(Skip.self)) == nil {
                break  // cannot advance past the element; stop rather than loop
            }
        }
        return out
    }
}

/// Decodes (and discards) any JSON value, to step over a malformed array element.
private struct Skip: Decodable {
    init(from decoder: any Decoder) throws {}
}
