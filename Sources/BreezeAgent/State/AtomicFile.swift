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
import BreezeDaemon

#if canImport(Glibc)
    import Glibc
#endif

/// File I/O for `state_dir`: whole-file reads and crash-safe replacement.
///
/// A state file is written to a temporary file in the same directory, fsync'd, renamed over
/// the old one and the directory fsync'd, so after a power cut a reader sees either the old
/// or the new content, never a torn mix.
enum AtomicFile {
    /// The largest state file read back (docs/operations.md, Limits); a larger one is refused like a corrupt one.
    static let maxStateFileBytes = 8 << 20

    /// The file's bytes, or nil when it does not exist; at most `limit` bytes (else an error).
    static func read(_ path: String, limit: Int = maxStateFileBytes) throws(FileError) -> [UInt8]? {
        do {
            return try PosixFile.read(path, limit: limit)
        } catch {
            if error.operation == "open" && error.errno == ENOENT { return nil }
            throw error
        }
    }

    /// Replaces `path` with `bytes` atomically (temp file, fsync, rename, fsync of the directory).
    ///
    /// The temp file is created with `O_CREAT|O_EXCL|O_NOFOLLOW` (docs/operations.md, Limits): a file or symbolic
    /// link planted under its name is never followed or reused; its name carries the pid and a
    /// random part, and a name already taken is retried with another.
    static func write(_ bytes: [UInt8], to path: String, mode: UInt32 = 0o600) throws(FileError) {
        var temp = ""
        var fd: Int32 = -1
        for _ in 0..<8 {
            temp = path + ".tmp.\(getpid()).\(UInt32.random(in: 0...UInt32.max))"
            fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
            if fd >= 0 || errno != EEXIST { break }
        }
        guard fd >= 0 else { throw FileError(path: temp, operation: "create", errno: errno) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0 {
                let e = errno
                if e == EINTR { continue }
                close(fd)
                unlink(temp)
                throw FileError(path: temp, operation: "write", errno: e)
            }
            written += n
        }
        if fsync(fd) != 0 {
            let e = errno
            close(fd)
            unlink(temp)
            throw FileError(path: temp, operation: "fsync", errno: e)
        }
        close(fd)
        if rename(temp, path) != 0 {
            let e = errno
            unlink(temp)
            throw FileError(path: path, operation: "rename", errno: e)
        }
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let dfd = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 {
            fsync(dfd)
            close(dfd)
        }
    }

    /// Creates `path` and its parents (like `mkdir -p`).
    static func makeDirectory(_ path: String, mode: UInt32 = 0o750) throws(FileError) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, mode) != 0 {
                let e = errno
                if e != EEXIST { throw FileError(path: current, operation: "mkdir", errno: e) }
            }
        }
    }

    /// Moves a corrupt file aside (`<name>.corrupt`) so it is kept for a human but no longer read.
    static func setAside(_ path: String) {
        rename(path, path + ".corrupt")
    }
}

/// `unlink(2)`, named so that it does not shadow anything at call sites.
@discardableResult
func unlinkFile(_ path: String) -> Bool { unlink(path) == 0 }
