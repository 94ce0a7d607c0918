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
package import BreezeCore

/// What every output sees of one location at one moment: the runtime state, its topics, and the
/// pollen days already selected for the local date (selected once per update and shared by
/// every sink, so the pollen tree and the discovery config can never disagree about the items).
package struct LocationSnapshot {
    /// What is known about the pollen of the location now.
    package enum Pollen {
        /// Nothing yet (no fetch finished, nothing stored): sinks keep what they hold.
        case unknown
        /// Pollen is disabled, or the source has none here: sinks remove their pollen parts.
        case unavailable
        /// Today's and the forecast days' items, selected for the local date and age.
        case selected(PollenSelection, fetchedAt: DaemonInstant)
    }

    let location: LocationRuntime
    package let topics: LocationTopics
    let pollen: Pollen
    let now: DaemonInstant

    package init(location: LocationRuntime, topics: LocationTopics, pollen: Pollen, now: DaemonInstant) {
        self.location = location
        self.topics = topics
        self.pollen = pollen
        self.now = now
    }
}

/// The settings every sink may read, fixed for a run.
package struct SinkContext {
    let config: AgentConfig
    /// `--demo`: bundled responses, no Google call counting, no discovery.
    let demo: Bool

    package init(config: AgentConfig, demo: Bool) {
        self.config = config
        self.demo = demo
    }

    /// Whether Home Assistant discovery is published (`--demo` publishes none).
    package var discoveryEnabled: Bool { config.homeAssistant.discovery && !demo }

    /// The configuration's topics (built with it: ``AgentConfig/topicLayout``).
    var layout: TopicLayout { config.topicLayout }
}

/// An output of the agent that holds retained topics on the broker: given a location's
/// snapshot, it says what each of its scopes should hold (docs/reference.md, Topics: a scope is a topic prefix
/// the sink owns; `nil` keeps what is published there, an empty tree clears it).
///
/// The broker tree, Home Assistant discovery, the display JSON and Awtrix apps conform; the
/// agent's own are listed in ``Sinks/all(for:)``, a device output's come from its
/// ``DeviceOutput``. The other outputs are not retained sinks: device
/// commands (WLED, Tasmota) are ``DeviceCommandSink``s sent by ``DeviceCommandState``, images
/// are ``ImagePipeline``'s, and the HTTP endpoints read a ``ServeSnapshot``. An output of this
/// kind is added as docs/architecture.md ("Adding an output") lists.
package protocol RetainedSink: Sendable {
    /// The sources whose finished fetch can change what this sink holds; after such a fetch
    /// only these sinks of that location are rebuilt (tree building is most of a cycle's CPU).
    var inputs: Set<SourceKind> { get }

    /// The scopes of the location and what each should hold now.
    func contents(of snapshot: LocationSnapshot, context: SinkContext) -> [SinkScope]
}

/// One scope of a sink and what it should hold (`nil`: keep what is published).
package struct SinkScope: Equatable {
    /// The topic prefix the scope owns (a ``RetainedPublisher`` scope).
    package let prefix: String
    package let tree: TopicTree?
}

package enum Sinks {
    /// The sinks a configuration turns on, in publishing order.
    static func all(for context: SinkContext) -> [any RetainedSink] {
        // Each source's own tree (``SourceRules/sinks(for:)``), then the views across sources.
        var sinks = SourceKind.allCases.flatMap { $0.rules.sinks(for: context) }
        // Off by default and then absent: their topics, if an earlier run published some, are
        // under no scope and the publisher's full passes clear them.
        if !context.config.profiles.isEmpty { sinks.append(RiskTreeSink()) }
        if context.discoveryEnabled { sinks.append(DiscoverySink()) }
        sinks.append(DisplaySink())
        for output in context.config.outputs {
            sinks += output.agentOutput.retainedSinks(topic: output.topic, locationID: output.location)
        }
        return sinks
    }

    /// The device-command sinks of the configured outputs (WLED, Tasmota), in config order.
    static func devices(for config: AgentConfig) -> [any DeviceCommandSink] {
        config.outputs.compactMap { $0.agentOutput.commandSink(topic: $0.topic, locationID: $0.location) }
    }
}

/// What one kind of device output (`type: wled`, …) runs as in the agent: its retained scopes,
/// its command sink, or both. The configuration's settings type conforms in the output's own
/// file (`extension WLEDOutput: DeviceOutput` in WLEDSink.swift), so an output registers itself
/// there: ``Sinks`` asks every configured output, it lists none by name.
package protocol DeviceOutput: DeviceOutputSettings {
    /// Its retained sinks (Awtrix's apps and indicator); none by default.
    func retainedSinks(topic: String, locationID: String) -> [any RetainedSink]
    /// Its command sink (WLED's JSON API, Tasmota's commands); none by default.
    func commandSink(topic: String, locationID: String) -> (any DeviceCommandSink)?
}

extension DeviceOutput {
    package func retainedSinks(topic: String, locationID: String) -> [any RetainedSink] { [] }
    package func commandSink(topic: String, locationID: String) -> (any DeviceCommandSink)? { nil }
}

extension OutputConfig {
    /// The output's side in the agent. Every settings type the parser makes conforms to
    /// ``DeviceOutput`` in its own file; `OutputsConfigTests` checks each `type:` the parser
    /// knows, so a kind without one fails there, not in a running agent.
    var agentOutput: any DeviceOutput {
        guard let output = device.settings as? any DeviceOutput else {
            preconditionFailure("outputs: type \(typeName) has no DeviceOutput conformance in the agent")
        }
        return output
    }
}
