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

/// The key-free pollen source: Open-Meteo's air-quality API (CAMS Europe), hourly grains/m³
/// turned into daily 0–5 values (SPEC §1b, POLLEN-KEYFREE.md).
public enum OpenMeteoPollen {
    /// A CAMS pollen species, published under Google's plant code so topics do not depend on
    /// the source.
    public struct Plant: Sendable, Hashable {
        public var code: String
        public var name: String
        /// The hourly variable (`alder_pollen`, …).
        public var variable: String
        /// The general type it counts towards.
        public var category: String
        /// Lowest whole daily mean (grains/m³) for values 1, 2, 3, 4, 5 (SPEC §1b table).
        public var thresholds: [Int]

        /// The 0–5 value of a whole-grain daily mean: how many thresholds it reaches.
        public func value(meanGrains: Int) -> Int { thresholds.filter { meanGrains >= $0 }.count }
    }

    /// The six species, in publishing order (trees, grass, weeds).
    public static let plants: [Plant] = [
        Plant(
            code: "ALDER", name: "Alder", variable: "alder_pollen", category: "TREE",
            thresholds: [1, 11, 28, 70, 250]),
        Plant(
            code: "BIRCH", name: "Birch", variable: "birch_pollen", category: "TREE",
            thresholds: [1, 11, 28, 70, 300]),
        Plant(
            code: "OLIVE", name: "Olive", variable: "olive_pollen", category: "TREE",
            thresholds: [1, 51, 101, 201, 400]),
        Plant(
            code: "GRAMINALES", name: "Grasses", variable: "grass_pollen", category: "GRASS",
            thresholds: [1, 20, 30, 50, 150]),
        Plant(
            code: "MUGWORT", name: "Mugwort", variable: "mugwort_pollen", category: "WEED",
            thresholds: [1, 6, 10, 15, 50]),
        Plant(
            code: "RAGWEED", name: "Ragweed", variable: "ragweed_pollen", category: "WEED",
            thresholds: [1, 6, 8, 11, 40]),
    ]

    /// `forecast_days` of every pollen call: today and the three days after it.
    public static let forecastDays = 4

    /// A day with fewer non-null hours than this is Unknown (the CAMS horizon runs out mid-day).
    public static let minimumHours = 12

    /// Largest hourly magnitude (grains/m³) taken as a measurement; beyond it the hour counts as
    /// null. Real CAMS peaks are in the thousands; the bound keeps tenths and sums far from
    /// `Int` overflow whatever the body says.
    public static let maximumGrains = 1_000_000.0

    /// Query parameters of `GET {endpoints.air_quality}/air-quality` (SPEC §1b). `domains=cams_europe`
    /// turns "outside Europe" into a clean HTTP 400 with a fixed reason.
    public static func query(latitude: Double, longitude: Double, timezone: String) -> [QueryParameter] {
        [
            QueryParameter("latitude", FixedPoint.coordinate(latitude)),
            QueryParameter("longitude", FixedPoint.coordinate(longitude)),
            QueryParameter(
                "hourly", "alder_pollen,birch_pollen,grass_pollen,mugwort_pollen,olive_pollen,ragweed_pollen"),
            QueryParameter("domains", "cams_europe"),
            QueryParameter("forecast_days", String(forecastDays)),
            QueryParameter("timezone", timezone),
            QueryParameter("timeformat", "iso8601"),
        ]
    }

    /// What an HTTP exchange means. HTTP 400 "No data is available for this location" and a 200
    /// whose pollen values are all null (outside Europe with `domains=auto`) are unsupported. A
    /// body whose `utc_offset_seconds` is refused without a fallback fails with one message.
    ///
    /// - Parameter fallbackUTCOffset: what places the hours when the body's offset is refused:
    ///   the location's own offset at the fetch, as ``AirQualityDecoder/interpret(httpStatus:body:fallbackUTCOffset:)``.
    public static func interpret(httpStatus: Int, body: some Collection<UInt8>, fallbackUTCOffset: Int? = nil)
        -> PollenOutcome
    {
        let data = Data(body)
        if let error = try? JSONDecoder().decode(OpenMeteoErrorBody.self, from: data), error.error {
            let reason = error.reason ?? ""
            if reason.contains("No data is available for this location") {
                return .unsupportedLocation(message: "HTTP \(httpStatus): \(reason)")
            }
            return .failed(message: reason.isEmpty ? "HTTP \(httpStatus)" : "HTTP \(httpStatus): \(reason)")
        }
        guard httpStatus == 200 else { return .failed(message: "HTTP \(httpStatus)") }
        let response: OpenMeteoAirQualityResponse
        do {
            response = try JSONDecoder().decode(OpenMeteoAirQualityResponse.self, from: data)
        } catch {
            return .failed(message: "invalid Open-Meteo air-quality response: \(error)")
        }
        // Pollen's reading of the shared decoder: a malformed `hourly` block is an invalid
        // response (retried); none at all is no pollen here, like all-null values.
        if case .malformed(let error) = response.hourly {
            return .failed(message: "invalid Open-Meteo air-quality response: \(error)")
        }
        if case .refused(let message) = OpenMeteoOffsetChoice(response.utcOffset, fallback: fallbackUTCOffset) {
            return .failed(message: message)
        }
        guard let report = report(from: response, fallbackUTCOffset: fallbackUTCOffset) else {
            return .unsupportedLocation(message: "Open-Meteo has no pollen for this location (all values null)")
        }
        return .report(report)
    }

    /// Daily values per local date; nil when every pollen value is null (unsupported location)
    /// or the body's offset is refused without a fallback.
    public static func report(from response: OpenMeteoAirQualityResponse, fallbackUTCOffset: Int? = nil)
        -> PollenReport?
    {
        var warnings: [String] = []
        let offset: Int
        switch OpenMeteoOffsetChoice(response.utcOffset, fallback: fallbackUTCOffset) {
        case .body(let seconds): offset = seconds
        case .fallback(let seconds, let warning):
            offset = seconds
            warnings.append("pollen: " + warning)
        case .refused: return nil
        }
        // Hour index → local date. ISO times are already local (we ask for timezone=<IANA>);
        // Unix times are shifted by the response's UTC offset.
        var dates: [CivilDate] = []
        var hourDates: [CivilDate?] = []
        for time in response.times ?? [] {
            let local: CivilDate?
            switch time {
            case .iso(let text): local = CivilDate(iso: text.prefix(10))
            case .unix(let seconds):
                // An hour that cannot be placed (the offset overflows it) is unreadable.
                local = OpenMeteoTime.localDate(unixSeconds: seconds, utcOffsetSeconds: Int64(offset))
            }
            if local == nil { warnings.append("pollen: unreadable hour \(time), skipped") }
            if let local, !dates.contains(local) { dates.append(local) }
            hourDates.append(local)
        }

        var anyValue = false
        // plant code → date → measurement
        var measured: [String: [CivilDate: (grains: GrainsPerCubicMetre, wholeMean: Int)]] = [:]
        for plant in plants {
            let series = response.series[plant.variable] ?? []
            var byDate: [CivilDate: [Int]] = [:]
            var implausible = 0
            for (index, value) in series.enumerated() where index < hourDates.count {
                guard let value, value.isFinite, let day = hourDates[index] else { continue }
                // Converting an absurd value to Int would trap (found by fuzzing): such an hour
                // counts as null, like a non-finite one.
                guard abs(value) <= maximumGrains else {
                    implausible += 1
                    continue
                }
                anyValue = true
                byDate[day, default: []].append(Swift.max(0, Int((value * 10).rounded())))
            }
            if implausible > 0 {
                let what = "\(implausible) implausible \(plant.variable) value(s)"
                warnings.append("pollen: \(what) beyond ±\(Int(maximumGrains)), skipped")
            }
            var perDay: [CivilDate: (grains: GrainsPerCubicMetre, wholeMean: Int)] = [:]
            for (day, tenths) in byDate where tenths.count >= minimumHours { perDay[day] = daily(tenths) }
            measured[plant.code] = perDay
        }
        guard anyValue else { return nil }

        let days = dates.sorted().map { day -> PollenDay in
            var plantItems: [PollenItem] = []
            for plant in plants {
                let measuredDay = measured[plant.code]?[day]
                plantItems.append(
                    PollenItem(
                        code: plant.code, name: plant.name, isPlant: true, category: plant.category,
                        value: measuredDay.map { plant.value(meanGrains: $0.wholeMean) },
                        grainsPerCubicMetre: measuredDay?.grains))
            }
            func typeValue(_ category: String) -> Int? {
                plantItems.filter { $0.category == category }.compactMap(\.value).max()
            }
            let types = [("GRASS", "Grass"), ("TREE", "Tree"), ("WEED", "Weed")].map { code, name in
                PollenItem(code: code, name: name, isPlant: false, category: code, value: typeValue(code))
            }
            return PollenDay(date: day, items: types + plantItems)
        }
        return PollenReport(
            source: .openMeteo, region: nil, days: days, warnings: warnings,
            hourly: hourly(from: response, utcOffsetSeconds: offset))
    }

    /// The hours on the time line (SPEC §20), each plant's value in tenths as the daily means
    /// read them (null, non-finite and implausible hours missing, negatives as 0), placed by
    /// the offset the report uses (a refused one never gets here).
    static func hourly(from response: OpenMeteoAirQualityResponse, utcOffsetSeconds offset: Int) -> PollenHourly {
        var hours: [PollenHourly.Hour] = []
        for (index, time) in (response.times ?? []).enumerated() where hours.count < PollenHourly.maximumHours {
            guard let instant = AirQualityDecoder.instant(of: time, utcOffsetSeconds: offset) else { continue }
            var tenths: [String: Int] = [:]
            for plant in plants {
                let series = response.series[plant.variable] ?? []
                guard index < series.count, let value = series[index], value.isFinite, abs(value) <= maximumGrains
                else { continue }
                tenths[plant.code] = Swift.max(0, Int((value * 10).rounded()))
            }
            hours.append(PollenHourly.Hour(instant: instant, tenths: tenths))
        }
        return PollenHourly(hours: hours)
    }

    /// One day's hourly tenths → the published mean (tenths, half up) and max, plus the whole-grain
    /// mean that picks the value. Both roundings start from the exact sum: rounding the already
    /// rounded tenths would turn 10.45 into 10.5 and then 11.
    static func daily(_ tenths: [Int]) -> (grains: GrainsPerCubicMetre, wholeMean: Int) {
        let sum = tenths.reduce(0, +)
        let grains = GrainsPerCubicMetre(
            meanTenths: FixedPoint.roundedDivision(sum, tenths.count), maxTenths: tenths.max() ?? 0)
        return (grains, FixedPoint.roundedDivision(sum, 10 * tenths.count))
    }
}
