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
@testable import BreezeConfig
import BreezeCore
import Testing

/// The per-source table and the per-source slot: the names a user or a stored file sees stay
/// what they were, each source has its own slot and its own names.
@Suite("Fetch sources: the per-source table and slots")
struct FetchSourcesTests {
    @Test func tableKeepsTheNamesUsersAndStoredFilesSee() {
        #expect(
            SourceKind.allCases.map(\.traits.diagnosticsKey) == [
                "open_meteo_pollen", "open_meteo_climate", "open_meteo_stripes", "open_meteo_air", "dwd_pollen",
            ])
        #expect(SourceKind.allCases.map(\.traits.storeName) == ["pollen", "climate", "stripes", "air", "dwd"])
        #expect(PollenSource.dwd.diagnosticsKey == "dwd_pollen")
        #expect(PollenSource.google.diagnosticsKey == "google_pollen")
        #expect(PollenSource.openMeteo.diagnosticsKey == "open_meteo_pollen")
        #expect(PollenSource.google.storeName == "pollen-google")
        #expect(PollenSource.openMeteo.storeName == "pollen-open-meteo")
        let endpoints = Endpoints()
        #expect(
            SourceKind.allCases.map { $0.traits.endpoint?.url(in: endpoints) } == [
                endpoints.airQuality, endpoints.climateArchive, endpoints.climateArchive, endpoints.airQuality, nil,
            ])
    }

    @Test func slotsFollowTheCasesOrder() {
        #expect(SourceKind.allCases.map(\.slot) == Array(0..<SourceKind.allCases.count))
    }

    @Test func eachSourceReadsAndWritesItsOwnField() {
        var values = PerSource(pollen: 0, climate: 0, stripes: 0, air: 0, dwd: 0)
        for kind in SourceKind.allCases { values[kind] = kind.slot + 10 }
        #expect(values == PerSource(pollen: 10, climate: 11, stripes: 12, air: 13, dwd: 14))
        #expect(SourceKind.allCases.map { values[$0] } == [10, 11, 12, 13, 14])
    }
}
