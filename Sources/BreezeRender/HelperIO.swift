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

/// The helper's stdin and stdout: a bounded read, a complete write.
public enum HelperIO {
    /// Reads stdin to its end, but no more than `limit` + 1 bytes (enough to know it is over).
    public static func readStandardInput(limit: Int) throws(RenderFailure) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count <= limit {
            let want = min(chunk.count, limit + 1 - bytes.count)
            let count = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, want) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .internalError("stdin: read failed: \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        if bytes.count > limit { throw .badRequest("stdin: the request is over \(limit) bytes") }
        return bytes
    }

    /// Writes all of `bytes` to file descriptor `fd`.
    public static func write(_ bytes: [UInt8], to fd: Int32) throws(RenderFailure) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .internalError("stdout: write failed: \(String(cString: strerror(errno)))")
            }
            offset += count
        }
    }

    /// One line on stderr.
    public static func report(_ failure: RenderFailure) {
        try? write(Array("breeze-agent-render: \(failure.message)\n".utf8), to: 2)
    }
}
