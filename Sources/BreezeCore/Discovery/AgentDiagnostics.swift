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

/// The `<p>/diagnostics` payload (not retained, published periodically).
///
/// The shape is fixed here, next to the Home Assistant discovery that reads it, so that the
/// "API calls today" sensor's template and the payload cannot drift apart:
///
/// ```json
/// {"uptime_s": 3600,
///  "fetches": {"google": {"ok": 4, "failed": 1, "stuck": 0}, "open_meteo": {"ok": 9, "failed": 0, "stuck": 0}},
///  "api_calls_today": {"home": {"google": 5, "open_meteo": 3}},
///  "open_meteo_calls_today": {"air": {"requests": 24, "weighted": 24.00}},
///  "last_success": {"google": "2025-05-01T06:00:00Z", "open_meteo": null},
///  "last_error": {"google": {"at": "2025-05-01T05:00:00Z", "message": "HTTP 503"}, "open_meteo": null},
///  "reconnects": 0}
/// ```
///
/// Optional members follow only when they have something to say: `"images_failing":
/// {"home/hall": {"failures": 3, "error": "render failed: …"}}` (docs/operations.md, Limits "Names"),
/// `"identity_conflict": {"other_instance": {"instance": …, "host": …, "pid": …, "started": …,
/// "seen_at": …}, "quick_drops": 3, "reconnect_delay_s": 8}` (docs/operations.md, Limits "Two agents, one identity").
///
/// Times are RFC 3339 UTC text, formatted by the caller (the core has no clock).
public struct AgentDiagnostics: Sendable, Equatable {
    /// Counters and last outcomes of one source (`google`, `open_meteo`, …).
    public struct SourceStatus: Sendable, Equatable {
        public var source: String
        public var fetchesOK: Int
        public var fetchesFailed: Int
        /// Fetches the agent's watchdog gave up on (no answer long past their timeout); each
        /// is also counted in ``fetchesFailed``.
        public var fetchesStuck: Int
        /// RFC 3339 time of the last successful fetch, nil when none yet.
        public var lastSuccess: String?
        /// The last failure, nil when none yet.
        public var lastError: (at: String, message: String)?

        public init(
            source: String,
            fetchesOK: Int = 0,
            fetchesFailed: Int = 0,
            fetchesStuck: Int = 0,
            lastSuccess: String? = nil,
            lastError: (at: String, message: String)? = nil
        ) {
            self.source = source
            self.fetchesOK = fetchesOK
            self.fetchesFailed = fetchesFailed
            self.fetchesStuck = fetchesStuck
            self.lastSuccess = lastSuccess
            self.lastError = lastError
        }

        public static func == (lhs: SourceStatus, rhs: SourceStatus) -> Bool {
            lhs.source == rhs.source && lhs.fetchesOK == rhs.fetchesOK && lhs.fetchesFailed == rhs.fetchesFailed
                && lhs.fetchesStuck == rhs.fetchesStuck
                && lhs.lastSuccess == rhs.lastSuccess && lhs.lastError?.at == rhs.lastError?.at
                && lhs.lastError?.message == rhs.lastError?.message
        }
    }

    /// API calls made today (the location's local day) for one location.
    public struct LocationCalls: Sendable, Equatable {
        public var locationID: String
        /// Google Pollen calls: the billed ones, capped by `pollen.max_calls_per_day`.
        public var google: Int
        /// Open-Meteo calls (air quality, archive, forecast).
        public var openMeteo: Int

        public init(locationID: String, google: Int, openMeteo: Int) {
            self.locationID = locationID
            self.google = google
            self.openMeteo = openMeteo
        }
    }

    /// Open-Meteo requests and weighted calls (API-FACTS §2.7) of one source, all locations,
    /// since the last UTC midnight (where Open-Meteo's daily counter resets).
    public struct SourceCalls: Sendable, Equatable {
        /// `pollen`, `air` or `climate`.
        public var source: String
        public var requests: Int
        public var weight: OpenMeteoCallWeight

        public init(source: String, requests: Int, weight: OpenMeteoCallWeight) {
            self.source = source
            self.requests = requests
            self.weight = weight
        }
    }

    /// An image whose last render failed (docs/operations.md, Limits "Names").
    public struct ImageFailure: Sendable, Equatable {
        /// `<location>/<image id>`.
        public var image: String
        /// Failed renders in a row.
        public var failures: Int
        public var error: String

        public init(image: String, failures: Int, error: String) {
            self.image = image
            self.failures = failures
            self.error = error
        }
    }

    public var uptimeSeconds: Int
    public var sources: [SourceStatus]
    public var apiCallsToday: [LocationCalls]
    /// Per Open-Meteo source: requests and weighted calls today (UTC).
    public var openMeteoCallsToday: [SourceCalls] = []
    public var reconnects: Int
    /// Images whose last render failed; the `images_failing` member is there only when some are.
    public var imagesFailing: [ImageFailure] = []
    /// Another instance on this agent's identity, or a backoff after repeated quick drops
    /// (docs/operations.md, Faults); the `identity_conflict` member is there only when set.
    public var identityConflict: JSONValue?

    public init(uptimeSeconds: Int, sources: [SourceStatus], apiCallsToday: [LocationCalls], reconnects: Int) {
        self.uptimeSeconds = uptimeSeconds
        self.sources = sources
        self.apiCallsToday = apiCallsToday
        self.reconnects = reconnects
    }

    /// The payload, keys in the documented order; the optional members last.
    public var json: JSONValue {
        let base: JSONValue = .object([
            "uptime_s": .integer(uptimeSeconds),
            "fetches": .object(
                sources.map {
                    JSONMember(
                        $0.source,
                        .object([
                            "ok": .integer($0.fetchesOK), "failed": .integer($0.fetchesFailed),
                            "stuck": .integer($0.fetchesStuck),
                        ]))
                }),
            "api_calls_today": .object(
                apiCallsToday.map {
                    JSONMember(
                        $0.locationID,
                        .object(["google": .integer($0.google), "open_meteo": .integer($0.openMeteo)]))
                }),
            "open_meteo_calls_today": .object(
                openMeteoCallsToday.map {
                    JSONMember(
                        $0.source,
                        .object(["requests": .integer($0.requests), "weighted": .fixed($0.weight.hundredths, scale: 2)])
                    )
                }),
            "last_success": .object(sources.map { JSONMember($0.source, .optional($0.lastSuccess)) }),
            "last_error": .object(
                sources.map { status in
                    JSONMember(
                        status.source,
                        status.lastError.map { .object(["at": .string($0.at), "message": .string($0.message)]) }
                            ?? .null)
                }),
            "reconnects": .integer(reconnects),
        ])
        guard case .object(var members) = base else { return base }
        if !imagesFailing.isEmpty {
            members.append(
                JSONMember(
                    "images_failing",
                    .object(
                        imagesFailing.map {
                            JSONMember(
                                $0.image, .object(["failures": .integer($0.failures), "error": .string($0.error)]))
                        })))
        }
        if let identityConflict { members.append(JSONMember("identity_conflict", identityConflict)) }
        return .object(members)
    }
}
