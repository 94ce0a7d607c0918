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
import BreezeConfig
import BreezeTestSupport
import Foundation
import Testing

// Shared pieces of the end-to-end suites: fixtures with their dates moved to today and the
// agent run in-process against an ``AgentSandbox`` (its fake APIs are in BreezeTestSupport).

/// The repository root, from this file's path (`<repo>/Tests/AgentIntegrationTests/EndToEndSupport.swift`).
let repositoryRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// A fixture under `Tests/CoreTests/Fixtures`, parsed.
func fixtureJSON(_ name: String) throws -> [String: Any] {
    let url = repositoryRoot.appendingPathComponent("Tests/CoreTests/Fixtures/\(name)")
    let data = try Data(contentsOf: url)
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}

let spanishFiveDays = "eXPerience83-pollenlevels__google_pollen_forecast_5_days.es.json"

/// A short random lower-case hex string for unique prefixes, ids and client ids.
func shortID() -> String { String(UUID().uuidString.lowercased().filter { $0 != "-" }.prefix(8)) }

// MARK: dates

/// A calendar date (test-side arithmetic through Foundation's Gregorian calendar, independent of
/// the agent's own zoneinfo reader).
struct Day: Equatable, CustomStringConvertible {
    var year: Int, month: Int, day: Int
    var description: String {
        func pad(_ n: Int, _ width: Int) -> String {
            let s = String(n)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    /// The local date in `zone` now.
    static func today(in zone: String) -> Day {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone)!
        let parts = calendar.dateComponents([.year, .month, .day], from: Date())
        return Day(year: parts.year!, month: parts.month!, day: parts.day!)
    }

    func adding(_ days: Int) -> Day {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let date = calendar.date(from: DateComponents(year: year, month: month, day: day))!
        let moved = calendar.date(byAdding: .day, value: days, to: date)!
        let parts = calendar.dateComponents([.year, .month, .day], from: moved)
        return Day(year: parts.year!, month: parts.month!, day: parts.day!)
    }

    /// Google's `{year, month, day}` date object.
    var googleObject: [String: Any] { ["year": year, "month": month, "day": day] }
}

/// The Google fixture with `dailyInfo[i].date` rewritten to `today + i + offset` (offset −1: the
/// first entry is yesterday, so day 0 is the second entry), optionally edited further.
func googleBody(
    _ fixture: String = spanishFiveDays, zone: String, offset: Int = 0,
    edit: (inout [[String: Any]]) -> Void = { _ in }
) throws -> [UInt8] {
    var root = try fixtureJSON(fixture)
    var days = try #require(root["dailyInfo"] as? [[String: Any]])
    let today = Day.today(in: zone)
    for index in days.indices { days[index]["date"] = today.adding(index + offset).googleObject }
    edit(&days)
    root["dailyInfo"] = days
    return Array(try JSONSerialization.data(withJSONObject: root))
}

// MARK: pollen expectations computed in the test (SPEC §1 table)

/// SPEC §1's level and color for a 0–5 value, nil = no index.
func expectedLevel(_ value: Int?) -> (value: String, level: String, color: String) {
    switch value {
    case nil: return ("None", "Unknown", "#8e8e93")
    case 0: return ("0", "None", "#34c759")
    case 1: return ("1", "Low", "#34c759")
    case 2, 3: return (String(value!), "Moderate", "#ff9500")
    case 4: return ("4", "High", "#ff3b30")
    default: return (String(value!), "Very High", "#8e0000")
    }
}

/// `code → value` (nil when the entry has no `indexInfo`) of one Google `dailyInfo` entry, types then plants.
func googleValues(_ day: [String: Any]) -> [(code: String, value: Int?)] {
    let entries = (day["pollenTypeInfo"] as? [[String: Any]] ?? []) + (day["plantInfo"] as? [[String: Any]] ?? [])
    return entries.map { entry in
        let info = entry["indexInfo"] as? [String: Any]
        return (entry["code"] as! String, info.map { ($0["value"] as? Int) ?? 0 })
    }
}

/// The environment handed to the agent: nothing from the test runner's BREEZE_* variables.
let agentEnvironment: [String: String] = ["PATH": "/usr/bin:/bin"]

/// Runs the agent in-process (`once`, …) with `--config` pointing at the sandbox.
func runAgent(_ command: String, _ sandbox: AgentSandbox, extra: [String] = []) async -> Int32 {
    await AgentMain.main(arguments: [command, "--config", sandbox.configPath] + extra, environment: agentEnvironment)
}
