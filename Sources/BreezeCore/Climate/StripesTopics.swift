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

/// The warming-stripes part of the topic tree (docs/reference.md, Warming stripes) for one location.
///
/// `<p>/<loc>/climate/stripes` carries the JSON document and `<p>/<loc>/climate/stripes/colors`
/// the colors alone, comma-separated and oldest first, for consumers that only draw (an LED
/// strip, an e-ink tag). Both list only the years kept: a year left out has no stripe, and a
/// consumer that needs the gap sees it from the `year` numbers.
public enum StripesTopics {
    /// Builds ``LocationTopics/climateStripes`` and ``LocationTopics/climateStripesColors``.
    public static func tree(topics: LocationTopics, series: StripesSeries) -> TopicTree {
        var tree = TopicTree()
        tree.set(topics.climateStripes, json: json(series))
        tree.set(topics.climateStripesColors, colors(series))
        return tree
    }

    /// `{reference, first_year, last_year, years: [{year, mean_celsius, anomaly_celsius, color}]}`,
    /// temperatures with two decimals.
    public static func json(_ series: StripesSeries) -> JSONValue {
        let years: [JSONValue] = series.years.map { year in
            .object([
                "year": .integer(year.year),
                "mean_celsius": .fixed(year.meanHundredths, scale: 2),
                "anomaly_celsius": .fixed(year.anomalyHundredths, scale: 2),
                "color": .string(year.color.description),
            ])
        }
        return .object([
            "reference": .fixed(series.referenceHundredths, scale: 2),
            "first_year": .integer(series.firstYear),
            "last_year": .integer(series.lastYear),
            "years": .array(years),
        ])
    }

    /// `#2166ac,#4393c3,…`, oldest first.
    public static func colors(_ series: StripesSeries) -> String {
        series.years.map(\.color.description).joined(separator: ",")
    }
}
