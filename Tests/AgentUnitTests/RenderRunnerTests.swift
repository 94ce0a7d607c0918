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
import BreezeCore
import BreezeTestSupport
import Foundation
import Synchronization
import Testing

/// The spawning of the render helper (pipes, bounds, stops, exit codes), with small shell
/// scripts as the executable: what is tested here is the runner, not the drawing (the end-to-end
/// suite runs the real `breeze-agent-render`).
@Suite("Render runner: spawn, pipes, bounds", .serialized)
struct RenderRunnerTests {
    static func script(_ body: String) throws -> String { try executable("#!/bin/sh\n" + body + "\n") }

    /// An executable file holding `text` (a `#!` line first).
    static func executable(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "render-script-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sh"
        ).path
        // Written through a close-on-exec descriptor: a helper spawned meanwhile by another test
        // must not inherit it, or exec of this script fails with ETXTBSY while that one runs.
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
        try #require(fd >= 0)
        let bytes = Array(text.utf8)
        #expect(bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == bytes.count)
        close(fd)
        return path
    }

    static let request = RenderRequest(
        kind: .pollen, width: 296, height: 128, palette: .bw, format: .png,
        content: ImageContent(locationName: "Home"))

    @Test func theRequestGoesToStdinAndStdoutComesBack() async throws {
        let path = try Self.script("cat")
        defer { unlink(path) }
        let outcome = await RenderRunner(helper: path).render(Self.request)
        guard case .image(let bytes) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(try JSONDecoder().decode(RenderRequest.self, from: Data(bytes)) == Self.request)
    }

    @Test func exit65CarriesTheHelpersStderrLine() async throws {
        let path = try Self.script("cat >/dev/null; echo 'width 10 is outside 64-1600' >&2; echo second >&2; exit 65")
        defer { unlink(path) }
        let outcome = await RenderRunner(helper: path).render(Self.request)
        #expect(
            outcome
                == .failed("breeze-agent-render refused the request (exit 65): \"width 10 is outside 64-1600\""))
    }

    @Test func otherExitCodesAndEmptyOutputAreFailures() async throws {
        let failing = try Self.script("cat >/dev/null; echo 'cairo: out of memory' >&2; exit 70")
        defer { unlink(failing) }
        #expect(
            await RenderRunner(helper: failing).render(Self.request)
                == .failed("breeze-agent-render failed (exit 70): \"cairo: out of memory\""))
        let silent = try Self.script("cat >/dev/null")
        defer { unlink(silent) }
        #expect(
            await RenderRunner(helper: silent).render(Self.request) == .failed("breeze-agent-render wrote no image"))
    }

    @Test func outputOverTheBoundIsNotPublished() async throws {
        let path = try Self.script("cat >/dev/null; head -c 400000 /dev/zero")
        defer { unlink(path) }
        let outcome = await RenderRunner(helper: path).render(Self.request)
        #expect(outcome == .failed("breeze-agent-render wrote more than 262144 bytes; image not published"))
        // Exactly the bound is fine.
        let exact = try Self.script("cat >/dev/null; head -c 262144 /dev/zero")
        defer { unlink(exact) }
        guard case .image(let bytes) = await RenderRunner(helper: exact).render(Self.request) else {
            Issue.record("expected an image")
            return
        }
        #expect(bytes.count == 262_144)
    }

    /// Whether a helper script wrote `path` (it marks a step no test event marks, such as its
    /// signal trap being set): looked for every 10 ms, 20 s at most.
    static func fileAppears(_ path: String) async -> Bool {
        let looking = ContinuousClock.now
        while access(path, F_OK) != 0 && ContinuousClock.now - looking < .seconds(20) {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return access(path, F_OK) == 0
    }

    /// A run's control whose phases come as a stream: "the helper runs", "its SIGTERM went" as
    /// events for the test.
    static func observedControl() throws -> (RenderRunner.RunControl, AsyncStream<RenderPhase>) {
        let (phases, continuation) = AsyncStream<RenderPhase>.makeStream()
        let control = RenderRunner.RunControl(onPhase: { @Sendable phase in continuation.yield(phase) })
        return (try #require(control), phases)
    }

    /// One render of `path` stopped the way the state stops it, on real time: SIGTERM 1 s after
    /// the helper started, SIGKILL when the grace after it is over; timed off the cooperative pool.
    static func renderWithOneSecondTimeout(_ path: String) async -> (RenderOutcome?, Duration) {
        guard let (control, phases) = try? observedControl() else { return (nil, .zero) }
        let runner = RenderRunner(helper: path)
        var outcome: RenderOutcome?
        let took = await durationOffThePool {
            let render = Task { await runner.render(Self.request, control: control) }
            let state = Task {
                var phase = phases.makeAsyncIterator()
                guard await phase.next() == .running else { return }
                try? await Task.sleep(for: .seconds(1))
                control.stop(.timedOut(after: .seconds(1)))
                guard await phase.next() == .terminating else { return }
                try? await Task.sleep(for: ImagePipeline.terminationGrace.swiftDuration)
                control.endGrace()
            }
            outcome = await render.value
            state.cancel()
        }
        return (outcome, took)
    }

    /// The state's timeout arrives as a stop, its grace's end as `endGrace`: a helper that hangs
    /// ends at the stop's SIGTERM; one that ignores SIGTERM lives on until the grace's end, then
    /// is killed. No timer of the runner's own is involved (ImagePipelineTests has the times).
    @Test(.timeLimit(.minutes(1)), arguments: [false, true])
    func aStopSendsSIGTERMAndTheGracesEndSIGKILL(ignoresTERM: Bool) async throws {
        // The helper says when it ignores SIGTERM: a stop sent before its `trap` ran would end it
        // at once and leave no grace to test.
        let ready = Self.scratchPath("ignores-term")
        let path = try Self.script(
            ignoresTERM
                ? "trap '' TERM; : > '\(ready)'; cat >/dev/null; while :; do sleep 0.1; done" : "exec sleep 3600")
        defer {
            unlink(path)
            unlink(ready)
        }
        let (control, phases) = try Self.observedControl()
        var phase = phases.makeAsyncIterator()
        let done = Mutex(false)
        let runner = RenderRunner(helper: path)
        let render = Task {
            let outcome = await runner.render(Self.request, control: control)
            done.withLock { $0 = true }
            return outcome
        }
        let phase1 = await phase.next()
        #expect(phase1 == .running)
        if ignoresTERM {
            try #require(await Self.fileAppears(ready), "the helper never installed its TERM trap")
        }
        control.stop(.timedOut(after: .seconds(30)))
        let phase2 = await phase.next()
        #expect(phase2 == .terminating)
        if ignoresTERM {
            // The SIGTERM is ignored: the run waits for the grace's end, however long. 300 ms
            // stand for "a while" here; a run that ended would say so in that time.
            try await Task.sleep(for: .milliseconds(300))
            #expect(!done.withLock { $0 }, "the run ended before its grace was over")
            control.endGrace()
        }
        #expect(await render.value == .failed("breeze-agent-render timed out after 30.0 seconds and was killed"))
    }

    /// A helper that closes its stdout and stderr and then hangs is still stopped: the run waits
    /// for its exit on its pidfd and the wake pipe, not in a blocking `waitpid` no stop reaches.
    @Test(.timeLimit(.minutes(1))) func aHelperThatClosedItsPipesAndHangsIsStillStopped() async throws {
        let closed = Self.scratchPath("closed-pipes")
        let path = try Self.script("cat >/dev/null; exec >&- 2>&-; : > '\(closed)'; exec sleep 3600")
        defer {
            unlink(path)
            unlink(closed)
        }
        let (control, phases) = try Self.observedControl()
        var phase = phases.makeAsyncIterator()
        let runner = RenderRunner(helper: path)
        let render = Task { await runner.render(Self.request, control: control) }
        let first = await phase.next()
        #expect(first == .running)
        // No test event marks the runner seeing the pipes' end: the helper's file, then 200 ms.
        try #require(await Self.fileAppears(closed), "the helper never closed its pipes")
        try await Task.sleep(for: .milliseconds(200))
        control.stop(.timedOut(after: .seconds(30)))
        #expect(await render.value == .failed("breeze-agent-render timed out after 30.0 seconds and was killed"))
    }

    /// A cancellation (the shutdown) has no grace, also when it comes during one: even a helper
    /// that ignores SIGTERM is gone at once, with no one left to end a grace.
    @Test(.timeLimit(.minutes(1)), arguments: [false, true])
    func cancellingTheTaskKillsTheHelperAtOnce(duringTheGrace: Bool) async throws {
        let ready = Self.scratchPath("ignores-term")
        let path = try Self.script("trap '' TERM; : > '\(ready)'; cat >/dev/null; while :; do sleep 0.1; done")
        defer {
            unlink(path)
            unlink(ready)
        }
        let (control, phases) = try Self.observedControl()
        let runner = RenderRunner(helper: path)
        let took = await durationOffThePool {
            let task = Task { await runner.render(Self.request, control: control) }
            var phase = phases.makeAsyncIterator()
            let first = await phase.next()
            #expect(first == .running)
            if duringTheGrace {
                #expect(await Self.fileAppears(ready), "the helper never installed its TERM trap")
                control.stop(.timedOut(after: .seconds(30)))
                let second = await phase.next()
                #expect(second == .terminating)
            }
            task.cancel()
            let expected =
                duringTheGrace ? "breeze-agent-render timed out after 30.0 seconds and was killed" : "cancelled"
            #expect(await task.value == .failed(expected))
        }
        #expect(took < .seconds(10))
    }

    // MARK: signals (SPEC §16: a timeout's SIGTERM ends the helper)

    /// A file name for a helper script to write to.
    static func scratchPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent(
            "render-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        ).path
    }

    /// The signal numbers set in a `/proc/<pid>/status` mask line's hex value.
    static func signals(inMask hex: Substring) -> [Int32] {
        guard let mask = UInt64(hex.trimmingCharacters(in: .whitespaces), radix: 16) else { return [-1] }
        return (1...64).filter { mask & (1 << UInt64($0 - 1)) != 0 }.map(Int32.init)
    }

    /// The agent's own descriptors stay out of the helper: libmosquitto's and libcurl's sockets
    /// are not close-on-exec; a socket and a file opened the same way stand for them.
    @Test func theHelperInheritsOnlyItsThreePipes() async throws {
        // Moved to 10 or above (without close-on-exec, as they were opened): the lowest free
        // descriptor may be 3 while another test closes its own, and 3 is ls's below.
        func movedUp(_ fd: Int32) -> Int32 {
            defer { close(fd) }
            return fd < 0 ? fd : fcntl(fd, F_DUPFD, 10)
        }
        let socketFD = movedUp(socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0))
        let fileFD = movedUp(open("/dev/null", O_RDONLY))
        defer {
            if socketFD >= 0 { close(socketFD) }
            if fileFD >= 0 { close(fileFD) }
        }
        try #require(socketFD > 3 && fileFD > 3)
        let path = try Self.script("exec ls -1 /proc/self/fd")
        defer { unlink(path) }
        guard case .image(let bytes) = await RenderRunner(helper: path).render(Self.request) else {
            Issue.record("the listing script failed")
            return
        }
        let open = String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { Int32($0) }
        #expect(!open.contains(socketFD) && !open.contains(fileFD), "inherited by the helper: \(open)")
        // 0-2 are the pipes; ls opens the folder it lists as one more (3).
        #expect(open.filter { $0 > 3 } == [], "descriptors past the three pipes and ls's own: \(open)")
    }

    /// Issue 39 item 1: the helper gets an explicit environment, never the agent's own (the
    /// Supervisor's token, a password from the environment).
    @Test func theHelperSeesOnlyTheListedVariables() async throws {
        let path = try Self.script("cat >/dev/null; exec env")
        defer { unlink(path) }
        guard case .image(let bytes) = await RenderRunner(helper: path).render(Self.request) else {
            Issue.record("the env script failed")
            return
        }
        let names = Set(
            String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { line in
                line.split(separator: "=", maxSplits: 1).first.map(String.init)
            })
        // The shell adds its own (PWD, and with some shells SHLVL and _); nothing else is allowed.
        let allowed = Set(RenderRunner.helperVariables).union(["PWD", "SHLVL", "_", "OLDPWD"])
        #expect(names.isSubset(of: allowed), "the helper saw \(names.subtracting(allowed).sorted())")
        #expect(names.contains("PATH"))
        // This test process has variables of its own (HOME at least) that must not reach it.
        let own = Set(ProcessInfo.processInfo.environment.keys)
        #expect(!own.subtracting(allowed).isEmpty && own.subtracting(allowed).isDisjoint(with: names))
    }

    @Test func theHelperEnvironmentIsTheListAndAPath() {
        let environment = [
            "SUPERVISOR_TOKEN": "t", "BREEZE_MQTT_PASSWORD": "p", "LANG": "C.UTF-8", "HOME": "/root",
            "FONTCONFIG_FILE": "/etc/fonts/fonts.conf",
        ]
        #expect(
            RenderRunner.helperEnvironment(environment) == [
                "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "FONTCONFIG_FILE=/etc/fonts/fonts.conf",
            ])
        #expect(RenderRunner.helperEnvironment(["PATH": "/x"]) == ["PATH=/x"])
        // An agent emulated by qemu-user starts an emulated helper: it needs qemu's sysroot.
        #expect(
            RenderRunner.helperEnvironment(["QEMU_LD_PREFIX": "/sysroot", "QEMU_CPU": "cortex-a72", "HOME": "/"])
                == ["PATH=/usr/local/bin:/usr/bin:/bin", "QEMU_LD_PREFIX=/sysroot", "QEMU_CPU=cortex-a72"])
    }

    @Test func aChildWithoutItsOwnProcessGroupIsStillKilled() throws {
        // Under qemu-user the emulated posix_spawn is a fork that can hang before the child's
        // setpgid: there is no group with the helper's pid, so kill(-pid) fails with ESRCH. The
        // SIGKILL must then reach the pid itself, or the reap after it waits forever. A child
        // spawned here without POSIX_SPAWN_SETPGROUP is in this process's group: the same case.
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sleep"), strdup("60"), nil]
        defer { for pointer in argv { free(pointer) } }
        try #require(posix_spawn(&pid, "/bin/sleep", nil, nil, argv, environ) == 0)
        #expect(kill(-pid, 0) != 0 && errno == ESRCH, "the child is not a process group of its own")
        RenderRunner.signalGroup(pid, SIGKILL)
        // SIGKILL ends it at once: its exit is waited for (a blocking waitpid on a thread of its
        // own). The 10 s bound only keeps a broken fallback from hanging the suite: the child is
        // then killed here, which ends the wait, and the test fails.
        let reaper = Reaper(pid)
        let ended = reaper.waitForExit(bound: .now() + 10)
        if !ended { kill(pid, SIGKILL) }
        let status = reaper.status()
        #expect(ended, "the child outlived signalGroup's SIGKILL")
        #expect(status & 0x7f == SIGKILL, "wait status \(status)")
    }

    @Test func aHelperGoneBeforeItReadTheRequestDoesNotKillTheAgent() throws {
        // A helper that closes its stdin before reading (as one that cannot start does: a
        // missing library, a crash): the request here is larger than a pipe's buffer, so the
        // runner is still writing when the read end goes away. With SIGPIPE at its default
        // disposition that write killed the whole process ("exited with unexpected signal code
        // 13", seen twice in the unit suite); the runner must get EPIPE and report a failure.
        let path = try Self.script("exec 0<&-\nexit 3")
        defer { unlink(path) }
        let control = try #require(RenderRunner.RunControl())
        let input = [UInt8](repeating: UInt8(ascii: " "), count: 1 << 20)
        let outcome = RenderRunner.run(helper: path, input: input, control: control)
        guard case .failed(let reason) = outcome else {
            Issue.record("expected a failure, got \(outcome)")
            return
        }
        #expect(!reason.isEmpty)
    }

    @Test func theHelperStartsWithNoSignalBlockedAndNoneIgnored() async throws {
        // In the agent the spawning thread (a Dispatch worker) has the signals its Dispatch
        // signal sources watch blocked, and those are ignored (SIG_IGN, SignalWatcher): SIGHUP
        // stands for them here. A mask and ignored signals survive exec.
        let previous = signal(SIGHUP, SIG_IGN)
        defer { signal(SIGHUP, previous) }
        // Not a shell: dash clears the signal mask it starts with. env (without -S options
        // about signals) hands its own on to grep.
        let path = try Self.executable("#!/usr/bin/env -S grep -h -E ^Sig(Blk|Ign): /proc/self/status\n")
        defer { unlink(path) }
        let result = Mutex<RenderOutcome?>(nil)
        let done = DispatchSemaphore(value: 0)
        let input = Array(try JSONEncoderShim.encode(Self.request).utf8)
        let control = try #require(RenderRunner.RunControl())
        let spawner = Thread {
            var blocked = sigset_t()
            sigemptyset(&blocked)
            sigaddset(&blocked, SIGHUP)
            sigaddset(&blocked, SIGTERM)
            pthread_sigmask(SIG_BLOCK, &blocked, nil)
            let outcome = RenderRunner.run(helper: path, input: input, control: control)
            result.withLock { $0 = outcome }
            done.signal()
        }
        spawner.start()
        done.wait()
        guard case .image(let bytes) = result.withLock({ $0 }) else {
            Issue.record("the status script failed: \(String(describing: result.withLock { $0 }))")
            return
        }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
        let blocked = try #require(lines.first { $0.hasPrefix("SigBlk:") }).dropFirst("SigBlk:".count)
        let ignored = try #require(lines.first { $0.hasPrefix("SigIgn:") }).dropFirst("SigIgn:".count)
        // The standard signals 1–31 (glibc keeps its own real-time 32 and 33 to itself).
        let blockedSignals = Self.signals(inMask: blocked).filter { $0 < 32 }
        let ignoredSignals = Self.signals(inMask: ignored).filter { $0 < 32 }
        #expect(blockedSignals == [], "blocked in the helper: \(blockedSignals)")
        #expect(ignoredSignals == [], "ignored in the helper: \(ignoredSignals)")
    }

    @Test func aTimeoutSendsSIGTERMFirst() async throws {
        let marker = Self.scratchPath("term")
        defer { unlink(marker) }
        let path = try Self.script(
            "trap 'echo term > \(marker); exit 3' TERM; cat >/dev/null; while :; do sleep 0.1; done")
        defer { unlink(path) }
        let (outcome, took) = await Self.renderWithOneSecondTimeout(path)
        #expect(outcome == .failed("breeze-agent-render timed out after 1.0 seconds and was killed"))
        #expect(
            (try? String(contentsOfFile: marker, encoding: .utf8)) == "term\n",
            "the helper never saw a SIGTERM (\(took))")
        #expect(took < .seconds(1) + ImagePipeline.terminationGrace.swiftDuration)
    }

    @Test func aHelperIgnoringSIGTERMIsKilledAfterTheGraceWithItsChildren() async throws {
        let childFile = Self.scratchPath("child")
        defer { unlink(childFile) }
        // The helper ignores SIGTERM and leaves a child of its own (which inherits that). The
        // child alone holds the writing end of a FIFO this test reads: its end is the FIFO's
        // end of file (the shell opens it before the fork and closes its own copy after).
        let fifo = Self.scratchPath("fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        let reader = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        try #require(reader >= 0)
        defer { close(reader) }
        let path = try Self.script(
            "trap '' TERM; cat >/dev/null; exec 3>\(fifo); sleep 60 & echo $! > \(childFile); exec 3>&-; "
                + "while :; do sleep 0.1; done")
        defer { unlink(path) }
        let (outcome, took) = await Self.renderWithOneSecondTimeout(path)
        #expect(outcome == .failed("breeze-agent-render timed out after 1.0 seconds and was killed"))
        #expect(took < .seconds(1) + ImagePipeline.terminationGrace.swiftDuration + .seconds(3), "\(took)")
        let child = try #require(
            (try? String(contentsOfFile: childFile, encoding: .utf8)).flatMap {
                Int32($0.trimmingCharacters(in: .whitespacesAndNewlines))
            })
        // The helper's process group went with it: the FIFO's end of file is the child's end
        // (waited for on the descriptor, bounded at 5 s for a child that did not go). `sleep`
        // closes the FIFO only by exiting, so the end of file is the proof. Its /proc entry is
        // not read as well: the kernel closes a dying process's files before it becomes a
        // zombie, and a loaded machine once showed it still running in between.
        var hangUp = pollfd(fd: reader, events: Int16(POLLIN), revents: 0)
        var ended = false
        while poll(&hangUp, 1, 5000) == 1 {
            var byte: UInt8 = 0
            if read(reader, &byte, 1) == 0 {
                ended = true
                break
            }
        }
        if !ended { kill(child, SIGKILL) }
        #expect(ended, "the helper's child \(child) outlived the helper")
    }

    @Test func aMissingExecutableIsAFailure() async {
        let outcome = await RenderRunner(helper: "/nonexistent/breeze-agent-render").render(Self.request)
        guard case .failed(let message) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(message.contains("/nonexistent/breeze-agent-render"), "\(message)")
    }
}

/// A blocking `waitpid` on a thread of its own: the exit of a child as an event with a bound.
final class Reaper: Sendable {
    private let exited = DispatchGroup()
    private let result = Mutex<Int32>(0)

    init(_ pid: pid_t) {
        exited.enter()
        Thread { [self] in
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            result.withLock { $0 = status }
            exited.leave()
        }.start()
    }

    /// True once the child exited, false when `bound` passed first.
    func waitForExit(bound: DispatchTime) -> Bool { exited.wait(timeout: bound) == .success }

    /// The wait status; waits for the exit first (after a bound passed: for the kill that ends it).
    func status() -> Int32 {
        exited.wait()
        return result.withLock { $0 }
    }
}

extension RenderRunner {
    /// One run with nothing to stop it but its end (the state's stop and kill are tested above).
    func render(_ request: RenderRequest) async -> RenderOutcome {
        guard let control = RunControl() else { return .failed("pipe") }
        return await render(request, control: control)
    }
}
