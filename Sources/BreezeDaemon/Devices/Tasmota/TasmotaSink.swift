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

/// A Tasmota light (docs/displays.md): `cmnd/<topic>/Color`, availability on `tele/<topic>/LWT`.
package struct TasmotaSink: DeviceCommandSink {
    let output: TasmotaOutput
    let topic: String
    package let locationID: String

    package var name: String { "tasmota \(topic)" }
    package var inputs: Set<SourceKind> { [.pollen] }
    package var availabilityTopic: String { output.lwtTopic }

    package func availability(_ payload: String) -> DeviceAvailability? {
        // Tasmota's defaults (MQTT: LWT) are `Online` / `Offline`.
        switch payload {
        case "Online": .online
        case "Offline": .offline
        default: nil
        }
    }

    package func commands(of snapshot: LocationSnapshot, context: SinkContext) -> [DeviceCommand]? {
        guard case .selected(let selection, _) = snapshot.pollen else { return nil }
        var commands = [
            DeviceCommand(
                topic: DeviceTopics.tasmotaCommand(output.commandTopic, "Color").name,
                payload: TasmotaPayloads.color(
                    selection: selection, palette: context.config.pollen.colors, show: output.show,
                    profile: profile(context)))
        ]
        // `Color` alone powers the light on only without SetOption20; `power: on` makes it explicit.
        if output.power == .on {
            commands.append(
                DeviceCommand(topic: DeviceTopics.tasmotaCommand(output.commandTopic, "Power").name, payload: "ON"))
        }
        return commands
    }

    /// Where Tasmota answers and reports power (``DeviceTopics/tasmotaAnswers(_:)``): a custom
    /// FullTopic without a `cmnd` level gets no power check.
    package var powerTopics: [String] { DeviceTopics.tasmotaAnswers(output.commandTopic).map(\.name) }

    /// `ON`/`OFF` on `…/POWER`; `"POWER":"ON"`/`"OFF"` in a `…/RESULT` JSON (single-relay
    /// lights), which answers a `Color` command when it carries `"Color"`.
    package func powerReport(_ payload: String) -> PowerReport? {
        switch payload {
        case "ON": return PowerReport(on: true, answersCommand: false)
        case "OFF": return PowerReport(on: false, answersCommand: false)
        default: break
        }
        let answers = payload.contains(#""Color":"#)
        if payload.contains(#""POWER":"ON""#) { return PowerReport(on: true, answersCommand: answers) }
        if payload.contains(#""POWER":"OFF""#) { return PowerReport(on: false, answersCommand: answers) }
        return nil
    }

    package var warnsWhenSwitchedOn: Bool { output.power == .leave && !powerTopics.isEmpty }

    /// The risk profile `show: risk:<profile>` names (nil for `pollen_max`).
    private func profile(_ context: SinkContext) -> RiskProfile? {
        guard case .risk(let id) = output.show else { return nil }
        return context.config.profiles.first { $0.id == id }
    }

    /// `Power` without a parameter shows the state (Tasmota docs, Commands → Control, `Power`).
    package var powerQuery: DeviceCommand? {
        DeviceCommand(topic: DeviceTopics.tasmotaCommand(output.commandTopic, "Power").name, payload: "")
    }
}

extension TasmotaOutput: DeviceOutput {
    package func commandSink(topic: String, locationID: String) -> (any DeviceCommandSink)? {
        TasmotaSink(output: self, topic: topic, locationID: locationID)
    }
}
