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
public struct OpenMeteoAirQualityResponse: Sendable, Hashable, Decodable {
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

    public var utcOffsetSeconds: Int
    public var hourly: Hourly
    /// Hourly series by variable name; null hours are nil. A series that is not a list of
    /// numbers and nulls is absent, as is every series when ``hourly`` has no times.
    public var series: [String: [Double?]]

    /// The hourly time stamps; nil without a readable `hourly.time`.
    public var times: [OpenMeteoTime]? {
        if case .times(let times) = hourly { return times }
        return nil
    }

    public init(utcOffsetSeconds: Int, hourly: Hourly, series: [String: [Double?]]) {
        self.utcOffsetSeconds = utcOffsetSeconds
        self.hourly = hourly
        self.series = series
    }

    private typealias Key = OpenMeteoKey

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        utcOffsetSeconds = c.lenient(Int.self, Key(stringValue: "utc_offset_seconds")) ?? 0
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
