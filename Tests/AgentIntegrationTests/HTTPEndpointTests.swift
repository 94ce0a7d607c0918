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

@testable import BreezeAgent
@testable import BreezeDaemon
import BreezeConfig
import BreezeCore
import BreezeMQTT
import BreezeTestSupport
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The built binary with `http:` on a free loopback port, against a real mosquitto and the
/// fake APIs; requests go over raw TCP sockets, so the tests send exactly the bytes an
/// attacker would (no client-side path normalisation).
@Suite("HTTP endpoints of the running agent (SPEC §9.2)")
struct HTTPEndpointTests {
    static let zone = "Europe/Berlin"

    /// A running agent with its HTTP port.
    struct Running {
        let sandbox: AgentSandbox
        let agent: AgentProcess
        let httpPort: Int
        var base: String { "\(sandbox.prefix)/home" }
    }

    /// Starts `run` with Google pollen answering and climate as `climate` (nil: a 500), `http`
    /// on a free port with `allow` (nil: the default), and waits for the first pollen fetch.
    static func start(brokerPort: Int, climateFails: Bool = false, allow: String? = nil) async throws -> Running {
        let sandbox = try AgentSandbox()
        let body = try googleBody(zone: zone)
        let today = Day.today(in: zone)
        let failing: FakeAPIs.Handler = { _ in .respond(status: 500, text: "upstream broke") }
        let climate: FakeAPIs.Handler =
            climateFails ? failing : FakeAPIs.climate(celsius: [2000: 10.0, 2010: 11.0, today.year: 12.4])
        let google: FakeAPIs.Handler = { _ in .respond(status: 200, body: body) }
        sandbox.apis.set(.init(google: google, climate: climate))
        let httpPort = try FreePort.loopback()
        try sandbox.writeConfig(
            port: brokerPort,
            """
            homeassistant: {discovery: false}
            locations:
              - {id: home, name: Home, latitude: 52.52, longitude: 13.405, timezone: \(zone)}
            pollen: {api_key: http-test-key, refresh_cooldown: 15m}
            climate: {years: [2000, 2010], refresh_cooldown: 1h}
            http:
              listen: "127.0.0.1:\(httpPort)"
            \(allow.map { "  allow: \($0)" } ?? "")
            \(sandbox.apis.endpointsYAML)
            """)
        let agent = try AgentProcess(["run", "--config", sandbox.configPath], logDirectory: sandbox.directory)
        try #require(await agent.waitForLine("http: serving on 127.0.0.1:\(httpPort)"), "\(agent.log)")
        try #require(await agent.waitForLine("pollen[home]: fetched"), "\(agent.log)")
        return Running(sandbox: sandbox, agent: agent, httpPort: httpPort)
    }

    @Test("/healthz: 200 connected, ?strict 503 with a stale source, 503 while the broker is down")
    func health() async throws {
        let broker = try MosquittoBroker()
        try await broker.start()
        defer { broker.stop() }
        let running = try await Self.start(brokerPort: broker.port, climateFails: true)
        let agent = running.agent
        try #require(await agent.waitForLine("climate[home]: fetch failed"), "\(agent.log)")
        // Connected: 200 (the status says stale), strict: 503. The log line comes before the
        // daemon hands the HTTP server its next snapshot: wait for a snapshot with both outcomes
        // (the pollen fetch and the failed climate fetch).
        try #require(
            await agent.waitForSnapshot(timeout: .seconds(15)) {
                let answer = RawHTTP.get(running.httpPort, "/healthz")
                let location = (jsonObject(answer.text)?["locations"] as? [[String: Any]])?.first
                let sources = location?["sources"] as? [String: [String: Any]]
                return answer.status == 200 && sources?["pollen"]?["state"] as? String == "fresh"
                    && sources?["climate"]?["state"] as? String == "stale"
            },
            "\(agent.log)")
        let health = RawHTTP.get(running.httpPort, "/healthz")
        #expect(health.header("Content-Type") == "application/json")
        let json = try #require(jsonObject(health.text))
        #expect(json["status"] as? String == "stale")
        #expect(json["mqtt_connected"] as? Bool == true)
        let location = try #require((json["locations"] as? [[String: Any]])?.first)
        let sources = try #require(location["sources"] as? [String: [String: Any]])
        #expect(sources["pollen"]?["state"] as? String == "fresh")
        #expect(sources["climate"]?["state"] as? String == "stale")
        #expect(sources["climate"]?["stale"] as? Bool == true)
        #expect((sources["climate"]?["consecutive_failures"] as? Int ?? 0) >= 1)
        #expect(RawHTTP.get(running.httpPort, "/healthz?strict").status == 503)
        // HEAD: the same status and headers, no body.
        let head = RawHTTP.request(running.httpPort, "HEAD /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(head.status == 200)
        #expect(head.body.isEmpty)

        // The broker goes away: 503, and /metrics says so.
        broker.stop()
        #expect(
            await agent.waitForSnapshot(timeout: .seconds(10)) {
                RawHTTP.get(running.httpPort, "/healthz").status == 503
            },
            "\(agent.log)")
        #expect(jsonObject(RawHTTP.get(running.httpPort, "/healthz").text)?["status"] as? String == "mqtt_disconnected")
        #expect(RawHTTP.get(running.httpPort, "/metrics").text.contains("\nbreeze_mqtt_connected 0\n"))
        // And comes back (the agent reconnects with backoff, 1 s … 60 s).
        try await broker.start()
        #expect(
            await agent.waitForSnapshot(timeout: .seconds(30)) {
                RawHTTP.get(running.httpPort, "/healthz").status == 200
            },
            "\(agent.log)")
        #expect(await agent.terminate() == 0)
    }

    @Test("/healthz ?strict is 200 when every source is fresh")
    func healthStrictWhenFresh() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let running = try await Self.start(brokerPort: port)
            try #require(await running.agent.waitForLine("climate[home]: fetched"), "\(running.agent.log)")
            try #require(await running.agent.waitForLine("stripes[home]:"), "\(running.agent.log)")
            #expect(
                await running.agent.waitForSnapshot(timeout: .seconds(10)) {
                    RawHTTP.get(running.httpPort, "/healthz?strict").status == 200
                },
                "\(RawHTTP.get(running.httpPort, "/healthz").text)")
            await running.agent.terminate()
        }
    }

    @Test("/metrics: parsed by prometheus_client's text parser, values as fetched")
    func metricsParse() async throws {
        let python = try PrometheusParser.python()
        try await MosquittoBroker.withPlainBroker { port in
            let running = try await Self.start(brokerPort: port, climateFails: true)
            try #require(await running.agent.waitForLine("climate[home]: fetch failed"), "\(running.agent.log)")
            // The endpoint shows the snapshot the daemon hands over after it has handled an event
            // (the fetch, then the publish of its tree): wait for one with both outcomes, the
            // pollen fetch and the failed climate fetch (whose log line comes before its
            // snapshot), then read one response.
            #expect(
                await running.agent.waitForSnapshot(timeout: .seconds(15)) {
                    let lines = RawHTTP.get(running.httpPort, "/metrics").text.split(separator: "\n")
                    let published = lines.first { $0.hasPrefix("breeze_published_topics ") }
                        .flatMap { Double($0.split(separator: " ").last ?? "") }
                    return lines.contains("breeze_fetches_total{source=\"google_pollen\"} 1") && (published ?? 0) > 10
                        && lines.contains("breeze_source_stale{location=\"home\",source=\"climate\"} 1")
                }, "\(RawHTTP.get(running.httpPort, "/metrics").text)")
            let response = RawHTTP.get(running.httpPort, "/metrics")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
            let samples = try PrometheusParser.parse(response.text, python: python)
            func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
                samples.first { $0.name == name && $0.labels == labels }?.value
            }
            // The first cycle: one Google fetch that worked, climate failing.
            #expect(value("breeze_fetches_total", ["source": "google_pollen"]) == 1)
            #expect(value("breeze_fetch_failures_total", ["source": "google_pollen"]) == 0)
            #expect((value("breeze_fetch_failures_total", ["source": "open_meteo_climate"]) ?? 0) >= 1)
            #expect(value("breeze_api_calls_today", ["location": "home", "api": "google"]) == 1)
            #expect(value("breeze_mqtt_connected") == 1)
            #expect((value("breeze_published_topics") ?? 0) > 10)
            #expect(value("breeze_source_stale", ["location": "home", "source": "climate"]) == 1)
            #expect(value("breeze_source_stale", ["location": "home", "source": "pollen"]) == 0)
            let lastPollen = try #require(
                value("breeze_last_success_timestamp_seconds", ["location": "home", "source": "pollen"]))
            #expect(abs(lastPollen - Date().timeIntervalSince1970) < 120)
            #expect(value("breeze_info", ["version": try agentVersion()]) == 1)
            // The parser saw the families with their types and help.
            let fetches = try #require(samples.first { $0.name == "breeze_fetches_total" })
            #expect(fetches.type == "counter")
            #expect(!fetches.help.isEmpty)
            await running.agent.terminate()
        }
    }

    @Test("bad requests: 404 (also traversal), 405, oversized refused, the server keeps serving")
    func badRequests() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let running = try await Self.start(brokerPort: port)
            let http = running.httpPort
            for path in [
                "/nothing", "/healthz/", "/metrics.txt", "/images", "/images/home/hallway.png",
                "/images/../x", "/images/%2e%2e/x.png", "/images/home/%2e%2e%2fx.png", "/images/..%2fetc/passwd.png",
                "/%2e%2e/%2e%2e/etc/passwd", "/images/home/../../metrics", "/api/state.json/", "/index.html",
                "/healthz%00junk", "/healthz%00", "/metrics%00.txt", "/api/state.json%00x",
            ] {
                let response = RawHTTP.request(http, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                #expect(response.status == 404, "\(path): \(response.head)")
            }
            // The status page and its JSON (SPEC §13) are the two pages at exact paths.
            for path in ["/", "/api/state.json"] {
                #expect(RawHTTP.get(http, path).status == 200, "\(path)")
            }
            for method in ["POST", "PUT", "DELETE", "OPTIONS"] {
                let response = RawHTTP.request(
                    http, "\(method) /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nhello")
                #expect(response.status == 405, "\(method): \(response.head)")
                #expect(response.header("Allow") == "GET, HEAD")
            }
            // A 100 KB header: refused by libmicrohttpd (431) or the connection closed, never served.
            let big = String(repeating: "a", count: 100 * 1024)
            let oversized = RawHTTP.request(http, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: \(big)\r\n\r\n")
            #expect(oversized.status != 200, "\(oversized.head)")
            #expect(oversized.status == nil || [413, 414, 431].contains(oversized.status!), "\(oversized.head)")
            // A 20 KB URL likewise.
            let longURL = RawHTTP.request(
                http, "GET /healthz?\(String(repeating: "x", count: 20 * 1024)) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(longURL.status != 200, "\(longURL.head)")
            // Garbage is not a request.
            let garbage = RawHTTP.request(http, "\u{1}\u{2}\u{3} nonsense\r\n\r\n")
            #expect(garbage.status != 200, "\(garbage.head)")
            // Still serving.
            #expect(RawHTTP.get(http, "/healthz").status == 200, "\(running.agent.log)")
            #expect(running.agent.isRunning)
            await running.agent.terminate()
        }
    }

    @Test("allow: a peer outside the list is closed at accept, unanswered on every path (SPEC §16)")
    func forbidden() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let running = try await Self.start(brokerPort: port, allow: "[\"10.0.0.0/8\"]")
            for path in ["/healthz", "/metrics", "/nothing", "/images/home/x.png"] {
                let response = RawHTTP.get(running.httpPort, path)
                #expect(response.status == nil && response.head.isEmpty, "\(path): \(response.head)")
            }
            #expect(
                RawHTTP.request(running.httpPort, "POST /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").status == nil)
            await running.agent.terminate()
        }
    }

    @Test("a listener on every interface without allow: a warning at start, loopback still served")
    func exposureWarning() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let sandbox = try AgentSandbox()
            let httpPort = try FreePort.loopback()
            try sandbox.writeConfig(
                port: port,
                """
                locations:
                  - {id: home, latitude: 52.52, longitude: 13.405, timezone: \(Self.zone)}
                http: {listen: "0.0.0.0:\(httpPort)"}
                \(sandbox.apis.endpointsYAML)
                """)
            let agent = try AgentProcess(["run", "--config", sandbox.configPath], logDirectory: sandbox.directory)
            try #require(await agent.waitForLine("http: serving on 0.0.0.0:\(httpPort)"), "\(agent.log)")
            #expect(
                agent.lines(
                    containing:
                        "warning: http: listening on 0.0.0.0:\(httpPort), beyond the loopback interface, without http.allow"
                ).count == 1,
                "\(agent.log)")
            #expect(agent.log.contains("(allow 127.0.0.0/8, ::1/128)"))
            #expect(RawHTTP.get(httpPort, "/metrics").status == 200)
            await agent.terminate()
        }
    }

    @Test("100 clients holding connections are all answered while a refresh is fetched and published")
    func concurrentClients() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let running = try await Self.start(brokerPort: port)
            let view = try BrokerView(port: port)
            try await view.start(["\(running.sandbox.prefix)/#"])
            defer { Task { await view.stop() } }
            let updatedAt = "\(running.base)/pollen/updated_at"
            // `start` returns at the fetch's log line, which comes before its publish.
            try #require(await view.waitForTopics([updatedAt]), "\(running.agent.log)")
            let first = try #require(view.payload(updatedAt))
            // Time must pass here: the refresh must land in a later second than the first fetch
            // for updated_at (whole seconds) to show it.
            try await Task.sleep(for: .seconds(1.1))

            // 100 connections, each with a request sent and nothing read yet (a tiny receive
            // buffer: a slow reader), from 20 addresses (5 each, within `max_per_ip`).
            var sockets: [Int32] = []
            defer { for fd in sockets { close(fd) } }
            for index in 0..<100 {
                let fd = try RawHTTP.connect(running.httpPort, receiveBuffer: 1024, from: "127.0.0.\(2 + index % 20)")
                sockets.append(fd)
                RawHTTP.send(fd, "GET \(index % 2 == 0 ? "/metrics" : "/healthz") HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            }

            // Meanwhile the MQTT side works: a refresh is fetched and its topics published.
            let commander = try BrokerView(port: port)
            try await commander.start([])
            defer { Task { await commander.stop() } }
            try commander.client.publish("\(running.base)/refresh", "1", qos: 1)
            #expect(
                await eventually(bound: .seconds(15)) { running.sandbox.apis.googleRequests.count == 2 },
                "\(running.agent.log)")
            #expect(
                await eventually(bound: .seconds(15)) { (view.payload(updatedAt) ?? first) != first },
                "\(running.agent.log)")

            // Every held connection was answered.
            var statuses: [Int?] = []
            for fd in sockets { statuses.append(RawHTTP.parse(RawHTTP.readAll(fd)).status) }
            #expect(statuses.count == 100)
            #expect(statuses.allSatisfy { $0 == 200 }, "\(statuses)")
            await running.agent.terminate()
        }
    }

    @Test("lean path: libmicrohttpd is mapped only with http configured")
    func leanPath() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let running = try await Self.start(brokerPort: port)
            let maps = try Self.mappedFiles(running.agent.pid)
            #expect(maps.contains("libmicrohttpd.so"))
            await running.agent.terminate()

            let sandbox = try AgentSandbox()
            try sandbox.writeConfig(
                port: port,
                """
                homeassistant: {discovery: false}
                locations:
                  - {id: home, latitude: 52.52, longitude: 13.405, timezone: \(Self.zone)}
                \(sandbox.apis.endpointsYAML)
                """)
            let lean = try AgentProcess(["run", "--config", sandbox.configPath], logDirectory: sandbox.directory)
            try #require(await lean.waitForLine("running:"), "\(lean.log)")
            let leanMaps = try Self.mappedFiles(lean.pid)
            #expect(!leanMaps.contains("microhttpd"))
            #expect(leanMaps.contains("libmosquitto"))  // the reading itself works
            await lean.terminate()
        }
    }

    /// The library hidden in a private mount namespace (root and `unshare` needed; CI runs as
    /// root): `run` with `http:` stops at start with exit 69 and names the package to install.
    @Test(
        "a missing libmicrohttpd: exit 69 naming libmicrohttpd12, no crash",
        .enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")))
    func missingLibrary() async throws {
        // The folder the agent's loader looks in: this machine's, or, for the arm64 binary
        // under qemu-user (`make test-arm64`), the arm64 sysroot's (QEMU_LD_PREFIX). Hiding
        // the amd64 library from the arm64 agent hid nothing: it started, ran as a daemon
        // against port 1 and this test waited for it for ever.
        let binary = try agentBinary()
        let libraries =
            try Self.elfMachine(binary) == 183
            ? (ProcessInfo.processInfo.environment["QEMU_LD_PREFIX"] ?? "") + "/usr/lib/aarch64-linux-gnu"
            : "/usr/lib/x86_64-linux-gnu"
        let library = try #require(
            try? FileManager.default.destinationOfSymbolicLink(atPath: libraries + "/libmicrohttpd.so.12"),
            "no libmicrohttpd.so.12 in \(libraries)")
        let sandbox = try AgentSandbox()
        try sandbox.writeConfig(
            port: 1,
            """
            locations:
              - {id: home, latitude: 52.52, longitude: 13.405, timezone: \(Self.zone)}
            http: {listen: "127.0.0.1:\(try FreePort.loopback())"}
            \(sandbox.apis.endpointsYAML)
            """)
        let script = "mount --bind /dev/null \"$2\" && exec \"$0\" run --config \"$1\""
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["-m", "sh", "-c", script, binary, sandbox.configPath, libraries + "/" + library]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // An agent that found the library anyway runs as a daemon: ended after 60 s (it then
        // exits 0, and the checks below say what it printed) rather than waited for.
        let bound = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: bound)
        defer { bound.cancel() }
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 69, "\(stderr)")
        #expect(stderr.contains("error: http: cannot load libmicrohttpd.so.12 ("), "\(stderr)")
        #expect(stderr.contains("apt install libmicrohttpd12"), "\(stderr)")
        #expect(sandbox.apis.totalRequests == 0)
    }

    /// An ELF file's `e_machine` (62 x86-64, 183 AArch64).
    static func elfMachine(_ path: String) throws -> Int {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        let header = [UInt8](try handle.read(upToCount: 20) ?? Data())
        try #require(header.count == 20 && header.starts(with: [0x7F, 0x45, 0x4C, 0x46]), "\(path) is not an ELF file")
        return Int(header[18]) | Int(header[19]) << 8
    }

    /// `/proc/<pid>/maps`, read to its end (procfs reports size 0, so no read-by-size helper).
    static func mappedFiles(_ pid: Int32) throws -> String {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/\(pid)/maps"))
        defer { try? handle.close() }
        return String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
    }

    @Test("a port in use stops the start with exit 69 and says why")
    func portInUse() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let sandbox = try AgentSandbox()
            // The fake APIs' own port is taken.
            try sandbox.writeConfig(
                port: port,
                """
                locations:
                  - {id: home, latitude: 52.52, longitude: 13.405, timezone: \(Self.zone)}
                http: {listen: "127.0.0.1:\(sandbox.apis.server.port)"}
                \(sandbox.apis.endpointsYAML)
                """)
            let result = try await AgentProcess.run(
                ["run", "--config", sandbox.configPath], logDirectory: sandbox.directory)
            #expect(result.status == 69, "\(result.stderr)")
            #expect(result.stderr.contains("http: cannot listen on 127.0.0.1:\(sandbox.apis.server.port):"))
            #expect(result.stderr.contains("Address already in use"), "\(result.stderr)")
            #expect(sandbox.apis.totalRequests == 0)
        }
    }

    @Test("the debug line of a snapshot comes after it is served: a request made at the line sees it")
    func snapshotLineFollowsTheHandOver() throws {
        // At each `http: serving snapshot N` line, /healthz is read (the log's sink runs in the
        // line's writer, before `update` returns): it must show the snapshot just handed over,
        // not the one before. Each snapshot carries its own uptime to tell them apart.
        let port = Mutex(0)
        let seen = Mutex<[String]>([])
        let log = Log(level: .debug, timestamps: false) { line in
            guard line.hasPrefix(AgentProcess.snapshotLine) else { return }
            let health = jsonObject(RawHTTP.get(port.withLock { $0 }, "/healthz").text)
            seen.withLock { $0.append("\(line) \(health?["uptime_seconds"] as? Int ?? -1)") }
        }
        let settings = HTTPSettings(address: try #require(IPAddress("127.0.0.1")), port: 0)
        let server = try AgentHTTPServer(settings: settings, site: HTTPSite(allow: CIDR.loopback), log: log)
        defer { server.stop() }
        port.withLock { $0 = server.port }
        for uptime in [100, 200, 300] {
            var snapshot = ServeSnapshot.starting(version: "test")
            snapshot.uptimeSeconds = uptime
            server.update(snapshot)
        }
        let line = AgentProcess.snapshotLine
        #expect(seen.withLock { $0 } == ["\(line)1 100", "\(line)2 200", "\(line)3 300"])
    }
}

/// The agent's version as `--version` prints it.
func agentVersion() throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try agentBinary())
    process.arguments = ["--version"]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    process.waitUntilExit()
    let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    return text.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "breeze-agent ", with: "")
}

/// The real Prometheus text parser (`prometheus_client` from PyPI, in a cached venv made by
/// scripts/prom-venv.sh).
enum PrometheusParser {
    struct Sample {
        var family: String
        var type: String
        var help: String
        var name: String
        var labels: [String: String]
        var value: Double
    }

    static var root: URL {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }

    /// The venv's python (creating the venv on first use).
    static func python() throws -> String {
        let result = try run(root.appendingPathComponent("scripts/prom-venv.sh").path, [], input: "")
        guard result.status == 0 else {
            throw Failure(description: "scripts/prom-venv.sh failed: \(result.stderr)")
        }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func parse(_ text: String, python: String) throws -> [Sample] {
        let result = try run(python, [root.appendingPathComponent("test/prometheus/parse.py").path], input: text)
        guard result.status == 0 else {
            throw Failure(description: "prometheus_client refused the text: \(result.stderr)\n\(text)")
        }
        return result.stdout.split(separator: "\n").compactMap { line in
            guard let object = jsonObject(String(line)), let value = object["value"] as? Double else { return nil }
            return Sample(
                family: object["family"] as? String ?? "", type: object["type"] as? String ?? "",
                help: object["help"] as? String ?? "", name: object["name"] as? String ?? "",
                labels: object["labels"] as? [String: String] ?? [:], value: value)
        }
    }

    private static func run(_ executable: String, _ arguments: [String], input: String) throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let (stdin, stdout, stderr) = (Pipe(), Pipe(), Pipe())
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }
}

/// HTTP/1.1 over a plain TCP socket to 127.0.0.1: exactly the bytes given, the answer read to
/// the end (libmicrohttpd closes after each answer here) with a 10 s receive timeout.
enum RawHTTP {
    struct Response {
        var status: Int?
        var head: String
        var headers: [(String, String)]
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
        func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
    }

    /// A connection to 127.0.0.1:`port` from `source` (another loopback address: another
    /// peer), with `timeoutSeconds` for connect, send and receive.
    static func connect(
        _ port: Int, receiveBuffer: Int? = nil, from source: String? = nil, timeoutSeconds: Int = 10
    ) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer.map(Int32.init) {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            _ = inet_pton(AF_INET, source, &local.sin_addr)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else {
                let code = errno
                close(fd)
                throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        return fd
    }

    /// Sends what it can; a server that closes early (an oversized request) is not an error here.
    static func send(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent <= 0 { return }
            offset += sent
        }
    }

    static func readAll(_ fd: Int32) -> [UInt8] {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            result += buffer[0..<count]
        }
        return result
    }

    static func parse(_ bytes: [UInt8]) -> Response {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var split = bytes.count
        if bytes.count >= 4 {
            for index in 0...(bytes.count - 4) where Array(bytes[index..<(index + 4)]) == separator {
                split = index
                break
            }
        }
        let head = String(decoding: bytes[0..<split], as: UTF8.self)
        let body = split + 4 <= bytes.count ? Array(bytes[(split + 4)...]) : []
        let lines = head.components(separatedBy: "\r\n")
        let parts = lines.first?.split(separator: " ") ?? []
        let status = parts.count >= 2 && parts[0].hasPrefix("HTTP/") ? Int(parts[1]) : nil
        let headers = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (
                String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            )
        }
        return Response(status: status, head: head, headers: headers, body: body)
    }

    /// One request (the exact bytes), the whole answer; a refused connection is status nil.
    static func request(_ port: Int, _ text: String) -> Response {
        guard let fd = try? connect(port) else { return Response(status: nil, head: "", headers: [], body: []) }
        defer { close(fd) }
        send(fd, text)
        return parse(readAll(fd))
    }

    static func get(_ port: Int, _ path: String) -> Response {
        request(port, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    }
}
