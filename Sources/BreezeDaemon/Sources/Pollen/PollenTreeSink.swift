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

/// `<p>/<loc>/pollen…` (docs/reference.md, Topics): the pollen tree of the selected days, and with Open-Meteo the
/// hourly topics at the snapshot's moment (docs/reference.md, The hour to air out: `now`, `peak_at`, `air_out`; the daemon
/// wakes at each local hour for them, ``LocationRuntime/nextContentEdge(after:)``) and the
/// season's `percentile` and `season_start` (``LocationRuntime/season``).
package struct PollenTreeSink: RetainedSink {
    package init() {}

    package var inputs: Set<SourceKind> { [.pollen, .dwd] }

    package func contents(of snapshot: LocationSnapshot, context: SinkContext) -> [SinkScope] {
        let tree: TopicTree?
        switch snapshot.pollen {
        case .unknown: tree = nil
        case .unavailable: tree = TopicTree()
        case .selected(let selection, let fetchedAt):
            var pollen = PollenTopics.tree(
                topics: snapshot.topics, selection: selection, fetchedAt: fetchedAt.unixSeconds,
                palette: context.config.pollen.colors)
            // Open-Meteo's hourly topics (docs/reference.md, The hour to air out); none for Google.
            pollen.merge(
                PollenTopics.hourlyTree(
                    topics: snapshot.topics, selection: selection,
                    view: selection.hourlyView(
                        zone: snapshot.location.zone, now: snapshot.now.unixSeconds, fetchedAt: fetchedAt.unixSeconds),
                    airOut: context.config.airOut, palette: context.config.pollen.colors))
            // Today against the recent season (docs/reference.md, The hour to air out): key-free only (Google has no standing).
            if selection.source == .openMeteo || snapshot.location.season != nil {
                pollen.merge(
                    PollenTopics.seasonTree(
                        topics: snapshot.topics, standing: snapshot.location.season,
                        itemIDs: selection.items.map(\.topicID)))
            }
            // Every source's reading and the consensus, where two sources carry an item.
            pollen.merge(
                PollenConsensusTopics.tree(
                    topics: snapshot.topics,
                    sources: snapshot.location.pollenSourcesToday(settings: context.config.pollen, now: snapshot.now),
                    palette: context.config.pollen.colors))
            // The DWD's species in the shape the DWD integrations give (docs/home-assistant.md, The DWD card shape).
            pollen.merge(
                snapshot.location.dwdCardTree(
                    topics: snapshot.topics, settings: context.config.pollen, now: snapshot.now))
            tree = pollen
        }
        return [SinkScope(prefix: snapshot.topics.pollen.name, tree: tree)]
    }
}
