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

    public init(path: String, operation: String, errno: Int32) {
        self.path = path
        self.operation = operation
        self.errno = errno
    }

    /// The C library's own words (`strerror`): "No such file or directory", "Permission denied".
    public var reason: String { strerror(errno).map { String(cString: $0) } ?? "error \(errno)" }

    public var description: String { "\(operation) \(path): \(reason)" }
}

/// Whole-file reads and link lookups straight over POSIX, so that a failure carries the real
/// reason ("Permission denied", not just "could not read").
enum PosixFile {
    /// The whole file, or at most `limit` bytes of it.
    static func read(_ path: String, limit: Int = 1 << 20) throws(FileError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileError(path: path, operation: "open", errno: errno) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: min(limit, 64 * 1024))
        while bytes.count < limit {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                throw FileError(path: path, operation: "read", errno: code)
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return bytes.count > limit ? Array(bytes.prefix(limit)) : bytes
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
