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

/// `<p>/<loc>/display` (docs/displays.md): one compact retained JSON for microcontrollers (ESPHome's
/// `on_json_message`), at most ``DisplayPayload/maximumBytes``.
package struct DisplaySink: RetainedSink {
    package var inputs: Set<SourceKind> { [.pollen, .climate, .air] }

    package func contents(of snapshot: LocationSnapshot, context: SinkContext) -> [SinkScope] {
        let location = snapshot.location
        let climate = context.config.climate.enabled ? location.climate?.trend : nil
        let air =
            context.config.air.enabled
            ? location.air.map {
                AirReading.select(report: $0.report, zone: location.zone, now: snapshot.now.unixSeconds)
            } : nil
        let selection: PollenSelection?
        let fetchedAt: DaemonInstant?
        switch snapshot.pollen {
        case .unknown:
            // Nothing known yet on either side: keep what a previous run published.
            guard climate != nil || air != nil else {
                return [SinkScope(prefix: snapshot.topics.display.name, tree: nil)]
            }
            (selection, fetchedAt) = (nil, nil)
        case .unavailable:
            (selection, fetchedAt) = (nil, nil)
        case .selected(let selected, let at):
            (selection, fetchedAt) = (selected, at)
        }
        var tree = TopicTree()
        tree.set(
            snapshot.topics.display,
            DisplayPayload.json(
                selection: selection, fetchedAt: fetchedAt, climate: climate,
                climateStale: context.config.climate.enabled && location.stale.climate, unit: location.unit,
                palette: context.config.pollen.colors, air: air, airStale: location.stale.air))
        return [SinkScope(prefix: snapshot.topics.display.name, tree: tree)]
    }
}
