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

// What the state shows: the retained sinks' scopes (through ``ScopeBuilder``), `print`'s tree,
// `<p>/diagnostics` and the HTTP endpoints' snapshot.

extension DaemonState {
    /// Every sink's scopes for every location; after a fetch (`only`, `kind`), only the sinks
    /// that fetch feeds for its location; on a wake (`edgesOnly`), only the locations whose
    /// content edge (``LocationRuntime/nextContentEdge(after:)``: midnight, freshness, the
    /// hour) has come. Rebuilding everything after each of N fetches, or on each of the wakes
    /// that start the first fetches, made a cycle and a cold start O(N²) (bench/RESULTS.md).
    /// A location whose edge has come is rebuilt whole whatever was asked, so no sink skips it.
    package mutating func scopeActions(
        now: DaemonInstant, only: Int? = nil, kind: SourceKind? = nil, edgesOnly: Bool = false
    ) -> [DaemonAction] {
        var actions: [DaemonAction] = []
        for index in locations.indices where only == nil || only == index {
            let edgeCame = outputs.scopes.edgeCame(index, now: now)
            if edgesOnly && !edgeCame { continue }
            let kind = edgeCame ? nil : kind
            let (snapshot, built) = outputs.scopes.build(index, locations[index], now: now, kind: kind)
            for action in built {
                switch action {
                case .setScope(let scope): actions.append(.setScope(scope))
                case .log(let level, let text): actions.append(.log(level, text))
                }
            }
            actions += perform(
                outputs.devices.update(snapshot, context: context, kind: kind, now: now))
        }
        actions += imageScopes()
        return actions
    }

    /// Every wanted topic, for `print`: locations in config order, sinks in order.
    mutating func printableTree(now: DaemonInstant) -> TopicTree {
        var tree = TopicTree()
        for action in scopeActions(now: now) {
            if case .setScope(let scope) = action, let scoped = scope.tree { tree.merge(scoped) }
        }
        return tree
    }

    /// `<p>/diagnostics` (docs/operations.md, Limits) at `time`.
    package func diagnosticsJSON(at time: DaemonTime) -> String {
        let perLocation = locations.indices.map { index in
            AgentDiagnostics.LocationCalls(
                locationID: locations[index].config.id, google: callsToday(index, .google, now: time.now),
                openMeteo: callsToday(index, .openMeteo, now: time.now))
        }
        var payload = AgentDiagnostics(
            uptimeSeconds: time.uptimeSeconds, sources: calls.outcomes.statuses, apiCallsToday: perLocation,
            reconnects: presence.reconnects)
        payload.openMeteoCallsToday = calls.openMeteo.today(now: time.now)
        payload.imagesFailing = outputs.images.failing
        payload.identityConflict = identity.diagnostics
        return payload.json.serialized
    }

    /// The state as the HTTP endpoints show it at `time`.
    package func serveSnapshot(at time: DaemonTime, publishedTopics: Int) -> ServeSnapshot {
        let locations = self.locations.indices.map { index in
            let runtime = self.locations[index]
            return ServeSnapshot.Location(
                id: runtime.config.id, name: runtime.config.name,
                sources: SourceKind.allCases.filter(enabled).map {
                    Self.source($0, of: runtime, failures: planner.schedules[index][$0].consecutiveFailures)
                },
                googleCallsToday: callsToday(index, .google, now: time.now),
                openMeteoCallsToday: callsToday(index, .openMeteo, now: time.now), runtime: runtime,
                renderedImages: outputs.images.images.filter { $0.location == index && $0.reference != nil }.map(
                    \.config))
        }
        var fetches: [String: AgentDiagnostics.SourceStatus] = [:]
        for key in configuredDiagnosticsKeys { fetches[key] = .init(source: key) }
        for status in calls.outcomes.statuses { fetches[status.source] = status }
        return ServeSnapshot(
            version: BreezeVersion.string, takenAt: time.now, uptimeSeconds: time.uptimeSeconds,
            mqttConnected: presence.isConnected, publishedTopics: publishedTopics, locations: locations,
            fetches: fetches.keys.sorted().map { fetches[$0]! },
            openMeteoCallsToday: calls.openMeteo.today(now: time.now))
    }

    /// The `<p>/diagnostics` source names this configuration can fetch from.
    private var configuredDiagnosticsKeys: [String] {
        SourceKind.allCases.filter(enabled).flatMap { $0.rules.diagnosticsKeys(in: config) }
    }

    private static func source(_ kind: SourceKind, of runtime: LocationRuntime, failures: Int) -> ServeSnapshot.Source {
        let slot = runtime.slots.status(kind)
        // Data that says the source has nothing here (pollen outside its area).
        if slot.hasData && slot.lastSuccess == nil {
            return .init(kind: kind, state: .unavailable, lastSuccess: nil, consecutiveFailures: failures)
        }
        let state: ServeSnapshot.SourceState
        if (slot.hasData && slot.stale) || failures > 0 {
            state = .stale
        } else {
            state = slot.hasData ? .fresh : .pending
        }
        return .init(kind: kind, state: state, lastSuccess: slot.lastSuccess, consecutiveFailures: failures)
    }
}
