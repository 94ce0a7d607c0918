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

/// What the HTTP endpoints show, as one value: the daemon makes a new one after every event it
/// handles and hands it over under a lock, so a request never waits on the daemon (or on MQTT)
/// and never sees a half-applied event.
package struct ServeSnapshot: Sendable {
    /// How one source of one location stands.
    package enum SourceState: String, Sendable {
        /// Data present, the last fetch worked.
        case fresh
        /// Data kept from before a failed fetch, or no data and the fetches fail so far.
        case stale
        /// Nothing fetched yet and no failure either (just started).
        case pending
        /// The source has no data for this location (pollen outside the source's coverage).
        case unavailable
    }

    package struct Source: Sendable {
        package var kind: SourceKind
        package var state: SourceState
        /// When the data shown was fetched, nil when none.
        package var lastSuccess: DaemonInstant?
        /// Failed fetches in a row.
        package var consecutiveFailures: Int
    }

    package struct Location: Sendable {
        package var id: String
        var name: String
        /// The enabled sources, in ``SourceKind`` order.
        package var sources: [Source]
        /// API calls today (the location's local day).
        package var googleCallsToday: Int
        package var openMeteoCallsToday: Int
        /// Everything the daemon knows about the location (for pages that show the data).
        package var runtime: LocationRuntime
        /// Its images (docs/images.md) rendered in this run, in config order: the ones `GET
        /// /images/<location>/<id>.<ext>` answers (the bytes are in the ``ImageStore``).
        package var renderedImages: [ImageConfig] = []
    }

    package var version: String
    /// When this snapshot was made.
    package var takenAt: DaemonInstant
    package var uptimeSeconds: Int
    package var mqttConnected: Bool
    /// Retained topics the agent has published and not cleared.
    package var publishedTopics: Int
    package var locations: [Location]
    /// Fetch counters per source (`google_pollen`, `open_meteo_climate`, …), every configured
    /// source listed from the start.
    package var fetches: [AgentDiagnostics.SourceStatus]
    /// Open-Meteo requests and weighted calls per source since the last UTC midnight.
    package var openMeteoCallsToday: [AgentDiagnostics.SourceCalls]
    /// Which hand-over to the HTTP server this is (``AgentHTTPServer/update(_:)`` counts them);
    /// answers built from a snapshot are kept until the next one. Nil: not handed over (a test's
    /// snapshot), nothing is kept.
    package var generation: UInt64? = nil

    /// True when any source of any location is stale.
    package var anyStale: Bool { locations.contains { $0.sources.contains { $0.state == .stale } } }

    /// A snapshot before the daemon made its first one (the server starts a moment earlier).
    package static func starting(version: String) -> ServeSnapshot {
        ServeSnapshot(
            version: version, takenAt: DaemonInstant(unixSeconds: 0), uptimeSeconds: 0, mqttConnected: false,
            publishedTopics: 0, locations: [],
            fetches: [], openMeteoCallsToday: [])
    }
}
