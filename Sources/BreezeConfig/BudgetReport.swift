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

public import BreezeCore

extension AgentConfig {
    /// The configured daily load on Open-Meteo in its own accounting (API-FACTS §2.7).
    public var openMeteoBudget: OpenMeteoBudget { openMeteoBudget(pollenSeason: true) }

    /// The budget with or without the pollen season call (docs/reference.md, The hour to air out; a stretch may leave it out).
    func openMeteoBudget(pollenSeason: Bool) -> OpenMeteoBudget {
        // Spelled out rather than asking `PollenSettings.source(googleRejected:)`: this folder is
        // also built alone for the config fuzz target (fuzz/run.sh), without the fetchers.
        let pollenFromOpenMeteo =
            pollen.enabled && (pollen.source == .openMeteo || (pollen.source == .auto && pollen.apiKey == nil))
        return OpenMeteoBudget.plan(
            .init(
                locations: locations.count,
                pollenInterval: pollenFromOpenMeteo ? Int(pollen.interval.components.seconds) : nil,
                airInterval: air.enabled ? Int(air.interval.components.seconds) : nil,
                climateArchiveYears: climate.enabled ? climate.years.count : nil,
                stripesRange: stripesBudgetRange, pollenSeason: pollenSeason))
    }

    /// The warming stripes' archive range (first_year-01-01 … last year-12-31) when climate is on.
    private var stripesBudgetRange: (first: CivilDate, last: CivilDate)? {
        guard climate.enabled, let last = climate.stripesLastYear, climate.stripesFirstYear <= last,
            let first = CivilDate(year: climate.stripesFirstYear, month: 1, day: 1),
            let end = CivilDate(year: last, month: 12, day: 31)
        else { return nil }
        return (first, end)
    }
}

/// `check-config`'s budget section: YAML comments, so the output stays loadable.
public func renderOpenMeteoBudget(_ config: AgentConfig) -> String {
    let budget = config.openMeteoBudget
    var out = [
        "# Open-Meteo weighted calls per day (free tier: fewer than 10,000 a day; docs/operations.md):"
    ]
    if budget.lines.isEmpty {
        out.append("#   none (no Open-Meteo source is enabled)")
    }
    for line in budget.lines {
        out.append("#   \(line.source): \(line.requests) requests, \(line.weight) weighted calls (\(line.note))")
    }
    var total = "#   total: \(budget.dailyTotal) weighted calls per day"
    if budget.peakTotal != budget.dailyTotal { total += " (\(budget.peakTotal) on the stripes day)" }
    out.append(total)
    if let stretch = config.openMeteoStretch {
        out.append("#   the agent paces these requests: \(stretch.summary)")
    } else if !budget.withinDailyLimit {
        out.append("#   warning: above Open-Meteo's free daily limit; raise the intervals or use fewer locations")
    }
    // The DWD (docs/reference.md, "DWD"): one request serves every German location.
    if config.pollen.enabled && config.pollen.dwd {
        let german = config.locations.filter { $0.dwdRegion != nil }.count
        out.append(
            german == 0
                ? "# DWD pollen: no location in Germany, no requests"
                : "# DWD pollen (key-free): 1 request per new document for \(german) location(s) in Germany (daily, about 11:00 Berlin time), then every 15 min with If-Modified-Since until it changes; at most 30 a day"
        )
    }
    return out.joined(separator: "\n") + "\n"
}
