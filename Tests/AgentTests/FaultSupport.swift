import BreezeCore
import BreezeMQTT
import BreezeTestSupport
import Foundation
import Synchronization
import Testing

@testable import BreezeAgent

#if canImport(Glibc)
    import Glibc
#endif

// Support for the fault-injection suite (Fault*Tests.swift): the three APIs on one loopback
// server, answering in the real formats for today's dates unless a fault is set for a location;
// the real agent binary as a child process; a second MQTT client that reads back the broker.

/// One location of a fault scenario; its latitude tells the fake APIs which location asks.
struct FaultLocation: Sendable {
    var id: String
    var latitude: Double
}

/// Google Pollen, Open-Meteo air quality and the Open-Meteo archive/forecast on one loopback
/// server. Each request is answered with a good body for the dates it asks, unless a fault
/// action is set for the asking location (by latitude) or for every location.
final class FakeAPIs: Sendable {
    let server: LoopbackHTTPServer
    private let faults = Mutex<[String: LoopbackHTTPServer.Action]>([:])
    private let faultForAll = Mutex<LoopbackHTTPServer.Action?>(nil)
    private let googleOverride = Mutex<LoopbackHTTPServer.Action?>(nil)
    let locations: [FaultLocation]

    init(locations: [FaultLocation]) throws {
        self.locations = locations
        let server = LoopbackHTTPServer()
        self.server = server
        server.setHandler { [self] request in answer(request) }
        try server.start()
    }

    deinit { server.stop() }

    /// The config's `endpoints:` block for this server.
    var endpointsYAML: String {
        """
        endpoints:
          pollen: \(server.url("/google"))
          air_quality: \(server.url("/om"))
          climate_archive: \(server.url("/climate"))
          climate_forecast: \(server.url("/climate"))
        """
    }

    func setFault(_ id: String, _ action: LoopbackHTTPServer.Action?) { faults.withLock { $0[id] = action } }
    func setFaultForAll(_ action: LoopbackHTTPServer.Action?) { faultForAll.withLock { $0 = action } }
    /// An answer for every Google request (e.g. a rejected key), other APIs unaffected.
    func setGoogle(_ action: LoopbackHTTPServer.Action?) { googleOverride.withLock { $0 = action } }

    /// The location that sent `request` (by its latitude parameter).
    func location(of request: LoopbackHTTPServer.Request) -> String? {
        guard let text = request.queryValue("location.latitude") ?? request.queryValue("latitude"),
            let latitude = Double(text)
        else { return nil }
        return locations.first { abs($0.latitude - latitude) < 0.001 }?.id
    }

    /// Requests so far, optionally only those of one location and/or whose path contains `path`.
    func requests(location: String? = nil, path: String? = nil) -> [LoopbackHTTPServer.Request] {
        server.requests.filter { request in
            (location == nil || self.location(of: request) == location)
                && (path == nil || request.path.contains(path!))
        }
    }

    private func answer(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Action {
        if let all = faultForAll.withLock({ $0 }) { return all }
        if request.path.hasPrefix("/google"), let google = googleOverride.withLock({ $0 }) { return google }
        if let id = location(of: request), let fault = faults.withLock({ $0[id] }) { return fault }
        return .respond(status: 200, headers: [("Content-Type", "application/json")], text: goodBody(request))
    }

    /// The locations run on UTC, so "today" is the UTC date.
    static var today: CivilDate { CivilDate(daysSinceEpoch: Int(Date().timeIntervalSince1970 / 86_400)) }

    private func goodBody(_ request: LoopbackHTTPServer.Request) -> String {
        if request.path.hasSuffix("/forecast:lookup") {
            return DemoResponder.googlePollen(start: Self.today, days: Int(request.queryValue("days") ?? "5") ?? 5)
        }
        if request.path.hasSuffix("/air-quality") {
            return DemoResponder.airQuality(start: Self.today, timezone: request.queryValue("timezone") ?? "UTC")
        }
        let dates = (request.queryValue("start_date") ?? "").split(separator: ",").compactMap { CivilDate(iso: $0) }
        return DemoResponder.climate(dates: dates, timezone: request.queryValue("timezone") ?? "UTC")
    }
}

/// A scenario's files: a temporary directory with the config and `state_dir`, and a unique prefix.
final class FaultScenario: Sendable {
    let directory: String
    let prefix: String
    let discoveryPrefix: String
    let apis: FakeAPIs

    init(locations: [FaultLocation]) throws {
        let tag = UUID().uuidString.prefix(8).lowercased()
        directory = NSTemporaryDirectory() + "breeze-fault-" + tag
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        prefix = "fault-\(tag)"
        discoveryPrefix = "ha-\(tag)"
        apis = try FakeAPIs(locations: locations)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    var stateDirectory: String { directory + "/state" }
    var configPath: String { directory + "/config.yaml" }
    var locations: [FaultLocation] { apis.locations }

    /// Writes config.yaml; `pollen` is the body of the `pollen:` block.
    func writeConfig(brokerPort: Int, pollen: String = "source: google\n  api_key: test-key-0123456789") throws {
        let locationLines = locations.map {
            "  - {id: \($0.id), latitude: \($0.latitude), longitude: 10.0, timezone: UTC}"
        }.joined(separator: "\n")
        let yaml = """
            mqtt:
              host: 127.0.0.1
              port: \(brokerPort)
              client_id: \(prefix)-agent
              topic_prefix: \(prefix)
              qos: 1
            homeassistant:
              discovery: true
              prefix: \(discoveryPrefix)
            locations:
            \(locationLines)
            pollen:
              \(pollen)
              refresh_cooldown: 1m
            climate:
              unit: fahrenheit
              refresh_cooldown: 1m
            \(apis.endpointsYAML)
            state_dir: \(stateDirectory)
            log_level: info

            """
        try yaml.write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    /// The topics a complete location has on the broker (status, discovery, pollen, climate).
    func essentialTopics(_ id: String) -> [String] {
        [
            "\(prefix)/status", "\(prefix)/\(id)/pollen", "\(prefix)/\(id)/pollen/updated_at",
            "\(prefix)/\(id)/pollen/stale", "\(prefix)/\(id)/climate", "\(prefix)/\(id)/climate/unit",
            TopicLayout(prefix: prefix, discoveryPrefix: discoveryPrefix).location(id).deviceConfig,
        ]
    }
}
