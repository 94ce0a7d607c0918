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

/// What every Open-Meteo response shares, whichever API sent it (air quality for the key-free
/// pollen, archive and forecast for the climate trend): the error envelope, the `time` series
/// and the local date of a time stamp.

/// One `time` stamp as sent: ISO text local to the requested zone (the default), or Unix
/// seconds (`timeformat=unixtime`).
public enum OpenMeteoTime: Sendable, Hashable, CustomStringConvertible {
    /// `YYYY-MM-DD` (daily) or `YYYY-MM-DDTHH:MM` (hourly), local to the requested time zone.
    case iso(String)
    /// UTC epoch seconds.
    case unix(Int64)

    public var description: String {
        switch self {
        case .iso(let s): return s
        case .unix(let t): return String(t)
        }
    }

    /// A `time` array: Unix seconds when it holds numbers, else ISO texts.
    static func series<Key: CodingKey>(in container: KeyedDecodingContainer<Key>, forKey key: Key) throws
        -> [OpenMeteoTime]
    {
        if let unix = try? container.decode([Int64].self, forKey: key) { return unix.map(OpenMeteoTime.unix) }
        return try container.decode([String].self, forKey: key).map(OpenMeteoTime.iso)
    }

    /// The local date of a Unix stamp: shifted by the response's `utc_offset_seconds`, then the
    /// day it falls in. Nil when the sum overflows (an absurd time or offset, found by fuzzing).
    static func localDate(unixSeconds: Int64, utcOffsetSeconds: Int64) -> CivilDate? {
        let (local, overflow) = unixSeconds.addingReportingOverflow(utcOffsetSeconds)
        guard !overflow else { return nil }
        return CivilDate(daysSinceEpoch: Int(local.floorDivided(by: 86_400)))
    }
}

/// `{"error": true, "reason": "…"}`, Open-Meteo's error envelope, read leniently: a `reason`
/// that is not a string counts as none.
struct OpenMeteoErrorBody: Decodable {
    var error: Bool
    var reason: String?

    private enum Keys: String, CodingKey { case error, reason }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        error = (try? c.decode(Bool.self, forKey: .error)) ?? false
        reason = try? c.decode(String.self, forKey: .reason)
    }
}

/// Any key by name: Open-Meteo's keys depend on the request (`alder_pollen`, `temperature_2m_max_…`).
struct OpenMeteoKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ s: String) { stringValue = s }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
