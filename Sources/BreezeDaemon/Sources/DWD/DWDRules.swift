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

/// The DWD's Pollenflug-Gefahrenindex (docs/reference.md, "DWD"): one document for every
/// German location. The first location with a DWD region fetches it; the daemon shares what it
/// brings with every other location (``sharedAcrossLocations``), whose own schedules never ask.
/// Asked again at the document's `next_update`, then every 15 minutes with `If-Modified-Since`
/// until a new one is out, at most ``DWDPollen/maximumRequestsPerDay`` a day.
package enum DWDRules: SourceRules {
    package static let kind = SourceKind.dwd

    package static func isEnabled(in config: AgentConfig) -> Bool { config.pollen.enabled && config.pollen.dwd }

    package static func schedule(in config: AgentConfig) -> FetchSchedule {
        FetchSchedule(
            interval: .hours(6), refreshCooldown: DaemonDuration(config.pollen.refreshCooldown),
            nextDue: FetchSchedule.unplaced)
    }

    /// A `refresh` asks again, conditionally (a 304 costs the DWD nothing).
    package static let refreshedByCommand = true

    /// None of its own: its items are merged into the pollen tree (``LocationRuntime/pollenView(settings:now:)``).
    package static func sinks(for context: SinkContext) -> [any RetainedSink] { [] }

    /// The location that fetches the document for all: the first with a DWD region.
    static func fetchingLocation(in config: AgentConfig) -> Int? {
        config.locations.firstIndex { $0.dwdRegion != nil }
    }

    static func fetches(_ context: SourceContext) -> Bool {
        fetchingLocation(in: context.config).map { context.config.locations[$0].id } == context.location.config.id
    }

    package static func begin(_ context: inout SourceContext, now: DaemonInstant) -> SourceBegin<DWDRequest> {
        let id = context.location.config.id
        guard context.location.config.dwdRegion != nil else {
            var actions: [DaemonAction] = []
            if context.location.slots.dwd.notice != .unsupported {
                actions.append(
                    .log(.info, "dwd[\(id)]: outside Germany (no DWD region): no DWD pollen for this location"))
                context.location.slots.dwd.notice = .unsupported
            }
            context.schedule.due(at: .distantFuture)
            return SourceBegin(request: nil, actions: actions)
        }
        // The region it reads, named in the log once a run (not again at each retry).
        let region = context.location.config.dwdRegion.flatMap(DWDRegions.region(key:))
        var named: [DaemonAction] = []
        if context.location.dwd == nil, context.location.slots.dwd.notice == nil, let region {
            named.append(.log(.info, "dwd[\(id)]: DWD region \(region.key), \(region.name)"))
            context.location.slots.dwd.notice = .regionNamed
        }
        // Another location fetches the one document; this one is given what it brings.
        guard fetches(context) else {
            context.schedule.due(at: .distantFuture)
            return SourceBegin(request: nil, actions: named)
        }
        guard context.callsToday(.dwd, now: now) < DWDPollen.maximumRequestsPerDay else {
            context.schedule.due(at: context.location.nextMidnight(after: now))
            return SourceBegin(
                request: nil,
                actions: [
                    .log(
                        .warning,
                        "dwd[\(id)]: \(DWDPollen.maximumRequestsPerDay) requests today; next after local midnight")
                ])
        }
        let held = context.location.dwd
        return SourceBegin(
            request: DWDRequest(
                since: held?.fetchedAt, lastModified: held?.validators.lastModified, etag: held?.validators.etag),
            counts: .dwd, actions: named)
    }

    package static func openMeteoWeight(_ context: SourceContext, now: DaemonInstant) -> (
        weight: OpenMeteoCallWeight, requests: Int
    )? { nil }

    package static func gets(_ request: DWDRequest, location: LocationConfig, config: AgentConfig) -> [HTTPGet] {
        [DWDFetch.get(endpoints: config.endpoints, request: request)]
    }

    package static func interpret(
        _ responses: [FetchedResponse], _ request: DWDRequest, location: LocationConfig, config: AgentConfig,
        now: DaemonInstant
    ) -> FetchResult<DWDAnswer> {
        guard let response = responses.first else { return .failure(message: "no answer", retryAfter: nil) }
        return DWDFetch.interpret(response, berlin: config.pollen.berlin, fetchedAt: now)
    }

    package static func receive(_ answer: DWDAnswer, _ context: inout SourceContext, now: DaemonInstant)
        -> SourceReceived
    {
        let id = context.location.config.id
        let held = context.location.dwd
        switch answer {
        case .document(let document, let body, let fetchedAt, let validators):
            let changed = held?.document.lastUpdate != document.lastUpdate
            // A configured region the document lacks: its locations show no DWD items.
            var missing: [DaemonAction] = []
            let regions = Set(context.config.locations.compactMap(\.dwdRegion))
            for key in regions.sorted() where document.row(key: key) == nil {
                let ids = context.config.locations.filter { $0.dwdRegion == key }.map(\.id)
                missing.append(
                    .log(
                        .warning,
                        "dwd: the document has no region \(key) (\(ids.joined(separator: ", "))): no DWD pollen there until one does"
                    ))
            }
            var data = LocationRuntime.DWDData(document: document, fetchedAt: fetchedAt)
            data.validators = validators
            context.location.slots.dwd.received(data)
            context.location.slots.dwd.notice = nil
            context.schedule.succeeded(at: now, jitter: context.random.fraction())
            context.schedule.due(
                at: .init(unixSeconds: DWDPollen.nextAsk(after: now.unixSeconds, document: document, changed: changed)))
            return SourceReceived(
                actions: [
                    .store(
                        .response(
                            .init(
                                fetchedAt: fetchedAt, body: String(decoding: body, as: UTF8.self),
                                context: validators.stored), location: id,
                            source: kind.traits.storeName)),
                    .log(
                        .info,
                        "dwd[\(id)]: fetched the DWD pollen document of \(UTCTimestamp.rfc3339(unixSeconds: document.lastUpdate)) (\(document.rows.count) regions)"
                    ),
                ] + missing, count: .success(kind.traits.diagnosticsKey))
        case .notModified(let fetchedAt):
            context.schedule.succeeded(at: now, jitter: context.random.fraction())
            guard var data = held else {
                // A 304 with nothing held (a proxy's answer): asked again plainly in 15 minutes.
                context.schedule.due(at: now + .seconds(DWDPollen.reaskSeconds))
                return SourceReceived(actions: [], count: .success(kind.traits.diagnosticsKey))
            }
            data.checkedAt = fetchedAt
            context.location.slots.dwd.received(data)
            context.schedule.due(
                at: .init(
                    unixSeconds: DWDPollen.nextAsk(after: now.unixSeconds, document: data.document, changed: false)))
            return SourceReceived(
                actions: [.log(.info, "dwd[\(id)]: not modified (HTTP 304); the document held stays")],
                count: .success(kind.traits.diagnosticsKey))
        }
    }

    package static func storedNames(in config: AgentConfig) -> [String] {
        isEnabled(in: config) ? [kind.traits.storeName] : []
    }

    package static func restore(
        _ stored: StoredResponse, name: String, _ context: inout SourceContext, now: DaemonInstant
    )
        -> [DaemonAction]
    {
        let id = context.location.config.id
        guard let document = try? DWDPollen.decode(Array(stored.body.utf8), berlin: context.config.pollen.berlin)
        else { return [.log(.warning, "dwd[\(id)]: stored DWD document is not usable; ignoring it")] }
        var data = LocationRuntime.DWDData(document: document, fetchedAt: stored.fetchedAt)
        data.validators = DWDValidators(stored: stored.context)
        context.location.slots.dwd.received(data)
        // At its next_update when still ahead; else at once (conditionally): a new document may
        // have come out while the agent was stopped.
        context.schedule.due(at: max(document.nextUpdate.map(DaemonInstant.init(unixSeconds:)) ?? now, now))
        return [
            .log(
                .info,
                "dwd[\(id)]: restored the DWD document fetched \(UTCTimestamp.rfc3339(unixSeconds: stored.fetchedAt.unixSeconds))"
            )
        ]
    }
}

extension DWDValidators {
    /// In a stored response's context (`state_dir`), so a restart asks conditionally too.
    var stored: [String: String] {
        var context: [String: String] = [:]
        context["last_modified"] = lastModified
        context["etag"] = etag
        return context
    }

    init(stored context: [String: String]) {
        self.init(
            lastModified: context["last_modified"].flatMap(FetchedResponse.validator),
            etag: context["etag"].flatMap(FetchedResponse.validator))
    }
}

/// What a location keeps of the DWD (its ``SourceSlots/dwd`` slot): the whole document, read
/// for its region at each view (days shift at Berlin midnight, Unknown after 48 h).
extension LocationRuntime {
    package struct DWDData: SourceData, Equatable {
        package var document: DWDPollen.Document
        /// When the document was fetched (a 200).
        package var fetchedAt: DaemonInstant
        /// When the server last said it is current (a 304), else `fetchedAt`.
        package var checkedAt: DaemonInstant
        /// What the next request sends back (`If-None-Match`, `If-Modified-Since`).
        var validators = DWDValidators()

        package init(document: DWDPollen.Document, fetchedAt: DaemonInstant) {
            self.document = document
            self.fetchedAt = fetchedAt
            self.checkedAt = fetchedAt
        }

        package var lastSuccess: DaemonInstant? { checkedAt }
    }

    package var dwd: DWDData? { slots.dwd.data }

    /// The DWD report of the location's region at `now`; nil without a region or a document.
    package func dwdReport(settings: PollenSettings, now: DaemonInstant) -> PollenReport? {
        guard settings.dwd, let key = config.dwdRegion, let data = dwd else { return nil }
        return DWDPollen.report(data.document, key: key, now: now.unixSeconds, berlin: settings.berlin)
    }

    /// The region's species in the DWD integrations' shape (``DWDCardTopics``); empty without a
    /// region or a document.
    package func dwdCardTree(topics: LocationTopics, settings: PollenSettings, now: DaemonInstant) -> TopicTree {
        guard settings.dwd, let key = config.dwdRegion, let data = dwd else { return TopicTree() }
        return DWDCardTopics.tree(
            topics: topics, document: data.document, key: key, now: now.unixSeconds, berlin: settings.berlin)
    }
}
