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

import Foundation
import Synchronization

/// Every upstream API the agent calls — Google Pollen, Open-Meteo air quality, the Open-Meteo
/// archive and forecast — on one ``LoopbackHTTPServer``, for the tests that run the agent.
///
/// Paths: `/google/forecast:lookup`, `/aq/air-quality`, `/archive/archive`, `/forecast/forecast`
/// (``endpointsYAML`` points a config at them). Each API's answer comes from its ``Routes``
/// handler, swappable between runs with ``update(_:)``; an API without a handler answers 404.
/// Faults override the routes: one for every request (``setFaultForAll(_:)``) or one per
/// location (``setFault(_:_:)``), the asking location found by the latitude it sends.
/// Every request is recorded.
public final class FakeAPIs: Sendable {
    public typealias Handler = @Sendable (LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Action

    /// One configured location; its latitude tells the server which location asks.
    public struct Location: Sendable {
        public var id: String
        public var latitude: Double
        public init(id: String, latitude: Double) {
            self.id = id
            self.latitude = latitude
        }
    }

    /// The normal answer of each API (nil: 404).
    public struct Routes: Sendable {
        public var google: Handler?
        public var airQuality: Handler?
        /// The archive and the forecast (the same request shape).
        public var climate: Handler?
        /// The warming stripes' yearly archive request (`daily=temperature_2m_mean`, SPEC §9.1);
        /// by default generated decades from ``DailyMeanArchive/standIn``.
        public var stripes: Handler?
        /// The DWD's `s31fg.json`; by default ``FakeAPIs/dwdElsewhere``, a document without the
        /// regions the suites' locations are in, so a suite that does not look at the DWD sees
        /// no DWD items and no failure.
        public var dwd: Handler?
        public init(
            google: Handler? = nil, airQuality: Handler? = nil, climate: Handler? = nil,
            stripes: Handler? = FakeAPIs.standInStripes, dwd: Handler? = FakeAPIs.dwdElsewhere
        ) {
            self.google = google
            self.airQuality = airQuality
            self.climate = climate
            self.stripes = stripes
            self.dwd = dwd
        }
        /// Climate answered from `celsius` by ``FakeAPIs/climate(celsius:)``.
        public init(
            google: Handler? = nil, airQuality: Handler? = nil, celsius: [Int: Double?],
            stripes: Handler? = FakeAPIs.standInStripes
        ) {
            self.init(
                google: google, airQuality: airQuality, climate: FakeAPIs.climate(celsius: celsius), stripes: stripes)
        }
    }

    public static let googlePath = "/google/forecast:lookup"
    public static let airQualityPath = "/aq/air-quality"
    public static let archivePath = "/archive/archive"
    public static let forecastPath = "/forecast/forecast"
    public static let dwdPath = "/dwd/climate_environment/health/alerts/s31fg.json"

    public let server: LoopbackHTTPServer
    public let locations: [Location]
    private let routes: Mutex<Routes>
    private let faults = Mutex<[String: LoopbackHTTPServer.Action]>([:])
    private let faultForAll = Mutex<LoopbackHTTPServer.Action?>(nil)

    public init(locations: [Location] = [], _ routes: Routes = Routes()) throws {
        self.locations = locations
        self.routes = Mutex(routes)
        server = LoopbackHTTPServer()
        // Weak: the server keeps its handler, and a strong `self` would be a cycle that keeps
        // this object, the server and its threads alive after the test.
        server.setHandler { [weak self] request in self?.answer(request) ?? .close }
        try server.start()
    }

    deinit { server.stop() }

    /// Changes the routes (e.g. a good answer first, a failure for the next run).
    public func update(_ change: (inout Routes) -> Void) { routes.withLock { change(&$0) } }

    /// Replaces every route.
    public func set(_ routes: Routes) { update { $0 = routes } }

    /// The same answer for every Google request (e.g. a rejected key); the other APIs unaffected.
    public func setGoogle(_ action: LoopbackHTTPServer.Action) { update { $0.google = { _ in action } } }

    /// A fault for every request of location `id` (nil: none).
    public func setFault(_ id: String, _ action: LoopbackHTTPServer.Action?) { faults.withLock { $0[id] = action } }

    /// A fault for every request (nil: none).
    public func setFaultForAll(_ action: LoopbackHTTPServer.Action?) { faultForAll.withLock { $0 = action } }

    /// The config's `endpoints:` block for this server.
    public var endpointsYAML: String {
        """
        endpoints:
          pollen: \(server.url("/google"))
          air_quality: \(server.url("/aq"))
          climate_archive: \(server.url("/archive"))
          climate_forecast: \(server.url("/forecast"))
          dwd: \(server.url("/dwd"))
        """
    }

    /// The location that sent `request` (by its latitude parameter).
    public func location(of request: LoopbackHTTPServer.Request) -> String? {
        guard let text = request.queryValue("location.latitude") ?? request.queryValue("latitude"),
            let latitude = Double(text)
        else { return nil }
        return locations.first { abs($0.latitude - latitude) < 0.001 }?.id
    }

    /// Requests so far, optionally only those of one location and/or whose path contains `path`.
    public func requests(location: String? = nil, path: String? = nil) -> [LoopbackHTTPServer.Request] {
        server.requests.filter { request in
            (location == nil || self.location(of: request) == location)
                && (path.map { request.path.contains($0) } ?? true)
        }
    }

    public var googleRequests: [LoopbackHTTPServer.Request] { requests(path: Self.googlePath) }
    /// The climate trend's requests (the stripes' yearly archive request is not one of them).
    public var climateRequestCount: Int {
        trendArchiveRequests.count + requests(path: Self.forecastPath).count
    }
    /// The trend's archive requests (`daily=temperature_2m_max`).
    public var trendArchiveRequests: [LoopbackHTTPServer.Request] {
        requests(path: Self.archivePath).filter { !Self.isStripesRequest($0) }
    }
    /// The warming stripes' archive requests (`daily=temperature_2m_mean`).
    public var stripesRequests: [LoopbackHTTPServer.Request] {
        requests(path: Self.archivePath).filter(Self.isStripesRequest)
    }

    private static let standInCache = Mutex<(key: String, body: String)?>(nil)

    public static func isStripesRequest(_ request: LoopbackHTTPServer.Request) -> Bool {
        request.queryValue("daily") == "temperature_2m_mean"
    }

    /// Answers stripes requests with ``DailyMeanArchive/standIn``; the last body is cached (a
    /// suite with many locations asks for the same years each time, and 46 years are 300 kB).
    public static let standInStripes: Handler = { request in
        let key = "\(request.queryValue("start_date") ?? "")/\(request.queryValue("end_date") ?? "")"
        var body = standInCache.withLock { $0?.key == key ? $0?.body : nil }
        if body == nil, let made = DailyMeanArchive.standIn.body(for: request) {
            standInCache.withLock { $0 = (key, made) }
            body = made
        }
        guard isStripesRequest(request), let body else {
            return .respond(status: 400, text: #"{"error":true,"reason":"not a stripes request"}"#)
        }
        return .respond(status: 200, headers: [("Content-Type", "application/json; charset=utf-8")], text: body)
    }

    public var totalRequests: Int { server.requests.count }

    /// A DWD document of region 11 (the North Sea islands) alone, next due in 2099: the default
    /// answer, far from the suites' locations (a region missing from a document gives a location
    /// no DWD items); a conditional request is answered 304.
    public static let dwdElsewhere: Handler = { request in
        guard request.header("If-Modified-Since") == nil else { return .respond(status: 304) }
        return .respond(
            status: 200, headers: [("Content-Type", "application/json")],
            text: #"{"last_update":"2026-01-01 11:00 Uhr","next_update":"2099-01-01 11:00 Uhr","content":["#
                + #"{"region_id":10,"region_name":"Schleswig-Holstein und Hamburg","partregion_id":11,"#
                + #""partregion_name":"Inseln und Marschen","Pollen":{"Hasel":{"today":"0","tomorrow":"0","#
                + #""dayafter_to":"0"}}}]}"#)
    }

    private func answer(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Action {
        if let all = faultForAll.withLock({ $0 }) { return all }
        if let id = location(of: request), let fault = faults.withLock({ $0[id] }) { return fault }
        let current = routes.withLock { $0 }
        let handler: Handler?
        switch request.path {
        case Self.googlePath: handler = current.google
        case Self.airQualityPath: handler = current.airQuality
        case Self.archivePath where Self.isStripesRequest(request): handler = current.stripes
        case Self.archivePath, Self.forecastPath: handler = current.climate
        case Self.dwdPath: handler = current.dwd
        default: return .respond(status: 404, text: "no route \(request.path)")
        }
        return handler?(request) ?? .respond(status: 404, text: "no answer set for \(request.path)")
    }

    /// A climate handler answering Open-Meteo daily bodies for the dates in a request's
    /// `start_date` list from `celsius` (year → value, nil = the API's `null`; a year not in the
    /// map answers `null` too). A request not shaped like the agent's gets a 400.
    public static func climate(celsius: [Int: Double?]) -> Handler {
        { request in
            guard let list = request.queryValue("start_date"), request.queryValue("end_date") == list,
                request.queryValue("daily") == "temperature_2m_max"
            else {
                return .respond(status: 400, text: #"{"error":true,"reason":"test server: unexpected query"}"#)
            }
            let objects: [String] = list.split(separator: ",").map { date in
                let year = Int(date.prefix(4)) ?? 0
                let value = (celsius[year] ?? nil).map { String($0) } ?? "null"
                return """
                    {"latitude":52.5,"longitude":13.4,"utc_offset_seconds":3600,"timezone":"Europe/Berlin",\
                    "daily_units":{"time":"iso8601","temperature_2m_max":"°C"},\
                    "daily":{"time":["\(date)"],"temperature_2m_max":[\(value)]}}
                    """
            }
            let body = objects.count == 1 ? objects[0] : "[" + objects.joined(separator: ",") + "]"
            return .respond(status: 200, headers: [("Content-Type", "application/json")], text: body)
        }
    }
}
