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

import BreezeCore
import BreezeDaemon
import CProcess
import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Runs `breeze-agent-render` (docs/images.md): one JSON ``RenderRequest`` on its stdin, the
/// image bytes from its stdout. Cairo and libjpeg live in that helper, never in the agent.
///
/// A run blocks on pipes, so it happens on the runner's own serial queue (one render at a
/// time), never on the cooperative pool. Its output is bounded (``maximumOutput``) and its
/// stderr is kept for the log. Its time is not the runner's: the run reports when the helper
/// started and when it was sent SIGTERM (``RunControl``), and the daemon's state decides when
/// it is stopped and killed (``ImagePipeline/renderTimeout``, ``ImagePipeline/terminationGrace``),
/// on the loop's one wake.
final class RenderRunner: Sendable {
    /// Where the packages install the helper (`/usr/libexec/breeze-agent/breeze-agent-render`).
    static let installedPath = "/usr/libexec/breeze-agent/breeze-agent-render"
    static let helperName = "breeze-agent-render"
    /// The most stdout read: one byte over the largest image published (docs/images.md), to know it
    /// was over.
    static let maximumOutput = ImageBounds.maximumBytes + 1
    /// The most of the helper's stderr kept for the log.
    static let maximumErrorOutput = 4096

    let helper: String
    private let queue = DispatchQueue(label: "breeze.render")

    init(helper: String) {
        self.helper = helper
    }

    /// The variable through which the add-on hands the agent it starts the helper it opened
    /// while root: a descriptor number, reached as `/proc/self/fd/<n>` (no search permission on
    /// the folders above the helper is needed then).
    static let inheritedHelperVariable = "BREEZE_RENDER_FD"

    /// The helper next to the agent's own executable (a build tree, a tarball), else the one
    /// the add-on handed over (``inheritedHelperVariable``), else the installed one; nil when
    /// none is an executable file.
    static func locate(
        ownExecutable: String? = RenderRunner.ownExecutable(),
        inherited: String? = getenv(RenderRunner.inheritedHelperVariable).map { String(cString: $0) }
    ) -> String? {
        var candidates: [String] = []
        if let own = ownExecutable, let slash = own.lastIndex(of: "/") {
            candidates.append(String(own[..<slash]) + "/" + helperName)
        }
        if let inherited, let descriptor = Int32(inherited), descriptor > 2 {
            candidates.append("/proc/self/fd/\(descriptor)")
        }
        candidates.append(installedPath)
        return candidates.first { access($0, X_OK) == 0 }
    }

    /// The descriptor of a helper path `/proc/self/fd/<n>` (``inheritedHelperVariable``).
    static func inheritedDescriptor(_ helper: String) -> Int32? {
        let prefix = "/proc/self/fd/"
        guard helper.hasPrefix(prefix), let descriptor = Int32(helper.dropFirst(prefix.count)), descriptor > 2
        else { return nil }
        return descriptor
    }

    /// The variables the helper may see, and only when the agent has them: what the C library,
    /// fontconfig and the sanitizer runtimes read, and qemu-user's own two (the sysroot and the
    /// CPU an emulated agent runs with: without them the emulated helper finds no loader, as
    /// `make test-arm64` showed). Nothing of the agent's own (the Supervisor's token, `BREEZE_*`,
    /// credentials) reaches the helper: Cairo and libjpeg parse what the agent hands them, and
    /// a flaw there must not find a secret (issue 39).
    static let helperVariables: [String] = [
        "PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "FONTCONFIG_FILE", "FONTCONFIG_PATH", "ASAN_OPTIONS",
        "LSAN_OPTIONS", "TSAN_OPTIONS", "UBSAN_OPTIONS", "QEMU_LD_PREFIX", "QEMU_CPU",
    ]

    /// `NAME=value` for each of ``helperVariables`` set in `environment`, `PATH` always
    /// (a default when the agent has none).
    static func helperEnvironment(_ environment: [String: String]) -> [String] {
        var result: [String] = []
        for name in helperVariables {
            if let value = environment[name] {
                result.append("\(name)=\(value)")
            } else if name == "PATH" {
                result.append("PATH=/usr/local/bin:/usr/bin:/bin")
            }
        }
        return result
    }

    /// `/proc/self/exe`, resolved.
    static func ownExecutable() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Renders `request` (off the calling task's thread), stopped through `control`: the state's
    /// timeout and grace arrive there (``RunControl/stop(_:)``, ``RunControl/endGrace()``).
    /// Cancelling the calling task kills the helper at once (a shutdown does not wait for a
    /// slow render).
    func render(_ request: RenderRequest, control: RunControl) async -> RenderOutcome {
        let input: [UInt8]
        do {
            input = Array(try JSONEncoderShim.encode(request).utf8)
        } catch {
            return .failed("cannot encode the request: \(error)")
        }
        let helper = helper
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<RenderOutcome, Never>) in
                queue.async {
                    continuation.resume(returning: Self.run(helper: helper, input: input, control: control))
                }
            }
        } onCancel: {
            control.stop(.cancelled)
        }
    }

    /// What ends a run early, from outside it (any thread): the state's stop and kill, and the
    /// task's cancellation. The run waits in `poll` on its pipes and on ``wakeFD``, which a stop
    /// makes readable; it reports its phases (``RenderPhase``) through `onPhase`.
    final class RunControl: Sendable {
        enum Reason: Sendable, Equatable {
            case cancelled
            case timedOut(after: Duration)
        }

        private struct State {
            var reason: Reason?
            var graceOver = false
        }

        private let state = Mutex(State())
        private let onPhase: @Sendable (RenderPhase) -> Void
        /// The pipe a stop writes a byte to (read end first).
        private let wake: (read: Int32, write: Int32)

        init?(onPhase: @escaping @Sendable (RenderPhase) -> Void = { _ in }) {
            var fds: [Int32] = [-1, -1]
            guard RenderRunner.makePipe(&fds) == 0 else { return nil }
            for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
            wake = (fds[0], fds[1])
            self.onPhase = onPhase
        }

        deinit { RenderRunner.closeAll([wake.read, wake.write]) }

        /// Readable once the run was stopped.
        var wakeFD: Int32 { wake.read }

        /// Why the run was stopped; nil while it may go on.
        var reason: Reason? { state.withLock { $0.reason } }

        /// Stops the run (the first reason stays). A cancellation has no grace, also when it
        /// comes during one: the helper is killed right after its SIGTERM (a shutdown waits for
        /// no one to end a grace).
        func stop(_ reason: Reason) {
            let changed = state.withLock { state in
                let ending = reason == .cancelled && !state.graceOver
                if ending { state.graceOver = true }
                guard state.reason == nil else { return ending }
                state.reason = reason
                return true
            }
            guard changed else { return }
            var byte: UInt8 = 1
            _ = write(wake.write, &byte, 1)
        }

        /// The grace after the SIGTERM is over: a helper still there gets SIGKILL. The byte on
        /// the wake pipe ends ``waitForExit(_:)``.
        func endGrace() {
            state.withLock { $0.graceOver = true }
            var byte: UInt8 = 1
            _ = write(wake.write, &byte, 1)
        }

        /// Empties the wake pipe (a stop's byte, read before the grace starts).
        func drainWake() {
            var buffer = [UInt8](repeating: 0, count: 16)
            while buffer.withUnsafeMutableBytes({ read(wake.read, $0.baseAddress!, $0.count) }) > 0 {}
        }

        /// Blocks until the helper has exited (`exitFD`, its pidfd, is readable) or something
        /// wrote the wake pipe (the grace's end, a late stop). Without a pidfd (`exitFD` -1: a
        /// kernel before 5.3) the wait is bounded at 10 ms, as the old polling was.
        func waitForExit(_ exitFD: Int32) {
            var fds = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            if exitFD >= 0 { fds.append(pollfd(fd: exitFD, events: Int16(POLLIN), revents: 0)) }
            _ = poll(&fds, nfds_t(fds.count), exitFD >= 0 ? -1 : 10)
            if fds[0].revents != 0 { drainWake() }
        }

        var isGraceOver: Bool { state.withLock { $0.graceOver } }

        /// The run got to `phase`: the state's timeout (`running`) or grace (`terminating`)
        /// counts from the event this sends.
        func enter(_ phase: RenderPhase) { onPhase(phase) }
    }

    /// One blocking run: spawn, feed stdin, read stdout and stderr (bounded) until both close or
    /// `control` stops it (the state's timeout, a cancellation), reap. A helper that ignores
    /// SIGTERM is waited for until `control`'s grace ends (the state's kill).
    /// SIGPIPE ignored in the whole process, once, before the first helper is spawned: a helper
    /// that exits (or closes its stdin) before it has read the request makes the next write to
    /// its stdin fail, and with the default disposition that write killed the agent instead of
    /// returning EPIPE. Nothing else the agent writes relies on SIGPIPE (libcurl, libmosquitto
    /// and libmicrohttpd send with MSG_NOSIGNAL; systemd starts services with it ignored too).
    private static let pipeSignalIgnored: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    static func run(helper: String, input: [UInt8], control: RunControl) -> RenderOutcome {
        Self.pipeSignalIgnored
        guard control.reason == nil else { return .failed("cancelled") }
        var stdinPipe: [Int32] = [-1, -1]
        var stdoutPipe: [Int32] = [-1, -1]
        var stderrPipe: [Int32] = [-1, -1]
        guard makePipe(&stdinPipe) == 0 else { return .failed("pipe: \(errnoText())") }
        guard makePipe(&stdoutPipe) == 0 else {
            closeAll(stdinPipe)
            return .failed("pipe: \(errnoText())")
        }
        guard makePipe(&stderrPipe) == 0 else {
            closeAll(stdinPipe + stdoutPipe)
            return .failed("pipe: \(errnoText())")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdinPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, stdoutPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, stderrPipe[1], 2)
        // Nothing else of the agent's reaches the helper: libmosquitto's and libcurl's sockets
        // are not close-on-exec, so without this the helper held the broker connection and any
        // API connection open for as long as it ran (and a listening socket after a restart).
        // A helper the add-on handed over (`/proc/self/fd/<n>`) is reached through that
        // descriptor, so it alone stays open.
        if let closeFrom = Self.addCloseFrom {
            if let kept = Self.inheritedDescriptor(helper) {
                for descriptor in 3..<kept { posix_spawn_file_actions_addclose(&actions, descriptor) }
                _ = closeFrom(&actions, kept + 1)
            } else {
                _ = closeFrom(&actions, 3)
            }
        }
        // The helper starts clean (docs/operations.md, Limits): the spawning thread (a Dispatch worker) blocks
        // every signal and the agent ignores SIGPIPE (``pipeSignalIgnored``) and the signals it
        // watches (SIGTERM, SIGINT, SIGHUP); a mask and ignored dispositions survive exec, and a helper with
        // SIGTERM blocked stops only for SIGKILL. So: no signal blocked, every disposition the
        // default, and a process group of its own, so that a SIGTERM reaches what it started too.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigfillset(&defaults)
        sigdelset(&defaults, SIGKILL)
        sigdelset(&defaults, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP))

        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup(helper), nil]
        defer { for pointer in argv { free(pointer) } }
        // An explicit environment, never the agent's own (a token, a password given as
        // BREEZE_MQTT_PASSWORD): see ``helperEnvironment(_:)``.
        let envp: [UnsafeMutablePointer<CChar>?] =
            Self.helperEnvironment(Environment.current).map { strdup($0) } + [nil]
        defer { for pointer in envp { free(pointer) } }
        var spawned = posix_spawn(&pid, helper, &actions, &attributes, argv, envp)
        // ETXTBSY: another thread's fork holds the file open for writing for a moment (a helper
        // just installed or written); try a few times.
        var attempts = 0
        while spawned == ETXTBSY && attempts < 10 {
            attempts += 1
            usleep(20_000)
            spawned = posix_spawn(&pid, helper, &actions, &attributes, argv, envp)
        }
        close(stdinPipe[0])
        close(stdoutPipe[1])
        close(stderrPipe[1])
        guard spawned == 0 else {
            closeAll([stdinPipe[1], stdoutPipe[0], stderrPipe[0]])
            return .failed("cannot start \(helper): \(String(cString: strerror(spawned)))")
        }
        for fd in [stdinPipe[1], stdoutPipe[0], stderrPipe[0]] {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        control.enter(.running)

        var writeFD: Int32 = stdinPipe[1]
        var outFD: Int32 = stdoutPipe[0]
        var errFD: Int32 = stderrPipe[0]
        var written = 0
        var output: [UInt8] = []
        var errors: [UInt8] = []
        var tooLarge = false
        var stopped: RunControl.Reason?
        var chunk = [UInt8](repeating: 0, count: 65_536)
        if input.isEmpty {
            close(writeFD)
            writeFD = -1
        }

        while outFD >= 0 || errFD >= 0 {
            if let reason = control.reason {
                stopped = reason
                break
            }
            // No time limit here: a stop (the state's timeout, a cancellation) wakes the poll.
            var fds = [pollfd(fd: control.wakeFD, events: Int16(POLLIN), revents: 0)]
            if writeFD >= 0 { fds.append(pollfd(fd: writeFD, events: Int16(POLLOUT), revents: 0)) }
            if outFD >= 0 { fds.append(pollfd(fd: outFD, events: Int16(POLLIN), revents: 0)) }
            if errFD >= 0 { fds.append(pollfd(fd: errFD, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), -1)
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            for entry in fds.dropFirst() where entry.revents != 0 {
                if entry.fd == writeFD {
                    let n = input.withUnsafeBytes { write(writeFD, $0.baseAddress! + written, $0.count - written) }
                    if n > 0 { written += n }
                    if n < 0 && errno == EAGAIN { continue }
                    if n <= 0 || written == input.count {
                        // All sent, or the helper closed its stdin (EPIPE): no more to write.
                        close(writeFD)
                        writeFD = -1
                    }
                } else if entry.fd == outFD {
                    let n = chunk.withUnsafeMutableBytes { read(outFD, $0.baseAddress!, $0.count) }
                    if n > 0 {
                        output.append(contentsOf: chunk[..<min(n, maximumOutput - output.count)])
                        if output.count >= maximumOutput {
                            tooLarge = true
                            close(outFD)
                            outFD = -1
                        }
                    } else if n == 0 || errno != EAGAIN {
                        close(outFD)
                        outFD = -1
                    }
                } else if entry.fd == errFD {
                    let n = chunk.withUnsafeMutableBytes { read(errFD, $0.baseAddress!, $0.count) }
                    if n > 0 {
                        errors.append(contentsOf: chunk[..<min(n, max(0, maximumErrorOutput - errors.count))])
                    } else if n == 0 || errno != EAGAIN {
                        close(errFD)
                        errFD = -1
                    }
                }
            }
            if tooLarge { break }
        }
        // Ended while its pipes are still open: a shell killed mid-write or reporting its
        // child's signal on stderr would otherwise die of SIGPIPE before its SIGTERM handler ran.
        var waitStatus: Int32
        if stopped != nil || tooLarge {
            waitStatus = terminate(pid, control: control)
            closeAll([writeFD, outFD, errFD].filter { $0 >= 0 })
        } else {
            closeAll([writeFD, outFD, errFD].filter { $0 >= 0 })
            // Its pipes closed, the helper may still not exit: a stop reaches it here too.
            (waitStatus, stopped) = awaitExit(pid, control: control)
        }

        let stderrText = firstLine(errors)
        switch stopped {
        case .cancelled: return .failed("cancelled")
        case .timedOut(let timeout): return .failed("\(helperName) timed out after \(timeout) and was killed")
        case nil: break
        }
        if tooLarge {
            return .failed("\(helperName) wrote more than \(ImageBounds.maximumBytes) bytes; image not published")
        }
        let signal = waitStatus & 0x7f
        if signal != 0 { return .failed("\(helperName) was killed by signal \(signal)\(stderrText)") }
        let code = (waitStatus >> 8) & 0xff
        guard code == 0 else {
            let meaning = code == 65 ? "refused the request" : "failed"
            return .failed("\(helperName) \(meaning) (exit \(code))\(stderrText)")
        }
        guard !output.isEmpty else { return .failed("\(helperName) wrote no image\(stderrText)") }
        return .image(output)
    }

    /// Ends the helper's process group: SIGTERM, then SIGKILL if the helper is still there when
    /// the grace is over (the state's kill after ``ImagePipeline/terminationGrace``, or at once
    /// for a cancellation). Returns the helper's wait status.
    private static func terminate(_ pid: pid_t, control: RunControl) -> Int32 {
        signalGroup(pid, SIGTERM)
        // Opened while the helper is still unreaped (the pid is its own): readable at its exit.
        // The wait blocks on it and on the wake pipe, which the grace's end writes; the stop's
        // byte is read first, before the grace can start.
        let exitFD = cproc_pidfd_open(pid)
        defer { if exitFD >= 0 { close(exitFD) } }
        control.drainWake()
        control.enter(.terminating)
        var status: Int32 = 0
        while !control.isGraceOver {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid {
                // The group may hold children that kept running; they go too.
                kill(-pid, SIGKILL)
                return status
            }
            if reaped < 0 && errno != EINTR { return status }
            control.waitForExit(exitFD)
        }
        signalGroup(pid, SIGKILL)
        return reap(pid)
    }

    /// Reaps a helper that closed its pipes, waiting on its pidfd and the wake pipe; a stop that
    /// comes meanwhile (the state's timeout, a cancellation) ends it as it would have mid-run.
    /// The wait status, and the stop's reason if one came.
    private static func awaitExit(_ pid: pid_t, control: RunControl) -> (Int32, RunControl.Reason?) {
        let exitFD = cproc_pidfd_open(pid)
        defer { if exitFD >= 0 { close(exitFD) } }
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || (reaped < 0 && errno != EINTR) { return (status, nil) }
            if let reason = control.reason { return (terminate(pid, control: control), reason) }
            control.waitForExit(exitFD)
        }
    }

    /// Signals the helper's process group, or the helper alone when it has no group yet: a
    /// child that never got as far as its `setpgid` (seen under qemu-user, whose emulated
    /// `posix_spawn` is a plain fork that can hang before the exec) is not a group, and with
    /// only `kill(-pid)` the SIGKILL missed it and the reap after it waited forever.
    static func signalGroup(_ pid: pid_t, _ signal: Int32) {
        if kill(-pid, signal) != 0 && errno == ESRCH { kill(pid, signal) }
    }

    /// Waits for the helper's exit; its wait status.
    private static func reap(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status
    }

    /// `: <the helper's first stderr line>`, or nothing.
    private static func firstLine(_ bytes: [UInt8]) -> String {
        let line = String(decoding: bytes.prefix { $0 != 0x0a }, as: UTF8.self)
        return line.isEmpty ? "" : ": " + doubleQuoted(line, maxScalars: 200)
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later: every release the
    /// packages support), looked up at run time because Swift's Glibc module does not declare
    /// the `_np` functions; nil only on an older glibc, where the helper then inherits more.
    private static let addCloseFrom: CloseFrom? = {
        guard let handle = dlopen(nil, RTLD_NOW),
            let address = dlsym(handle, "posix_spawn_file_actions_addclosefrom_np")
        else { return nil }
        return unsafeBitCast(address, to: CloseFrom.self)
    }()
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// A pipe whose ends close on exec (Glibc's `pipe2` needs `_GNU_SOURCE`, which Swift does
    /// not set): only the helper's dup2'd copies reach it.
    static func makePipe(_ fds: inout [Int32]) -> Int32 {
        guard pipe(&fds) == 0 else { return -1 }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return 0
    }

    static func closeAll(_ fds: [Int32]) {
        for fd in fds where fd >= 0 { close(fd) }
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }
}
