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

// MARK: retained outputs

/// `<p>/<loc>/display` (SPEC §8): one compact retained JSON for microcontrollers (ESPHome's
/// `on_json_message`), at most ``DevicePayloads/maximumDisplayBytes``.
struct DisplaySink: RetainedSink {
    var inputs: Set<SourceKind> { [.pollen, .climate, .air] }

    func contents(of snapshot: LocationSnapshot, context: SinkContext) -> [SinkScope] {
        let location = snapshot.location
        let climate = context.config.climate.enabled ? location.climate?.trend : nil
        let air =
            context.config.air.enabled
            ? location.air.map { AirReading.select(report: $0.report, zone: location.zone, now: snapshot.now) } : nil
        let selection: PollenSelection?
        let fetchedAt: Int64?
        switch snapshot.pollen {
        case .unknown:
            // Nothing known yet on either side: keep what a previous run published.
            guard climate != nil || air != nil else { return [SinkScope(prefix: snapshot.topics.display, tree: nil)] }
            (selection, fetchedAt) = (nil, nil)
        case .unavailable:
            (selection, fetchedAt) = (nil, nil)
        case .selected(let selected, let at):
            (selection, fetchedAt) = (selected, at)
        }
        var tree = TopicTree()
        tree.set(
            snapshot.topics.display,
            DevicePayloads.display(
                selection: selection, fetchedAt: fetchedAt, climate: climate,
                climateStale: context.config.climate.enabled && location.stale.climate, unit: location.unit,
                palette: context.config.pollen.colors, air: air, airStale: location.stale.air))
        return [SinkScope(prefix: snapshot.topics.display, tree: tree)]
    }
}

/// An Awtrix 3 output (SPEC §8): the retained custom apps `<prefix>/custom/<app>` (text) and
/// `<prefix>/custom/<app>c` (climate chart) and, when configured, `<prefix>/indicator<N>`.
///
/// Each is a scope of its own, so an app with nothing to show is deleted (an empty retained
/// payload, which is how Awtrix deletes an app and hides an indicator), and an output removed
/// from the config leaves topics under no scope, which the publisher clears on its full pass
/// — across restarts too, as the published set is persisted.
struct AwtrixSink: RetainedSink {
    let output: AwtrixOutput
    let topic: String
    let locationID: String

    var inputs: Set<SourceKind> { [.pollen, .climate] }

    var textApp: String { DeviceTopics.awtrixApp(topic, output.app) }
    var chartApp: String { DeviceTopics.awtrixApp(topic, output.app + "c") }
    var indicator: String? { output.indicator.map { DeviceTopics.awtrixIndicator(topic, $0) } }

    func contents(of snapshot: LocationSnapshot, context: SinkContext) -> [SinkScope] {
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
            let text = DevicePayloads.awtrixText(
                selection: selection, climate: climate, unit: location.unit, palette: palette)
            scopes.append(SinkScope(prefix: textApp, tree: tree(textApp, text)))
        }
        if climateUnknown {
            scopes.append(SinkScope(prefix: chartApp, tree: nil))
        } else {
            scopes.append(
                SinkScope(prefix: chartApp, tree: tree(chartApp, climate.flatMap(DevicePayloads.awtrixChart))))
        }
        if let indicator {
            if pollenUnknown {
                scopes.append(SinkScope(prefix: indicator, tree: nil))
            } else {
                let payload = selection.map { DevicePayloads.awtrixIndicator(selection: $0, palette: palette) }
                scopes.append(SinkScope(prefix: indicator, tree: tree(indicator, payload)))
            }
        }
        return scopes
    }
}

// MARK: device commands

/// A device's availability as its own topic says (SPEC §8).
enum DeviceAvailability: Sendable, Equatable {
    /// Not heard from since the agent started or the broker connection was re-established.
    case unknown
    case online
    case offline
}

/// One non-retained command to a device.
struct DeviceCommand: Sendable, Equatable {
    let topic: String
    let payload: String
}

/// An output that drives a device with non-retained commands (WLED, Tasmota): a second kind
/// of sink beside ``RetainedSink``. It says what the device should be sent for a snapshot and
/// how to read the device's availability; *when* to send is ``DeviceCommandState``'s decision
/// (SPEC §8: on a change of the data, and on the device coming online — not on every
/// `online`).
protocol DeviceCommandSink: Sendable {
    /// A short name for log lines: `wled wled/strip1`.
    var name: String { get }
    /// The location it shows.
    var locationID: String { get }
    /// The sources whose fetch can change its commands.
    var inputs: Set<SourceKind> { get }
    /// Where the device says whether it is online.
    var availabilityTopic: String { get }
    /// The availability a payload on ``availabilityTopic`` means; nil for anything else.
    func availability(_ payload: String) -> DeviceAvailability?
    /// The commands that show the snapshot, in order; nil when there is nothing to show yet.
    func commands(of snapshot: LocationSnapshot, context: SinkContext) -> [DeviceCommand]?
    /// Topics where the device reports its power state (subscribed to; empty for none).
    var powerTopics: [String] { get }
    /// What a message on one of ``powerTopics`` reports; nil when it says nothing about power.
    func powerReport(_ payload: String) -> PowerReport?
    /// The agent's commands must not switch the light on (`power: leave`) but the firmware may
    /// anyway: when this is set, the agent asks for the power state before its first command
    /// (``powerQuery``) and warns once when the answer to its command shows the light went on.
    var warnsWhenSwitchedOn: Bool { get }
    /// A command that makes the device report its power state without changing it.
    var powerQuery: DeviceCommand? { get }
}

/// A device's report of its power state.
struct PowerReport: Sendable, Equatable {
    var on: Bool
    /// The report answers the agent's own command (Tasmota: the `RESULT` carries `Color`).
    var answersCommand: Bool
}

extension DeviceCommandSink {
    var powerTopics: [String] { [] }
    func powerReport(_ payload: String) -> PowerReport? { nil }
    var warnsWhenSwitchedOn: Bool { false }
    var powerQuery: DeviceCommand? { nil }
}

/// A WLED strip (SPEC §8): `<topic>/api` JSON, availability on `<topic>/status`.
struct WLEDSink: DeviceCommandSink {
    let output: WLEDOutput
    let topic: String
    let locationID: String

    var name: String { "wled \(topic)" }
    var inputs: Set<SourceKind> { output.show == .climateStripes ? [.stripes] : [.pollen] }
    var availabilityTopic: String { DeviceTopics.wledStatus(topic) }

    func availability(_ payload: String) -> DeviceAvailability? {
        switch payload {
        case "online": .online
        case "offline": .offline
        default: nil
        }
    }

    func commands(of snapshot: LocationSnapshot, context: SinkContext) -> [DeviceCommand]? {
        let payload: String
        switch output.show {
        case .climateStripes:
            guard context.config.climate.enabled, let stripes = snapshot.location.stripes else { return nil }
            payload = DevicePayloads.wledStripes(output, series: stripes.series)
        case .risk(let id):
            guard case .selected(let selection, _) = snapshot.pollen else { return nil }
            payload = DevicePayloads.wled(
                output, selection: selection, palette: context.config.pollen.colors,
                profile: context.config.profiles.first { $0.id == id })
        case .pollenMax, .pollenTypes:
            guard case .selected(let selection, _) = snapshot.pollen else { return nil }
            payload = DevicePayloads.wled(output, selection: selection, palette: context.config.pollen.colors)
        }
        return [DeviceCommand(topic: DeviceTopics.wledAPI(topic), payload: payload)]
    }
}

/// A Tasmota light (SPEC §8): `cmnd/<topic>/Color`, availability on `tele/<topic>/LWT`.
struct TasmotaSink: DeviceCommandSink {
    let output: TasmotaOutput
    let topic: String
    let locationID: String

    var name: String { "tasmota \(topic)" }
    var inputs: Set<SourceKind> { [.pollen] }
    var availabilityTopic: String { output.lwtTopic }

    func availability(_ payload: String) -> DeviceAvailability? {
        // Tasmota's defaults (MQTT: LWT) are `Online` / `Offline`.
        switch payload {
        case "Online": .online
        case "Offline": .offline
        default: nil
        }
    }

    func commands(of snapshot: LocationSnapshot, context: SinkContext) -> [DeviceCommand]? {
        guard case .selected(let selection, _) = snapshot.pollen else { return nil }
        var commands = [
            DeviceCommand(
                topic: DeviceTopics.tasmotaCommand(output.commandTopic, "Color"),
                payload: DevicePayloads.tasmotaColor(
                    selection: selection, palette: context.config.pollen.colors, show: output.show,
                    profile: profile(context)))
        ]
        // `Color` alone powers the light on only without SetOption20; `power: on` makes it explicit.
        if output.power == .on {
            commands.append(
                DeviceCommand(topic: DeviceTopics.tasmotaCommand(output.commandTopic, "Power"), payload: "ON"))
        }
        return commands
    }

    /// Where Tasmota answers and reports power (``DeviceTopics/tasmotaAnswers(_:)``): a custom
    /// FullTopic without a `cmnd` level gets no power check.
    var powerTopics: [String] { DeviceTopics.tasmotaAnswers(output.commandTopic) }

    /// `ON`/`OFF` on `…/POWER`; `"POWER":"ON"`/`"OFF"` in a `…/RESULT` JSON (single-relay
    /// lights), which answers a `Color` command when it carries `"Color"`.
    func powerReport(_ payload: String) -> PowerReport? {
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

    var warnsWhenSwitchedOn: Bool { output.power == .leave && !powerTopics.isEmpty }

    /// The risk profile `show: risk:<profile>` names (nil for `pollen_max`).
    private func profile(_ context: SinkContext) -> RiskProfile? {
        guard case .risk(let id) = output.show else { return nil }
        return context.config.profiles.first { $0.id == id }
    }

    /// `Power` without a parameter shows the state (Tasmota docs, Commands → Control, `Power`).
    var powerQuery: DeviceCommand? {
        DeviceCommand(topic: DeviceTopics.tasmotaCommand(output.commandTopic, "Power"), payload: "")
    }
}

extension Sinks {
    /// The retained sinks of the configured Awtrix outputs.
    static func awtrix(for config: AgentConfig) -> [any RetainedSink] {
        config.outputs.compactMap { output in
            guard case .awtrix(let awtrix) = output.device else { return nil }
            return AwtrixSink(output: awtrix, topic: output.topic, locationID: output.location)
        }
    }

    /// The device-command sinks of the configured WLED and Tasmota outputs, in config order.
    static func devices(for config: AgentConfig) -> [any DeviceCommandSink] {
        config.outputs.compactMap { output -> (any DeviceCommandSink)? in
            switch output.device {
            case .wled(let wled): WLEDSink(output: wled, topic: output.topic, locationID: output.location)
            case .tasmota(let tasmota): TasmotaSink(output: tasmota, topic: output.topic, locationID: output.location)
            case .awtrix: nil
            }
        }
    }
}
