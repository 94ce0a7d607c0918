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
            DiscoveryNaming.configTopic(discoveryPrefix: discoveryPrefix, topicPrefix: prefix, locationID: id),
        ]
    }
}

/// The debug `breeze-agent` binary, next to the test bundle's sources.
func agentBinaryPath(file: String = #filePath) -> String {
    var url = URL(fileURLWithPath: file)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.appendingPathComponent(".build/debug/breeze-agent").path
}

/// The agent as a child process, its stderr in a file the test reads.
final class AgentProcess: Sendable {
    private let process: Process
    let logPath: String
    let started = ContinuousClock.now

    init(_ arguments: [String], directory: String, environment: [String: String] = [:], name: String = "agent") throws {
        logPath = directory + "/\(name)-\(UUID().uuidString.prefix(6)).log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        let binary = agentBinaryPath()
        try #require(
            FileManager.default.isExecutableFile(atPath: binary),
            "\(binary) is missing: build it first (swift build --build-tests)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["JOURNAL_STREAM"] = nil
        env["BREEZE_GOOGLE_API_KEY"] = nil
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.standardOutput = FileHandle.nullDevice
        process.standardError = handle
        try process.run()
        try? handle.close()
        self.process = process
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Everything logged so far.
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
    func lines(containing text: String) -> [String] {
        log.split(separator: "\n").map(String.init).filter { $0.contains(text) }
    }

    var isRunning: Bool { process.isRunning }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits for the exit; its status, or nil after `timeout`.
    func waitForExit(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return process.terminationStatus
    }

    /// SIGTERM and wait (up to 5 s); the exit status, or nil when it had to be killed.
    @discardableResult
    func terminate() async -> Int32? {
        guard process.isRunning else { return process.terminationStatus }
        signal(SIGTERM)
        if let status = await waitForExit(timeout: .seconds(5)) { return status }
        kill(process.processIdentifier, SIGKILL)
        return nil
    }

    /// Polls the log until a line contains `text`.
    @discardableResult
    func waitForLine(_ text: String, count: Int = 1, timeout: Duration = .seconds(20)) async -> Bool {
        await poll(timeout: timeout) { self.lines(containing: text).count >= count }
    }
}

/// Polls `condition` every 50 ms until it holds; false after `timeout`.
func poll(timeout: Duration, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(50))
    }
}

/// A second MQTT client that reads back what the broker holds under some patterns: the latest
/// payload per topic (an empty retained payload removes it) and every payload seen, in order.
final class BrokerView: Sendable {
    private struct Seen {
        var latest: [String: String] = [:]
        var history: [String: [String]] = [:]
    }
    let client: MQTTClient
    private let seen = Mutex(Seen())

    init(port: Int, patterns: [String]) async throws {
        let client = try MQTTClient(
            MQTTConfiguration(
                host: "127.0.0.1", port: port, clientID: "breeze-fault-view-\(UUID().uuidString.prefix(8))"))
        self.client = client
        let stream = client.events
        Task { [self] in
            for await event in stream {
                guard case .message(let message) = event else { continue }
                let payload = message.payloadString
                self.seen.withLock {
                    $0.history[message.topic, default: []].append(payload)
                    $0.latest[message.topic] = payload.isEmpty ? nil : payload
                }
            }
        }
        try client.start()
        let connected = await client.waitUntilConnected(timeout: .seconds(15))
        try #require(connected, "the reading client did not connect")
        for pattern in patterns { try client.subscribe(pattern, qos: 1) }
    }

    func stop() async { await client.stop() }

    var latest: [String: String] { seen.withLock { $0.latest } }
    func value(_ topic: String) -> String? { seen.withLock { $0.latest[topic] } }
    func history(_ topic: String) -> [String] { seen.withLock { $0.history[topic] ?? [] } }
    /// Every topic under `prefix` whose history contains an empty (clearing) payload.
    func clearedTopics(under prefix: String) -> [String] {
        seen.withLock { $0.history.filter { $0.key.hasPrefix(prefix) && $0.value.contains("") }.map(\.key).sorted() }
    }

    /// The latest topics under `prefix` (a snapshot).
    func tree(under prefix: String) -> [String: String] { latest.filter { $0.key.hasPrefix(prefix) } }

    /// Waits until every topic in `topics` has a value.
    func waitForTopics(_ topics: [String], timeout: Duration = .seconds(20)) async -> Bool {
        await poll(timeout: timeout) { topics.allSatisfy { self.value($0) != nil } }
    }

    /// Waits until `topic` holds `payload`.
    func waitFor(_ topic: String, _ payload: String, timeout: Duration = .seconds(20)) async -> Bool {
        await poll(timeout: timeout) { self.value(topic) == payload }
    }
}

/// A JSON topic's payload decoded as an object (nil when absent or not an object).
func jsonObject(_ text: String?) -> [String: Any]? {
    guard let text, let data = text.data(using: .utf8) else { return nil }
    return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
}
