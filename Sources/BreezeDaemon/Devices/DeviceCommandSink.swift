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

/// A device's availability as its own topic says (docs/displays.md).
package enum DeviceAvailability: Sendable, Equatable {
    /// Not heard from since the agent started or the broker connection was re-established.
    case unknown
    case online
    case offline
}

/// One non-retained command to a device.
package struct DeviceCommand: Sendable, Equatable {
    let topic: String
    let payload: String
}

/// An output that drives a device with non-retained commands (WLED, Tasmota): a second kind
/// of sink beside ``RetainedSink``. It says what the device should be sent for a snapshot and
/// how to read the device's availability; *when* to send is ``DeviceCommandState``'s decision
/// (docs/displays.md: on a change of the data, and on the device coming online — not on every
/// `online`).
package protocol DeviceCommandSink: Sendable {
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
package struct PowerReport: Sendable, Equatable {
    var on: Bool
    /// The report answers the agent's own command (Tasmota: the `RESULT` carries `Color`).
    var answersCommand: Bool
}

extension DeviceCommandSink {
    package var powerTopics: [String] { [] }
    package func powerReport(_ payload: String) -> PowerReport? { nil }
    package var warnsWhenSwitchedOn: Bool { false }
    package var powerQuery: DeviceCommand? { nil }
}
