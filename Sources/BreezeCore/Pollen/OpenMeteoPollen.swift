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
/// turned into daily 0–5 values (docs/reference.md, Key-free pollen thresholds, POLLEN-KEYFREE.md).
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
        /// Lowest whole daily mean (grains/m³) for values 1, 2, 3, 4, 5 (docs/reference.md, Key-free pollen thresholds table).
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

    /// Query parameters of `GET {endpoints.air_quality}/air-quality` (docs/reference.md, Key-free pollen thresholds). `domains=cams_europe`
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

    /// At most this many hourly times in a body: the API's own ceiling (16 forecast and 93 past
    /// days of hours), as the air source's ``AirQualityDecoder/maximumHours``. The season call
    /// asks for 96 days (2,304 hours). A body with more is not from the API: refused whole.
    public static let maximumHours = AirQualityDecoder.maximumHours

    /// At most this many local dates in a body: the 109 days of ``maximumHours``, and one more
    /// for Unix hours the offset shifts across a midnight. Refused whole past it, so that a body
    /// of hours each on its own date never becomes thousands of days.
    public static let maximumDates = maximumHours / 24 + 1

    /// What an HTTP exchange means. HTTP 400 "No data is available for this location" and a 200
    /// whose pollen values are all null (outside Europe with `domains=auto`) are unsupported. A
    /// body past ``maximumHours`` or ``maximumDates``, or whose `utc_offset_seconds` is refused
    /// without a fallback, fails with one message: nothing of it is used, so nothing of it is
    /// stored as the last good response.
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
        switch read(response, fallbackUTCOffset: fallbackUTCOffset) {
        case .report(let report): return .report(report)
        case .noPollen:
            return .unsupportedLocation(message: "Open-Meteo has no pollen for this location (all values null)")
        case .refused(let message): return .failed(message: message)
        }
    }

    /// Daily values per local date; nil when every pollen value is null (unsupported location)
    /// or the body is refused (``interpret(httpStatus:body:fallbackUTCOffset:)``).
    public static func report(from response: OpenMeteoAirQualityResponse, fallbackUTCOffset: Int? = nil)
        -> PollenReport?
    {
        if case .report(let report) = read(response, fallbackUTCOffset: fallbackUTCOffset) { return report }
        return nil
    }

    /// What a decoded body gives.
    enum Reading {
        case report(PollenReport)
        /// Every pollen value is null.
        case noPollen
        /// Past a bound, or an offset that cannot be used: the one message.
        case refused(String)
    }

    /// Daily values per local date and the hourly time line, in one pass over the hours
    /// (``OpenMeteoHours``: each hour once, in time order) and one over each plant's values.
    static func read(_ response: OpenMeteoAirQualityResponse, fallbackUTCOffset: Int?) -> Reading {
        let times = response.times ?? []
        guard times.count <= maximumHours else {
            return .refused(
                "Open-Meteo air-quality response with \(times.count) hourly times, more than the \(maximumHours) "
                    + "the API sends (\(maximumHours / 24) days); refused")
        }
        var warnings: [String] = []
        let offset: Int
        switch OpenMeteoOffsetChoice(response.utcOffset, fallback: fallbackUTCOffset) {
        case .body(let seconds): offset = seconds
        case .fallback(let seconds, let warning):
            offset = seconds
            warnings.append("pollen: " + warning)
        case .refused(let message): return .refused(message)
        }
        let placed = OpenMeteoHours(times: times, utcOffsetSeconds: offset, limit: maximumHours)
        warnings += placed.unreadable.map { "pollen: unreadable hour \($0), skipped" }
        if let order = placed.orderWarning("pollen") { warnings.append(order) }

        // Local dates in time order (the hours are sorted), each with its slot.
        var dates: [CivilDate] = []
        var slots: [Int] = []
        slots.reserveCapacity(placed.hours.count)
        for hour in placed.hours {
            let date = hour.date
            if dates.last != date { dates.append(date) }
            slots.append(dates.count - 1)
        }
        guard dates.count <= maximumDates else {
            return .refused(
                "Open-Meteo air-quality response with hourly times on \(dates.count) local dates, more than the "
                    + "\(maximumDates) a response spans; refused")
        }

        var anyValue = false
        // Per plant code, per date slot: the day's sum, count and max of tenths.
        var measured: [String: [(grains: GrainsPerCubicMetre, wholeMean: Int)?]] = [:]
        var hourTenths = [[String: Int]](repeating: [:], count: placed.hours.count)
        for plant in plants {
            let series = response.series[plant.variable] ?? []
            var sums = [Int](repeating: 0, count: dates.count)
            var counts = [Int](repeating: 0, count: dates.count)
            var maxima = [Int](repeating: 0, count: dates.count)
            var implausible = 0
            for (position, hour) in placed.hours.enumerated() where hour.index < series.count {
                guard let value = series[hour.index], value.isFinite else { continue }
                // Converting an absurd value to Int would trap (found by fuzzing): such an hour
                // counts as null, like a non-finite one.
                guard abs(value) <= maximumGrains else {
                    implausible += 1
                    continue
                }
                anyValue = true
                let tenths = Swift.max(0, Int((value * 10).rounded()))
                let slot = slots[position]
                sums[slot] += tenths
                counts[slot] += 1
                maxima[slot] = Swift.max(maxima[slot], tenths)
                hourTenths[position][plant.code] = tenths
            }
            if implausible > 0 {
                let what = "\(implausible) implausible \(plant.variable) value(s)"
                warnings.append("pollen: \(what) beyond ±\(Int(maximumGrains)), skipped")
            }
            measured[plant.code] = dates.indices.map { slot in
                counts[slot] >= minimumHours ? daily(sum: sums[slot], count: counts[slot], max: maxima[slot]) : nil
            }
        }
        guard anyValue else { return .noPollen }

        let days = dates.enumerated().map { slot, day -> PollenDay in
            var plantItems: [PollenItem] = []
            for plant in plants {
                let measuredDay = measured[plant.code]?[slot]
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
        // The hours on the time line (docs/reference.md, The hour to air out), each plant's value in tenths as the daily means
        // read them (null, non-finite and implausible hours missing, negatives as 0).
        let hourly = PollenHourly(
            hours: zip(placed.hours, hourTenths).map { PollenHourly.Hour(instant: $0.instant, tenths: $1) })
        return .report(
            PollenReport(source: .openMeteo, region: nil, days: days, warnings: warnings, hourly: hourly))
    }

    /// One day's hourly tenths (their sum, count and max) → the published mean (tenths, half
    /// up) and max, plus the whole-grain mean that picks the value. Both roundings start from the
    /// exact sum: rounding the already rounded tenths would turn 10.45 into 10.5 and then 11.
    static func daily(sum: Int, count: Int, max: Int) -> (grains: GrainsPerCubicMetre, wholeMean: Int) {
        let grains = GrainsPerCubicMetre(meanTenths: FixedPoint.roundedDivision(sum, count), maxTenths: max)
        return (grains, FixedPoint.roundedDivision(sum, 10 * count))
    }
}
