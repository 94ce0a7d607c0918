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

extension Dictionary where Key == String, Value == String {
    /// The digests of these payloads, as the publisher remembers them.
    var digests: [String: PayloadDigest] { mapValues { PayloadDigest(payload: $0) } }
}

/// Log lines captured by a test.
final class CapturedLines: Sendable {
    private let lines = Mutex<[String]>([])
    var log: Log { Log(level: .info, timestamps: false, sink: { line in self.lines.withLock { $0.append(line) } }) }
    var all: [String] { lines.withLock { $0 } }
}

@Suite("Published set: digests, one file per location")
struct PublishedSetTests {
    static let layout = TopicLayout(prefix: "breeze")
    static let grouping = PublishedGrouping(layout: layout)
    static let homeConfig = "homeassistant/device/breeze_home/config"

    static func tree(_ pairs: [(String, String)]) -> TopicTree {
        var tree = TopicTree()
        for (topic, payload) in pairs { tree.set(topic, payload) }
        return tree
    }

    static func publisher(_ store: StateStore?, _ transport: RecordingTransport) -> RetainedPublisher {
        RetainedPublisher(transport: transport, store: store, grouping: grouping)
    }

    /// home (pollen + its device config), office (pollen), the agent's status.
    static func setLocations(on publisher: RetainedPublisher, homeValue: String = "2") {
        publisher.set(
            scope: "breeze/home/pollen",
            tree([("breeze/home/pollen", "{\"h\":1}"), ("breeze/home/pollen/grass/value", homeValue)]))
        publisher.set(scope: homeConfig, tree([(homeConfig, "{\"components\":{}}")]))
        publisher.set(scope: "breeze/office/pollen", tree([("breeze/office/pollen", "{\"o\":1}")]))
        publisher.set(scope: "breeze/status", tree([("breeze/status", "online")]))
    }

    static func files(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory + "/published").sorted()
    }

    /// Inode and modification time: a rewrite (temp file renamed over) changes the inode.
    static func identity(_ path: String) throws -> String {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return "\(attributes[.systemFileNumber] ?? 0)/\(attributes[.modificationDate] ?? 0)"
    }

    @Test func groupsFollowTheLocationOfEachTopic() {
        let g = Self.grouping
        #expect(g.group(of: "breeze/home/pollen/grass/value") == "home")
        #expect(g.group(of: "breeze/home") == "home")
        #expect(g.group(of: Self.homeConfig) == "home")
        // A hyphenated id and its device config (slug) share a file.
        #expect(g.group(of: "breeze/north-wing/climate") == "north_wing")
        #expect(g.group(of: "homeassistant/device/breeze_north_wing/config") == "north_wing")
        #expect(g.group(of: "breeze/status") == "status")
        #expect(g.group(of: "breeze/status/1") == "status")
        // Not a location level: the other file.
        #expect(g.group(of: "oldprefix/home/pollen") == PublishedGrouping.other)
        #expect(g.group(of: "breeze/Home/x") == PublishedGrouping.other)
        #expect(g.group(of: "breeze/" + String(repeating: "a", count: 65)) == PublishedGrouping.other)
        #expect(g.group(of: "homeassistant/device/other_home/config") == PublishedGrouping.other)
        #expect(g.group(covering: "breeze/home/pollen") == "home")
        #expect(g.group(covering: Self.homeConfig) == "home")
        #expect(g.group(covering: "breeze") == nil)
        #expect(g.group(covering: "homeassistant/device") == nil)
        #expect(g.group(covering: "elsewhere/x") == PublishedGrouping.other)
        #expect(g.keepsPayload(Self.homeConfig))
        #expect(!g.keepsPayload("breeze/home/pollen"))
    }

    @Test func digestsAreOfTheBytesOnTheBroker() throws {
        let png: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 1, 2, 3]
        #expect(PayloadDigest(payload: BinaryPayload.reference(for: png)) == PayloadDigest(bytes: png))
        #expect(PayloadDigest(payload: "Low") == PayloadDigest(bytes: Array("Low".utf8)))
        #expect(PayloadDigest(payload: "Low") != PayloadDigest(payload: "low"))
        #expect(PayloadDigest(payload: "").isEmpty)
        let digest = PayloadDigest(payload: "{\"a\":1}")
        #expect(PayloadDigest(stored: digest.description) == digest)
        #expect(digest.description.count == 16 + 1 + 1)  // "<hex>:7"
        for bad in [
            "", "12:3", "0123456789abcdeg:1", "0123456789ABCDEF:1", "0123456789abcdef:-1", "0123456789abcdef:01",
        ] {
            #expect(PayloadDigest(stored: bad) == nil, "\(bad)")
        }
    }

    @Test func theFileEncodingRoundTripsAnyText() throws {
        let odd = "breeze/home/q\"uote\\back\nline\u{1}ctl/Zürich/🌲"
        let config = "homeassistant/device/breeze_home/config"
        let group = PublishedGroup(
            digests: [odd: PayloadDigest(payload: "x"), config: PayloadDigest(payload: "{\"a\":\"\t\u{7f}é\"}")],
            payloads: [config: "{\"a\":\"\t\u{7f}é\"}"])
        let bytes = group.encoded()
        #expect(try JSONDecoder().decode(PublishedGroup.self, from: Data(bytes)) == group)
        // Foundation's own reader agrees with the hand-written text.
        let any = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect((any["topics"] as? [String: String])?[odd] == PayloadDigest(payload: "x").description)
        #expect((any["payloads"] as? [String: String])?[config] == group.payloads[config])
        #expect(any["format"] as? Int == 1)
    }

    @Test func oneFilePerLocationIsWrittenAndReadBack() throws {
        let dir = temporaryDirectory()
        let store = StateStore(directory: dir, log: Log(level: .error))
        let transport = RecordingTransport()
        let first = Self.publisher(store, transport)
        Self.setLocations(on: first)
        #expect(first.flush(at: .now) == 5)
        #expect(try Self.files(dir) == ["location-home.json", "location-office.json", "location-status.json"])
        let text = try String(contentsOfFile: dir + "/published/location-home.json", encoding: .utf8)
        #expect(text.hasPrefix("{\"format\":1,"))
        #expect(text.contains("\"breeze/home/pollen/grass/value\":\"\(PayloadDigest(payload: "2"))\""))
        #expect(!text.contains("{\\\"h\\\":1}"), "state payloads are not stored, only digests")
        #expect(text.contains("{\\\"components\\\":{}}"), "the device config is stored whole")

        // A restart reads them back: the same trees publish nothing, the config payload is known.
        _ = transport.take()
        let next = Self.publisher(store, transport)
        #expect(next.published == first.published)
        #expect(next.publishedCount == 5)
        #expect(next.publishedPayload(Self.homeConfig) == "{\"components\":{}}")
        #expect(next.publishedPayload("breeze/home/pollen") == nil)
        Self.setLocations(on: next)
        #expect(next.flush(at: .now) == 0)
        #expect(transport.take().isEmpty)
    }

    @Test func onlyTheFilesOfChangedLocationsAreRewritten() throws {
        let dir = temporaryDirectory()
        let store = StateStore(directory: dir, log: Log(level: .error))
        let publisher = Self.publisher(store, RecordingTransport())
        Self.setLocations(on: publisher)
        publisher.flush(at: .now)
        let home = dir + "/published/location-home.json"
        let office = dir + "/published/location-office.json"
        let (homeBefore, officeBefore) = (try Self.identity(home), try Self.identity(office))
        Self.setLocations(on: publisher, homeValue: "3")
        #expect(publisher.flush(at: .now) == 1)
        #expect(try Self.identity(home) != homeBefore)
        #expect(try Self.identity(office) == officeBefore)
        // Deferred saving (the daemon's flushes within a batch) writes at persist().
        let homeAfter = try Self.identity(home)
        Self.setLocations(on: publisher, homeValue: "4")
        publisher.flush(persist: false, at: .now)
        #expect(try Self.identity(home) == homeAfter)
        publisher.persist()
        #expect(try Self.identity(home) != homeAfter)
        #expect(try Self.identity(office) == officeBefore)
        #expect(store.publishedDigests()["breeze/home/pollen/grass/value"] == PayloadDigest(payload: "4"))
    }

    @Test func anOlderAgentsPublishedJSONIsMigratedOnceAndRemoved() throws {
        let dir = temporaryDirectory()
        let store = StateStore(directory: dir, log: Log(level: .error))
        let legacy = [
            "breeze/home/pollen": "{\"h\":1}", "breeze/home/pollen/grass/value": "2",
            Self.homeConfig: "{\"components\":{\"grass\":{\"platform\":\"sensor\",\"unique_id\":\"g\"}}}",
            "breeze/gone/pollen": "{}",
        ]
        store.saveLegacyPublishedTopics(legacy)
        #expect(FileManager.default.fileExists(atPath: dir + "/published.json"))
        let transport = RecordingTransport()
        let publisher = Self.publisher(store, transport)
        #expect(!FileManager.default.fileExists(atPath: dir + "/published.json"))
        #expect(try Self.files(dir) == ["location-gone.json", "location-home.json"])
        #expect(publisher.published == legacy.digests)
        #expect(publisher.publishedPayload(Self.homeConfig) == legacy[Self.homeConfig])
        #expect(StateStore(directory: dir, log: Log(level: .error)).publishedDigests() == legacy.digests)
        // The migrated set works as before: gone is cleared, unchanged home topics are not re-sent.
        publisher.set(
            scope: "breeze/home/pollen",
            Self.tree([("breeze/home/pollen", "{\"h\":1}"), ("breeze/home/pollen/grass/value", "2")]))
        publisher.set(scope: Self.homeConfig, Self.tree([(Self.homeConfig, legacy[Self.homeConfig]!)]))
        publisher.flush(at: .now)
        #expect(transport.take() == ["breeze/gone/pollen="])
        #expect(try Self.files(dir) == ["location-home.json"])
    }

    @Test func aCorruptLocationFileLosesOnlyThatLocation() throws {
        let dir = temporaryDirectory()
        let lines = CapturedLines()
        let store = StateStore(directory: dir, log: lines.log)
        let first = Self.publisher(store, RecordingTransport())
        Self.setLocations(on: first)
        first.flush(at: .now)
        try Data("{\"format\":1,\"topics\":{\"breeze/office/pollen\":\"not a digest\"}}".utf8)
            .write(to: URL(fileURLWithPath: dir + "/published/location-office.json"))
        let transport = RecordingTransport()
        let next = Self.publisher(StateStore(directory: dir, log: lines.log), transport)
        #expect(next.publishedDigest("breeze/office/pollen") == nil)
        #expect(next.publishedDigest("breeze/home/pollen/grass/value") == PayloadDigest(payload: "2"))
        #expect(next.publishedCount == 4)
        #expect(try Self.files(dir).contains("location-office.json.corrupt"))
        #expect(lines.all.contains { $0.contains("published/location-office.json is corrupt; set aside") })
        // Office is published again (its memory was lost); home is not.
        Self.setLocations(on: next)
        next.flush(at: .now)
        #expect(transport.take() == ["breeze/office/pollen={\"o\":1}"])
    }

    @Test func aRemovedLocationsTopicsAreClearedAfterARestart() throws {
        let dir = temporaryDirectory()
        let store = StateStore(directory: dir, log: Log(level: .error))
        let first = Self.publisher(store, RecordingTransport())
        Self.setLocations(on: first)
        first.flush(at: .now)
        // The next run's config has only home (and the status): office is under no scope.
        let transport = RecordingTransport()
        let next = Self.publisher(StateStore(directory: dir, log: Log(level: .error)), transport)
        next.set(
            scope: "breeze/home/pollen",
            Self.tree([("breeze/home/pollen", "{\"h\":1}"), ("breeze/home/pollen/grass/value", "2")]))
        next.set(scope: Self.homeConfig, Self.tree([(Self.homeConfig, "{\"components\":{}}")]))
        next.set(scope: "breeze/status", Self.tree([("breeze/status", "online")]))
        next.flush(at: .now)
        #expect(transport.take() == ["breeze/office/pollen="])
        #expect(try Self.files(dir) == ["location-home.json", "location-status.json"])
    }

    @Test func aFileThatWouldPassTheBoundKeepsWhatFitsAndSaysSo() throws {
        let dir = temporaryDirectory()
        let lines = CapturedLines()
        let store = StateStore(directory: dir, log: lines.log, publishedFileLimit: 4_096)
        let publisher = Self.publisher(store, RecordingTransport())
        var tree = TopicTree()
        for n in 0..<200 { tree.set("breeze/home/pollen/item\(1000 + n)/value", String(n)) }
        publisher.set(scope: "breeze/home/pollen", tree)
        #expect(publisher.flush(at: .now) == 200)
        let size =
            try FileManager.default.attributesOfItem(atPath: dir + "/published/location-home.json")[.size] as? Int
        #expect((size ?? .max) <= 4_096)
        let saved = store.publishedDigests()
        #expect(saved.count > 10 && saved.count < 200)
        // What was saved is the sorted start of the set; the drop is logged with its numbers.
        let first = (0..<saved.count).map { "breeze/home/pollen/item\(1000 + $0)/value" }
        #expect(Set(saved.keys) == Set(first))
        let error = try #require(lines.all.first { $0.contains("would pass the 4096 byte bound") })
        #expect(error.contains("saving \(saved.count) of 200 topics"))
        #expect(error.contains("breeze/home/pollen/item\(1000 + saved.count)/value"))
        #expect(publisher.publishedCount == 200, "in memory the set stays whole")
    }

    @Test func aScopeUnknownAgainResendsItsLastTreeAfterAReconnect() {
        let transport = RecordingTransport()
        let publisher = Self.publisher(nil, transport)
        publisher.set(scope: "breeze/home/pollen", Self.tree([("breeze/home/pollen", "{\"h\":1}")]))
        publisher.flush(at: .now)
        publisher.set(scope: "breeze/home/pollen", nil)
        #expect(publisher.flush(at: .now) == 0)
        _ = transport.take()
        #expect(publisher.republishAll(at: .now) == 1)
        #expect(transport.take() == ["breeze/home/pollen={\"h\":1}"])
    }

    @Test func topicsKeptFromAnEarlierRunAreNeitherResentNorCleared() {
        let store = StateStore(directory: nil, log: Log(level: .error))
        let first = Self.publisher(store, RecordingTransport())
        first.set(scope: "breeze/home/pollen", Self.tree([("breeze/home/pollen", "{\"h\":1}")]))
        first.flush(at: .now)
        let transport = RecordingTransport()
        let next = Self.publisher(store, transport)
        next.set(scope: "breeze/home/pollen", nil)
        #expect(next.flush(at: .now) == 0)
        // Only the digest is known: a reconnect cannot re-send it, and it is not cleared.
        #expect(next.republishAll(at: .now) == 0)
        #expect(transport.take().isEmpty)
        #expect(next.published == ["breeze/home/pollen": "{\"h\":1}"].digests)
        #expect(next.wanted == ["breeze/home/pollen": "{\"h\":1}"].digests)
    }

    // MARK: trees dropped once flushed (the daemon's publisher)

    static func dropping(_ transport: RecordingTransport, delay: Duration = .zero, store: StateStore? = nil)
        -> RetainedPublisher
    {
        RetainedPublisher(
            transport: transport, store: store, grouping: grouping, clearDelay: delay,
            clearsAtOnce: { $0.hasPrefix("homeassistant/") }, dropsFlushedTrees: true)
    }

    @Test func aSettledScopeComparesAndClearsAsBefore() {
        let transport = RecordingTransport()
        let store = StateStore(directory: nil, log: Log(level: .error))
        store.saveLegacyPublishedTopics(["breeze/gone/pollen": "x"])
        let publisher = Self.dropping(transport, store: store)
        Self.setLocations(on: publisher)
        #expect(publisher.flush(at: .now) == 6)
        // A removed location's topic (under no scope) is cleared by the first (full) pass.
        #expect(transport.take().contains("breeze/gone/pollen="))
        // The same trees again: nothing to send; a changed one: only the difference.
        Self.setLocations(on: publisher)
        #expect(publisher.flush(at: .now) == 0)
        publisher.set(scope: "breeze/home/pollen", Self.tree([("breeze/home/pollen", "{\"h\":2}")]))
        publisher.flush(at: .now)
        #expect(transport.take() == ["breeze/home/pollen={\"h\":2}", "breeze/home/pollen/grass/value="])
        // A new scope forces a full pass: settled scopes keep what they published.
        publisher.set(scope: "breeze/garden/pollen", Self.tree([("breeze/garden/pollen", "{}")]))
        publisher.flush(at: .now)
        #expect(transport.take() == ["breeze/garden/pollen={}"])
        #expect(
            publisher.wanted
                == [
                    "breeze/home/pollen": "{\"h\":2}", Self.homeConfig: "{\"components\":{}}",
                    "breeze/office/pollen": "{\"o\":1}", "breeze/status": "online", "breeze/garden/pollen": "{}",
                ].digests)
        // Another full pass without changes sends nothing at all.
        publisher.release(scopes: [])
        #expect(publisher.flush(at: .now) == 0)
        #expect(transport.take().isEmpty)
    }

    @Test func aReconnectRepublishesWhatIsSetAgainAndDeviceConfigsKeptWhole() {
        let transport = RecordingTransport()
        let publisher = Self.dropping(transport)
        Self.setLocations(on: publisher)
        publisher.flush(at: .now)
        _ = transport.take()
        // Without the trees only the device config (kept whole) can be sent again …
        #expect(publisher.republish(scope: Self.homeConfig) == 1)
        #expect(transport.take() == ["\(Self.homeConfig)={\"components\":{}}"])
        #expect(publisher.republishAll(at: .now) == 1)
        _ = transport.take()
        // … which is why the daemon sets every scope again first: then everything goes out.
        Self.setLocations(on: publisher)
        #expect(publisher.republishAll(at: .now) == 5)
        #expect(transport.take().count == 5)
    }

    @Test func aHeldBackClearUnderASettledScopeIsStillSentWhenDue() async throws {
        let transport = RecordingTransport()
        let publisher = Self.dropping(transport, delay: .milliseconds(200))
        let t0 = ContinuousClock.now
        publisher.set(
            scope: "breeze/home/pollen",
            Self.tree([("breeze/home/pollen", "{}"), ("breeze/home/pollen/grass/value", "2")]))
        publisher.flush(at: t0)
        publisher.set(scope: "breeze/home/pollen", Self.tree([("breeze/home/pollen", "{}")]))
        publisher.flush(at: t0)
        _ = transport.take()
        // A full pass meanwhile (a new scope) neither cancels nor hastens the held-back clear.
        publisher.set(scope: "breeze/office/pollen", Self.tree([("breeze/office/pollen", "{}")]))
        publisher.flush(at: t0 + .milliseconds(100))
        #expect(transport.take() == ["breeze/office/pollen={}"])
        #expect(publisher.nextClearDue == t0 + .milliseconds(200))
        publisher.flush(at: t0 + .milliseconds(200))
        #expect(transport.take() == ["breeze/home/pollen/grass/value="])
        #expect(publisher.publishedCount == 2)
    }

    @Test func aFailedFlushKeepsTheTreesForTheNextOne() {
        let transport = RecordingTransport()
        let publisher = Self.dropping(transport)
        transport.connected.store(false, ordering: .relaxed)
        Self.setLocations(on: publisher)
        #expect(publisher.flush(at: .now) == 0)
        transport.connected.store(true, ordering: .relaxed)
        #expect(publisher.flush(at: .now) == 5)
    }
}
