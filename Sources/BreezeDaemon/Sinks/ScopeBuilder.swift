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

/// What the retained sinks hold (docs/reference.md, Topics): builds each location's scopes from its snapshot,
/// keeps every location within its topic budget (docs/operations.md, Limits), and knows when a location must be
/// rebuilt although no fetch finished (its content edge: midnight, freshness, the hour). A child
/// of DaemonState, which hands it a location and maps its actions.
struct ScopeBuilder {
    enum Action {
        case setScope(SinkScope)
        case log(LogLevel, String)
    }

    /// Most retained topics one location may hold (docs/operations.md, Limits); a scope that would pass it keeps
    /// what is published there, with an error logged once.
    static let maximumTopicsPerLocation = 2_000

    /// The configuration and mode every sink builds in.
    let context: SinkContext
    /// The retained sinks (``Sinks/all(for:)``): the trees, discovery, display JSON, Awtrix.
    let sinks: [any RetainedSink]
    /// Per location: when its sinks' view must be rebuilt although no fetch finished
    /// (``LocationRuntime/nextContentEdge(after:)`` at its last build; `distantPast`: due at once). Kept
    /// apart in one array: the wake reads it for every location after every event.
    private(set) var rebuildAt: [DaemonInstant]
    /// Per location: topics per scope at the scope's last build (the budget counts them), the
    /// scopes last refused for passing it, and the selection warnings last logged (each is
    /// logged once per change).
    private var built: [Built]

    private struct Built {
        var topicCounts: [String: Int] = [:]
        var overBudget: [String] = []
        var selectionWarnings: [String] = []
    }

    init(context: SinkContext, locations: Int) {
        self.context = context
        self.sinks = Sinks.all(for: context)
        rebuildAt = Array(repeating: .distantPast, count: locations)
        built = Array(repeating: Built(), count: locations)
    }

    /// Whether location `index`'s content edge has come: it is rebuilt whole.
    func edgeCame(_ index: Int, now: DaemonInstant) -> Bool { rebuildAt[index] <= now }

    /// The clock stepped back: the stored edges were worked out from a later time, when the
    /// next midnight or hour may be far earlier than they say; every location is rebuilt.
    mutating func clockSteppedBack() {
        for index in rebuildAt.indices { rebuildAt[index] = .distantPast }
    }

    /// The earliest content edge (a passed one is `now`). Read after every event, for every
    /// location: a plain array of times, read in place.
    func nextDeadline(now: DaemonInstant) -> DaemonInstant {
        rebuildAt.withUnsafeBufferPointer { all in
            var wake = DaemonInstant.distantFuture
            for at in all { wake = min(wake, max(at, now)) }
            return wake
        }
    }

    /// Location `index` as the sinks see it at `now` and the scopes of the sinks `kind` feeds
    /// (every sink: nil). Sinks not rebuilt now count with their size at their last build.
    mutating func build(_ index: Int, _ location: LocationRuntime, now: DaemonInstant, kind: SourceKind?)
        -> (LocationSnapshot, [Action])
    {
        rebuildAt[index] = location.nextContentEdge(after: now)
        let (snapshot, warnings) = self.snapshot(index, location, now: now)
        var actions = warnings
        var counts = built[index].topicCounts
        var over: [String] = []
        for sink in sinks where kind.map({ sink.inputs.contains($0) }) ?? true {
            for var scope in sink.contents(of: snapshot, context: context) {
                counts[scope.prefix] = 0
                let budget = Self.maximumTopicsPerLocation - counts.values.reduce(0, +)
                if let count = scope.tree?.count, count > budget {
                    over.append(scope.prefix)
                    scope = SinkScope(prefix: scope.prefix, tree: nil)
                } else {
                    counts[scope.prefix] = scope.tree?.count ?? 0
                }
                actions.append(.setScope(scope))
            }
        }
        built[index].topicCounts = counts
        if over.isEmpty {
            if kind == nil { built[index].overBudget = [] }
        } else if over != built[index].overBudget {
            built[index].overBudget = over
            actions.append(
                .log(
                    .error,
                    "\(location.config.id): more than \(Self.maximumTopicsPerLocation) topics; not updating \(over.joined(separator: ", ")) (what is published there stays)"
                ))
        }
        return (snapshot, actions)
    }

    /// The location as the sinks see it at `now`; logs the selection's warnings once per change.
    private mutating func snapshot(_ index: Int, _ location: LocationRuntime, now: DaemonInstant)
        -> (LocationSnapshot, [Action])
    {
        let pollen = location.pollenView(settings: context.config.pollen, now: now)
        var actions: [Action] = []
        if case .selected(let selection, _) = pollen, selection.warnings != built[index].selectionWarnings {
            let id = location.config.id
            actions = selection.warnings.map { .log(.warning, "pollen[\(id)]: \($0)") }
            built[index].selectionWarnings = selection.warnings
        }
        return (
            LocationSnapshot(
                location: location, topics: context.layout.location(location.config.id), pollen: pollen, now: now),
            actions
        )
    }
}
