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

@testable import BreezeCore

extension ZoneRules {
    /// A zone with one fixed offset (east positive) and no transitions, for tests that want a
    /// time zone without the zoneinfo files.
    static func fixed(utcOffset: Int, abbreviation: String = "") -> ZoneRules {
        ZoneRules(
            transitions: [], transitionTypes: [],
            types: [LocalTimeType(utcOffset: utcOffset, isDaylightSaving: false, abbreviation: abbreviation)],
            footer: PosixTimeZoneRule(standard: .init(name: abbreviation, utcOffset: utcOffset), daylight: nil))
    }
}
