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

/// The risk part of the topic tree for one location (docs/reference.md, Personal risk).
///
/// ```
/// <p>/<loc>/risk/<profile>          JSON {level, value, color, driver, days[{date, level, value, color, driver}],
///                                         name, alert, alert_level}
/// <p>/<loc>/risk/<profile>/level    None | Low | Moderate | High | Very High | Unknown
/// <p>/<loc>/risk/<profile>/color    #rrggbb (the pollen palette, `pollen.colors` applies)
/// <p>/<loc>/risk/<profile>/alert    true | false
/// <p>/<loc>/risk/<profile>/air_out  JSON as <p>/<loc>/pollen/air_out, over the profile's allergens
/// <p>/<loc>/risk/<profile>/air_out/now   ON | OFF     (both Open-Meteo only, docs/reference.md, The hour to air out)
/// ```
///
/// `days[0]` is today, as in the pollen summary's `days`.
public enum RiskTopics {
    /// Evaluates every profile on the selection and builds their topics; with an hourly view
    /// (Open-Meteo) each profile also gets its `air_out` window.
    public static func tree(
        topics: LocationTopics, profiles: [RiskProfile], selection: PollenSelection, palette: PollenPalette = .standard,
        view: PollenHourlyView? = nil, airOut: AirOutSettings = AirOutSettings()
    ) -> TopicTree {
        var tree = TopicTree()
        for profile in profiles {
            let assessment = RiskAssessment.evaluate(profile: profile, selection: selection)
            tree.merge(self.tree(topics: topics, assessment: assessment, palette: palette))
            if let view {
                PollenTopics.setAirOut(
                    &tree, topics.riskAirOut(profile.id),
                    AirOutAssessment.assess(allergens: profile.allergens, view: view, settings: airOut))
            }
        }
        return tree
    }

    /// The topics of one assessed profile.
    public static func tree(topics: LocationTopics, assessment: RiskAssessment, palette: PollenPalette = .standard)
        -> TopicTree
    {
        let topic = topics.riskProfile(assessment.profile.id)
        let today = assessment.today
        var tree = TopicTree()
        tree.set(topic, json: json(assessment, palette: palette))
        tree.set(ScalarTopics.level(topic), today.level.label)
        tree.set(ScalarTopics.color(topic), assessment.color(palette: palette).description)
        tree.set(topics.riskAlert(assessment.profile.id), assessment.alert ? "true" : "false")
        return tree
    }

    /// The `<p>/<loc>/risk/<profile>` document.
    public static func json(_ assessment: RiskAssessment, palette: PollenPalette = .standard) -> JSONValue {
        let today = assessment.today
        var members = dayMembers(today, palette: palette)
        members.removeFirst()  // no date at the top level
        members.append(JSONMember("days", .array(assessment.days.map { .object(dayMembers($0, palette: palette)) })))
        members.append(JSONMember("name", .string(assessment.profile.name)))
        members.append(JSONMember("alert", .bool(assessment.alert)))
        members.append(JSONMember("alert_level", .string(assessment.profile.alertLevel.label)))
        return .object(members)
    }

    private static func dayMembers(_ day: RiskDay, palette: PollenPalette) -> [JSONMember] {
        [
            JSONMember("date", .string(day.date.description)),
            JSONMember("level", .string(day.level.label)),
            JSONMember("value", day.value.map(JSONValue.integer) ?? .null),
            JSONMember("color", .string(palette.color(for: day.level).description)),
            JSONMember("driver", .optional(day.driver)),
        ]
    }
}
