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

package import BreezeConfig
import BreezeCore

/// An Awtrix 3 output (docs/displays.md): the retained custom apps `<prefix>/custom/<app>` (text) and
/// `<prefix>/custom/<app>c` (climate chart) and, when configured, `<prefix>/indicator<N>`.
///
/// Each is a scope of its own, so an app with nothing to show is deleted (an empty retained
/// payload, which is how Awtrix deletes an app and hides an indicator), and an output removed
/// from the config leaves topics under no scope, which the publisher clears on its full pass
/// — across restarts too, as the published set is persisted.
package struct AwtrixSink: RetainedSink {
    let output: AwtrixOutput
    let topic: String
    let locationID: String

    package var inputs: Set<SourceKind> { [.pollen, .climate] }

    var textApp: String { DeviceTopics.awtrixApp(topic, output.app).name }
    var chartApp: String { DeviceTopics.awtrixApp(topic, output.app + "c").name }
    var indicator: String? { output.indicator.map { DeviceTopics.awtrixIndicator(topic, $0).name } }

    package func contents(of snapshot: LocationSnapshot, context: SinkContext) -> [SinkScope] {
        guard snapshot.location.config.id == locationID else { return [] }
        let location = snapshot.location
        let palette = context.config.pollen.colors
        let climateEnabled = context.config.climate.enabled
        let climate = climateEnabled ? location.climate?.trend : nil

        func tree(_ topic: String, _ payload: String?) -> TopicTree {
            var tree = TopicTree()
            if let payload { tree.set(topic, payload) }
            return tree
        }

        var scopes: [SinkScope] = []
        let selection: PollenSelection?
        switch snapshot.pollen {
        case .unknown: selection = nil
        case .unavailable: selection = nil
        case .selected(let selected, _): selection = selected
        }
        let pollenUnknown: Bool
        if case .unknown = snapshot.pollen { pollenUnknown = true } else { pollenUnknown = false }
        let climateUnknown = climateEnabled && location.climate == nil

        // Text: keep what is published while a part it shows is not known yet.
        if pollenUnknown || climateUnknown {
            scopes.append(SinkScope(prefix: textApp, tree: nil))
        } else {
            let text = AwtrixPayloads.text(
                selection: selection, climate: climate, unit: location.unit, palette: palette)
            scopes.append(SinkScope(prefix: textApp, tree: tree(textApp, text)))
        }
        if climateUnknown {
            scopes.append(SinkScope(prefix: chartApp, tree: nil))
        } else {
            scopes.append(
                SinkScope(prefix: chartApp, tree: tree(chartApp, climate.flatMap(AwtrixPayloads.chart))))
        }
        if let indicator {
            if pollenUnknown {
                scopes.append(SinkScope(prefix: indicator, tree: nil))
            } else {
                let payload = selection.map { AwtrixPayloads.indicator(selection: $0, palette: palette) }
                scopes.append(SinkScope(prefix: indicator, tree: tree(indicator, payload)))
            }
        }
        return scopes
    }
}

extension AwtrixOutput: DeviceOutput {
    package func retainedSinks(topic: String, locationID: String) -> [any RetainedSink] {
        [AwtrixSink(output: self, topic: topic, locationID: locationID)]
    }
}
