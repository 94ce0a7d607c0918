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
import BreezeTestSupport
import Foundation
import Synchronization
import Testing

/// Records what the publisher sends; `connected` false makes every send fail.
final class RecordingTransport: RetainedTransport {
    let sent = Mutex<[(topic: String, payload: String)]>([])
    let connected = Atomic<Bool>(true)
    func send(topic: String, payload: String, retain: Bool) -> Bool {
        guard connected.load(ordering: .relaxed) else { return false }
        sent.withLock { $0.append((topic, payload)) }
        return true
    }
    /// Raw bytes (images) are recorded as `<n bytes>` after their first byte values.
    let binary = Mutex<[(topic: String, bytes: [UInt8])]>([])
    func send(topic: String, bytes: [UInt8], retain: Bool) -> Bool {
        guard connected.load(ordering: .relaxed) else { return false }
        binary.withLock { $0.append((topic, bytes)) }
        sent.withLock { $0.append((topic, "<\(bytes.count) bytes>")) }
        return true
    }
    func take() -> [String] {
        sent.withLock { s in
            defer { s = [] }; return s.map { "\($0.topic)=\($0.payload)" }
        }
    }
}

@Suite struct RetainedPublisherTests {
    func tree(_ pairs: [(String, String)]) -> TopicTree {
        var t = TopicTree()
        for (k, v) in pairs { t.set(k, v) }
        return t
    }

    @Test func publishesOnlyChangesAndClearsWhatNoLongerApplies() {
        let transport = RecordingTransport()
        let publisher = RetainedPublisher(transport: transport, store: nil)
        publisher.set(scope: "b/home/pollen", tree([("b/home/pollen", "{}"), ("b/home/pollen/oak/value", "2")]))
        #expect(publisher.flush(at: .now) == 2)
        #expect(transport.take() == ["b/home/pollen={}", "b/home/pollen/oak/value=2"])
        #expect(publisher.flush(at: .now) == 0)
        publisher.set(scope: "b/home/pollen", tree([("b/home/pollen", "{1}")]))
        publisher.flush(at: .now)
        #expect(transport.take() == ["b/home/pollen={1}", "b/home/pollen/oak/value="])
    }

    @Test func unknownScopeKeepsWhatIsPublishedAndRemovedScopeIsCleared() {
        let dir = temporaryDirectory()
        let store = StateStore(directory: dir, log: Log(level: .error))
        store.saveLegacyPublishedTopics(["b/home/pollen": "old", "b/home/pollenx": "other", "b/gone/climate": "x"])
        let transport = RecordingTransport()
        let publisher = RetainedPublisher(transport: transport, store: store)
        publisher.set(scope: "b/home/pollen", nil)
        publisher.flush(at: .now)
        #expect(transport.take() == ["b/gone/climate=", "b/home/pollenx="])
        #expect(store.publishedDigests() == ["b/home/pollen": "old"].digests)
    }

    @Test func refusedTopicsLeaveThePublishedSetUntilTheNextRepublish() {
        let dir = temporaryDirectory()
        let store = StateStore(directory: dir, log: Log(level: .error))
        let transport = RecordingTransport()
        let publisher = RetainedPublisher(transport: transport, store: store)
        publisher.set(scope: "b/home", tree([("b/home/a", "1"), ("b/home/b", "2"), ("b/home/c", "3")]))
        publisher.flush(at: .now)
        _ = transport.take()
        publisher.notPublished(refused: ["b/home/a"], lost: ["b/home/c"])
        #expect(store.publishedDigests() == ["b/home/b": "2"].digests)
        #expect(publisher.refusedTopics == ["b/home/a"])
        // A flush re-sends the lost topic, not the refused one (no refusal at every fetch).
        publisher.set(scope: "b/home", tree([("b/home/a", "1"), ("b/home/b", "2"), ("b/home/c", "3")]))
        publisher.flush(at: .now)
        #expect(transport.take() == ["b/home/c=3"])
        // The reconnect's republish tries the refused topic again.
        publisher.republishAll(at: .now)
        #expect(transport.take() == ["b/home/a=1", "b/home/b=2", "b/home/c=3"])
        #expect(publisher.refusedTopics.isEmpty)
    }

    @Test func republishesEverythingAndRetriesFailedSends() {
        let transport = RecordingTransport()
        let publisher = RetainedPublisher(transport: transport, store: nil)
        transport.connected.store(false, ordering: .relaxed)
        publisher.set(scope: "b/x", tree([("b/x", "1")]))
        #expect(publisher.flush(at: .now) == 0)
        transport.connected.store(true, ordering: .relaxed)
        #expect(publisher.flush(at: .now) == 1)
        #expect(publisher.republishAll(at: .now) == 1)
        #expect(transport.take() == ["b/x=1", "b/x=1"])
    }

    @Test func scopeMembershipNeedsASlash() {
        #expect(Topic.isAtOrBelow("b/home/pollen/oak", "b/home/pollen"))
        #expect(Topic.isAtOrBelow("b/home/pollen", "b/home/pollen"))
        #expect(!Topic.isAtOrBelow("b/home/pollenx", "b/home/pollen"))
    }
}

@Suite struct StateStoreTests {
    @Test func roundTripsAndSurvivesANewInstance() {
        let dir = temporaryDirectory()
        let store = StateStore(directory: dir, log: Log(level: .error))
        store.saveUnit("°C", configured: "auto", for: "home")
        store.saveResponse(
            .init(fetchedAt: 42, body: "{\"a\":1}", context: ["date": "2026-11-30"]), location: "home", source: "google"
        )
        let again = StateStore(directory: dir, log: Log(level: .error))
        #expect(again.units() == ["home": .init(unit: "°C", configured: "auto")])
        #expect(again.response(location: "home", source: "google")?.fetchedAt == 42)
        #expect(FileManager.default.fileExists(atPath: dir + "/units.json"))
        let leftovers = try! FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.contains(".tmp.") }
        #expect(leftovers.isEmpty)
    }

    @Test("units.json written before the configured value was stored still reads: the choice is kept")
    func unitsFromBeforeTheConfiguredValue() throws {
        let dir = temporaryDirectory()
        try "{\"home\": \"°C\", \"cabin\": {\"unit\": \"°F\", \"configured\": \"celsius\"}}".write(
            toFile: dir + "/units.json", atomically: true, encoding: .utf8)
        let store = StateStore(directory: dir, log: Log(level: .error))
        #expect(
            store.units() == [
                "home": .init(unit: "°C", configured: nil), "cabin": .init(unit: "°F", configured: "celsius"),
            ])
        store.removeUnits(for: ["cabin"])
        #expect(
            StateStore(directory: dir, log: Log(level: .error)).units() == ["home": .init(unit: "°C", configured: nil)])
    }

    @Test func corruptFileIsSetAsideAndIgnored() throws {
        let dir = temporaryDirectory()
        try "{\"home\": \"°".write(toFile: dir + "/units.json", atomically: true, encoding: .utf8)
        let lines = Mutex<[String]>([])
        let log = Log(level: .debug, timestamps: false) { line in lines.withLock { $0.append(line) } }
        let store = StateStore(directory: dir, log: log)
        #expect(store.units().isEmpty)
        #expect(FileManager.default.fileExists(atPath: dir + "/units.json.corrupt"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/units.json"))
        #expect(lines.withLock { $0.contains { $0.hasPrefix("warning: state file") && $0.contains("corrupt") } })
    }

    @Test func unwritableDirectoryWarnsAndKeepsStateInMemory() {
        let lines = Mutex<[String]>([])
        let log = Log(level: .debug, timestamps: false) { line in lines.withLock { $0.append(line) } }
        let store = StateStore(directory: "/proc/breeze-cannot-exist", log: log)
        #expect(store.directory == nil)
        store.saveUnit("°F", configured: "celsius", for: "x")
        #expect(store.units() == ["x": .init(unit: "°F", configured: "celsius")])
        #expect(lines.withLock { $0.first?.contains("running without persistence") == true })
    }
}

@Suite struct LogTests {
    @Test func redactsSecretsAndFiltersLevels() {
        let lines = Mutex<[String]>([])
        let log = Log(level: .info, timestamps: false) { line in lines.withLock { $0.append(line) } }
        log.redact(["AIzaSecretKey123"])
        log.debug("hidden")
        log.warning("request with key AIzaSecretKey123 failed")
        #expect(lines.withLock { $0 } == ["warning: request with key ******** failed"])
    }

    /// SPEC §14: the container image logs to stdout (its config sets BREEZE_LOG_STREAM=stdout);
    /// everywhere else the lines stay on stderr, whatever else the variable says.
    @Test(arguments: [
        ("stdout", Int32(1)), ("stderr", 2), ("STDOUT", 2), ("", 2), ("1", 2),
    ])
    func logStreamVariable(value: String, descriptor: Int32) {
        #expect(Log.streamDescriptor(value) == descriptor)
    }

    @Test func logStreamDefaultsToStderr() {
        #expect(Log.streamDescriptor(nil) == 2)
    }
}

@Suite struct InvocationTests {
    @Test func defaultsToRun() throws {
        #expect(try Invocation.parse([]).command == .run)
    }

    @Test func parsesCommandsAndOptions() throws {
        let i = try Invocation.parse(["once", "--config", "/tmp/c.yaml", "--demo"])
        #expect(i.command == .once && i.configPath == "/tmp/c.yaml" && i.demo)
        #expect(try Invocation.parse(["check-config", "--config=/x"]).configPath == "/x")
        #expect(try Invocation.parse(["--version"]).version)
        #expect(try Invocation.parse(["print", "-h"]).help)
    }

    @Test func forgetTakesOneLocation() throws {
        let all = try Invocation.parse(["forget", "-c", "/x"])
        #expect(all.command == .forget && all.location == nil && all.configPath == "/x")
        #expect(try Invocation.parse(["forget", "--location", "home"]).location == "home")
        #expect(try Invocation.parse(["--location=cabin", "forget"]).location == "cabin")
    }

    @Test(arguments: [
        (["--config"], "--config needs a path"), (["--config="], "--config needs a path"),
        (["-c"], "-c needs a path"), (["forget", "--location"], "--location needs a location id"),
        (["forget", "--location="], "--location needs a location id"),
        (["once", "--location", "home"], "--location goes with forget only (see --help)"),
    ])
    func namesWhatAnOptionLacks(arguments: [String], message: String) {
        #expect(throws: Invocation.UsageError(description: message)) { try Invocation.parse(arguments) }
    }

    @Test(arguments: [["frobnicate"], ["--bogus"], ["--config"], ["run", "once"], ["--config="]])
    func rejectsBadCommandLines(arguments: [String]) {
        #expect(throws: Invocation.UsageError.self) { try Invocation.parse(arguments) }
    }

    /// The constructor-kept command line is this process's own (the test runner has /proc, so
    /// the runtime's copy is the reference); the release binary without /proc is
    /// test/release/no-proc.sh.
    @Test func processArgumentsAreTheRuntimesOwn() throws {
        let kept = try #require(ProcessArguments.afterProgramName())
        #expect(kept == Array(CommandLine.arguments.dropFirst()))
    }
}

@Suite struct RetainedPublisherIncrementalTests {
    @Test func aChangedScopeClearsOnlyItsOwnDroppedTopics() {
        let transport = RecordingTransport()
        let publisher = RetainedPublisher(transport: transport, store: nil)
        var a = TopicTree()
        a.set("p/a/x", "1")
        a.set("p/a/y", "2")
        var b = TopicTree()
        b.set("p/b/x", "3")
        publisher.set(scope: "p/a", a)
        publisher.set(scope: "p/b", b)
        publisher.flush(at: .now)
        _ = transport.take()
        var a2 = TopicTree()
        a2.set("p/a/x", "1")
        publisher.set(scope: "p/a", a2)
        publisher.flush(at: .now)
        #expect(transport.take() == ["p/a/y="])
        // A scope that becomes unknown keeps what it published; nothing is sent.
        publisher.set(scope: "p/b", nil)
        #expect(publisher.flush(at: .now) == 0)
        #expect(publisher.published == ["p/a/x": "1", "p/b/x": "3"].digests)
        // And a later tree for it is compared with what stayed published.
        var b2 = TopicTree()
        b2.set("p/b/z", "4")
        publisher.set(scope: "p/b", b2)
        publisher.flush(at: .now)
        #expect(transport.take() == ["p/b/z=4", "p/b/x="])
    }
}
