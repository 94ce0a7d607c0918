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
@testable import BreezeConfig
import BreezeCore
import BreezeMQTT
import BreezeTestSupport
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `breeze-agent addon` (SPEC §15) against a stand-in Supervisor and a mosquitto that requires
/// the Supervisor's MQTT login, as the Mosquitto add-on does.
///
/// The stand-in is written from the Supervisor's documented API, as cited in
/// docs/home-assistant.md ("Runtime environment"): `Authorization: Bearer $SUPERVISOR_TOKEN`
/// [DEV docs/apps/communication.md]; `GET /services/mqtt` → `{"result": "ok", "data": {host, port,
/// ssl, protocol, username, password, addon}}`, 400 `{"result": "error", "message": "Service not
/// enabled"}` while no broker is announced [SV supervisor/api/utils.py, supervisor/api/services.py,
/// supervisor/services/modules/mqtt.py]; `GET /core/api/config` → Home Assistant's `/api/config`
/// without the envelope [DEV docs/api/rest.md], 401 for an unknown token [SV supervisor/api/proxy.py].
@Suite("Add-on entrypoint against a stand-in Supervisor", .serialized)
struct AddonSupervisorTests {
    static let token = "supervisor-token-\(UUID().uuidString.prefix(8))"
    static let password = "mq-\(UUID().uuidString.prefix(12))"
    static let googleKey = "AIza-addon-test-\(UUID().uuidString.prefix(6))"
    static let defaults = """
        {"home_location": true, "locations": [], "unit": "auto", "pollen_source": "auto", "air": false,
         "profiles": [], "images": [], "outputs": [], "log_level": "info"}
        """

    /// The Supervisor's two answers; the port as a string, as DEV's example writes it.
    static func supervisor(
        brokerPort: Int, ssl: Bool = false,
        answer: @escaping @Sendable (Int) -> LoopbackHTTPServer.Action? = { _ in nil }
    )
        -> LoopbackHTTPServer
    {
        let count = Mutex(0)
        return LoopbackHTTPServer { request in
            let number = count.withLock { value -> Int in
                value += 1
                return value
            }
            if let override = answer(number) { return override }
            guard request.header("Authorization") == "Bearer \(token)" else {
                return .respond(status: 401, text: "401: Unauthorized")
            }
            switch request.path {
            case "/services/mqtt":
                return .respond(
                    status: 200, headers: [("Content-Type", "application/json")],
                    text: """
                        {"result": "ok", "data": {"addon": "core_mosquitto", "host": "127.0.0.1", "port": "\(brokerPort)",
                         "ssl": \(ssl), "protocol": "3.1.1", "username": "addons", "password": "\(password)"}}
                        """)
            case "/core/api/config":
                return .respond(
                    status: 200, headers: [("Content-Type", "application/json")],
                    text: """
                        {"latitude": 52.52, "longitude": 13.405, "elevation": 34, "unit_system": {"length": "km",
                         "mass": "g", "temperature": "°C", "volume": "L"}, "location_name": "Zuhause",
                         "time_zone": "Europe/Berlin", "components": ["hassio", "mqtt"], "version": "2026.11.3"}
                        """)
            default:
                return .respond(status: 404, text: #"{"result": "error", "message": "not found"}"#)
            }
        }
    }

    /// `text` as a JSON string literal.
    static func json(_ text: String) -> String {
        String(
            String(decoding: try! JSONSerialization.data(withJSONObject: [text]), as: UTF8.self).dropFirst().dropLast())
    }

    /// A mosquitto that accepts only the Supervisor's login (and the test's own viewer).
    static func broker(tls: TestCertificates? = nil) async throws -> MosquittoBroker {
        let broker = try MosquittoBroker()
        try await broker.addPasswordFile(users: ["addons": password, "viewer": "viewer-pw"])
        if let tls { broker.enableTLS(tls) }
        try await broker.start()
        return broker
    }

    /// The broker and the Supervisor announcing it, both started.
    static func standIns(
        answer: @escaping @Sendable (Int) -> LoopbackHTTPServer.Action? = { _ in nil }
    ) async throws -> (MosquittoBroker, LoopbackHTTPServer) {
        let broker = try await broker()
        let supervisor = supervisor(brokerPort: broker.port, answer: answer)
        try supervisor.start()
        return (broker, supervisor)
    }

    static func stop(_ broker: MosquittoBroker, _ supervisor: LoopbackHTTPServer) {
        supervisor.stop()
        broker.stop()
    }

    /// Starts `addon` with options.json holding `options` in a fresh data folder.
    static func startAddon(
        _ options: String, supervisor: LoopbackHTTPServer, in directory: String, extra: [String: String] = [:]
    ) throws -> AgentProcess {
        try FileManager.default.createDirectory(atPath: directory + "/data", withIntermediateDirectories: true)
        try options.write(toFile: directory + "/data/options.json", atomically: true, encoding: .utf8)
        var environment = [
            "BREEZE_ADDON_DATA": directory + "/data", "BREEZE_SUPERVISOR_URL": supervisor.url(""),
            "SUPERVISOR_TOKEN": token,
        ]
        for (key, value) in extra { environment[key] = value }
        return try AgentProcess(["addon"], directory: directory, environment: environment, name: "addon")
    }

    @Test func zeroConfigurationPublishesHomeAssistantsHomeWithTheSupervisorsLogin() async throws {
        let (broker, supervisor) = try await Self.standIns()
        defer { Self.stop(broker, supervisor) }
        // Key-free pollen (Open-Meteo) and climate from the stand-in APIs of the other end-to-end tests.
        let pollen = try EndToEndKeyFreeClimateTests.airQualityBody(zone: "Europe/Berlin")
        let sandbox = try AgentSandbox(
            locations: [.init(id: "home", latitude: 52.52)],
            routes: .init(airQuality: { _ in .respond(status: 200, body: pollen) }, celsius: [2010: 11.0]))
        let directory = sandbox.directory
        let view = try await LoginView(port: broker.port, patterns: ["breeze/#", "homeassistant/#"])
        defer { Task { await view.stop() } }

        // The default options; this machine has no Internet, so `advanced` points the agent at
        // the stand-in APIs (and asks for one climate year), and moves the ingress status page
        // from 0.0.0.0:8099 to a free loopback port (tests run side by side). `log_level` debug:
        // the status page is read at the agent's snapshot lines (`waitForSnapshot`).
        let httpPort = try FreePort.loopback()
        let advanced =
            sandbox.apis.endpointsYAML + "\nclimate: {years: [2010]}\nhttp: {listen: \"127.0.0.1:\(httpPort)\"}\n"
        let debug = Self.defaults.replacingOccurrences(of: "\"log_level\": \"info\"", with: "\"log_level\": \"debug\"")
        let options = String(debug.dropLast()) + ", \"advanced\": \(Self.json(advanced))}"
        let agent = try Self.startAddon(options, supervisor: supervisor, in: directory)
        let online = await eventually(bound: .seconds(30)) { view.payload("breeze/status") == "online" }
        #expect(online, "\(agent.log)\n\(broker.log)")
        let named = await eventually(bound: .seconds(20)) {
            view.topics.contains { $0.hasPrefix("homeassistant/") && (view.payload($0)?.contains("Zuhause") ?? false) }
        }
        #expect(named, "\(view.topics.sorted())\n\(agent.log)")
        // Home Assistant's unit system (°C) reached the location's climate topics.
        let home = await eventually(bound: .seconds(20)) { view.payload("breeze/home/climate/unit") == "°C" }
        #expect(home, "\(view.topics.sorted())")
        // The agent logged in as the Supervisor said (mosquitto's connection line names the user).
        #expect(broker.log.contains("u'addons'"), "\(broker.log)")
        #expect(supervisor.requests.allSatisfy { $0.header("Authorization") == "Bearer \(Self.token)" })

        let configPath = directory + "/data/breeze-agent.yaml"
        let attributes = try FileManager.default.attributesOfItem(atPath: configPath)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let written = try String(contentsOfFile: configPath, encoding: .utf8)
        #expect(written.contains("name: \"Zuhause\""))
        #expect(written.contains("state_dir: \"\(directory)/data\""))
        #expect(written.contains("unit: \"celsius\""))
        #expect(!agent.log.contains(Self.password), "\(agent.log)")
        // The status page the ingress proxy reaches; the generated allow list kept loopback.
        let page = await agent.waitForSnapshot(timeout: .seconds(10)) {
            RawHTTP.get(httpPort, "/healthz").status == 200
        }
        #expect(page, "\(agent.log)")
        #expect(written.contains("allow:") && written.contains("\"172.30.32.2\""), "\(written)")
        // Issue 39 item 1: the token is gone from the process, and root too when there was root.
        try Self.expectPrivilegesDropped(pid: agent.pid, log: agent.log)
        #expect(await agent.terminate() == 0)
        // The agent's exit and the broker's delivery of its last publish are two events: wait
        // for the second (a fresh-clone run read "online" right after the exit).
        let offline = await eventually(bound: .seconds(10)) { view.payload("breeze/status") == "offline" }
        #expect(offline, "\(String(describing: view.payload("breeze/status")))")
    }

    /// `/proc/<pid>/environ` holds neither the token nor the Supervisor's address; started as
    /// root with a `breeze-agent` user on the machine, the process runs as that user with every
    /// capability set empty and no_new_privs (docs/home-assistant.md, "Privileges").
    static func expectPrivilegesDropped(pid: Int32, log: String) throws {
        let environ = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ"))
        let variables = environ.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        #expect(!variables.contains { $0.contains(token) }, "the token is readable in /proc/\(pid)/environ")
        #expect(!variables.contains { $0.hasPrefix("BREEZE_SUPERVISOR_URL=") && $0.count > 22 })
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        func field(_ name: String) -> String {
            status.split(separator: "\n").first { $0.hasPrefix(name + ":") }.map {
                $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces)
            } ?? "?"
        }
        #expect(field("NoNewPrivs") == "1", "\(status)")
        guard geteuid() == 0, let user = getpwnam(AddonPrivileges.user) else {
            #expect(log.contains("add-on: started as uid") || log.contains("add-on: no user"), "\(log)")
            return
        }
        let uid = user.pointee.pw_uid
        let ids = field("Uid").split(whereSeparator: { $0 == "\t" || $0 == " " }).compactMap { UInt32($0) }
        #expect(ids.count == 4 && ids.allSatisfy { $0 == uid }, "Uid: \(field("Uid"))")
        #expect(field("Groups").isEmpty, "Groups: \(field("Groups"))")
        for set in ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"] {
            #expect(field(set) == "0000000000000000", "\(set): \(field(set))")
        }
        #expect(log.contains("add-on: running as breeze-agent (uid \(uid)"), "\(log)")
    }

    @Test func optionsWithAGoogleKeyAndAnExtraLocation() async throws {
        let (broker, supervisor) = try await Self.standIns()
        defer { Self.stop(broker, supervisor) }
        let sandbox = try AgentSandbox(
            locations: [.init(id: "home", latitude: 52.52), .init(id: "cabin", latitude: 47.25)],
            routes: .init(celsius: [2010: 11.0]))
        let body = try googleBody(zone: "Europe/Berlin")
        sandbox.apis.setGoogle(.respond(status: 200, body: body))
        let view = try await LoginView(port: broker.port, patterns: ["breeze/#"])
        defer { Task { await view.stop() } }

        // `advanced` points the agent at the stand-in APIs: a §4 key the schema does not list
        // (and moves the status page to a free loopback port).
        let advanced =
            sandbox.apis.endpointsYAML
            + "\nclimate: {years: [2010]}\nhomeassistant: {discovery: false}\nhttp: {listen: \"127.0.0.1:\(try FreePort.loopback())\"}\n"
        let options = """
            {"home_location": true, "locations": [{"id": "cabin", "name": "Hütte", "latitude": 47.25, "longitude": 11.4}],
             "google_api_key": "\(Self.googleKey)", "unit": "fahrenheit", "pollen_source": "auto", "air": false,
             "profiles": [], "images": [], "outputs": [], "log_level": "debug",
             "advanced": \(Self.json(advanced))}
            """
        let agent = try Self.startAddon(options, supervisor: supervisor, in: sandbox.directory)
        let both = await eventually(bound: .seconds(30)) {
            view.topics.contains { $0.hasPrefix("breeze/home/pollen/") }
                && view.topics.contains { $0.hasPrefix("breeze/cabin/pollen/") }
        }
        #expect(both, "\(view.topics.sorted())\n\(agent.log)")
        let google = sandbox.apis.googleRequests
        #expect(Set(google.compactMap { sandbox.apis.location(of: $0) }) == ["home", "cabin"])
        #expect(google.allSatisfy { $0.header("X-Goog-Api-Key") == Self.googleKey })
        let units = await eventually(bound: .seconds(20)) {
            view.payload("breeze/home/climate/unit") == "°F" && view.payload("breeze/cabin/climate/unit") == "°F"
        }
        #expect(units, "\(view.topics.sorted())")
        #expect(!agent.log.contains(Self.googleKey) && !agent.log.contains(Self.password), "\(agent.log)")
        #expect(await agent.terminate() == 0)
    }

    @Test(arguments: [
        (
            #"{"locations": [{"id": "home", "latitude": 1, "longitude": 2}]}"#,
            #"breeze-agent: option locations[0].id: "home" is already the home location's id"#
        ),
        (
            #"{"locations": [{"id": "x", "latitude": 1, "longitude": 2, "timezone": "Mars/Olympus"}]}"#,
            "breeze-agent: option locations[0].timezone: "
        ),
        (#"{"advanced": "mqtt:\n  qos: 9\n"}"#, "breeze-agent: option advanced: mqtt.qos: expected an integer 0–2"),
    ])
    func aBadOptionIsOneLineAndExit78(options: String, expected: String) async throws {
        let supervisor = Self.supervisor(brokerPort: 1)
        try supervisor.start()
        defer { supervisor.stop() }
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let agent = try Self.startAddon(options, supervisor: supervisor, in: directory)
        let status = await agent.waitForExit(timeout: .seconds(20))
        #expect(status == ExitCode.configuration, "\(agent.log)")
        let lines = agent.log.split(separator: "\n")
        #expect(lines.count == 1, "\(agent.log)")
        #expect(lines.first?.hasPrefix(expected) == true, "\(agent.log)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/data/breeze-agent.yaml"))
    }

    @Test func sigtermWhileWaitingForTheSupervisorExitsZero() async throws {
        let supervisor = Self.supervisor(brokerPort: 1) { _ in .respond(status: 502, text: "Bad Gateway") }
        try supervisor.start()
        defer { supervisor.stop() }
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let agent = try Self.startAddon(Self.defaults, supervisor: supervisor, in: directory)
        #expect(await agent.waitForLine("the Supervisor answered 502"), "\(agent.log)")
        agent.signal(SIGTERM)
        #expect(await agent.waitForExit(timeout: .seconds(5)) == 0, "\(agent.log)")
        #expect(agent.lines(containing: "add-on: stopping while waiting for the Supervisor").count == 1)
    }

    @Test func addonRefusesAConfigPath() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try await AgentProcess.run(["addon", "--config", "/x.yaml"], logDirectory: directory)
        #expect(result.status == ExitCode.usage)
        #expect(
            result.stderr == "breeze-agent: addon takes no --config or --demo (it writes its own config; see --help)\n")
    }

    /// `ssl: true` (a broker add-on other than Mosquitto's, which announces `ssl: false`): the
    /// generated `tls: {}` verifies the broker against the system's CAs, so a broker whose
    /// certificate comes from a private CA is refused until `advanced` names that CA
    /// (docs/home-assistant.md, "A TLS broker").
    @Test func sslTrueConnectsOverTLSOnceAdvancedNamesThePrivateCA() async throws {
        let certificates = try await TestCertificates.generate(caName: "Breeze Add-on Test CA")
        let broker = try await Self.broker(tls: certificates)
        let supervisor = Self.supervisor(brokerPort: broker.port, ssl: true)
        try supervisor.start()
        defer { Self.stop(broker, supervisor) }
        let view = try await LoginView(
            port: broker.port, patterns: ["breeze/status"], tls: MQTTTLSOptions(caFile: certificates.caFile))
        defer { Task { await view.stop() } }
        let http = "http: {listen: \"127.0.0.1:\(try FreePort.loopback())\"}\n"

        // The system's CAs do not know the test CA: the handshake fails, the agent says why.
        let refused = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: refused) }
        let options = String(Self.defaults.dropLast()) + ", \"advanced\": \(Self.json(http))}"
        let untrusting = try Self.startAddon(options, supervisor: supervisor, in: refused)
        #expect(await untrusting.waitForLine("certificate verify failed"), "\(untrusting.log)")
        let written = try String(contentsOfFile: refused + "/data/breeze-agent.yaml", encoding: .utf8)
        #expect(written.contains("\n  tls: {}\n"), "\(written)")
        #expect(view.payload("breeze/status") == nil)
        // A handshake refused inside the first connect stops the agent at once (exit 69, the
        // line above); one refused on mosquitto's thread is retried until SIGTERM (exit 0).
        // Which of the two happens depends on timing (MQTTBrokerTests.tlsVerifiesTheBroker…).
        let untrustingStatus = await untrusting.terminate()
        #expect([0, ExitCode.unavailable].contains(untrustingStatus), "\(untrusting.log)")

        // `advanced` adds the CA to the announced TLS; host, port and login stay the Supervisor's.
        let trusted = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: trusted) }
        let advanced = http + "mqtt: {tls: {ca_file: \"\(certificates.caFile)\"}}\n"
        let agent = try Self.startAddon(
            String(Self.defaults.dropLast()) + ", \"advanced\": \(Self.json(advanced))}", supervisor: supervisor,
            in: trusted)
        let online = await eventually(bound: .seconds(30)) { view.payload("breeze/status") == "online" }
        #expect(online, "\(agent.log)\n\(broker.log)")
        let wrote = agent.lines(containing: "broker 127.0.0.1:\(broker.port) as addons with TLS")
        #expect(wrote.count == 1, "\(agent.log)")
        #expect(broker.log.contains("u'addons'"), "\(broker.log)")
        #expect(await agent.terminate() == 0)
    }

    @Test func supervisorDownThenUpIsRetriedWithOneLinePerStateChange() async throws {
        // Requests 1–3 get no answer, 4–6 a 401, 7–9 "Service not enabled", then the real answers.
        let (broker, supervisor) = try await Self.standIns { number in
            switch number {
            case 1...3: .close
            case 4...6: .respond(status: 401, text: "401: Unauthorized")
            case 7...9: .respond(status: 400, text: #"{"result": "error", "message": "Service not enabled"}"#)
            default: nil
            }
        }
        defer { Self.stop(broker, supervisor) }
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let view = try await LoginView(port: broker.port, patterns: ["breeze/status"])
        defer { Task { await view.stop() } }

        // The defaults, with the status page on a free loopback port instead of 0.0.0.0:8099.
        let http = "http: {listen: \"127.0.0.1:\(try FreePort.loopback())\"}"
        let options = String(Self.defaults.dropLast()) + ", \"advanced\": \(Self.json(http))}"
        let agent = try Self.startAddon(
            options, supervisor: supervisor, in: directory, extra: ["BREEZE_TEST_SUPERVISOR_RETRY_MS": "50"])
        let online = await eventually(bound: .seconds(30)) { view.payload("breeze/status") == "online" }
        #expect(online, "\(agent.log)")
        #expect(supervisor.requests.count >= 11)
        #expect(agent.lines(containing: "add-on: the Supervisor at").count == 1, "\(agent.log)")
        #expect(agent.lines(containing: "does not answer").count == 1, "\(agent.log)")
        #expect(agent.lines(containing: "refused the add-on's token").count == 1, "\(agent.log)")
        #expect(agent.lines(containing: "no MQTT broker announced yet").count == 1, "\(agent.log)")
        #expect(agent.lines(containing: "add-on: the Supervisor answers; starting").count == 1, "\(agent.log)")
        #expect(agent.lines(containing: "add-on: wrote").count == 1, "\(agent.log)")
        #expect(await agent.terminate() == 0)
    }
}

/// A watching client that logs in (the test broker refuses anonymous clients): the latest
/// payload per topic.
final class LoginView: Sendable {
    private let client: MQTTClient
    private let latest = Mutex<[String: String]>([:])
    private let pump = Mutex<Task<Void, Never>?>(nil)

    init(port: Int, patterns: [String], tls: MQTTTLSOptions? = nil) async throws {
        client = try MQTTClient(
            MQTTConfiguration(
                host: "127.0.0.1", port: port, clientID: "view-\(shortID())", username: "viewer", password: "viewer-pw",
                tls: tls))
        let events = client.events
        let task = Task { [weak self] in
            for await event in events {
                guard case .message(let message) = event else { continue }
                self?.latest.withLock { $0[message.topic] = message.payloadString }
            }
        }
        pump.withLock { $0 = task }
        try client.start()
        let connected = await client.waitUntilConnected(timeout: .seconds(15))
        try #require(connected, "viewer did not connect: \(String(describing: client.lastError))")
        for pattern in patterns { try client.subscribe(pattern, qos: 1) }
    }

    var topics: [String] { latest.withLock { Array($0.keys) } }
    func payload(_ topic: String) -> String? { latest.withLock { $0[topic] } }

    func stop() async {
        await client.stop()
        pump.withLock { $0?.cancel() }
    }
}
