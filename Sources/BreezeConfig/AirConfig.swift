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
import BreezeYAML

/// `air:` (docs/reference.md, Air quality bands): off by default.
public struct AirSettings: Sendable, Equatable {
    public var enabled: Bool
    /// 15 minutes … 1 day; 1 hour by default (the CAMS values are hourly).
    public var interval: Duration

    public init(enabled: Bool = false, interval: Duration = .seconds(3600)) {
        self.enabled = enabled
        self.interval = interval
    }

    static let minimumInterval = Duration.seconds(15 * 60)
    static let maximumInterval = Duration.seconds(86_400)
}

/// Item ids the pollen sources are known to list, for the start-up warning about a profile's
/// allergen that a source never lists (docs/reference.md, Personal risk: a warning, not an error — Google adds plants).
enum KnownAllergens {
    /// The three types (both sources).
    static let types = ["grass", "tree", "weed"]
    /// Open-Meteo's six species under Google's codes (docs/reference.md, Key-free pollen thresholds).
    static let openMeteo = types + OpenMeteoPollen.plants.map { $0.code.lowercased() }
    /// Google's documented plant codes (API-FACTS §1), in lower case.
    static let google =
        types + [
            "alder", "ash", "birch", "cottonwood", "elm", "maple", "olive", "juniper", "oak", "pine", "cypress_pine",
            "hazel", "graminales", "ragweed", "mugwort", "japanese_cedar", "japanese_cypress",
        ]

    /// The ids of `profile` that the configured source(s) never list.
    static func unlisted(_ profile: RiskProfile, source: PollenSourceChoice, hasGoogleKey: Bool) -> [String] {
        let known: Set<String>
        switch source {
        case .openMeteo: known = Set(openMeteo)
        case .google: known = Set(google)
        case .auto: known = hasGoogleKey ? Set(google).union(openMeteo) : Set(openMeteo)
        case .dwd: known = []
        }
        // The DWD's eight plants (docs/reference.md, "DWD"), for the locations it covers.
        let dwd: Set<String> = ["hazel", "alder", "ash", "birch", "graminales", "rye", "mugwort", "ragweed"]
        return profile.allergens.filter { !known.contains($0) && !dwd.contains($0) }
    }
}

extension AgentConfig {
    /// One line per profile allergen that the configured pollen source never lists (logged at start).
    public var profileWarnings: [String] {
        profiles.flatMap { profile in
            KnownAllergens.unlisted(profile, source: pollen.source, hasGoogleKey: pollen.apiKey != nil).map {
                "profiles: \(profile.id) lists allergen \"\($0)\", which the configured pollen source does not list; it is ignored until the source reports it"
            }
        }
    }
}

/// Parsing of `air:` and `profiles:`, with the same file:line:key errors as the rest.
enum AirConfigParser {
    static let profileKeys = ["id", "name", "allergens", "alert_level"]

    static func parseAir(_ node: YAMLNode?, file: String) throws(ConfigError) -> AirSettings {
        let r = try MappingReader(node, path: "air", keys: ["enabled", "interval"], file: file)
        var settings = AirSettings()
        settings.enabled = try r.bool("enabled") ?? false
        if let interval = try r.duration("interval", atLeast: AirSettings.minimumInterval, minimumText: "15m") {
            guard interval <= AirSettings.maximumInterval else {
                throw r.fail("interval", "expected a duration from 15m to 1d, got \(durationText(interval))")
            }
            settings.interval = interval
        }
        return settings
    }

    /// At most this many profiles (each adds four topics and two entities per location).
    static let maximumProfiles = 32
    /// At most this many allergens per profile (Google lists about twenty items).
    static let maximumAllergens = 64

    static func parseProfiles(_ node: YAMLNode?, file: String, line: Int) throws(ConfigError) -> [RiskProfile] {
        guard let node, !node.isNull else { return [] }
        let expected = "a list of profiles, each with id, allergens and optionally name and alert_level"
        guard case .sequence(let items) = node.kind else {
            throw ConfigError(
                file: file, line: node.line, keyPath: "profiles",
                message: "expected \(expected), got \(MappingReader.describe(node))")
        }
        guard items.count <= maximumProfiles else {
            throw ConfigError(
                file: file, line: node.line, keyPath: "profiles",
                message: "at most \(maximumProfiles) profiles, got \(items.count)")
        }
        var profiles: [RiskProfile] = []
        var idLines: [String: Int] = [:]
        for (index, item) in items.enumerated() {
            let path = "profiles[\(index)]"
            guard case .mapping = item.kind else {
                throw ConfigError(
                    file: file, line: item.line, keyPath: path,
                    message:
                        "expected a mapping with id, name, allergens, alert_level, got \(MappingReader.describe(item))"
                )
            }
            let r = try MappingReader(item, path: path, keys: profileKeys, file: file)
            let idExpected = "an id of lower-case letters, digits, _ and - (it becomes an MQTT topic level)"
            guard let id = try r.string("id", expected: idExpected) else { throw r.missing("id", expected: idExpected) }
            guard isValidLocationID(id) else {
                throw r.fail("id", "expected \(idExpected), got \(doubleQuoted(id))")
            }
            if let earlier = idLines[id] {
                throw r.fail("id", "duplicate profile id \"\(id)\" (first used at line \(earlier))")
            }
            idLines[id] = r.line(of: "id")
            let name = try r.name("name") ?? id

            let allergensExpected = "a list of one or more pollen item ids like [birch, grass]"
            guard let list = r.node("allergens") else { throw r.missing("allergens", expected: allergensExpected) }
            guard case .sequence(let entries) = list.kind, !entries.isEmpty else {
                throw r.fail(
                    "allergens", "expected \(allergensExpected), got \(MappingReader.describe(list))", at: list)
            }
            guard entries.count <= maximumAllergens else {
                throw r.fail("allergens", "at most \(maximumAllergens) allergens, got \(entries.count)", at: list)
            }
            var allergens: [String] = []
            for (n, entry) in entries.enumerated() {
                // Item ids are codes in lower case with `_` (`japanese_cedar`); `Birch` is accepted
                // as `birch`.
                guard let text = entry.scalarText, case let id = text.lowercased(), !id.isEmpty,
                    id.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5f })
                else {
                    throw ConfigError(
                        file: file, line: entry.line, keyPath: "\(path).allergens[\(n)]",
                        message:
                            "expected a pollen item id like birch, grass or japanese_cedar, got \(MappingReader.describe(entry))"
                    )
                }
                if !allergens.contains(id) { allergens.append(id) }
            }

            var alertLevel = PollenLevel.high
            if let value = r.node("alert_level") {
                let options = RiskProfile.alertLevels.map(\.label)
                guard let text = value.scalarText,
                    let level = RiskProfile.alertLevels.first(where: { $0.label == text })
                else {
                    let list = options.map { "\"\($0)\"" }.joined(separator: ", ")
                    throw r.fail(
                        "alert_level", "expected one of \(list), got \(MappingReader.describe(value))", at: value)
                }
                alertLevel = level
            }
            profiles.append(RiskProfile(id: id, name: name, allergens: allergens, alertLevel: alertLevel))
        }
        return profiles
    }
}
