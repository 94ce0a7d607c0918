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

/// `<p>/<loc>/risk/<profile>…` (docs/reference.md, Personal risk), from the same pollen selection as the pollen tree;
/// with Open-Meteo each profile's `air_out` too (docs/reference.md, The hour to air out).
///
/// No profiles, pollen off or unsupported here: the scope is cleared (nothing to assess).
package struct RiskTreeSink: RetainedSink {
    package init() {}

    package var inputs: Set<SourceKind> { [.pollen] }

    package func contents(of snapshot: LocationSnapshot, context: SinkContext) -> [SinkScope] {
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
                view: selection.hourlyView(
                    zone: snapshot.location.zone, now: snapshot.now.unixSeconds, fetchedAt: fetchedAt.unixSeconds),
                airOut: context.config.airOut)
        }
        return [SinkScope(prefix: snapshot.topics.risk.name, tree: tree)]
    }
}
