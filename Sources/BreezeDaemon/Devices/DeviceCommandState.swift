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

/// When the non-retained device commands (WLED, Tasmota) are sent (docs/displays.md), as a value:
/// part of ``DaemonState``, tested without a broker.
///
/// - The data a device shows changed while it is online: send the new commands.
/// - The device's availability goes from unknown or `offline` to `online`: send what it should
///   show (it may have rebooted, or missed a change while it was away).
/// - A repeated `online` while online: nothing. WLED re-publishes `<topic>/status online`
///   after every state change (wled00/mqtt.cpp, `publishMqtt`), our own commands included;
///   answering it would loop, and re-sending would undo the user's own change within a second.
/// - While unknown or offline nothing is sent: the retained status the device keeps on the
///   broker arrives right after the subscription, and the transition to `online` sends.
/// - A broker (re)connect makes every device unknown again: the retained statuses that arrive
///   with the new subscription decide afresh, so a change missed while disconnected is sent.
///
/// - At most one command batch per device per ``minimumInterval`` (docs/operations.md, Limits): a send due
///   inside it (a device whose status flaps) is held and goes out when the interval is up, if
///   the device is still online. 1,000 availability toggles once drove 1,000 commands.
///
/// A child of ``DaemonState`` with its own actions, which the parent maps; its deadline is the
/// end of a held send's interval.
package struct DeviceCommandState {
    /// At most one command batch per device per this long.
    static let minimumInterval: DaemonDuration = .seconds(10)

    /// What the device outputs ask for.
    enum Action: Sendable, Equatable {
        /// Send a command to a device (never retained).
        case send(OutgoingMessage)
        case log(LogLevel, String)
    }

    /// Where a device stands in its command interval (``minimumInterval``).
    enum Interval: Equatable {
        /// Nothing sent yet (or only by `once`, which has no limit).
        case free
        /// The last batch went out at this time; nothing is owed.
        case sent(at: DaemonInstant)
        /// The last batch went out at `at`, and `count` sends came due inside the interval: one
        /// is owed when it is up.
        case holding(sentAt: DaemonInstant, count: Int)

        /// When the last batch went out, if one did.
        var lastSentAt: DaemonInstant? {
            switch self {
            case .free: nil
            case .sent(let at), .holding(let at, _): at
            }
        }

        /// The sends held (0: none).
        var held: Int {
            if case .holding(_, let count) = self { count } else { 0 }
        }
    }

    /// Whether a light that must stay off is watched: commands were sent to it, and the
    /// device's answer to them tells, against the state it reported before, whether the firmware
    /// switched it on anyway. Warned once per device and run.
    enum PowerWatch: Equatable {
        case idle, watching, warned
    }

    /// One device output and what the agent knows of it.
    struct Device {
        let sink: any DeviceCommandSink
        var availability = DeviceAvailability.unknown
        /// What it should show now (nil: nothing known yet).
        var wanted: [DeviceCommand]?
        /// What it was last sent.
        var sent: [DeviceCommand]?
        /// The power state it last reported (nil: not known since it came online).
        var power: Bool?
        var powerWatch = PowerWatch.idle
        var interval = Interval.free

        init(sink: any DeviceCommandSink) { self.sink = sink }
    }

    private(set) var devices: [Device]

    init(sinks: [any DeviceCommandSink]) {
        devices = sinks.map(Device.init(sink:))
    }

    /// Every device's availability, in configuration order.
    var availability: [DeviceAvailability] { devices.map(\.availability) }

    /// The end of the earliest interval with a send held.
    var nextDeadline: DaemonInstant? {
        devices.compactMap { device in
            guard case .holding(let at, _) = device.interval else { return nil }
            return at + Self.minimumInterval
        }.min()
    }

    /// The held sends whose interval is up: sent when the device is online, dropped (with the
    /// count logged) otherwise (it is sent what it should show when it comes back).
    mutating func due(now: DaemonInstant, qos: Int) -> [Action] {
        var actions: [Action] = []
        for index in devices.indices {
            guard case .holding(let at, let count) = devices[index].interval,
                now >= at + Self.minimumInterval
            else { continue }
            devices[index].interval = .sent(at: at)
            // A device that came back online may have rebooted: the batch goes even if unchanged.
            guard devices[index].availability == .online, devices[index].wanted != nil else {
                actions.append(
                    .log(
                        .info,
                        "output \(devices[index].sink.name): \(count) held send(s) dropped; the device is not online"))
                continue
            }
            actions += send(index, reason: "\(count) send(s) held for \(Self.minimumInterval) s", qos: qos, now: now)
        }
        return actions
    }

    /// Every device's availability and power topics, for the subscriptions.
    var availabilityTopics: [String] { devices.flatMap { [$0.sink.availabilityTopic] + $0.sink.powerTopics } }

    /// The broker connection is (re)established: every device is unknown until it says otherwise.
    mutating func brokerConnected() {
        for index in devices.indices { devices[index].availability = .unknown }
    }

    /// New data for a location: the commands of its devices (those fed by `kind`, or all), sent
    /// to the devices that are online and whose commands changed.
    mutating func update(
        _ snapshot: LocationSnapshot, context: SinkContext, kind: SourceKind?, now: DaemonInstant
    ) -> [Action] {
        var actions: [Action] = []
        for index in devices.indices {
            let sink = devices[index].sink
            guard sink.locationID == snapshot.location.config.id, kind.map({ sink.inputs.contains($0) }) ?? true,
                let commands = sink.commands(of: snapshot, context: context)
            else { continue }
            devices[index].wanted = commands
            guard devices[index].availability == .online, devices[index].sent != commands else { continue }
            actions += send(index, reason: "data changed", qos: context.config.mqtt.qos, now: now)
        }
        return actions
    }

    /// A message on an availability topic; nil when the topic is none of the devices'.
    mutating func handle(_ message: MQTTMessage, qos: Int, now: DaemonInstant) -> [Action]? {
        var matched = false
        var actions: [Action] = []
        for index in devices.indices where devices[index].sink.powerTopics.contains(message.topic) {
            matched = true
            let sink = devices[index].sink
            guard let payload = String(validating: message.payload, as: UTF8.self),
                let report = sink.powerReport(payload)
            else { continue }
            if report.answersCommand, devices[index].powerWatch == .watching {
                devices[index].powerWatch = .idle
                if report.on, devices[index].power == false {
                    devices[index].powerWatch = .warned
                    actions.append(
                        .log(
                            .warning,
                            "output \(sink.name): the light was off and its color command switched it on; set SetOption20 1 on the device (or power: on in the config), see docs/displays.md"
                        ))
                }
            }
            devices[index].power = report.on
        }
        for index in devices.indices where devices[index].sink.availabilityTopic == message.topic {
            matched = true
            let sink = devices[index].sink
            guard let payload = String(validating: message.payload, as: UTF8.self),
                let new = sink.availability(payload)
            else { continue }
            let old = devices[index].availability
            devices[index].availability = new
            // A device that went away may come back in another power state.
            if new != .online { devices[index].power = nil }
            guard new == .online, old != .online else {
                // While a send is held (a flapping status) the transitions are not logged one
                // by one: the held send's line counts them.
                if new == .offline, old != .offline, devices[index].interval.held == 0 {
                    actions.append(.log(.info, "output \(sink.name): offline"))
                }
                continue
            }
            if devices[index].wanted != nil {
                actions += send(index, reason: "device online", qos: qos, now: now)
            } else {
                actions.append(.log(.info, "output \(sink.name): online; nothing to show yet"))
            }
        }
        return matched ? actions : nil
    }

    /// `once`: every known command, whatever the availability (a one-shot run does not wait
    /// for statuses; a command to a device that is away is simply lost).
    mutating func sendAll(qos: Int) -> [Action] {
        devices.indices.flatMap { devices[$0].wanted == nil ? [] : send($0, reason: "once", qos: qos, now: nil) }
    }

    /// Sends the device its wanted commands, or holds the send when the last batch is less than
    /// ``minimumInterval`` old (`now` nil: `once`, no limit).
    private mutating func send(_ index: Int, reason: String, qos: Int, now: DaemonInstant?) -> [Action] {
        guard var commands = devices[index].wanted else { return [] }
        let sink = devices[index].sink
        if let now {
            if let at = devices[index].interval.lastSentAt, now < at + Self.minimumInterval {
                let held = devices[index].interval.held + 1
                devices[index].interval = .holding(sentAt: at, count: held)
                guard held == 1 else { return [] }
                return [
                    .log(
                        .info,
                        "output \(sink.name): \(reason) within \(Self.minimumInterval) s of the last commands; held until \(at + Self.minimumInterval - now) s from now"
                    )
                ]
            }
            devices[index].interval = .sent(at: now)
        }
        devices[index].sent = commands
        if sink.warnsWhenSwitchedOn {
            if devices[index].powerWatch != .warned { devices[index].powerWatch = .watching }
            // Not known since the device came online: ask first (answered before the command).
            if devices[index].power == nil, let query = sink.powerQuery { commands.insert(query, at: 0) }
        }
        var actions: [Action] = [
            .log(
                .info,
                "output \(sink.name): \(reason); sending "
                    + commands.map { "\($0.topic) \($0.payload)" }.joined(separator: ", "))
        ]
        for command in commands {
            actions.append(
                .send(OutgoingMessage(topic: command.topic, payload: command.payload, qos: qos, retain: false)))
        }
        return actions
    }
}
