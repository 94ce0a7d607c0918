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

// The registry of data sources: everything that lists the sources one by one is in this file
// (docs/architecture.md, "Adding a source"). What a source does is its ``SourceRules`` type,
// in its own folder (Sources/<Kind>/) with its data type, its requests and how their answers read
// (`…Fetch`: pure, the agent's one runner makes the GETs) and its sink.

/// A fetch the loop is asked to run; everything it needs is in the value.
package enum FetchRequest: Sendable {
    /// `season`: the day's season call (Open-Meteo with `past_days`, SPEC §20).
    case pollen(LocationConfig, PollenSource, now: Int64, season: Bool)
    case climate(LocationConfig, today: CivilDate, now: Int64)
    case stripes(LocationConfig, firstYear: Int, lastYear: Int, now: Int64)
    case air(LocationConfig, now: Int64)
}

/// What a fetch came to.
package enum FetchOutcome: Sendable {
    case pollen(PollenFetchResult)
    case climate(ClimateFetchResult)
    case stripes(StripesFetchResult)
    case air(AirFetchResult)
}

/// Which data a fetch brings. A new source is a case here, its row in ``traits``, its ``rules``,
/// its ``slot`` and its place in ``restoreOrder``; its cases of ``FetchRequest`` and
/// ``FetchOutcome`` and their lines in ``FetchOutcome/apply(to:in:now:)``,
/// ``FetchOutcome/failure(_:message:pollenSource:fetchedAt:)``, ``FetchRequest/gets(in:)``,
/// ``FetchRequest/interpret(_:in:)`` and ``FetchRequest/failed(_:in:)``; its field of ``PerSource`` and of ``SourceSlots``. What it
/// does is its ``SourceRules`` type, in its own file.
package enum SourceKind: String, Sendable, Hashable, CaseIterable {
    /// `stripes`: the warming stripes' yearly archive request (SPEC §9.1), on with climate.
    /// The raw value is the source's name in Open-Meteo's call counts (`<p>/diagnostics`).
    case pollen, climate, stripes, air

    /// The Open-Meteo host a source's requests go to.
    enum OpenMeteoEndpoint: Sendable {
        case airQuality, climateArchive

        func url(in endpoints: Endpoints) -> String {
            switch self {
            case .airQuality: return endpoints.airQuality
            case .climateArchive: return endpoints.climateArchive
            }
        }
    }

    /// What differs between sources besides their data and their fetch: one row each.
    package struct Traits: Sendable {
        /// Where its Open-Meteo requests go (pollen's when its source is Open-Meteo).
        let endpoint: OpenMeteoEndpoint
        /// Its stored response's name in `state_dir` (pollen's is per source: `pollen-<source>`).
        package let storeName: String
        /// Its name in `<p>/diagnostics` (pollen from Open-Meteo; Google's is `google_pollen`).
        package let diagnosticsKey: String
    }

    /// The table.
    package var traits: Traits {
        switch self {
        case .pollen: Traits(endpoint: .airQuality, storeName: "pollen", diagnosticsKey: "open_meteo_pollen")
        case .climate: Traits(endpoint: .climateArchive, storeName: "climate", diagnosticsKey: "open_meteo_climate")
        case .stripes: Traits(endpoint: .climateArchive, storeName: "stripes", diagnosticsKey: "open_meteo_stripes")
        case .air: Traits(endpoint: .airQuality, storeName: "air", diagnosticsKey: "open_meteo_air")
        }
    }

    /// Its rules (``SourceRules``): what its fetch asks for and what its results and stored
    /// responses do.
    var rules: any SourceRules.Type {
        switch self {
        case .pollen: PollenRules.self
        case .climate: ClimateRules.self
        case .stripes: StripesRules.self
        case .air: AirRules.self
        }
    }

    /// The order stored responses are restored in at start (and logged).
    static let restoreOrder: [SourceKind] = [.pollen, .climate, .air, .stripes]

    /// Its position among a location's sources (``FetchesInFlight``'s bits and deadlines), in
    /// `allCases` order; apart from ``traits`` because the checks made for every location after
    /// every event read it.
    var slot: Int {
        switch self {
        case .pollen: return 0
        case .climate: return 1
        case .stripes: return 2
        case .air: return 3
        }
    }
}

extension FetchOutcome {
    /// Applies the outcome by its source's rules (``SourceRules/apply(_:_:in:now:)``).
    func apply(to index: Int, in state: inout DaemonState, now: Int64) -> SourceApplied {
        switch self {
        case .pollen(let result): PollenRules.apply(result, index, in: &state, now: now)
        case .climate(let result): ClimateRules.apply(result, index, in: &state, now: now)
        case .stripes(let result): StripesRules.apply(result, index, in: &state, now: now)
        case .air(let result): AirRules.apply(result, index, in: &state, now: now)
        }
    }

    /// A fetch of `kind` that failed with `message` and no `Retry-After` (the watchdog's stuck
    /// fetch); a pollen fetch went to `pollenSource`.
    static func failure(
        _ kind: SourceKind, message: String, pollenSource: PollenSource, fetchedAt: Int64
    ) -> FetchOutcome {
        switch kind {
        case .pollen: .pollen(.init(source: pollenSource, outcome: .failed(message: message), fetchedAt: fetchedAt))
        case .climate: .climate(.failed(message: message, retryAfter: nil))
        case .stripes: .stripes(.failed(message: message, retryAfter: nil))
        case .air: .air(.init(outcome: .failed(message: message), fetchedAt: fetchedAt))
        }
    }
}

extension FetchRequest {
    /// The GETs the request makes, in order (the runner stops at the first answer that is not
    /// a 200; none: nothing to ask, and ``interpret(_:in:)`` says why).
    package func gets(in config: AgentConfig) -> [HTTPGet] {
        switch self {
        case .pollen(let location, let source, _, let season):
            PollenFetch.gets(
                location, source: source, season: season, settings: config.pollen, endpoints: config.endpoints)
        case .climate(let location, let today, _):
            ClimateFetch.gets(location, today: today, years: config.climate.years, endpoints: config.endpoints)
        case .stripes(let location, let firstYear, let lastYear, _):
            StripesFetch.gets(location, firstYear: firstYear, lastYear: lastYear, endpoints: config.endpoints)
        case .air(let location, _):
            AirFetch.gets(location, endpoints: config.endpoints)
        }
    }

    /// What the answers to ``gets(in:)`` come to, read by the source's pure decoders.
    package func interpret(_ responses: [FetchedResponse], in config: AgentConfig) -> FetchOutcome {
        switch self {
        case .pollen(_, let source, let now, let season):
            guard let response = responses.first else { return failed("no answer", in: config) }
            return .pollen(
                PollenFetch.interpret(
                    response, source: source, season: season, fetchedAt: now, scrubber: config.secretScrubber))
        case .climate(_, let today, let now):
            return .climate(
                ClimateFetch.interpret(responses, today: today, years: config.climate.years, fetchedAt: now))
        case .stripes(_, let firstYear, let lastYear, let now):
            return .stripes(
                StripesFetch.interpret(responses, firstYear: firstYear, lastYear: lastYear, fetchedAt: now))
        case .air(_, let now):
            guard let response = responses.first else { return failed("no answer", in: config) }
            return .air(AirFetch.interpret(response, fetchedAt: now))
        }
    }

    /// A GET that produced no HTTP answer (curl's error text), as the source's outcome.
    package func failed(_ message: String, in config: AgentConfig) -> FetchOutcome {
        switch self {
        case .pollen(_, let source, let now, let season):
            .pollen(
                PollenFetchResult(
                    source: source, outcome: .failed(message: message), fetchedAt: now,
                    season: season && source == .openMeteo
                ).scrubbed(by: config.secretScrubber))
        case .climate: .climate(.failed(message: message, retryAfter: nil))
        case .stripes: .stripes(.failed(message: message, retryAfter: nil))
        case .air(_, let now): .air(AirFetchResult(outcome: .failed(message: message), fetchedAt: now))
        }
    }
}

extension PollenSource {
    /// The source's name in `<p>/diagnostics` (`fetches`, `last_success`, `last_error`).
    package var diagnosticsKey: String { self == .google ? "google_pollen" : SourceKind.pollen.traits.diagnosticsKey }
    /// The stored response's name in `state_dir`.
    var storeName: String { SourceKind.pollen.traits.storeName + "-" + rawValue }
}

/// One value per source of a location, stored in place: a fixed struct, not a dictionary, so
/// the wake, which reads every location's schedules after every event, reads fields.
package struct PerSource<Value> {
    var pollen: Value
    package var climate: Value
    var stripes: Value
    package var air: Value

    init(pollen: Value, climate: Value, stripes: Value, air: Value) {
        self.pollen = pollen
        self.climate = climate
        self.stripes = stripes
        self.air = air
    }

    /// Each source's value from `value(kind)`.
    init(_ value: (SourceKind) -> Value) {
        self.init(pollen: value(.pollen), climate: value(.climate), stripes: value(.stripes), air: value(.air))
    }

    subscript(kind: SourceKind) -> Value {
        get {
            switch kind {
            case .pollen: return pollen
            case .climate: return climate
            case .stripes: return stripes
            case .air: return air
            }
        }
        set {
            switch kind {
            case .pollen: pollen = newValue
            case .climate: climate = newValue
            case .stripes: stripes = newValue
            case .air: air = newValue
            }
        }
    }
}

extension PerSource: Sendable where Value: Sendable {}
extension PerSource: Equatable where Value: Equatable {}

/// A location's sources, one slot each: the data differ in type, the rest is the same.
package struct SourceSlots: Sendable {
    var pollen = SourceSlot<LocationRuntime.PollenData>()
    var climate = SourceSlot<LocationRuntime.ClimateData>()
    var stripes = SourceSlot<StripesData>()
    var air = SourceSlot<LocationRuntime.AirData>()

    /// The slot of `kind` without its data.
    func status(_ kind: SourceKind) -> SourceStatus {
        switch kind {
        case .pollen: pollen.status
        case .climate: climate.status
        case .stripes: stripes.status
        case .air: air.status
        }
    }

    /// A failed fetch of `kind` (``SourceSlot/failed()``).
    mutating func failed(_ kind: SourceKind) {
        switch kind {
        case .pollen: pollen.failed()
        case .climate: climate.failed()
        case .stripes: stripes.failed()
        case .air: air.failed()
        }
    }

    /// Every source's stale flag.
    var stale: PerSource<Bool> {
        PerSource { status($0).stale }
    }
}
