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

/// The location's Home Assistant device config (docs/reference.md, Topics discovery).
///
/// It lists the pollen items, so it follows pollen fetches; climate's part depends on the
/// config only. While pollen is not known yet it keeps what is published, so a restart does
/// not briefly remove the pollen entities.
package struct DiscoverySink: RetainedSink {
    package var inputs: Set<SourceKind> { [.pollen, .dwd] }

    package func contents(of snapshot: LocationSnapshot, context: SinkContext) -> [SinkScope] {
        let scope = snapshot.topics.deviceConfig
        let items: [DiscoveryInput.PollenItem]
        var forecast = false
        var hourly = false
        switch snapshot.pollen {
        case .unknown: return [SinkScope(prefix: scope.name, tree: nil)]
        case .unavailable: items = []
        case .selected(let selection, _):
            items = selection.items.map {
                .init(id: $0.topicID, name: $0.name, isPlant: $0.isPlant, hasIndex: $0.value != nil)
            }
            forecast = selection.days.count > 1
            hourly = selection.hourly != nil
        }
        let config = context.config
        var input = DiscoveryInput(
            layout: context.layout, agentVersion: BreezeVersion.string, qos: config.mqtt.qos,
            location: .init(id: snapshot.location.config.id, name: snapshot.location.config.name),
            pollenAvailable: !items.isEmpty, pollenItems: items, climateEnabled: config.climate.enabled,
            pollenForecast: forecast)
        input.airEnabled = config.air.enabled
        input.language = config.language
        input.hourlyPollen = hourly
        // Risk needs pollen: without it the risk topics are cleared, and so are its entities.
        input.profiles = items.isEmpty ? [] : config.profiles.map { .init(id: $0.id, name: $0.name) }
        if !items.isEmpty {
            // docs/reference.md, "Several sources": the items two sources carry today, and the DWD's species.
            input.consensusItems = Set(
                PollenConsensusTopics.carried(
                    snapshot.location.pollenSourcesToday(settings: config.pollen, now: snapshot.now)
                ).map(\.id))
            if snapshot.location.dwdReport(settings: config.pollen, now: snapshot.now) != nil {
                input.dwdRegion = snapshot.location.config.dwdRegion
            }
        }
        input.images = config.images.filter { $0.location == snapshot.location.config.id }.map {
            .init(id: $0.id, format: $0.format)
        }
        let message = HomeAssistantDiscovery.deviceConfig(for: input)
        var tree = TopicTree()
        tree.set(message.topic, message.payload)
        return [SinkScope(prefix: scope.name, tree: tree)]
    }
}
