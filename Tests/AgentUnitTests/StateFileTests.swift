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
import BreezeTestSupport
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// SPEC §12 for `state_dir`: temp files never follow a planted link, state files are private,
/// an oversized state file is set aside unread, and a full disk loses no call count.
@Suite("State files", .serialized)
struct StateFileTests {
    /// A log whose lines the test reads back.
    final class CapturedLog: Sendable {
        private let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        var log: Log { Log(level: .debug, timestamps: false) { [self] line in lines.withLock { $0.append(line) } } }
    }

    @Test("a link planted at the old temp name is not followed; state files are 0600")
    func tempFilesAreExclusiveAndPrivate() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let victim = dir + "/victim"
        try "precious".write(toFile: victim, atomically: false, encoding: .utf8)
        // Before SPEC §12 the temp file was `<name>.tmp.<pid>`, opened with O_TRUNC: a link there
        // truncated and overwrote its target, then replaced the state file with the link.
        try FileManager.default.createSymbolicLink(
            atPath: dir + "/calls.json.tmp.\(getpid())", withDestinationPath: victim)
        let log = CapturedLog().log
        let store = StateStore(directory: dir, log: log)
        store.saveCallCounts(["home|google": .init(date: "2026-12-01", calls: 3)])
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
        let attributes = try FileManager.default.attributesOfItem(atPath: dir + "/calls.json")
        #expect(attributes[.type] as? FileAttributeType == .typeRegular)
        #expect((attributes[.posixPermissions] as? Int).map { $0 & 0o777 } == 0o600)
        #expect(StateStore(directory: dir, log: log).callCounts()["home|google"]?.calls == 3)
    }

    @Test("a stored response's time is written as the JSON number it was as an Int64, and reads back")
    func storedResponseTextUnchanged() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let log = CapturedLog().log
        let response = StoredResponse(
            fetchedAt: DaemonInstant(unixSeconds: 1_781_517_607), body: #"{"a":1}"#, context: ["date": "2026-06-15"])
        StateStore(directory: dir, log: log).saveResponse(response, location: "home", source: "air")
        // What the files written before `fetchedAt` was a DaemonInstant hold: they read the same.
        let old = #"{"body":"{\"a\":1}","context":{"date":"2026-06-15"},"fetchedAt":1781517607}"#
        #expect(try String(contentsOfFile: dir + "/responses/home.air.json", encoding: .utf8) == old)
        #expect(StateStore(directory: dir, log: log).response(location: "home", source: "air") == response)
    }

    @Test("a state file over 8 MiB is set aside like a corrupt one, not read whole")
    func oversizedStateFileSetAside() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Valid JSON (whitespace then {}), so only the size bound can refuse it.
        var bytes = [UInt8](repeating: UInt8(ascii: " "), count: (8 << 20) + 1)
        bytes += Array("{}".utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: dir + "/units.json"))
        let captured = CapturedLog()
        let log = captured.log
        let store = StateStore(directory: dir, log: log)
        #expect(store.units().isEmpty)
        #expect(FileManager.default.fileExists(atPath: dir + "/units.json.corrupt"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/units.json"))
        #expect(
            captured.all.contains {
                $0.hasPrefix("warning: state file \(dir)/units.json is larger than 8 MiB; set aside")
            })
    }

    /// A disk that fills up while the agent runs: a real ENOSPC from a 256 KiB tmpfs when the
    /// test may mount one (root), else a directory made read-only (EACCES for others than root).
    /// Both fail the write the same way (the temp file cannot be created or written).
    @Test("the daily call count survives a full disk: kept in memory and on disk at the last good value, warned once")
    func callCountSurvivesAFullDisk() throws {
        guard let disk = try FillableDirectory() else { return }
        defer { disk.remove() }
        let captured = CapturedLog()
        let log = captured.log
        let store = StateStore(directory: disk.path, log: log)
        let key = "home|google"
        store.saveCallCounts([key: .init(date: "2026-12-01", calls: 1)])
        try disk.fill()
        // The disk really refuses writes now (a 1-byte file cannot be written).
        let probe = disk.path + "/probe"
        #expect(!FileManager.default.createFile(atPath: probe, contents: Data([1])), "the disk is not full")
        _ = unlink(probe)
        store.saveCallCounts([key: .init(date: "2026-12-01", calls: 2)])
        store.saveCallCounts([key: .init(date: "2026-12-01", calls: 3)])
        // This process keeps the newest count; the file stays at the last one written.
        #expect(store.callCounts()[key]?.calls == 3)
        let onDisk = try JSONDecoder().decode(
            [String: CallCount].self, from: Data(contentsOf: URL(fileURLWithPath: disk.path + "/calls.json"))
        )
        #expect(onDisk[key]?.calls == 1)
        // A restart on the full disk still reads it (the cap does not start again from zero).
        #expect(StateStore(directory: disk.path, log: log).callCounts()[key]?.calls == 1)
        let warnings = captured.all.filter { $0.hasPrefix("warning: state:") }
        #expect(warnings.count == 1, "\(warnings)")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: disk.path).filter { $0.contains(".tmp.") }
        #expect(leftovers.isEmpty)

        disk.free()
        store.saveCallCounts([key: .init(date: "2026-12-01", calls: 4)])
        #expect(StateStore(directory: disk.path, log: log).callCounts()[key]?.calls == 4)
        #expect(captured.all.contains { $0.hasPrefix("info: state: writing to \(disk.path) works again") })
    }
}

/// A directory whose writes can be made to fail: a small tmpfs filled to the last byte when
/// this process can mount one, else (not root) a directory whose write permission is removed.
/// nil (the test does nothing) only as root without mount rights, where neither works.
final class FillableDirectory {
    let path: String
    private let mounted: Bool

    init?() throws {
        path = temporaryDirectory()
        if getuid() == 0 {
            mounted = Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", path])
            if !mounted {
                try? FileManager.default.removeItem(atPath: path)
                return nil
            }
        } else {
            mounted = false
        }
    }

    /// Makes every further write fail.
    func fill() throws {
        if mounted {
            let fd = open(path + "/filler", O_WRONLY | O_CREAT, 0o600)
            let block = [UInt8](repeating: 0, count: 4096)
            while block.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
            close(fd)
        } else {
            chmod(path, 0o500)
        }
    }

    /// Makes writes work again.
    func free() {
        if mounted { unlink(path + "/filler") } else { chmod(path, 0o700) }
    }

    func remove() {
        if mounted { _ = Self.run("/bin/umount", [path]) }
        chmod(path, 0o700)
        try? FileManager.default.removeItem(atPath: path)
    }

    private static func run(_ tool: String, _ arguments: [String]) -> Bool {
        (try? TestProcess.runBlocking(tool, arguments)) != nil
    }
}
