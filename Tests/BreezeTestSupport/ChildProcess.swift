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

public import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A child process started by the tests (agents, brokers, `openssl`, `gzip`, …), reaped with
/// `waitpid` on its own pid.
///
/// Not Foundation's `Process`. On Linux it learns that a child exited when its end of a
/// per-child socketpair reaches EOF, and it keeps the parent's other descriptors out of the
/// child by listing `/proc/self/fd` and closing what it saw, *before* spawning. A descriptor
/// another test's thread opens in between — the socket end through which Foundation watches a
/// *different* child, the write end of another child's output pipe, an accepted connection —
/// is inherited. When the inheritor is long-lived (a broker, a daemon agent), the other child's
/// exit goes unseen (`isRunning` stays true, `readDataToEndOfFile` does not return) until the
/// inheritor ends. Parallel runs on two loaded cores hit this; a serial run never does.
///
/// Here the child gets exactly stdin, stdout and stderr: `posix_spawn` opens them in the child
/// and closes every descriptor from 3 up at exec time (`posix_spawn_file_actions_addclosefrom_np`),
/// whatever other threads open meanwhile. The signal mask and dispositions are reset, so the
/// child starts as from a shell (Dispatch threads block SIGTERM, which Foundation let children
/// inherit). Like Foundation, the child gets its own process group.
public final class ChildProcess: Sendable {
    /// Where the child's stdout or stderr goes.
    public enum Output: Sendable {
        case null
        /// Appended to this file, which is created when missing.
        case file(String)
        /// stderr only: the same file as stdout.
        case standardOutput
        /// A pipe a thread of the test process reads: `receive` gets each chunk as it is written,
        /// then one empty chunk at end of file. The pipe is close-on-exec in this process, so no
        /// other child inherits it and the end of file comes when this child's output ends.
        case pipe(@Sendable ([UInt8]) -> Void)
    }

    /// A spawn step failed; `errno` is the POSIX error.
    public struct SpawnError: Error, CustomStringConvertible, Sendable {
        public let operation: String
        public let executable: String
        public let errno: Int32
        public var description: String {
            "\(operation) for \(executable): \(String(cString: strerror(errno))) (errno \(errno))"
        }
    }

    private enum Reaped: Equatable {
        case status(Int32)
        /// `waitpid` said ECHILD: something else reaped the child (a second reaper in the test
        /// process, which must not exist).
        case lost
    }

    public let processIdentifier: pid_t
    public let executable: String
    private let reaped = Mutex<Reaped?>(nil)
    /// Left when the child has exited (a thread of its own waits for that, ``watchExit(_:_:)``).
    private let exited = DispatchGroup()

    /// Starts `executable` (a path) with `arguments`; `environment` replaces the test process's
    /// environment when given. stdin is /dev/null.
    public init(
        _ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil,
        directory: String? = nil, standardOutput: Output = .null, standardError: Output = .null
    ) throws(SpawnError) {
        self.executable = executable
        func check(_ operation: String, _ result: Int32) throws(SpawnError) {
            if result != 0 { throw SpawnError(operation: operation, executable: executable, errno: result) }
        }

        var actions = posix_spawn_file_actions_t()
        try check("posix_spawn_file_actions_init", posix_spawn_file_actions_init(&actions))
        defer { posix_spawn_file_actions_destroy(&actions) }
        try check("open /dev/null as stdin", posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0))
        let writeFlags = O_WRONLY | O_CREAT | O_APPEND
        var pipes: [(read: Int32, write: Int32, receive: @Sendable ([UInt8]) -> Void)] = []
        var spawned = false
        // The write ends are the child's alone; the read ends are this process's once spawned.
        defer {
            for pipe in pipes {
                close(pipe.write)
                if !spawned { close(pipe.read) }
            }
        }
        for (fd, output) in [(Int32(1), standardOutput), (Int32(2), standardError)] {
            switch output {
            case .pipe(let receive):
                guard let makePipe = glibcFunction("pipe2", as: MakePipe.self) else {
                    throw SpawnError(operation: "pipe2", executable: executable, errno: ENOSYS)
                }
                var ends: [Int32] = [-1, -1]
                if makePipe(&ends, O_CLOEXEC) != 0 {
                    throw SpawnError(operation: "pipe2", executable: executable, errno: errno)
                }
                pipes.append((ends[0], ends[1], receive))
                try check("dup2 pipe", posix_spawn_file_actions_adddup2(&actions, ends[1], fd))
            case .null:
                try check("open /dev/null", posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_WRONLY, 0))
            case .file(let path):
                try check("open \(path)", posix_spawn_file_actions_addopen(&actions, fd, path, writeFlags, 0o644))
            case .standardOutput:
                try check("dup2 stdout", posix_spawn_file_actions_adddup2(&actions, 1, fd))
            }
        }
        guard let closeFrom = glibcFunction("posix_spawn_file_actions_addclosefrom_np", as: CloseFrom.self) else {
            throw SpawnError(
                operation: "posix_spawn_file_actions_addclosefrom_np", executable: executable, errno: ENOSYS)
        }
        try check("closefrom 3", closeFrom(&actions, 3))
        if let directory {
            guard let changeDirectory = glibcFunction("posix_spawn_file_actions_addchdir_np", as: ChangeDirectory.self)
            else {
                throw SpawnError(
                    operation: "posix_spawn_file_actions_addchdir_np", executable: executable, errno: ENOSYS)
            }
            try check("chdir \(directory)", changeDirectory(&actions, directory))
        }

        var attributes = posix_spawnattr_t()
        try check("posix_spawnattr_init", posix_spawnattr_init(&attributes))
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        try check("setsigmask", posix_spawnattr_setsigmask(&attributes, &noSignals))
        try check("setsigdefault", posix_spawnattr_setsigdefault(&attributes, &allSignals))
        try check("setpgroup", posix_spawnattr_setpgroup(&attributes, 0))
        let flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP
        try check("setflags", posix_spawnattr_setflags(&attributes, Int16(flags)))

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let variables = environment ?? ProcessInfo.processInfo.environment
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in envp { free(pointer) } }

        var pid = pid_t()
        // glibc reports a failed exec (missing file, not executable) as posix_spawn's result.
        try check("posix_spawn", posix_spawn(&pid, executable, &actions, &attributes, argv, envp))
        spawned = true
        processIdentifier = pid
        Self.watchExit(pid, exited)
        for pipe in pipes { Self.read(pipe.read, into: pipe.receive) }
    }

    /// Reads `fd` to its end on a thread of its own, handing each chunk to `receive`, then an
    /// empty one; closes `fd`.
    private static func read(_ fd: Int32, into receive: @escaping @Sendable ([UInt8]) -> Void) {
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                receive(Array(buffer[0..<count]))
            }
            close(fd)
            receive([])
        }
    }

    /// The exit as an event: a thread blocks in `waitid(WNOWAIT)` until the child has exited
    /// (without reaping it: ``poll()`` stays the one reaper), then leaves `exited` and reports
    /// to ``TestEvents``. Waiters wake at the exit instead of at the next tick of a clock.
    private static func watchExit(_ pid: pid_t, _ exited: DispatchGroup) {
        exited.enter()
        Thread.detachNewThread {
            var info = siginfo_t()
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
            exited.leave()
            TestEvents.shared.report()
        }
    }

    /// Kills (SIGKILL) and reaps the child if it is still running: no zombie outlives a test.
    deinit { kill() }

    /// Reaps the child if it has exited (never blocks).
    private func poll() -> Reaped? {
        reaped.withLock { reaped in
            if let reaped { return reaped }
            var status: Int32 = 0
            let result = waitpid(processIdentifier, &status, WNOHANG)
            if result == processIdentifier {
                reaped = .status(status)
            } else if result < 0 && errno == ECHILD {
                reaped = .lost
            }
            return reaped
        }
    }

    public var isRunning: Bool { poll() == nil }

    /// The exit code, or the signal number when a signal ended it (Foundation's convention);
    /// nil while running. -1 when another reaper took the status (a bug in the tests).
    public var terminationStatus: Int32? {
        switch poll() {
        case nil: nil
        case .lost: -1
        case .status(let status):
            // WIFSIGNALED / WTERMSIG / WEXITSTATUS, which Glibc does not export as functions.
            status & 0x7f != 0 ? status & 0x7f : (status >> 8) & 0xff
        }
    }

    /// Whether a signal ended it (nil while running).
    public var wasSignaled: Bool? {
        switch poll() {
        case nil: nil
        case .lost: false
        case .status(let status): status & 0x7f != 0
        }
    }

    /// Sends `number` unless the child has been reaped (its pid could belong to another process).
    public func signal(_ number: Int32) {
        reaped.withLock { reaped in
            if reaped == nil { _ = Glibc.kill(processIdentifier, number) }
        }
    }

    /// Waits for the child's exit (the event, without blocking a thread); its
    /// ``terminationStatus``, or nil after `timeout`.
    public func waitForExit(timeout: Duration) async -> Int32? {
        _ = await TestEvents.shared.until(bound: timeout) { terminationStatus != nil }
        return terminationStatus
    }

    /// Waits for the child's exit, blocking this thread; for synchronous callers only
    /// (``TestProcess/runBlocking(_:_:in:timeout:)``, `deinit`s), whose children end promptly.
    public func waitForExitBlocking(timeout: Duration) -> Int32? {
        _ = exited.wait(timeout: .now() + timeout.dispatchInterval)
        return terminationStatus
    }

    /// SIGKILL and wait (up to 10 s, blocking: SIGKILL ends a process within milliseconds).
    /// False when it was still there afterwards.
    @discardableResult
    public func kill() -> Bool {
        guard isRunning else { return true }
        signal(SIGKILL)
        return waitForExitBlocking(timeout: .seconds(10)) != nil
    }
}

// glibc declares these two (2.34, 2.29) only under _GNU_SOURCE, which Swift's importer does not
// define, so they are looked up by name.
private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
private typealias MakePipe = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
private typealias ChangeDirectory =
    @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

private func glibcFunction<Function>(_ name: String, as type: Function.Type) -> Function? {
    guard let handle = dlopen(nil, RTLD_NOW), let address = dlsym(handle, name) else { return nil }
    return unsafeBitCast(address, to: type)
}
