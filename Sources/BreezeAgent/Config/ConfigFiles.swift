import Glibc

/// A file the config names could not be read; `reason` is the C library's `strerror` text.
struct FileReadError: Error {
    var path: String
    var reason: String
}

/// The few file-system reads configuration loading needs, straight over POSIX so that a
/// failure carries the real reason ("Permission denied", not just "could not read").
enum ConfigFiles {
    /// The whole file, or at most `limit` bytes of it.
    static func read(_ path: String, limit: Int = 1 << 20) throws(FileReadError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileReadError(path: path, reason: errorText(errno)) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < limit {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                throw FileReadError(path: path, reason: errorText(code))
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return Array(bytes.prefix(limit))
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

    private static func errorText(_ code: Int32) -> String {
        strerror(code).map { String(cString: $0) } ?? "error \(code)"
    }
}
