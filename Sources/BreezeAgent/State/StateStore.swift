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

import BreezeConfig
import BreezeCore
import BreezeDaemon
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What the agent keeps in `state_dir` between runs (docs/reference.md, Topics; docs/operations.md, Faults):
///
/// - `published/location-<group>.json`, `published/other.json`: every retained topic the agent
///   put on the broker, as a digest of its payload, one file per location
///   (``PublishedGrouping``), so topics that no longer apply are cleared even after a restart or
///   a config change (an older agent's single `published.json` is migrated once, then removed);
/// - `units.json`: the display unit chosen per location with `climate/unit/set`, with the
///   `climate.unit` setting it was chosen under;
/// - `calls.json`: Google calls per location and local day (the daily cap survives restarts);
/// - `responses/<loc>.<source>.json`: the last good response per location and source, so a
///   restart publishes at once and spends no quota.
///
/// Every file is replaced atomically. A file that does not decode is logged, set aside as
/// `<name>.corrupt` and ignored. Without a usable directory (`nil`, or unwritable) the store
/// keeps everything in memory only: the agent runs without persistence, as docs/reference.md, Configuration allows.
final class StateStore: Sendable {
    /// Where state is persisted; nil without persistence (none given, or not writable at start).
    let directory: String?
    /// Where state is read from: `directory`, or the given one even when it is not writable, so
    /// that (above all) the day's Google call count is not forgotten on a read-only or full disk.
    private let readDirectory: String?
    private let log: Log
    private struct Memory {
        /// Files not (or not yet) on disk: everything without persistence, else the writes that
        /// failed, which later reads in this process see instead of the stale file.
        var files: [String: [UInt8]] = [:]
        /// A write has failed since the last one that worked: warn once, not per write.
        var failing = false
    }
    private let memory: Mutex<Memory>
    /// A smaller bound for published files (tests of what happens past it); nil: 8 MiB.
    let publishedFileLimitOverride: Int?

    /// - Parameter directory: `state_dir`; nil runs without persistence.
    convenience init(directory: String?, log: Log) {
        self.init(directory: directory, log: log, publishedFileLimit: nil)
    }

    init(directory: String?, log: Log, publishedFileLimit: Int?) {
        self.publishedFileLimitOverride = publishedFileLimit
        self.log = log
        self.memory = Mutex(Memory())
        self.readDirectory = directory
        guard let directory else {
            self.directory = nil
            return
        }
        do {
            try AtomicFile.makeDirectory(directory + "/responses")
            try AtomicFile.makeDirectory(directory + "/" + Self.publishedDirectory)
            let probe = directory + "/.write-test"
            try AtomicFile.write([], to: probe)
            _ = unlinkFile(probe)
            self.directory = directory
        } catch {
            log.warning(
                "state_dir \(directory) is not writable (\(error)); running without persistence (state already there is read)"
            )
            self.directory = nil
        }
    }

    // MARK: typed state

    /// The published set, group by group (``PublishedGrouping``); a file that does not decode
    /// is set aside and only its group is forgotten.
    func publishedGroups() -> [String: PublishedGroup] {
        var groups: [String: PublishedGroup] = [:]
        for name in publishedFileNames() {
            guard let group = Self.group(ofFile: name) else { continue }
            if let content: PublishedGroup = load(Self.publishedDirectory + "/" + name) { groups[group] = content }
        }
        return groups
    }

    /// Every published topic's digest, from all groups (tests and tools).
    func publishedDigests() -> [String: PayloadDigest] {
        publishedGroups().values.reduce(into: [:]) { all, group in all.merge(group.digests) { $1 } }
    }

    /// Writes one group's file (removes it when the group is empty); false when the write failed
    /// (the content is then kept in memory for this process, as for every state file).
    ///
    /// A file that would pass the 8 MiB bound of a state file (docs/operations.md, Limits) is written with as many
    /// topics as fit, in sorted order, and the drop is logged as an error naming the file, the
    /// count and the first topic left out: those topics are not cleared if the agent restarts
    /// before it clears them itself. (The 2,000 topics a location may have stay far below it.)
    @discardableResult
    func savePublished(_ group: PublishedGroup, as name: String) -> Bool {
        let file = Self.publishedDirectory + "/" + Self.fileName(ofGroup: name)
        guard !group.isEmpty else {
            memory.withLock { _ = $0.files.removeValue(forKey: file) }
            if let directory { _ = unlinkFile(directory + "/" + file) }
            return true
        }
        var bytes = group.encoded()
        if bytes.count > publishedFileLimit {
            var topics = group.digests.keys.sorted()
            let total = topics.count
            while bytes.count > publishedFileLimit, !topics.isEmpty {
                let keep = max(0, min(topics.count - 1, topics.count * publishedFileLimit / bytes.count - 1))
                topics.removeLast(topics.count - keep)
                bytes = group.encoded(topics: topics)
            }
            let first = group.digests.keys.sorted()[topics.count]
            log.error(
                "state: \(file) would pass the \(publishedFileLimit) byte bound of a state file; saving \(topics.count) of \(total) topics, not \(quotedForLog(first)) and the \(total - topics.count - 1) after it (sorted): they are not cleared if the agent restarts before it clears them"
            )
        }
        return write(bytes, file)
    }

    /// The single `published.json` of agents before the per-location files (full payloads);
    /// nil when there is none (or it was set aside: over 8 MiB or corrupt).
    func legacyPublishedTopics() -> [String: String]? { load(Self.legacyPublished) }

    /// Removes the single `published.json` once its content lives in the per-location files.
    func removeLegacyPublished() {
        memory.withLock { _ = $0.files.removeValue(forKey: Self.legacyPublished) }
        if let directory { _ = unlinkFile(directory + "/" + Self.legacyPublished) }
    }

    #if BREEZE_TEST_HOOKS
        /// Writes `topics` as an older agent did (one `published.json` with full payloads): tests
        /// of the migration, and of starts with state left by an older agent.
        func saveLegacyPublishedTopics(_ topics: [String: String]) { save(topics, Self.legacyPublished) }
    #endif

    static let publishedDirectory = "published"
    static let legacyPublished = "published.json"
    /// The bound a published file is written within: a state file's read bound.
    var publishedFileLimit: Int { publishedFileLimitOverride ?? AtomicFile.maxStateFileBytes }

    static func fileName(ofGroup group: String) -> String {
        group == PublishedGrouping.other ? "other.json" : "location-" + group + ".json"
    }

    /// The group a file of `published/` holds; nil for any other name (temp files, `.corrupt`).
    static func group(ofFile name: String) -> String? {
        if name == "other.json" { return PublishedGrouping.other }
        guard name.hasPrefix("location-"), name.hasSuffix(".json") else { return nil }
        let group = name.dropFirst("location-".count).dropLast(".json".count)
        guard !group.isEmpty, !group.contains(".") else { return nil }
        return String(group)
    }

    /// The names in `published/`: on disk (where state is read from) and held in memory.
    private func publishedFileNames() -> Set<String> {
        var names = Set<String>()
        if let readDirectory { names = Self.listDirectory(readDirectory + "/" + Self.publishedDirectory) }
        let inMemory = memory.withLock { Array($0.files.keys) }
        for key in inMemory where key.hasPrefix(Self.publishedDirectory + "/") {
            names.insert(String(key.dropFirst(Self.publishedDirectory.count + 1)))
        }
        return names
    }

    private static func listDirectory(_ path: String) -> Set<String> {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names = Set<String>()
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.insert(name) }
        }
        return names
    }

    /// A display unit chosen with `climate/unit/set`, and the `climate.unit` setting it was
    /// chosen under: when the configured value changes later, the configuration wins.
    struct UnitChoice: Codable, Sendable, Equatable {
        /// `°C` or `°F` (anything `TemperatureUnit(command:)` reads).
        var unit: String
        /// `auto`, `celsius` or `fahrenheit`; nil in a file from before it was stored (a plain
        /// string per location), which is kept until the next choice.
        var configured: String?

        init(unit: String, configured: String?) {
            self.unit = unit
            self.configured = configured
        }

        init(from decoder: any Decoder) throws {
            if let plain = try? decoder.singleValueContainer().decode(String.self) {
                self.init(unit: plain, configured: nil)
                return
            }
            let keyed = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                unit: try keyed.decode(String.self, forKey: .unit),
                configured: try keyed.decodeIfPresent(String.self, forKey: .configured))
        }
    }

    func units() -> [String: UnitChoice] { load("units.json") ?? [:] }
    func saveUnit(_ unit: String, configured: String, for location: String) {
        var all = units()
        all[location] = UnitChoice(unit: unit, configured: configured)
        save(all, "units.json")
    }
    /// Forgets the choices of `locations` (their configured unit changed).
    func removeUnits(for locations: [String]) {
        var all = units()
        for location in locations { all[location] = nil }
        save(all, "units.json")
    }

    func callCounts() -> [String: CallCount] { load("calls.json") ?? [:] }
    /// `"<ap> <mac>"` → the digest of the JPEG that access point last accepted for that tag.
    func uploadedImages() -> [String: String] { load("uploads.json") ?? [:] }
    func saveUploadedImages(_ digests: [String: String]) { save(digests, "uploads.json") }
    func saveCallCounts(_ counts: [String: CallCount]) { save(counts, "calls.json") }

    func response(location: String, source: String) -> StoredResponse? {
        load("responses/\(location).\(source).json")
    }
    func saveResponse(_ response: StoredResponse, location: String, source: String) {
        save(response, "responses/\(location).\(source).json")
    }
    func removeResponse(location: String, source: String) {
        let name = "responses/\(location).\(source).json"
        memory.withLock { _ = $0.files.removeValue(forKey: name) }
        if let directory { _ = unlinkFile(directory + "/" + name) }
    }

    // MARK: files

    private func load<T: Decodable>(_ name: String) -> T? {
        var bytes = memory.withLock { $0.files[name] }
        if bytes == nil, let readDirectory {
            let path = readDirectory + "/" + name
            do {
                bytes = try AtomicFile.read(path)
            } catch  where error.errno == EFBIG || error.errno == EINVAL {
                // Too large (docs/operations.md, Limits: over 8 MiB is never read whole) or not a regular file.
                setAside(name, because: error.reason)
                return nil
            } catch {
                log.warning("state: \(error); ignoring it")
                return nil
            }
        }
        guard let bytes else { return nil }
        do {
            return try JSONDecoder().decode(T.self, from: Data(bytes))
        } catch {
            setAside(name, because: "corrupt")
            return nil
        }
    }

    /// Moves a state file that cannot be used out of the way (kept for a human as `.corrupt`).
    private func setAside(_ name: String, because reason: String) {
        guard let directory else {
            log.warning("state file \(readDirectory ?? "")/\(name) is \(reason); ignored")
            return
        }
        log.warning("state file \(directory)/\(name) is \(reason); set aside as \(name).corrupt and ignored")
        AtomicFile.setAside(directory + "/" + name)
    }

    /// Writes a state file. A failed write (a full or read-only disk) leaves the file on disk at
    /// its last good content (the temp file is removed, nothing is renamed over it) and keeps
    /// the new content in memory for this process; it is warned about once until a write works
    /// again (docs/operations.md, Limits: the daily call count survives a full disk).
    private func save<T: Encodable>(_ value: T, _ name: String) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(value) else { return }
        write([UInt8](data), name)
    }

    /// Writes a state file's bytes (see ``save(_:_:)``); false when a write to `state_dir`
    /// failed (the bytes are then held in memory). Without persistence they are held in memory.
    @discardableResult
    private func write(_ bytes: [UInt8], _ name: String) -> Bool {
        guard let directory else {
            memory.withLock { $0.files[name] = bytes }
            return true
        }
        do {
            try AtomicFile.write(bytes, to: directory + "/" + name)
            let recovered = memory.withLock { memory in
                memory.files[name] = nil
                defer { memory.failing = false }
                return memory.failing
            }
            if recovered { log.info("state: writing to \(directory) works again") }
            return true
        } catch {
            let first = memory.withLock { memory in
                memory.files[name] = bytes
                defer { memory.failing = true }
                return !memory.failing
            }
            if first {
                log.warning(
                    "state: \(error); keeping state in memory, files in \(directory) stay at their last good content (warned once until a write works)"
                )
            }
            return false
        }
    }
}
