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
import BreezeCore

// The registry of data sources: everything that lists the sources one by one is in this file
// (docs/architecture.md, "Adding a source"). What a source does is its ``SourceRules`` type,
// in its own folder (Sources/<Kind>/) with its data type, its requests and how their answers read
// (`…Fetch`: pure, the agent's one runner makes the GETs) and its sink.

/// A fetch the loop is asked to run; everything it needs is in the value.
package struct FetchRequest: Sendable {
    package let kind: SourceKind
    package let location: LocationConfig
    /// When it was asked for: the answer's fetch time.
    package let now: DaemonInstant
    /// What the source's rules asked for beside the location (their ``SourceRules/Request``).
    let detail: any Sendable
}

/// What a fetch came to, whatever the source (its rules' ``SourceRules/Answer`` inside).
package struct FetchOutcome: Sendable {
    package let kind: SourceKind
    package let result: FetchResult<any Sendable>

    /// A usable answer of `kind`'s rules.
    static func answer(_ kind: SourceKind, _ answer: any Sendable) -> FetchOutcome {
        FetchOutcome(kind: kind, result: .answer(answer))
    }

    /// A failed fetch of `kind` (the watchdog's stuck fetch has no `Retry-After`).
    static func failure(_ kind: SourceKind, message: String, retryAfter: RetryAfter? = nil) -> FetchOutcome {
        FetchOutcome(kind: kind, result: .failure(message: message, retryAfter: retryAfter))
    }
}

/// Which data a fetch brings. A new source is a case here, its row in ``traits``, its ``rules``,
/// its ``slot`` and its place in ``restoreOrder``, and its field of ``PerSource`` and of
/// ``SourceSlots`` (all in this file); what it does is its ``SourceRules`` type, in its folder.
package enum SourceKind: String, Sendable, Hashable, CaseIterable {
    /// `stripes`: the warming stripes' yearly archive request (docs/reference.md, Warming stripes), on with climate.
    /// The raw value is the source's name in Open-Meteo's call counts (`<p>/diagnostics`).
    case pollen, climate, stripes, air
    /// The DWD's pollen document (docs/reference.md, "DWD"): one fetch shared by every location.
    case dwd

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
        /// Where its Open-Meteo requests go (pollen's when its source is Open-Meteo); nil for
        /// a source that never asks Open-Meteo (the DWD).
        let endpoint: OpenMeteoEndpoint?
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
        case .dwd: Traits(endpoint: nil, storeName: "dwd", diagnosticsKey: "dwd_pollen")
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
        case .dwd: DWDRules.self
        }
    }

    /// The order stored responses are restored in at start (and logged).
    static let restoreOrder: [SourceKind] = [.pollen, .climate, .air, .stripes, .dwd]

    /// One fetch serves every location (the DWD's one document): what it brings, or its
    /// failure, is given to every location (``SourceSlots/share(_:from:)``).
    var sharedAcrossLocations: Bool { self == .dwd }

    /// Of a shared source, the one location that fetches for all (nil: none does); every
    /// location fetches its own otherwise.
    func fetches(at index: Int, in config: AgentConfig) -> Bool {
        switch self {
        case .dwd: DWDRules.fetchingLocation(in: config) == index
        case .pollen, .climate, .stripes, .air: true
        }
    }

    /// Its position among a location's sources (``FetchesInFlight``'s bits and deadlines), in
    /// `allCases` order; apart from ``traits`` because the checks made for every location after
    /// every event read it.
    var slot: Int {
        switch self {
        case .pollen: return 0
        case .climate: return 1
        case .stripes: return 2
        case .air: return 3
        case .dwd: return 4
        }
    }
}

extension FetchRequest {
    /// The GETs the request makes, in order (``SourceRules/gets(_:location:config:)``).
    package func gets(in config: AgentConfig) -> [HTTPGet] { Self.gets(kind.rules, self, config) }

    /// What the answers to ``gets(in:)`` come to (``SourceRules/interpret(_:_:location:config:now:)``).
    package func interpret(_ responses: [FetchedResponse], in config: AgentConfig) -> FetchOutcome {
        Self.interpret(kind.rules, responses, self, config)
    }

    /// A GET that produced no HTTP answer (curl's error text), with every secret masked.
    package func failed(_ message: String, in config: AgentConfig) -> FetchOutcome {
        .failure(kind, message: config.secretScrubber.scrub(message))
    }

    private static func gets<Rules: SourceRules>(_ rules: Rules.Type, _ request: Self, _ config: AgentConfig)
        -> [HTTPGet]
    {
        Rules.gets(request.detail as! Rules.Request, location: request.location, config: config)
    }

    private static func interpret<Rules: SourceRules>(
        _ rules: Rules.Type, _ responses: [FetchedResponse], _ request: Self, _ config: AgentConfig
    ) -> FetchOutcome {
        let result = Rules.interpret(
            responses, request.detail as! Rules.Request, location: request.location, config: config, now: request.now)
        switch result {
        case .answer(let answer): return .answer(request.kind, answer)
        case .failure(let message, let retryAfter):
            return .failure(request.kind, message: message, retryAfter: retryAfter)
        }
    }
}

/// One value per source of a location, stored in place: a fixed struct, not a dictionary, so
/// the wake, which reads every location's schedules after every event, reads fields.
package struct PerSource<Value> {
    var pollen: Value
    package var climate: Value
    var stripes: Value
    package var air: Value
    var dwd: Value

    init(pollen: Value, climate: Value, stripes: Value, air: Value, dwd: Value) {
        self.pollen = pollen
        self.climate = climate
        self.stripes = stripes
        self.air = air
        self.dwd = dwd
    }

    /// Each source's value from `value(kind)`.
    init(_ value: (SourceKind) -> Value) {
        self.init(
            pollen: value(.pollen), climate: value(.climate), stripes: value(.stripes), air: value(.air),
            dwd: value(.dwd))
    }

    subscript(kind: SourceKind) -> Value {
        get {
            switch kind {
            case .pollen: return pollen
            case .climate: return climate
            case .stripes: return stripes
            case .air: return air
            case .dwd: return dwd
            }
        }
        set {
            switch kind {
            case .pollen: pollen = newValue
            case .climate: climate = newValue
            case .stripes: stripes = newValue
            case .air: air = newValue
            case .dwd: dwd = newValue
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
    var dwd = SourceSlot<LocationRuntime.DWDData>()

    /// The slot of `kind` without its data.
    func status(_ kind: SourceKind) -> SourceStatus {
        switch kind {
        case .pollen: pollen.status
        case .climate: climate.status
        case .stripes: stripes.status
        case .air: air.status
        case .dwd: dwd.status
        }
    }

    /// A failed fetch of `kind` (``SourceSlot/failed()``).
    mutating func failed(_ kind: SourceKind) {
        switch kind {
        case .pollen: pollen.failed()
        case .climate: climate.failed()
        case .stripes: stripes.failed()
        case .air: air.failed()
        case .dwd: dwd.failed()
        }
    }

    /// Takes `other`'s data of a source one fetch serves for every location
    /// (``SourceKind/sharedAcrossLocations``); this location's logged conditions stay.
    mutating func share(_ kind: SourceKind, from other: SourceSlots) {
        switch kind {
        case .dwd:
            dwd.data = other.dwd.data
            dwd.stale = other.dwd.stale
        case .pollen, .climate, .stripes, .air: break
        }
    }

    /// Every source's stale flag.
    var stale: PerSource<Bool> {
        PerSource { status($0).stale }
    }
}
