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

/// `<p>/<loc>/climate/stripes…` (docs/reference.md, Warming stripes): its own scope inside climate's, since the stripes
/// come from their own yearly fetch and stay published while the daily climate is unknown.
package struct StripesTreeSink: RetainedSink {
    package init() {}

    package var inputs: Set<SourceKind> { [.stripes] }

    package func contents(of snapshot: LocationSnapshot, context: SinkContext) -> [SinkScope] {
        let tree: TopicTree?
        if !context.config.climate.enabled {
            tree = TopicTree()
        } else if let stripes = snapshot.location.stripes {
            tree = StripesTopics.tree(topics: snapshot.topics, series: stripes.series)
        } else {
            tree = nil
        }
        return [SinkScope(prefix: snapshot.topics.climateStripes.name, tree: tree)]
    }
}
