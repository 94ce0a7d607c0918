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

// The soak (issue 7, point 7): thousands of fetch → decode → compute → publish cycles through
// the real agent code — libcurl against loopback servers that serve the real-format fixtures,
// the pure core, the state store on disk, the retained publisher and libmosquitto against a
// real broker — with the process's resident memory printed after a warm-up and at the end.
//
// `make soak` (scripts/soak.sh) runs it with BREEZE_SOAK_CYCLES set. Without that variable
// the same harness runs a handful of cycles as an ordinary test, so it cannot rot.
//
// Time is simulated: cycle n runs at `start + n × step`, and the loopback servers answer for
// the local date of that moment. The agent's own schedules are not involved (the soak drives
// the state's fetch steps itself, ``Agent/soakFetchEverything(now:)``, at the simulated time),
// so no interval below the product minimum is needed; the Google daily cap is raised through
// the documented `max_calls_per_day` key.

/// `BREEZE_SOAK_CYCLES` and friends (see docs/operations.md, "Test-only settings").
enum SoakSettings {
    static var environment: [String: String] { ProcessInfo.processInfo.environment }
    /// Cycles after the warm-up; nil = not a soak run.
    static var cycles: Int? { environment["BREEZE_SOAK_CYCLES"].flatMap { Int($0) }.map { max(1, $0) } }
    /// Allowed RSS growth between the post-warm-up sample and the end, in KiB.
    static var maxGrowthKiB: Int { environment["BREEZE_SOAK_MAX_GROWTH_KIB"].flatMap { Int($0) } ?? 4096 }
}

/// Reads `VmRSS` from /proc/self/status, in KiB.
func residentKiB() -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) }
    }
    return nil
}

/// The loopback APIs (``FakeAPIs``): Google `forecast:lookup`, Open-Meteo `air-quality`,
/// `archive` and `forecast`, answering with the fixture bodies moved to the local date of the
/// simulated now.
final class SoakAPIs: Sendable {
    let fake: FakeAPIs
    var server: LoopbackHTTPServer { fake.server }
    /// The simulated Unix time the agent is at; the servers date their answers by it.
    let clock: Atomic<Int64>
    private let googleTemplate: Data
    private let airTemplate: Data
    private let berlin: ZoneRules
    private let prague: ZoneRules
    /// Generated bodies per (kind, local date); a soak crosses only a few dates.
    private let cache = Mutex<[String: [UInt8]]>([:])
    let served = Atomic<Int>(0)

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("CoreTests/Fixtures").path

    /// The first local date of the Brno fixture's hourly series.
    static let airFixtureStart = CivilDate(year: 2026, month: 10, day: 1)!

    init(now: Int64) throws {
        func json(_ name: String) throws -> Data {
            try Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "/" + name))
        }
        googleTemplate = try json("eXPerience83-pollenlevels__google_pollen_forecast_5_days.es.json")
        airTemplate = try json("Vybo-reflbo__air_brno_2026-10-01.json")
        berlin = try TimeZoneResolver().load("Europe/Berlin")
        prague = try TimeZoneResolver().load("Europe/Prague")
        clock = Atomic(now)
        fake = try FakeAPIs()
        // Weak: the server keeps the routes, and a strong `self` here would be a cycle that
        // leaks the whole fixture set (LeakSanitizer found it).
        fake.set(
            FakeAPIs.Routes(
                google: { [weak self] _ in self?.answer { $0.google(now: $1) } ?? .close },
                airQuality: { [weak self] _ in self?.answer { $0.airQuality(now: $1) } ?? .close },
                climate: { [weak self] request in
                    let dates = (request.queryValue("start_date") ?? "").split(separator: ",").compactMap {
                        CivilDate(iso: $0)
                    }
                    return self?.answer { _, _ in dates.isEmpty ? nil : Self.climate(dates: dates) } ?? .close
                },
                stripes: { [weak self] request in
                    self?.answer { _, _ in DailyMeanArchive.standIn.body(for: request).map { Array($0.utf8) } }
                        ?? .close
                }))
    }

    func stop() { server.stop() }

    /// The config's `endpoints:` block.
    var endpointsYAML: String { fake.endpointsYAML }

    /// Counts the request and answers `body(self, simulated now)`, or 404 when it is nil.
    private func answer(_ body: (SoakAPIs, Int64) -> [UInt8]?) -> LoopbackHTTPServer.Action {
        served.add(1, ordering: .relaxed)
        guard let body = body(self, clock.load(ordering: .relaxed)) else {
            return .respond(status: 404, text: #"{"error":true,"reason":"Not found"}"#)
        }
        return .respond(status: 200, headers: [("Content-Type", "application/json")], body: body)
    }

    private func google(now: Int64) -> [UInt8] {
        cached("google", berlin.localDate(atUnixTime: now)) { google(start: $0) }
    }

    private func airQuality(now: Int64) -> [UInt8] {
        cached("air", prague.localDate(atUnixTime: now)) { airQuality(start: $0) }
    }

    private func cached(_ kind: String, _ date: CivilDate, _ make: (CivilDate) -> [UInt8]) -> [UInt8] {
        let key = "\(kind) \(date)"
        if let body = cache.withLock({ $0[key] }) { return body }
        let body = make(date)
        cache.withLock { $0[key] = body }
        return body
    }

    /// The Spanish 5-day Google fixture with its days renumbered from `start`.
    private func google(start: CivilDate) -> [UInt8] {
        var object = try! JSONSerialization.jsonObject(with: googleTemplate) as! [String: Any]
        let days = object["dailyInfo"] as! [[String: Any]]
        object["dailyInfo"] = days.enumerated().map { offset, day -> [String: Any] in
            var day = day
            let date = start.adding(days: offset)
            day["date"] = ["year": date.year, "month": date.month, "day": date.day]
            return day
        }
        return [UInt8](try! JSONSerialization.data(withJSONObject: object))
    }

    /// The Brno air-quality fixture (Unix times) moved by whole days so its first local day is `start`.
    private func airQuality(start: CivilDate) -> [UInt8] {
        var object = try! JSONSerialization.jsonObject(with: airTemplate) as! [String: Any]
        var hourly = object["hourly"] as! [String: Any]
        let shift = (start.daysSinceEpoch - Self.airFixtureStart.daysSinceEpoch) * 86_400
        hourly["time"] = (hourly["time"] as! [NSNumber]).map { $0.intValue + shift }
        object["hourly"] = hourly
        return [UInt8](try! JSONSerialization.data(withJSONObject: object))
    }

    /// Open-Meteo daily bodies in the shape of the real Berlin answers (one object per date, an
    /// array when several dates were asked for, as the archive does for comma-separated lists).
    static func climate(dates: [CivilDate]) -> [UInt8] {
        let objects = dates.map { date -> String in
            let tenths = 40 + (date.year % 17) * 3
            return
                #"{"latitude":52.52,"longitude":13.419998,"generationtime_ms":0.0450611114501953,"utc_offset_seconds":3600,"timezone":"Europe/Berlin","timezone_abbreviation":"GMT+1","elevation":38.0,"daily_units":{"time":"iso8601","temperature_2m_max":"°C"},"daily":{"time":["\#(date)"],"temperature_2m_max":[\#(FixedPoint.format(tenths, scale: 1))]}}"#
        }
        return Array((objects.count == 1 ? objects[0] : "[" + objects.joined(separator: ",") + "]").utf8)
    }
}

/// Two agents on one MQTT client: Google pollen + climate + discovery in Berlin, key-free
/// Open-Meteo pollen + climate in Brno — every source and decoder the product has.
struct SoakHarness {
    let apis: SoakAPIs
    let client: MQTTClient
    let agents: [(agent: Agent, publisher: RetainedPublisher)]
    let prefix: String
    let stateDirectories: [String]
    let problems: LineRecorder

    static func make(port: Int, now: Int64, problems: LineRecorder) async throws -> SoakHarness {
        let apis = try SoakAPIs(now: now)
        let tag = UUID().uuidString.prefix(8).lowercased()
        let prefix = "soak-\(tag)"
        let log = Log(level: .warning, timestamps: false) { line in
            problems.record(line)
        }
        let client = try MQTTClient(MQTTConfiguration(host: "127.0.0.1", port: port, clientID: "breeze-\(prefix)"))
        try client.start()
        guard await client.waitUntilConnected(timeout: .seconds(10)) else {
            throw SoakFailure("mqtt: no connection to 127.0.0.1:\(port): \(client.lastError.map { "\($0)" } ?? "")")
        }
        var agents: [(Agent, RetainedPublisher)] = []
        var directories: [String] = []
        for (name, source, location) in [
            ("google", "google", "{id: berlin, latitude: 52.52, longitude: 13.405, timezone: Europe/Berlin}"),
            ("openmeteo", "open-meteo", "{id: brno, latitude: 49.2, longitude: 16.6, timezone: Europe/Prague}"),
        ] {
            let stateDir = temporaryDirectory()
            directories.append(stateDir)
            let yaml = """
                mqtt: {host: 127.0.0.1, port: \(port), topic_prefix: \(prefix)/\(name), qos: 1}
                homeassistant: {discovery: \(name == "google"), prefix: \(prefix)/ha}
                locations:
                  - \(location)
                pollen: {source: \(source), api_key: soak-test-key, max_calls_per_day: 10000}
                climate: {years: [1980, 1990, 2000, 2010, 2020]}
                \(apis.endpointsYAML)
                state_dir: \(stateDir)
                """
            let config = try ConfigLoader.load(
                text: yaml, file: "soak-\(name).yaml", environment: [:], currentYear: 2026, hostname: "soak")
            let store = StateStore(directory: stateDir, log: log)
            let agent = Agent(
                config: config, log: log, store: store, http: CurlFetcher(totalTimeout: .seconds(10)), demo: false)
            let publisher = RetainedPublisher(
                transport: MQTTTransport(broker: client, qos: config.mqtt.qos, log: log), store: store)
            agents.append((agent, publisher))
        }
        return SoakHarness(
            apis: apis, client: client, agents: agents, prefix: prefix, stateDirectories: directories,
            problems: problems)
    }

    /// One fetch → decode → compute → publish round for both agents at simulated time `now`;
    /// returns how many retained messages were sent.
    func cycle(now: Int64) async throws -> Int {
        apis.clock.store(now, ordering: .relaxed)
        var sent = 0
        for (agent, publisher) in agents {
            let unusable = await agent.soakFetchEverything(now: now)
            guard unusable.isEmpty else { throw SoakFailure("no usable data for \(unusable) at \(now)") }
            agent.soakSetAllScopes(on: publisher, now: now)
            sent += publisher.flush(at: .now)
        }
        guard await client.waitForAcknowledgements(timeout: .seconds(10)) else {
            throw SoakFailure("the broker did not acknowledge the publishes of the cycle at \(now)")
        }
        apis.server.removeRecordedRequests()
        return sent
    }

    /// What the agents believe is retained on the broker, all agents together (digests).
    var published: [String: PayloadDigest] {
        agents.reduce(into: [:]) { all, pair in all.merge(pair.publisher.published) { $1 } }
    }

    func finish() async {
        await client.stop()
        apis.stop()
        for directory in stateDirectories { try? FileManager.default.removeItem(atPath: directory) }
    }
}

/// Warning and error lines of the agents (the first 50).
final class LineRecorder: Sendable {
    private let storage = Mutex<[String]>([])
    func record(_ line: String) { storage.withLock { if $0.count < 50 { $0.append(line) } } }
    var lines: [String] { storage.withLock { $0 } }
}

struct SoakFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Subscribes to `<prefix>/#` with a fresh client and returns the retained messages the broker
/// holds there.
func retainedOnBroker(port: Int, prefix: String) async throws -> [String: String] {
    // A probing view: the broker sends the retained messages right after the SUBACK, before the
    // probe published afterwards comes back, so the tree is complete when `start` returns.
    let view = try BrokerView(port: port)
    try await view.start([prefix + "/#"])
    let tree = view.tree.filter { view.entry($0.key)?.retained == true }
    await view.stop()
    return tree
}

@Suite(.serialized) struct SoakTests {
    /// A few cycles crossing a local midnight, as an ordinary test: every source decodes, the
    /// tree follows the simulated date, and the broker holds exactly what the agents published.
    @Test func soakHarnessRunsTheRealPipeline() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let problems = LineRecorder()
            // 22:00 UTC on a winter day: 23:00 in Berlin, so the third cycle (+1 h steps) is past midnight.
            let start = Int64(CivilDate(year: 2026, month: 11, day: 29)!.daysSinceEpoch) * 86_400 + 22 * 3600
            let harness = try await SoakHarness.make(port: port, now: start, problems: problems)
            var sent: [Int] = []
            do {
                for n in 0..<4 { sent.append(try await harness.cycle(now: start + Int64(n) * 3600)) }
                let published = harness.published
                let onBroker = try await retainedOnBroker(port: port, prefix: harness.prefix)
                await harness.finish()

                #expect(sent[0] > 20, "the first cycle publishes the whole tree")
                #expect(published.keys.contains { $0.hasPrefix(harness.prefix + "/google/berlin/pollen/") })
                #expect(published.keys.contains { $0.hasPrefix(harness.prefix + "/openmeteo/brno/pollen/") })
                #expect(published.keys.contains { $0.hasPrefix(harness.prefix + "/google/berlin/climate") })
                #expect(published.keys.contains { $0.hasPrefix(harness.prefix + "/ha/") })
                // After midnight the Berlin state names the new local date.
                let berlin = harness.prefix + "/google/berlin/pollen"
                let berlinState = onBroker[berlin] ?? ""
                #expect(berlinState.contains("2026-11-30"), "\(berlinState.prefix(300))")
                #expect(onBroker.mapValues { PayloadDigest(payload: $0) } == published.filter { !$0.value.isEmpty })
                // Per cycle: Google pollen, air quality, and an archive + a forecast request per agent;
                // plus each agent's warming-stripes request in the first cycle only (kept after it).
                #expect(harness.apis.served.load(ordering: .relaxed) == 4 * 6 + 2)
                #expect(problems.lines == [])
            } catch {
                await harness.finish()
                throw error
            }
        }
    }

    /// `make soak`: BREEZE_SOAK_CYCLES cycles after a warm-up, RSS printed; fails when RSS grew
    /// by more than BREEZE_SOAK_MAX_GROWTH_KIB (default 4 MiB).
    @Test(.enabled(if: SoakSettings.cycles != nil, "set BREEZE_SOAK_CYCLES (make soak)"))
    func soakMemoryStaysFlat() async throws {
        let cycles = SoakSettings.cycles ?? 0
        let warmUp = max(100, cycles / 10)
        // Five simulated minutes per cycle: 2000 cycles cross about a week of local midnights.
        let step: Int64 = 300
        try await MosquittoBroker.withPlainBroker { port in
            let problems = LineRecorder()
            let start = Int64(Date().timeIntervalSince1970)
            let harness = try await SoakHarness.make(port: port, now: start, problems: problems)
            do {
                var n: Int64 = 0
                var sent = 0
                for _ in 0..<warmUp {
                    sent += try await harness.cycle(now: start + n * step)
                    n += 1
                }
                let rssStart = residentKiB() ?? 0
                let clockStart = ContinuousClock.now
                var samples: [Int] = [rssStart]
                print("soak: warm-up \(warmUp) cycles done, RSS \(rssStart) KiB")
                for i in 1...cycles {
                    sent += try await harness.cycle(now: start + n * step)
                    n += 1
                    if i % max(1, cycles / 10) == 0 {
                        let rss = residentKiB() ?? 0
                        samples.append(rss)
                        print("soak: cycle \(i)/\(cycles), RSS \(rss) KiB")
                    }
                }
                let rssEnd = residentKiB() ?? 0
                let elapsed = ContinuousClock.now - clockStart
                let requests = harness.apis.served.load(ordering: .relaxed)
                print(
                    "soak: \(cycles) cycles (after \(warmUp) warm-up) in \(elapsed), \(requests) HTTP requests, \(sent) retained publishes, simulated \(Int64(cycles + warmUp) * step / 86_400) days"
                )
                print("soak: RSS start \(rssStart) KiB, end \(rssEnd) KiB, growth \(rssEnd - rssStart) KiB")
                print("soak: RSS samples \(samples.map(String.init).joined(separator: " "))")
                let onBroker = try await retainedOnBroker(port: port, prefix: harness.prefix)
                let published = harness.published.filter { !$0.value.isEmpty }
                await harness.finish()
                #expect(rssStart > 0 && rssEnd > 0, "VmRSS readable")
                #expect(rssEnd - rssStart <= SoakSettings.maxGrowthKiB, "RSS grew \(rssEnd - rssStart) KiB")
                #expect(onBroker.mapValues { PayloadDigest(payload: $0) } == published)
                #expect(problems.lines == [])
            } catch {
                await harness.finish()
                throw error
            }
        }
    }
}

extension Agent {
    /// The soak's own driver at a simulated `now`: every enabled source of every location
    /// begun (``DaemonState/begin(_:now:)``), fetched concurrently and applied
    /// (``DaemonState/apply(_:_:now:)``), without the loop's clock; returns the sources left
    /// with no usable data. (`once` runs on the daemon's loop, ``OneShot``.)
    func soakFetchEverything(now: Int64) async -> [String] {
        var keys: [FetchKey] = []
        for index in state.locations.indices {
            for kind in SourceKind.allCases where state.enabled(kind) {
                keys.append(FetchKey(location: index, kind: kind))
            }
        }
        var requests: [(FetchKey, FetchRequest)] = []
        for key in keys {
            let (request, notes) = state.begin(key, now: DaemonInstant(unixSeconds: now))
            _ = performLogsAndWrites(notes)
            if let request { requests.append((key, request)) }
        }
        let fetcher = fetcher
        let outcomes = await withTaskGroup(of: (FetchKey, FetchOutcome).self) { group in
            for (key, request) in requests {
                group.addTask { (key, await fetcher.run(request)) }
            }
            var done: [(FetchKey, FetchOutcome)] = []
            for await outcome in group { done.append(outcome) }
            return done
        }
        for (key, outcome) in outcomes {
            _ = performLogsAndWrites(state.apply(key, outcome, now: DaemonInstant(unixSeconds: now)))
        }
        _ = performLogsAndWrites(state.callCountStore(now: DaemonInstant(unixSeconds: now), force: true))
        return keys.filter { !state.hasData($0) }.map {
            "\($0.kind.rawValue)[\(state.locations[$0.location].config.id)]"
        }
    }

    /// Sets every sink's scopes of every location on the soak's publisher.
    func soakSetAllScopes(on publisher: RetainedPublisher, now: Int64) {
        for case .setScope(let scope) in performLogsAndWrites(state.scopeActions(now: DaemonInstant(unixSeconds: now)))
        {
            publisher.set(scope: scope.prefix, scope.tree)
        }
    }
}
