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

import Foundation
import Testing

/// Reads the fixture copies in `Tests/CoreTests/Fixtures/` by path (not as SwiftPM resources,
/// which would need a Package.swift change and a generated bundle accessor).
enum PollenFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static let germany = "teamjaf-pollen-api__extras-response.json"
    static let spain = "eXPerience83-pollenlevels__google_pollen_forecast_5_days.es.json"
    static let unitedStates = "unattributed-index-16072179388__US_2024-09-26.json"
    static let israel = "unattributed-index-26129675701__IL_2023-07-11_test-literal.json"
    static let brno = "Vybo-reflbo__air_brno_2026-10-01.json"
    static let newYork = "Vybo-reflbo__air_new_york_2026-10-01.json"
    static let netherlands = "frenck-python-open-meteo__air_quality.json"

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
    }
}

/// Builds a body from JSON text written in a test.
func utf8(_ text: String) -> [UInt8] { Array(text.utf8) }
