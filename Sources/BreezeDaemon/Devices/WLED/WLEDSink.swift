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

/// A WLED strip (docs/displays.md): `<topic>/api` JSON, availability on `<topic>/status`.
package struct WLEDSink: DeviceCommandSink {
    let output: WLEDOutput
    let topic: String
    package let locationID: String

    package var name: String { "wled \(topic)" }
    package var inputs: Set<SourceKind> { output.show == .climateStripes ? [.stripes] : [.pollen] }
    package var availabilityTopic: String { DeviceTopics.wledStatus(topic).name }

    package func availability(_ payload: String) -> DeviceAvailability? {
        switch payload {
        case "online": .online
        case "offline": .offline
        default: nil
        }
    }

    package func commands(of snapshot: LocationSnapshot, context: SinkContext) -> [DeviceCommand]? {
        let payload: String
        switch output.show {
        case .climateStripes:
            guard context.config.climate.enabled, let stripes = snapshot.location.stripes else { return nil }
            payload = WLEDPayloads.stripes(output, series: stripes.series)
        case .risk(let id):
            guard case .selected(let selection, _) = snapshot.pollen else { return nil }
            payload = WLEDPayloads.state(
                output, selection: selection, palette: context.config.pollen.colors,
                profile: context.config.profiles.first { $0.id == id })
        case .pollenMax, .pollenTypes:
            guard case .selected(let selection, _) = snapshot.pollen else { return nil }
            payload = WLEDPayloads.state(output, selection: selection, palette: context.config.pollen.colors)
        }
        return [DeviceCommand(topic: DeviceTopics.wledAPI(topic).name, payload: payload)]
    }
}

extension WLEDOutput: DeviceOutput {
    package func commandSink(topic: String, locationID: String) -> (any DeviceCommandSink)? {
        WLEDSink(output: self, topic: topic, locationID: locationID)
    }
}
