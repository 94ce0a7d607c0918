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

#if canImport(Glibc)
    import Glibc
#endif

/// A failed system call on a file: which call, on which path, and the `errno` it left. The one
/// error type of every file read and write (configuration, secrets, zoneinfo, state).
public struct FileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    /// The call that failed: `open`, `read`, `create`, `write`, `fsync`, `rename`, `mkdir`.
    public var operation: String
    public var errno: Int32
    /// Our own words when the call succeeded but the file is refused (a FIFO, too large).
    public var problem: String?

    public init(path: String, operation: String, errno: Int32, problem: String? = nil) {
        self.path = path
        self.operation = operation
        self.errno = errno
        self.problem = problem
    }

    /// The C library's own words (`strerror`): "No such file or directory", "Permission denied";
    /// or ``problem`` when there is one.
    public var reason: String { problem ?? strerror(errno).map { String(cString: $0) } ?? "error \(errno)" }

    public var description: String { "\(operation) \(path): \(reason)" }
}

/// Whole-file reads and link lookups straight over POSIX, so that a failure carries the real
/// reason ("Permission denied", not just "could not read").
public enum PosixFile {
    /// The whole file, which must be a regular file of at most `limit` bytes (docs/operations.md, Limits).
    ///
    /// A FIFO, a socket or a device is refused without reading from it: the open does not block
    /// (`O_NONBLOCK`: a FIFO without a writer would hang the reader), and `fstat` on the open
    /// descriptor says what it is. A file over `limit` is an error, never silently truncated.
    public static func read(_ path: String, limit: Int = 1 << 20) throws(FileError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { throw FileError(path: path, operation: "open", errno: errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileError(path: path, operation: "fstat", errno: errno) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw FileError(
                path: path, operation: "open", errno: EINVAL,
                problem: "not a regular file (\(fileTypeName(info.st_mode)))")
        }
        guard info.st_size <= limit else {
            throw FileError(path: path, operation: "read", errno: EFBIG, problem: tooLarge(limit))
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(info.st_size))
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                throw FileError(path: path, operation: "read", errno: code)
            }
            if count == 0 { break }
            // The file grew after the fstat: still bounded.
            guard bytes.count + count <= limit else {
                throw FileError(path: path, operation: "read", errno: EFBIG, problem: tooLarge(limit))
            }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return bytes
    }

    private static func tooLarge(_ limit: Int) -> String {
        let size =
            limit % (1 << 20) == 0 ? "\(limit >> 20) MiB" : limit % 1024 == 0 ? "\(limit >> 10) KiB" : "\(limit) bytes"
        return "larger than \(size)"
    }

    /// `a FIFO`, `a character device`, … for a refused file type.
    static func fileTypeName(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFDIR: "a directory"
        case S_IFLNK: "a symbolic link"
        default: "not a regular file"
        }
    }

    /// The target of a symbolic link as stored (may be relative), nil when `path` is not a link.
    static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBufferPointer { chars -> Int in
            guard let base = chars.baseAddress else { return -1 }
            return readlink(path, base, chars.count)
        }
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
