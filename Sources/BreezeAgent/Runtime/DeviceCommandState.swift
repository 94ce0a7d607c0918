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
import BreezeMQTT

/// When the non-retained device commands (WLED, Tasmota) are sent (SPEC §8), as a value:
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
/// - At most one command batch per device per ``minimumInterval`` (SPEC §16): a send due
///   inside it (a device whose status flaps) is held and goes out when the interval is up, if
///   the device is still online. 1,000 availability toggles once drove 1,000 commands.
///
/// A child of ``DaemonState`` with its own actions, which the parent maps; its deadline is the
/// end of a held send's interval.
struct DeviceCommandState {
    /// At most one command batch per device per this many seconds.
    static let minimumInterval: Int64 = 10

    /// What the device outputs ask for.
    enum Action: Sendable, Equatable {
        /// Send a command to a device (never retained).
        case send(OutgoingMessage)
        case log(LogLevel, String)
    }

    let sinks: [any DeviceCommandSink]
    private(set) var availability: [DeviceAvailability]
    /// What each device should show now (nil: nothing known yet).
    private(set) var wanted: [[DeviceCommand]?]
    /// What each device was last sent.
    private(set) var sent: [[DeviceCommand]?]
    /// The power state each device last reported (nil: not known since it came online).
    private(set) var power: [Bool?]
    /// Commands were sent to a light that must stay off; the device's answer to them tells,
    /// against the state it reported before, whether the firmware switched it on anyway.
    private var watchingPower: [Bool]
    /// The power-on warning was logged (once per device and run).
    private var warnedPowerOn: [Bool]
    /// When each device was last sent a batch (``minimumInterval``).
    private(set) var lastSentAt: [Int64?]
    /// Sends held by the interval since the last batch (nonzero: one is owed).
    private(set) var held: [Int]

    init(sinks: [any DeviceCommandSink]) {
        self.sinks = sinks
        availability = Array(repeating: .unknown, count: sinks.count)
        wanted = Array(repeating: nil, count: sinks.count)
        sent = Array(repeating: nil, count: sinks.count)
        power = Array(repeating: nil, count: sinks.count)
        watchingPower = Array(repeating: false, count: sinks.count)
        warnedPowerOn = Array(repeating: false, count: sinks.count)
        lastSentAt = Array(repeating: nil, count: sinks.count)
        held = Array(repeating: 0, count: sinks.count)
    }

    /// The end of the earliest interval with a send held.
    var nextDeadline: Int64? {
        sinks.indices.compactMap { index in
            guard held[index] > 0, let at = lastSentAt[index] else { return nil }
            return FetchSchedule.sum(at, Self.minimumInterval)
        }.min()
    }

    /// The held sends whose interval is up: sent when the device is online, dropped (with the
    /// count logged) otherwise (it is sent what it should show when it comes back).
    mutating func due(now: Int64, qos: Int) -> [Action] {
        var actions: [Action] = []
        for index in sinks.indices where held[index] > 0 {
            guard let at = lastSentAt[index], now >= FetchSchedule.sum(at, Self.minimumInterval) else { continue }
            let count = held[index]
            held[index] = 0
            // A device that came back online may have rebooted: the batch goes even if unchanged.
            guard availability[index] == .online, wanted[index] != nil else {
                actions.append(
                    .log(.info, "output \(sinks[index].name): \(count) held send(s) dropped; the device is not online"))
                continue
            }
            actions += send(index, reason: "\(count) send(s) held for \(Self.minimumInterval) s", qos: qos, now: now)
        }
        return actions
    }

    /// Every device's availability and power topics, for the subscriptions.
    var availabilityTopics: [String] { sinks.flatMap { [$0.availabilityTopic] + $0.powerTopics } }

    /// The broker connection is (re)established: every device is unknown until it says otherwise.
    mutating func brokerConnected() {
        for index in availability.indices { availability[index] = .unknown }
    }

    /// New data for a location: the commands of its devices (those fed by `kind`, or all), sent
    /// to the devices that are online and whose commands changed.
    mutating func update(
        _ snapshot: LocationSnapshot, context: SinkContext, kind: SourceKind?, now: Int64
    ) -> [Action] {
        var actions: [Action] = []
        for (index, sink) in sinks.enumerated()
        where sink.locationID == snapshot.location.config.id && kind.map({ sink.inputs.contains($0) }) ?? true {
            guard let commands = sink.commands(of: snapshot, context: context) else { continue }
            wanted[index] = commands
            guard availability[index] == .online, sent[index] != commands else { continue }
            actions += send(index, reason: "data changed", qos: context.config.mqtt.qos, now: now)
        }
        return actions
    }

    /// A message on an availability topic; nil when the topic is none of the devices'.
    mutating func handle(_ message: MQTTMessage, qos: Int, now: Int64) -> [Action]? {
        var matched = false
        var actions: [Action] = []
        for (index, sink) in sinks.enumerated() where sink.powerTopics.contains(message.topic) {
            matched = true
            guard let payload = String(validating: message.payload, as: UTF8.self),
                let report = sink.powerReport(payload)
            else { continue }
            if report.answersCommand, watchingPower[index] {
                watchingPower[index] = false
                if report.on, power[index] == false, !warnedPowerOn[index] {
                    warnedPowerOn[index] = true
                    actions.append(
                        .log(
                            .warning,
                            "output \(sink.name): the light was off and its color command switched it on; set SetOption20 1 on the device (or power: on in the config), see docs/displays.md"
                        ))
                }
            }
            power[index] = report.on
        }
        for (index, sink) in sinks.enumerated() where sink.availabilityTopic == message.topic {
            matched = true
            guard let payload = String(validating: message.payload, as: UTF8.self),
                let new = sink.availability(payload)
            else { continue }
            let old = availability[index]
            availability[index] = new
            // A device that went away may come back in another power state.
            if new != .online { power[index] = nil }
            guard new == .online, old != .online else {
                // While a send is held (a flapping status) the transitions are not logged one
                // by one: the held send's line counts them.
                if new == .offline, old != .offline, held[index] == 0 {
                    actions.append(.log(.info, "output \(sink.name): offline"))
                }
                continue
            }
            if wanted[index] != nil {
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
        sinks.indices.flatMap { wanted[$0] == nil ? [] : send($0, reason: "once", qos: qos, now: nil) }
    }

    /// Sends the device its wanted commands, or holds the send when the last batch is less than
    /// ``minimumInterval`` old (`now` nil: `once`, no limit).
    private mutating func send(_ index: Int, reason: String, qos: Int, now: Int64?) -> [Action] {
        guard var commands = wanted[index] else { return [] }
        if let now {
            if let at = lastSentAt[index], now < FetchSchedule.sum(at, Self.minimumInterval) {
                held[index] += 1
                guard held[index] == 1 else { return [] }
                return [
                    .log(
                        .info,
                        "output \(sinks[index].name): \(reason) within \(Self.minimumInterval) s of the last commands; held until \(FetchSchedule.sum(at, Self.minimumInterval) - now) s from now"
                    )
                ]
            }
            lastSentAt[index] = now
            held[index] = 0
        }
        sent[index] = commands
        if sinks[index].warnsWhenSwitchedOn {
            watchingPower[index] = true
            // Not known since the device came online: ask first (answered before the command).
            if power[index] == nil, let query = sinks[index].powerQuery { commands.insert(query, at: 0) }
        }
        var actions: [Action] = [
            .log(
                .info,
                "output \(sinks[index].name): \(reason); sending "
                    + commands.map { "\($0.topic) \($0.payload)" }.joined(separator: ", "))
        ]
        for command in commands {
            actions.append(
                .send(OutgoingMessage(topic: command.topic, payload: command.payload, qos: qos, retain: false)))
        }
        return actions
    }
}
