import BreezeAgent
import BreezeMQTT
import BreezeTestSupport
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

// Shared pieces of the end-to-end suites: fixtures with their dates moved to today, a scripted
// loopback "internet" (Google, Open-Meteo air quality, archive, forecast), a config file in a
// temp dir, a second MQTT client that reads the broker's retained tree back, and the built
// binary as a subprocess.

/// The repository root, from this file's path (`<repo>/Tests/AgentTests/EndToEndSupport.swift`).
let repositoryRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// A fixture under `Tests/CoreTests/Fixtures`, parsed.
func fixtureJSON(_ name: String) throws -> [String: Any] {
    let url = repositoryRoot.appendingPathComponent("Tests/CoreTests/Fixtures/\(name)")
    let data = try Data(contentsOf: url)
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}

let spanishFiveDays = "eXPerience83-pollenlevels__google_pollen_forecast_5_days.es.json"

/// A short random lower-case hex string for unique prefixes, ids and client ids.
func shortID() -> String { String(UUID().uuidString.lowercased().filter { $0 != "-" }.prefix(8)) }

// MARK: dates

/// A calendar date (test-side arithmetic through Foundation's Gregorian calendar, independent of
/// the agent's own zoneinfo reader).
struct Day: Equatable, CustomStringConvertible {
    var year: Int, month: Int, day: Int
    var description: String {
        func pad(_ n: Int, _ width: Int) -> String {
            let s = String(n)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    /// The local date in `zone` now.
    static func today(in zone: String) -> Day {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone)!
        let parts = calendar.dateComponents([.year, .month, .day], from: Date())
        return Day(year: parts.year!, month: parts.month!, day: parts.day!)
    }

    func adding(_ days: Int) -> Day {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let date = calendar.date(from: DateComponents(year: year, month: month, day: day))!
        let moved = calendar.date(byAdding: .day, value: days, to: date)!
        let parts = calendar.dateComponents([.year, .month, .day], from: moved)
        return Day(year: parts.year!, month: parts.month!, day: parts.day!)
    }

    /// Google's `{year, month, day}` date object.
    var googleObject: [String: Any] { ["year": year, "month": month, "day": day] }
}

/// The Google fixture with `dailyInfo[i].date` rewritten to `today + i + offset` (offset −1: the
/// first entry is yesterday, so day 0 is the second entry), optionally edited further.
func googleBody(
    _ fixture: String = spanishFiveDays, zone: String, offset: Int = 0,
    edit: (inout [[String: Any]]) -> Void = { _ in }
) throws -> [UInt8] {
    var root = try fixtureJSON(fixture)
    var days = try #require(root["dailyInfo"] as? [[String: Any]])
    let today = Day.today(in: zone)
    for index in days.indices { days[index]["date"] = today.adding(index + offset).googleObject }
    edit(&days)
    root["dailyInfo"] = days
    return Array(try JSONSerialization.data(withJSONObject: root))
}

// MARK: pollen expectations computed in the test (SPEC §1 table)

/// SPEC §1's level and color for a 0–5 value, nil = no index.
func expectedLevel(_ value: Int?) -> (value: String, level: String, color: String) {
    switch value {
    case nil: return ("None", "Unknown", "#8e8e93")
    case 0: return ("0", "None", "#34c759")
    case 1: return ("1", "Low", "#34c759")
    case 2, 3: return (String(value!), "Moderate", "#ff9500")
    case 4: return ("4", "High", "#ff3b30")
    default: return (String(value!), "Very High", "#8e0000")
    }
}

/// `code → value` (nil when the entry has no `indexInfo`) of one Google `dailyInfo` entry, types then plants.
func googleValues(_ day: [String: Any]) -> [(code: String, value: Int?)] {
    let entries = (day["pollenTypeInfo"] as? [[String: Any]] ?? []) + (day["plantInfo"] as? [[String: Any]] ?? [])
    return entries.map { entry in
        let info = entry["indexInfo"] as? [String: Any]
        return (entry["code"] as! String, info.map { ($0["value"] as? Int) ?? 0 })
    }
}

// MARK: climate: an archive/forecast server answering the dates it is asked for

/// Builds Open-Meteo daily bodies for the dates in a request's `start_date` list from `celsius`
/// (year → value, nil = the API's `null`; a year not in the map answers `null` too).
func climateAnswer(_ request: LoopbackHTTPServer.Request, celsius: [Int: Double?]) -> LoopbackHTTPServer.Action {
    guard let list = request.queryValue("start_date"), request.queryValue("end_date") == list,
        request.queryValue("daily") == "temperature_2m_max"
    else {
        return .respond(status: 400, text: #"{"error":true,"reason":"test server: unexpected query"}"#)
    }
    let objects: [String] = list.split(separator: ",").map { date in
        let year = Int(date.prefix(4))!
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

// MARK: the scripted upstream

/// One loopback server standing in for every API. Paths: `/google/forecast:lookup`,
/// `/aq/air-quality`, `/archive/archive`, `/forecast/forecast`. Each route's answer can be
/// swapped between runs.
final class FakeUpstream: Sendable {
    struct Routes: Sendable {
        var google: @Sendable (LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Action = { _ in .respond(status: 404) }
        var airQuality: @Sendable (LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Action = { _ in
            .respond(status: 404)
        }
        var celsius: [Int: Double?] = [:]
    }

    let server: LoopbackHTTPServer
    private let routes: Mutex<Routes>

    init(_ routes: Routes = Routes()) throws {
        let box = Mutex(routes)
        self.routes = box
        server = LoopbackHTTPServer()
        server.setHandler { [self] request in self.answer(request) }
        try server.start()
    }

    deinit { server.stop() }

    func update(_ change: (inout Routes) -> Void) { routes.withLock { change(&$0) } }

    private func answer(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Action {
        let current = routes.withLock { $0 }
        switch request.path {
        case "/google/forecast:lookup": return current.google(request)
        case "/aq/air-quality": return current.airQuality(request)
        case "/archive/archive", "/forecast/forecast": return climateAnswer(request, celsius: current.celsius)
        default: return .respond(status: 404, text: "no route \(request.path)")
        }
    }

    func requests(_ path: String) -> [LoopbackHTTPServer.Request] { server.requests.filter { $0.path == path } }
    var googleRequests: [LoopbackHTTPServer.Request] { requests("/google/forecast:lookup") }
    var climateRequestCount: Int { requests("/archive/archive").count + requests("/forecast/forecast").count }
    var totalRequests: Int { server.requests.count }

    /// The `endpoints:` block of a config pointing here.
    var endpointsYAML: String {
        """
        endpoints:
          pollen: \(server.url("/google"))
          air_quality: \(server.url("/aq"))
          climate_archive: \(server.url("/archive"))
          climate_forecast: \(server.url("/forecast"))
        """
    }
}

// MARK: config files

/// A temp directory holding `config.yaml` and the state dir; removed on deinit.
final class AgentSandbox: Sendable {
    let directory: String
    var configPath: String { directory + "/config.yaml" }
    var stateDir: String { directory + "/state" }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("breeze-e2e-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// Writes `config.yaml`: broker on `port`, a unique client id, `prefix`, state dir here, then `rest`.
    func writeConfig(port: Int, prefix: String, _ rest: String) throws {
        let text = """
            mqtt:
              host: 127.0.0.1
              port: \(port)
              client_id: e2e-\(shortID())
              topic_prefix: \(prefix)
            state_dir: \(stateDir)
            log_level: debug
            \(rest)

            """
        try text.write(toFile: configPath, atomically: true, encoding: .utf8)
    }
}

/// The environment handed to the agent: nothing from the test runner's BREEZE_* variables.
let agentEnvironment: [String: String] = ["PATH": "/usr/bin:/bin"]

/// Runs the agent in-process (`once`, …) with `--config` pointing at the sandbox.
func runAgent(_ command: String, _ sandbox: AgentSandbox, extra: [String] = []) async -> Int32 {
    await AgentMain.main(arguments: [command, "--config", sandbox.configPath] + extra, environment: agentEnvironment)
}

// MARK: reading the broker back

/// A second MQTT client that records every message under some filters (latest payload per
/// topic; an empty payload means the topic was cleared). Created after a run, what it holds
/// once ``start(_:)`` returns is exactly the broker's retained tree under those filters.
final class BrokerView: Sendable {
    struct Entry: Sendable {
        var payload: String
        var retained: Bool
    }

    let client: MQTTClient
    private let latest = Mutex<[String: Entry]>([:])
    private let probes = Mutex<Set<String>>([])
    private let pump = Mutex<Task<Void, Never>?>(nil)

    init(port: Int) throws {
        client = try MQTTClient(MQTTConfiguration(host: "127.0.0.1", port: port, clientID: "e2e-view-\(shortID())"))
    }

    deinit { pump.withLock { $0?.cancel() } }

    /// Connects, subscribes to `filters` (each ending in `#`) and returns once every retained
    /// message under them has arrived: the broker sends them right after the SUBACK, before the
    /// probe published afterwards on the same connection comes back.
    func start(_ filters: [String]) async throws {
        let events = client.events
        let task = Task { [self] in
            for await event in events {
                guard case .message(let message) = event else { continue }
                if message.topic.contains("/e2e-probe-") {
                    probes.withLock { _ = $0.insert(message.payloadString) }
                    continue
                }
                latest.withLock { $0[message.topic] = Entry(payload: message.payloadString, retained: message.retain) }
            }
        }
        pump.withLock { $0 = task }
        try client.start()
        let connected = await client.waitUntilConnected(timeout: .seconds(15))
        try #require(connected, "view client did not connect: \(String(describing: client.lastError))")
        for filter in filters {
            try client.subscribe(filter, qos: 1)
            let probe = shortID()
            try client.publish(String(filter.dropLast()) + "e2e-probe-\(probe)", probe, qos: 1)
            let arrived = await poll(timeout: .seconds(15)) { probes.withLock { $0.contains(probe) } }
            try #require(arrived, "subscription to \(filter) never became active")
        }
    }

    func stop() async {
        await client.stop()
        pump.withLock { $0?.cancel() }
    }

    /// Topic → payload of every non-empty topic seen (the retained tree after ``start(_:)``).
    var tree: [String: String] {
        latest.withLock { $0.compactMapValues { $0.payload.isEmpty ? nil : $0.payload } }
    }

    func entry(_ topic: String) -> Entry? { latest.withLock { $0[topic] } }
    func payload(_ topic: String) -> String? { tree[topic] }

    /// A JSON object payload, parsed.
    func json(_ topic: String) -> [String: Any]? {
        guard let text = payload(topic) else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }

    /// Waits until `topic` carries `payload` ("" = cleared).
    func waitFor(_ topic: String, _ payload: String, timeout: Duration = .seconds(15)) async -> Bool {
        await poll(timeout: timeout) { self.latest.withLock { $0[topic]?.payload } == payload }
    }

    /// The broker's retained tree under `filters` right now, read by a fresh client.
    static func snapshot(port: Int, _ filters: [String]) async throws -> [String: String] {
        let view = try BrokerView(port: port)
        try await view.start(filters)
        let tree = view.tree
        await view.stop()
        return tree
    }
}

/// Polls `condition` every 50 ms until it holds (true) or `timeout` passes (false).
func poll(timeout: Duration, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(50))
    }
}

/// A JSON payload parsed, or nil.
func parseJSON(_ text: String?) -> Any? {
    guard let text else { return nil }
    return try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
}

// MARK: the binary as a subprocess

/// The debug binary `swift build` puts next to the test bundle.
func agentBinary() throws -> String {
    let candidates = [
        repositoryRoot.appendingPathComponent(".build/debug/breeze-agent").path,
        Bundle.main.bundleURL.appendingPathComponent("breeze-agent").path,
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            "breeze-agent"
        ).path,
    ]
    let found = candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    return try #require(found, "breeze-agent binary not built (run `swift build` first); looked in \(candidates)")
}

/// A running `breeze-agent` child with its stdout and stderr in files.
final class AgentProcess: Sendable {
    let process: Process
    let stdoutPath: String
    let stderrPath: String

    init(_ arguments: [String], logDirectory: String) throws {
        let tag = shortID()
        stdoutPath = logDirectory + "/stdout-\(tag).txt"
        stderrPath = logDirectory + "/stderr-\(tag).txt"
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: try agentBinary())
        process.arguments = arguments
        process.environment = agentEnvironment
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Waits for the process to end; its exit status, or nil after `timeout`.
    func waitForExit(timeout: Duration) async -> Int32? {
        let ended = await poll(timeout: timeout) { !process.isRunning }
        return ended ? process.terminationStatus : nil
    }

    /// Runs to completion (killed after `timeout`) and returns the exit status.
    static func run(_ arguments: [String], logDirectory: String, timeout: Duration = .seconds(30)) async throws
        -> (status: Int32?, stdout: String, stderr: String)
    {
        let child = try AgentProcess(arguments, logDirectory: logDirectory)
        let status = await child.waitForExit(timeout: timeout)
        return (status, child.stdout, child.stderr)
    }
}
