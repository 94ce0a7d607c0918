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

/// `<p>/<loc>/air…` (docs/reference.md, Air quality bands): the current local hour of the last good air data.
///
/// Air off clears the scope; no data yet keeps what is published (a restart does not blank it);
/// a failed fetch keeps the data and says `stale` (docs/operations.md, Faults). The current hour moves with the
/// clock, so the daemon wakes at each local hour (``LocationRuntime/nextContentEdge(after:)``).
package struct AirTreeSink: RetainedSink {
    package init() {}

    package var inputs: Set<SourceKind> { [.air] }

    package func contents(of snapshot: LocationSnapshot, context: SinkContext) -> [SinkScope] {
        let tree: TopicTree?
        let location = snapshot.location
        if !context.config.air.enabled {
            tree = TopicTree()
        } else if let air = location.air {
            tree = AirTopics.tree(
                topics: snapshot.topics, report: air.report, zone: location.zone, fetchedAt: air.fetchedAt.unixSeconds,
                now: snapshot.now.unixSeconds, stale: location.stale.air)
        } else {
            tree = nil
        }
        return [SinkScope(prefix: snapshot.topics.air.name, tree: tree)]
    }
}
