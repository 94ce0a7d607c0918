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

/// What a Tasmota light is sent (docs/displays.md).
package enum TasmotaPayloads {
    /// `Color` takes `#rrggbb` (Tasmota docs, Commands → Light, `Color`).
    /// With `show: risk:<profile>`, today's risk color of `profile` instead of the max pollen color.
    static func color(
        selection: PollenSelection, palette: PollenPalette, show: TasmotaShow = .pollenMax, profile: RiskProfile? = nil
    ) -> String {
        switch show {
        case .pollenMax: DevicePayloads.maxColor(selection, palette: palette).description
        case .risk: DevicePayloads.riskColor(profile, selection: selection, palette: palette).description
        }
    }
}
