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
import BreezeCore
import BreezeTestSupport
import Foundation
import Testing

/// The spawning of the render helper (pipes, bounds, timeout, exit codes), with small shell
/// scripts as the executable: what is tested here is the runner, not the drawing (the end-to-end
/// suite runs the real `breeze-agent-render`).
@Suite("Render runner: spawn, pipes, bounds", .serialized)
struct RenderRunnerTests {
    static func script(_ body: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "render-script-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sh"
        ).path
        // Written through a close-on-exec descriptor: a helper spawned meanwhile by another test
        // must not inherit it, or exec of this script fails with ETXTBSY while that one runs.
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
        try #require(fd >= 0)
        let bytes = Array(("#!/bin/sh\n" + body + "\n").utf8)
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

    @Test func aHelperThatHangsIsKilledAtTheTimeout() async throws {
        let path = try Self.script("exec sleep 30")
        defer { unlink(path) }
        var outcome: RenderOutcome?
        let took = await durationOffThePool {
            outcome = await RenderRunner(helper: path, timeout: .seconds(1)).render(Self.request)
        }
        #expect(outcome == .failed("breeze-agent-render timed out after 1.0 seconds and was killed"))
        #expect(took < .seconds(10))
    }

    @Test func cancellingTheTaskKillsTheHelper() async throws {
        let path = try Self.script("exec sleep 30")
        defer { unlink(path) }
        let runner = RenderRunner(helper: path)
        let took = try await durationOffThePool {
            let task = Task { await runner.render(Self.request) }
            try await Task.sleep(for: .milliseconds(300))
            task.cancel()
            #expect(await task.value == .failed("cancelled"))
        }
        #expect(took < .seconds(10))
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
