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
import BreezeYAML

/// The settings for many locations in one agent (docs/operations.md, Many locations):
///
/// ```yaml
/// http:
///   max_concurrent: 4            # requests in flight at once, 1–64
/// endpoints:
///   max_calls_per_minute: 600    # pace Open-Meteo requests to custom endpoints too, 1–100000
/// ```
enum FleetConfig {
    /// The `http:` keys this file reads (the section may hold others, read elsewhere).
    static let httpKeys = HTTPSettings.keys
    static let concurrencyRange = 1...64
    static let callsPerMinuteRange = 1...100_000

    static func apply(_ top: MappingReader, to config: inout AgentConfig) throws(ConfigError) {
        if top.isPresent("http") {
            let r = try MappingReader(top.rawNode("http"), path: "http", keys: httpKeys, file: top.file)
            config.httpMaxConcurrent = try r.int("max_concurrent", in: concurrencyRange) ?? 4
        }
        if top.isPresent("endpoints") {
            let r = try MappingReader(
                top.rawNode("endpoints"), path: "endpoints", keys: EndpointsKeys.all, file: top.file)
            config.endpointsMaxCallsPerMinute = try r.int("max_calls_per_minute", in: callsPerMinuteRange)
        }
    }
}

/// Every key `endpoints:` accepts (the URLs, and the pacing override).
enum EndpointsKeys {
    static let urls = ["pollen", "air_quality", "climate_archive", "climate_forecast", "dwd"]
    static let all = urls + ["max_calls_per_minute"]
}

/// Which endpoints are Open-Meteo's public ones, and their per-minute limit.
public enum OpenMeteoPacing {
    public static let perMinute = OpenMeteoCallWeight.calls(600)

    /// The public servers (the defaults, and the same hosts written out).
    public static func isPublic(_ endpoint: String) -> Bool {
        let host = EndpointURL.host(of: endpoint).lowercased()
        // `customer-*` hosts are the paid tiers, with limits of their own.
        return host == "open-meteo.com" || (host.hasSuffix(".open-meteo.com") && !host.hasPrefix("customer-"))
    }
}

/// `pollen.interval` and `air.interval` stretched so that a day's weighted calls to Open-Meteo's
/// public servers stay under the free tier's daily limit (docs/operations.md, Many locations).
public struct OpenMeteoStretch: Sendable, Equatable {
    public var pollenInterval: Int64?
    public var airInterval: Int64?
    /// Whether the daily pollen season call stays (docs/reference.md, The hour to air out): left out only when the stretched
    /// intervals alone cannot bring the day under the limit.
    public var pollenSeason = true
    public var before: OpenMeteoCallWeight
    public var after: OpenMeteoCallWeight

    /// One line for the log and `check-config`.
    public var summary: String {
        var parts: [String] = []
        if let pollenInterval { parts.append("pollen.interval to \(pollenInterval) s") }
        if let airInterval { parts.append("air.interval to \(airInterval) s") }
        var what = parts.isEmpty ? "nothing can be stretched" : "stretching " + parts.joined(separator: " and ")
        if !pollenSeason { what += ", and leaving out the daily pollen season call (no percentile, season_start)" }
        let result =
            after < OpenMeteoBudget.dailyLimit
            ? "\(after) a day"
            : "still \(after) a day: the pacing holds requests back once the day's limit is reached"
        return
            "the configuration asks for \(before) weighted calls a day, over the free tier's \(OpenMeteoBudget.dailyLimit); \(what) (\(result))"
    }
}

extension AgentConfig {
    /// The longest interval a stretch goes to (the config's own bound for intervals).
    static let maximumStretchedInterval: Int64 = 30 * 86_400

    /// Nil when the daily load is within the limit, or not on the public servers.
    public var openMeteoStretch: OpenMeteoStretch? {
        let before = openMeteoBudget.dailyTotal
        guard before >= OpenMeteoBudget.dailyLimit, OpenMeteoPacing.isPublic(endpoints.airQuality) else { return nil }
        let pollenFromOpenMeteo =
            pollen.enabled && (pollen.source == .openMeteo || (pollen.source == .auto && pollen.apiKey == nil))
        var stretched = self
        // The interval-driven part shrinks with the factor, the daily parts (climate, the pollen
        // season call) do not: raise the factor in 5 % steps until the recomputed budget fits (or
        // the bound is hit); if it never does, once more without the season call.
        var season = pollenFromOpenMeteo
        for attempt in 0..<2 {
            season = pollenFromOpenMeteo && attempt == 0
            var factor = 1.0
            for _ in 0..<200 {
                factor *= 1.05
                func scaled(_ d: Duration) -> Duration {
                    .seconds(
                        min(Self.maximumStretchedInterval, Int64((Double(d.components.seconds) * factor).rounded(.up))))
                }
                if pollenFromOpenMeteo { stretched.pollen.interval = scaled(pollen.interval) }
                if air.enabled { stretched.air.interval = min(scaled(air.interval), .seconds(86_400)) }
                if stretched.openMeteoBudget(pollenSeason: season).dailyTotal < OpenMeteoBudget.dailyLimit { break }
            }
            if !pollenFromOpenMeteo
                || stretched.openMeteoBudget(pollenSeason: season).dailyTotal < OpenMeteoBudget.dailyLimit
            {
                break
            }
        }
        var result = OpenMeteoStretch(
            pollenInterval: pollenFromOpenMeteo ? stretched.pollen.interval.components.seconds : nil,
            airInterval: air.enabled ? stretched.air.interval.components.seconds : nil,
            before: before, after: stretched.openMeteoBudget(pollenSeason: season).dailyTotal)
        result.pollenSeason = season || !pollenFromOpenMeteo
        return result
    }
}
