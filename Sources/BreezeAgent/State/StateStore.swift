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

import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What the agent keeps in `state_dir` between runs (SPEC §3, §5):
///
/// - `published.json`: every retained topic the agent put on the broker, so topics that no
///   longer apply are cleared even after a restart or a config change;
/// - `units.json`: the display unit chosen per location with `climate/unit/set`;
/// - `calls.json`: Google calls per location and local day (the daily cap survives restarts);
/// - `responses/<loc>.<source>.json`: the last good response per location and source, so a
///   restart publishes at once and spends no quota.
///
/// Every file is replaced atomically. A file that does not decode is logged, set aside as
/// `<name>.corrupt` and ignored. Without a usable directory (`nil`, or unwritable) the store
/// keeps everything in memory only: the agent runs without persistence, as SPEC §4 allows.
public final class StateStore: Sendable {
    /// A response body as fetched, with the time of the fetch.
    public struct StoredResponse: Codable, Sendable, Equatable {
        public var fetchedAt: Int64
        public var body: String
        /// Source-specific context needed to reuse the body (e.g. the local date it was fetched for).
        public var context: [String: String]
        public init(fetchedAt: Int64, body: String, context: [String: String] = [:]) {
            self.fetchedAt = fetchedAt
            self.body = body
            self.context = context
        }
    }

    /// Calls made to a paid API for one location on one local day.
    public struct CallCount: Codable, Sendable, Equatable {
        public var date: String
        public var calls: Int
        public init(date: String, calls: Int) {
            self.date = date
            self.calls = calls
        }
    }

    /// Where state is persisted; nil without persistence (none given, or not writable at start).
    public let directory: String?
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

    /// - Parameter directory: `state_dir`; nil runs without persistence.
    public init(directory: String?, log: Log) {
        self.log = log
        self.memory = Mutex(Memory())
        self.readDirectory = directory
        guard let directory else {
            self.directory = nil
            return
        }
        do {
            try AtomicFile.makeDirectory(directory + "/responses")
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

    public func publishedTopics() -> [String: String] { load("published.json") ?? [:] }
    public func savePublishedTopics(_ topics: [String: String]) { save(topics, "published.json") }

    public func units() -> [String: String] { load("units.json") ?? [:] }
    public func saveUnit(_ unit: String, for location: String) {
        var all = units()
        all[location] = unit
        save(all, "units.json")
    }

    public func callCounts() -> [String: CallCount] { load("calls.json") ?? [:] }
    public func saveCallCounts(_ counts: [String: CallCount]) { save(counts, "calls.json") }

    public func response(location: String, source: String) -> StoredResponse? {
        load("responses/\(location).\(source).json")
    }
    public func saveResponse(_ response: StoredResponse, location: String, source: String) {
        save(response, "responses/\(location).\(source).json")
    }
    public func removeResponse(location: String, source: String) {
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
                // Too large (SPEC §12: over 8 MiB is never read whole) or not a regular file.
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
    /// again (SPEC §12: the daily call count survives a full disk).
    private func save<T: Encodable>(_ value: T, _ name: String) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(value) else { return }
        let bytes = [UInt8](data)
        guard let directory else {
            memory.withLock { $0.files[name] = bytes }
            return
        }
        do {
            try AtomicFile.write(bytes, to: directory + "/" + name)
            let recovered = memory.withLock { memory in
                memory.files[name] = nil
                defer { memory.failing = false }
                return memory.failing
            }
            if recovered { log.info("state: writing to \(directory) works again") }
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
        }
    }
}
