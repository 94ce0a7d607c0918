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

/// `<p>/<loc>/air…` (SPEC §10.1): the current local hour of the last good air data.
///
/// Air off clears the scope; no data yet keeps what is published (a restart does not blank it);
/// a failed fetch keeps the data and says `stale` (SPEC §5). The current hour moves with the
/// clock, so the daemon wakes at each local hour (``LocationRuntime/nextContentEdge(after:)``).
struct AirTreeSink: RetainedSink {
    var inputs: Set<SourceKind> { [.air] }

    func contents(of snapshot: LocationSnapshot, context: SinkContext) -> [SinkScope] {
        let tree: TopicTree?
        let location = snapshot.location
        if !context.config.air.enabled {
            tree = TopicTree()
        } else if let air = location.air {
            tree = AirTopics.tree(
                topics: snapshot.topics, report: air.report, zone: location.zone, fetchedAt: air.fetchedAt,
                now: snapshot.now, stale: location.stale.air)
        } else {
            tree = nil
        }
        return [SinkScope(prefix: snapshot.topics.air, tree: tree)]
    }
}

/// `<p>/<loc>/risk/<profile>…` (SPEC §10.2), from the same pollen selection as the pollen tree;
/// with Open-Meteo each profile's `air_out` too (SPEC §20).
///
/// No profiles, pollen off or unsupported here: the scope is cleared (nothing to assess).
struct RiskTreeSink: RetainedSink {
    var inputs: Set<SourceKind> { [.pollen] }

    func contents(of snapshot: LocationSnapshot, context: SinkContext) -> [SinkScope] {
        let tree: TopicTree?
        let profiles = context.config.profiles
        switch snapshot.pollen {
        case _ where profiles.isEmpty: tree = TopicTree()
        case .unknown: tree = nil
        case .unavailable: tree = TopicTree()
        case .selected(let selection, let fetchedAt):
            tree = RiskTopics.tree(
                topics: snapshot.topics, profiles: profiles, selection: selection,
                palette: context.config.pollen.colors,
                view: selection.hourlyView(zone: snapshot.location.zone, now: snapshot.now, fetchedAt: fetchedAt),
                airOut: context.config.airOut)
        }
        return [SinkScope(prefix: snapshot.topics.risk, tree: tree)]
    }
}
