#if canImport(Glibc)
    import Glibc
#endif

/// File I/O for `state_dir`: whole-file reads and crash-safe replacement.
///
/// A state file is written to a temporary file in the same directory, fsync'd, renamed over
/// the old one and the directory fsync'd, so after a power cut a reader sees either the old
/// or the new content, never a torn mix.
public enum AtomicFile {
    /// An error naming the path and the system's own message (`strerror`).
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var path: String
        public var operation: String
        public var errno: Int32
        public var description: String { "\(operation) \(path): \(String(cString: strerror(errno)))" }
    }

    /// The file's bytes, or nil when it does not exist.
    public static func read(_ path: String) throws(Failure) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            let e = errno
            if e == ENOENT { return nil }
            throw Failure(path: path, operation: "open", errno: e)
        }
        defer { close(fd) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                let e = errno
                if e == EINTR { continue }
                throw Failure(path: path, operation: "read", errno: e)
            }
            if n == 0 { return out }
            out.append(contentsOf: buffer[0..<n])
        }
    }

    /// Replaces `path` with `bytes` atomically (temp file, fsync, rename, fsync of the directory).
    public static func write(_ bytes: [UInt8], to path: String, mode: UInt32 = 0o600) throws(Failure) {
        let temp = path + ".tmp.\(getpid())"
        let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw Failure(path: temp, operation: "create", errno: errno) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0 {
                let e = errno
                if e == EINTR { continue }
                close(fd)
                unlink(temp)
                throw Failure(path: temp, operation: "write", errno: e)
            }
            written += n
        }
        if fsync(fd) != 0 {
            let e = errno
            close(fd)
            unlink(temp)
            throw Failure(path: temp, operation: "fsync", errno: e)
        }
        close(fd)
        if rename(temp, path) != 0 {
            let e = errno
            unlink(temp)
            throw Failure(path: path, operation: "rename", errno: e)
        }
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let dfd = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 {
            fsync(dfd)
            close(dfd)
        }
    }

    /// Creates `path` and its parents (like `mkdir -p`).
    public static func makeDirectory(_ path: String, mode: UInt32 = 0o750) throws(Failure) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, mode) != 0 {
                let e = errno
                if e != EEXIST { throw Failure(path: current, operation: "mkdir", errno: e) }
            }
        }
    }

    /// Moves a corrupt file aside (`<name>.corrupt`) so it is kept for a human but no longer read.
    public static func setAside(_ path: String) {
        rename(path, path + ".corrupt")
    }
}

/// `unlink(2)`, named so that it does not shadow anything at call sites.
@discardableResult
func unlinkFile(_ path: String) -> Bool { unlink(path) == 0 }
