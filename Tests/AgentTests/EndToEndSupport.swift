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
    // The warming stripes' yearly request (SPEC §9.1) goes to the same archive.
    if let stripes = DailyMeanArchive.standIn.answer(request) { return stripes }
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
    /// The climate trend's requests (the stripes' yearly archive request is not one of them).
    var climateRequestCount: Int {
        trendArchiveRequests.count + requests("/forecast/forecast").count
    }
    var trendArchiveRequests: [LoopbackHTTPServer.Request] {
        requests("/archive/archive").filter { $0.queryValue("daily") == "temperature_2m_max" }
    }
    var stripesRequests: [LoopbackHTTPServer.Request] {
        requests("/archive/archive").filter { $0.queryValue("daily") == "temperature_2m_mean" }
    }
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
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("breeze-e2e-\(UUID().uuidString)")
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
