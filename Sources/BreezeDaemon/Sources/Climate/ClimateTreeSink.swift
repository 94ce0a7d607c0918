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

/// `<p>/<loc>/climate…` (docs/reference.md, Topics), in the location's display unit.
package struct ClimateTreeSink: RetainedSink {
    package init() {}

    package var inputs: Set<SourceKind> { [.climate] }

    package func contents(of snapshot: LocationSnapshot, context: SinkContext) -> [SinkScope] {
        let tree: TopicTree?
        let location = snapshot.location
        if !context.config.climate.enabled {
            tree = TopicTree()
        } else if let climate = location.climate {
            tree = ClimateTopics.tree(
                topics: snapshot.topics, trend: climate.trend, unit: location.unit,
                updatedAt: UTCTimestamp.rfc3339(unixSeconds: climate.fetchedAt.unixSeconds),
                stale: location.stale.climate)
        } else {
            tree = nil
        }
        return [SinkScope(prefix: snapshot.topics.climate.name, tree: tree)]
    }
}
