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

/// A body of Open-Meteo's air-quality endpoint, the one decoder for both of its callers: the
/// pollen source (``OpenMeteoPollen``, the `*_pollen` variables) and the air source
/// (``AirQualityDecoder``, the ``AirMetric`` variables).
///
/// A body that is not a JSON object throws (both callers: "invalid Open-Meteo air-quality
/// response"). What is wrong with the `hourly` block is kept in ``hourly``, not thrown, because
/// the callers read it differently on purpose (`OpenMeteoAirQualityResponseTests`):
/// - no `hourly` at all: pollen takes it as no pollen here (outside Europe), air fails;
/// - an `hourly` that is not an object, or a `time` that is not a list of times: pollen fails
///   it as an invalid response, air as one without hourly times.
///
/// `utc_offset_seconds` is read strictly (``UTCOffset``): the ISO hours are local at that
/// offset, so a wrong one would move every hour without a word.
public struct OpenMeteoAirQualityResponse: Sendable, Hashable, Decodable {
    /// `utc_offset_seconds` as read.
    public enum UTCOffset: Sendable, Hashable {
        /// A whole number of seconds within ±``maximumSeconds``; absent or `null` is 0, the
        /// API's default zone (GMT).
        case seconds(Int)
        /// Anything else — a string (`"3600"`), a fraction (`3600.5`), `1e300`, a day or more —
        /// as the body wrote it: not trusted, so its hours cannot be placed by it.
        case refused(String)

        /// Real offsets are −12 h … +14 h; a day or more is garbage.
        public static let maximumSeconds = 86_400

        /// Why a refused offset is refused, quoting it: the one message both readers give.
        public var refusal: String? {
            guard case .refused(let text) = self else { return nil }
            return "Open-Meteo air-quality response with utc_offset_seconds \(text), "
                + "not a whole number of seconds within ±\(Self.maximumSeconds); refused"
        }

        init<Key: CodingKey>(in container: KeyedDecodingContainer<Key>, forKey key: Key) {
            guard container.contains(key), (try? container.decodeNil(forKey: key)) != true else {
                self = .seconds(0)
                return
            }
            if let seconds = try? container.decode(Int.self, forKey: key) {
                // `.magnitude`: `abs(Int.min)` traps (FuzzRegressionTests.theMostNegativeOffsetIsRefusedNotATrap).
                self = seconds.magnitude <= Self.maximumSeconds ? .seconds(seconds) : .refused(String(seconds))
            } else if let number = try? container.decode(Double.self, forKey: key) {
                self = .refused("\(number)")
            } else if let text = try? container.decode(String.self, forKey: key) {
                // Quoted, cut short and printable ASCII only: the text goes into a log line.
                let shown = text.unicodeScalars.prefix(32).map { scalar in
                    (0x20..<0x7F).contains(scalar.value) && scalar != "\"" && scalar != "\\" ? Character(scalar) : "?"
                }
                self = .refused("\"" + String(shown) + (text.unicodeScalars.count > 32 ? "…" : "") + "\"")
            } else if let flag = try? container.decode(Bool.self, forKey: key) {
                self = .refused(String(flag))
            } else {
                self = .refused("(an array or object)")
            }
        }
    }

    /// The `hourly` block as read.
    public enum Hourly: Sendable, Hashable {
        /// The body has no `hourly` key.
        case absent
        /// `hourly` is not an object, or its `time` is missing or not a list of times: the
        /// decoding error's text.
        case malformed(String)
        /// The hourly time stamps as sent.
        case times([OpenMeteoTime])
    }

    public var utcOffset: UTCOffset
    public var hourly: Hourly
    /// Hourly series by variable name; null hours are nil. A series that is not a list of
    /// numbers and nulls is absent, as is every series when ``hourly`` has no times.
    public var series: [String: [Double?]]

    /// The hourly time stamps; nil without a readable `hourly.time`.
    public var times: [OpenMeteoTime]? {
        if case .times(let times) = hourly { return times }
        return nil
    }

    public init(utcOffset: UTCOffset, hourly: Hourly, series: [String: [Double?]]) {
        self.utcOffset = utcOffset
        self.hourly = hourly
        self.series = series
    }

    private typealias Key = OpenMeteoKey

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        utcOffset = UTCOffset(in: c, forKey: Key("utc_offset_seconds"))
        series = [:]
        guard c.contains(Key(stringValue: "hourly")) else {
            hourly = .absent
            return
        }
        let block: KeyedDecodingContainer<Key>
        do {
            block = try c.nestedContainer(keyedBy: Key.self, forKey: Key(stringValue: "hourly"))
            hourly = .times(try OpenMeteoTime.series(in: block, forKey: Key("time")))
        } catch {
            hourly = .malformed("\(error)")
            return
        }
        for key in block.allKeys where key.stringValue != "time" {
            if let values = block.lenient([Double?].self, key) { series[key.stringValue] = values }
        }
    }
}
