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

/// A real-format Open-Meteo air-quality body (the server's key order), `times` as written
/// (quoted ISO texts or bare Unix seconds) and one series per variable given.
func airQualityBody(
    times: [String], series: [(String, [Double?])], offset: String = "7200", unix: Bool = false
) -> [UInt8] {
    let members = series.map { name, values in
        ",\"\(name)\":[" + values.map { $0.map { String($0) } ?? "null" }.joined(separator: ",") + "]"
    }
    return utf8(
        #"{"latitude":49.2,"longitude":16.6,"generationtime_ms":0.7,"utc_offset_seconds":"# + offset
            + #","timezone":"Europe/Prague","timezone_abbreviation":"GMT+2","elevation":237.0,"#
            + #""hourly_units":{"time":""# + (unix ? "unixtime" : "iso8601") + #""},"hourly":{"time":["#
            + times.joined(separator: ",") + "]" + members.joined() + "}}")
}

/// `count` quoted ISO hours from local midnight of `first`, 24 to a day.
func isoHours(from first: CivilDate, count: Int) -> [String] {
    (0..<count).map { h in
        let hh = h % 24
        return "\"\(first.adding(days: h / 24))T\(hh < 10 ? "0" : "")\(hh):00\""
    }
}

/// The six pollen series, each `count` long, birch at `birch` and the rest at 1.
func pollenSeries(count: Int, birch: Double = 20) -> [(String, [Double?])] {
    OpenMeteoPollen.plants.map { plant in
        (plant.variable, [Double?](repeating: plant.code == "BIRCH" ? birch : 1, count: count))
    }
}
