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

import BreezeTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The test suite's own process launcher: what made parallel runs flaky with Foundation's
/// `Process` (inherited descriptors hiding a sibling's exit, SIGTERM blocked in children) must
/// not happen with ``ChildProcess``.
@Suite("Test support: child processes")
struct ChildProcessTests {
    @Test("a child holds only stdin, stdout and stderr, whatever the test process has open")
    func onlyStandardDescriptors() throws {
        // Descriptors without close-on-exec, as Foundation's socketpairs and pipes are.
        var pipeEnds: [Int32] = [-1, -1]
        try #require(pipe(&pipeEnds) == 0)
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(socketFD >= 0)
        defer {
            close(pipeEnds[0])
            close(pipeEnds[1])
            close(socketFD)
        }
        // A program may open files of its own while it starts (`sleep` the locale archive, seen
        // once as a descriptor 3): the listing is read once the child said it is done starting;
        // all it does then is stop itself, which opens nothing (an inherited descriptor stays).
        let ready = DispatchSemaphore(value: 0)
        let child = try ChildProcess(
            "/bin/sh", ["-c", "echo ready; kill -STOP $$"], standardOutput: .pipe { if !$0.isEmpty { ready.signal() } })
        try #require(ready.wait(timeout: .now() + 10) == .success, "the child never said it was ready")
        let inherited = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(child.processIdentifier)/fd")
            .sorted()
        #expect(inherited == ["0", "1", "2"])
        #expect(child.kill())
        #expect(child.wasSignaled == true)
        #expect(child.terminationStatus == SIGKILL)
    }

    @Test("short children started next to long-lived ones from several threads are seen exiting at once")
    func exitSeenBesideLongLivedSiblings() async throws {
        final class Tally: Sendable {
            let slowest = Mutex(Duration.zero)
            let failures = Mutex<[String]>([])
            let longLived = Mutex<[ChildProcess]>([])
        }
        let tally = Tally()
        // Timed off the cooperative pool (the group's tasks inherit the preference), which
        // parallel render tests may hold for seconds.
        await withTaskExecutorPreference(TimingExecutor.shared) {
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<4 {
                    group.addTask {
                        for round in 0..<20 {
                            do {
                                if (round + worker) % 4 == 0 {
                                    let sibling = try ChildProcess("/bin/sleep", ["3600"])
                                    tally.longLived.withLock { $0.append(sibling) }
                                    continue
                                }
                                let started = ContinuousClock.now
                                let child = try ChildProcess("/bin/true")
                                let status = await child.waitForExit(timeout: .seconds(10))
                                let took = ContinuousClock.now - started
                                tally.slowest.withLock { $0 = max($0, took) }
                                if status != 0 {
                                    tally.failures.withLock { $0.append("/bin/true: \(String(describing: status))") }
                                }
                            } catch {
                                tally.failures.withLock { $0.append("\(error)") }
                            }
                        }
                    }
                }
            }
        }
        #expect(tally.failures.withLock { $0 }.isEmpty, "\(tally.failures.withLock { $0 })")
        // Foundation's Process saw some of these only when a `sleep` sibling that inherited their
        // socket ended; seconds are plenty even on two loaded cores. The siblings sleep an hour
        // (killed below): the checks after the group run on the cooperative pool, which CPU-bound
        // render tests on a loaded machine held for 60 s in one `make test`, longer than the
        // `sleep 30` they used to be (20 of 20 "already ended").
        #expect(tally.slowest.withLock { $0 } < .seconds(5))
        let siblings = tally.longLived.withLock { $0 }
        #expect(siblings.count == 20)
        let ended = siblings.filter { !$0.isRunning }.count
        #expect(ended == 0, "\(ended) of the `sleep 3600` siblings already ended")
        for sibling in siblings { #expect(sibling.kill()) }
    }

    @Test("SIGTERM reaches a child started from a Dispatch thread (the child's signal mask is reset)")
    func terminateFromDispatchThread() async throws {
        // An hour, not 30 s: the test resumes on the cooperative pool before it signals, and a
        // held pool once let a `sleep 30` end by itself first (status 0, not SIGTERM).
        let child = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<ChildProcess, any Error>) in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try ChildProcess("/bin/sleep", ["3600"]) })
            }
        }
        child.signal(SIGTERM)
        let status = await child.waitForExit(timeout: .seconds(10))
        #expect(status == SIGTERM)
        #expect(child.wasSignaled == true)
    }

    @Test("TestProcess.run: a failure carries the exit status and stderr; an overrun is killed")
    func testProcessFailures() async throws {
        #expect(try await TestProcess.run("/bin/sh", ["-c", "echo fine"]) == "fine\n")
        do {
            try await TestProcess.run("/bin/sh", ["-c", "echo broken >&2; exit 3"])
            Issue.record("a non-zero exit must throw")
        } catch let failure as TestProcess.Failure {
            #expect(failure.status == 3)
            #expect(failure.output == "broken\n")
        }
        // Timed off the cooperative pool, which parallel render tests may hold for many seconds.
        let took = try await durationOffThePool {
            do {
                try await TestProcess.run("/bin/sleep", ["30"], timeout: .milliseconds(300))
                Issue.record("an overrun must throw")
            } catch let failure as TestProcess.Failure {
                #expect(failure.output.hasPrefix("still running after"))
            }
        }
        #expect(took < .seconds(10))
    }

    @Test("a piped stderr arrives in chunks and ends; the exit wakes the waiter and is reaped once")
    func pipedOutputAndExitEvent() async throws {
        let read = Mutex<(text: String, ended: Bool)>(("", false))
        let child = try ChildProcess(
            "/bin/sh", ["-c", "echo one >&2; sleep 0.2; echo two >&2; exit 3"],
            standardError: .pipe({ chunk in
                read.withLock {
                    chunk.isEmpty ? ($0.ended = true) : $0.text.append(String(decoding: chunk, as: UTF8.self))
                }
                TestEvents.shared.report()
            }))
        #expect(await eventually(bound: .seconds(30)) { read.withLock { $0.text.contains("one") } })
        #expect(await child.waitForExit(timeout: .seconds(30)) == 3)
        #expect(await eventually(bound: .seconds(30)) { read.withLock { $0.ended } })
        #expect(read.withLock { $0.text } == "one\ntwo\n")
        // Reaped by the waiter, not lost to the exit watcher (WNOWAIT): the status stays.
        #expect(child.terminationStatus == 3)
        #expect(child.waitForExitBlocking(timeout: .seconds(1)) == 3)
        // Nothing reports: the bound ends the wait, false.
        #expect(await eventually(bound: .milliseconds(100)) { false } == false)
    }

    @Test("a missing executable is refused when spawning, naming it")
    func missingExecutable() {
        let error = #expect(throws: ChildProcess.SpawnError.self) { try ChildProcess("/nonexistent/breeze-tool") }
        #expect(error?.description.contains("/nonexistent/breeze-tool") == true)
    }
}
