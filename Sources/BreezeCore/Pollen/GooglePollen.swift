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

/// The Google Pollen API source: request parameters, response interpretation, mapping to the
/// source-independent ``PollenReport`` (docs/reference.md, Pollen levels and colors, API-FACTS §1).
public enum GooglePollen {
    /// The three general types, in the order they are published.
    public static let typeCodes = ["GRASS", "TREE", "WEED"]

    /// Query parameters of `GET {endpoints.pollen}/forecast:lookup` (the key goes in the
    /// `X-Goog-Api-Key` header, not here, so it never lands in URLs or logs).
    public static func query(latitude: Double, longitude: Double, days: Int, language: String)
        -> [QueryParameter]
    {
        [
            QueryParameter("location.latitude", FixedPoint.coordinate(latitude)),
            QueryParameter("location.longitude", FixedPoint.coordinate(longitude)),
            QueryParameter("days", String(min(5, max(1, days)))),
            QueryParameter("languageCode", language),
            QueryParameter("plantsDescription", "true"),
        ]
    }

    /// What an HTTP exchange with the API means: data, unsupported location, rejected key, or a
    /// failure to retry. An HTTP 200 with an empty `dailyInfo` counts as unsupported (docs/reference.md, Pollen levels and colors).
    public static func interpret(httpStatus: Int, body: some Collection<UInt8>) -> PollenOutcome {
        guard httpStatus == 200 else {
            let error = GoogleAPIError.decode(body)
            let message = error?.message ?? ""
            let detail = message.isEmpty ? "HTTP \(httpStatus)" : "HTTP \(httpStatus): \(message)"
            switch error?.kind(httpStatus: httpStatus) ?? (httpStatus == 403 ? .keyRejected : .other) {
            case .unsupportedLocation: return .unsupportedLocation(message: detail)
            case .keyRejected: return .keyRejected(message: detail)
            case .other: return .failed(message: detail)
            }
        }
        let response: GooglePollenResponse
        do {
            response = try GooglePollenResponse.decode(body)
        } catch {
            return .failed(message: "invalid Google Pollen response: \(error)")
        }
        let report = self.report(from: response)
        if report.days.isEmpty {
            return .unsupportedLocation(message: "Google Pollen returned no days for this location")
        }
        return .report(report)
    }

    /// Maps a decoded response to the domain: per day, the types (GRASS, TREE, WEED first) then
    /// the plants in response order; values validated by ``PollenValueRule``.
    public static func report(from response: GooglePollenResponse) -> PollenReport {
        var warnings: [String] = []
        var days: [PollenDay] = []
        var seen: Set<CivilDate> = []
        for (index, info) in response.dailyInfo.enumerated() {
            guard let date = info.date?.civil else {
                warnings.append("pollen: dailyInfo[\(index)] has no valid date, skipped")
                continue
            }
            guard seen.insert(date).inserted else {
                warnings.append("pollen: dailyInfo[\(index)] repeats \(date), skipped")
                continue
            }
            var types: [PollenItem] = []
            for type in info.pollenTypeInfo {
                guard let code = type.code, !code.isEmpty else {
                    warnings.append("pollen: a type on \(date) has no code, skipped")
                    continue
                }
                var item = PollenItem(
                    code: code, name: type.displayName ?? code, isPlant: false, category: code,
                    inSeason: type.inSeason, healthRecommendations: type.healthRecommendations)
                apply(type.indexInfo, to: &item, date: date, warnings: &warnings)
                types.append(item)
            }
            types = orderedTypes(types)
            var plants: [PollenItem] = []
            for plant in info.plantInfo {
                guard let code = plant.code, !code.isEmpty else {
                    warnings.append("pollen: a plant on \(date) has no code, skipped")
                    continue
                }
                let d = plant.plantDescription
                let appearance = [d?.specialShapes, d?.specialColors].compactMap { $0 }.filter { !$0.isEmpty }
                var item = PollenItem(
                    code: code, name: plant.displayName ?? code, isPlant: true, category: d?.type,
                    inSeason: plant.inSeason, imageURL: d?.picture, imageCloseupURL: d?.pictureCloseup,
                    family: d?.family, season: d?.season,
                    appearance: appearance.isEmpty ? nil : appearance.joined(separator: " "),
                    crossReaction: d?.crossReaction)
                apply(plant.indexInfo, to: &item, date: date, warnings: &warnings)
                plants.append(item)
            }
            days.append(PollenDay(date: date, items: types + plants))
        }
        return PollenReport(source: .google, region: response.regionCode, days: days, warnings: warnings)
    }

    /// GRASS, TREE, WEED in that order, then any other type code Google may add, in its order.
    static func orderedTypes(_ types: [PollenItem]) -> [PollenItem] {
        func rank(_ item: PollenItem) -> Int { typeCodes.firstIndex(of: item.code) ?? typeCodes.count }
        return types.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }
            .map(\.element)
    }

    private static func apply(
        _ index: GooglePollenResponse.IndexInfo?, to item: inout PollenItem, date: CivilDate,
        warnings: inout [String]
    ) {
        guard let index else { return }  // code + displayName only: no index that day
        let checked = PollenValueRule.normalise(index.rawValue, code: item.code, date: date)
        item.value = checked.value
        item.isMalformed = checked.malformed
        if let warning = checked.warning { warnings.append(warning) }
        item.indexCategory = index.category
        item.indexDescription = index.indexDescription
        item.indexColor = index.color?.hexColor
    }
}
