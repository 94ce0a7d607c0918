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
import Foundation
import Testing

@Suite("climate.unit auto: the Fahrenheit countries' zones")
struct FahrenheitZonesTests {
    /// The table is tzdata's `zone.tab` rows of the Fahrenheit countries, no more and no less:
    /// compared with the machine's own `zone.tab` (Debian's tzdata) row by row.
    @Test func theTableIsZoneTabsRowsOfTheCountries() throws {
        let text = try String(contentsOfFile: "/usr/share/zoneinfo/zone.tab", encoding: .utf8)
        var fromTab = Set<String>()
        var allZones = Set<String>()
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t")
            guard fields.count >= 3 else { continue }
            allZones.insert(String(fields[2]))
            if FahrenheitZones.countries.contains(String(fields[0])) { fromTab.insert(String(fields[2])) }
        }
        #expect(allZones.count > 300)
        #expect(FahrenheitZones.zones.subtracting(fromTab).sorted() == [])
        #expect(fromTab.subtracting(FahrenheitZones.zones).sorted() == [])
        for zone in allZones {
            #expect(FahrenheitZones.unit(forZone: zone) == (fromTab.contains(zone) ? .fahrenheit : .celsius), "\(zone)")
        }
    }

    @Test(arguments: [
        ("America/Chicago", TemperatureUnit.fahrenheit), ("Pacific/Honolulu", .fahrenheit),
        ("America/Nassau", .fahrenheit),
        ("Asia/Yangon", .fahrenheit), ("Asia/Rangoon", .fahrenheit), ("US/Pacific", .fahrenheit),
        ("Europe/Berlin", .celsius), ("America/Toronto", .celsius), ("America/Panama", .celsius), ("UTC", .celsius),
        ("Etc/GMT+5", .celsius), ("", .celsius),
    ])
    func oneZone(zone: String, expected: TemperatureUnit) {
        #expect(FahrenheitZones.unit(forZone: zone) == expected)
    }

    /// Every old name the table lists is, on this machine, a link to a zone of the table, or to
    /// a zone that `zone1970.tab` lists for one of the countries (tzdata merged Micronesia's
    /// Chuuk and Pohnpei into Papua New Guinea's and the Solomon Islands' zones).
    @Test func backwardNamesLinkIntoTheCountries() throws {
        let text = try String(contentsOfFile: "/usr/share/zoneinfo/zone1970.tab", encoding: .utf8)
        var countriesOf: [String: [String]] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t")
            guard fields.count >= 3 else { continue }
            countriesOf[String(fields[2])] = fields[0].split(separator: ",").map(String.init)
        }
        var checked = 0
        for name in FahrenheitZones.backwardNames {
            let path = "/usr/share/zoneinfo/\(name)"
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path) else { continue }
            let resolved = URL(
                fileURLWithPath: target, relativeTo: URL(fileURLWithPath: path).deletingLastPathComponent()
            )
            .standardized.path.replacingOccurrences(of: "/usr/share/zoneinfo/", with: "")
            let countries = countriesOf[resolved] ?? []
            #expect(
                FahrenheitZones.zones.contains(resolved)
                    || countries.contains(where: FahrenheitZones.countries.contains),
                "\(name) → \(resolved) (\(countries))")
            checked += 1
        }
        #expect(checked >= 10)
    }
}
