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

import BreezeConfig
import BreezeCore

/// What every device's payloads read of a pollen selection the same way: the colors of the
/// max level, of a general type and of a risk profile. Each device's own payloads are in its
/// folder; the sinks decide when and where, the payloads only what.
package enum DevicePayloads {
    /// The three general types, in the order WLED's `pollen_types` segments and the display JSON use.
    static let typeCodes = GooglePollen.typeCodes

    /// The max pollen level's color of a selection (Unknown's color when no type has an index).
    static func maxColor(_ selection: PollenSelection, palette: PollenPalette) -> HexColor {
        palette.color(for: PollenLevel(value: selection.max?.value))
    }

    /// Today's item of a general type (GRASS, TREE, WEED), when the source has it.
    static func typeItem(_ code: String, in selection: PollenSelection) -> PollenItem? {
        selection.items.first { !$0.isPlant && $0.code == code }
    }

    /// Today's risk color of `profile` on `selection` (Unknown's color without a profile).
    static func riskColor(_ profile: RiskProfile?, selection: PollenSelection, palette: PollenPalette) -> HexColor {
        guard let profile else { return palette.color(for: .unknown) }
        return RiskAssessment.evaluate(profile: profile, selection: selection).color(palette: palette)
    }
}
