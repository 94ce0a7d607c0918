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
@testable import BreezeConfig
import BreezeCore
import Foundation
import Testing

private let t0 = DaemonStateTests.t0

/// The images' decisions in the state machine (SPEC §9.2): render on a changed request, at most
/// once a minute per image, come back as an event; OpenEPaperLink uploads retried on 409 with
/// backoff and not looped after 400. Driven with events and a fake clock.
@Suite("DaemonState: images and OpenEPaperLink")
struct ImagePipelineTests {
    typealias D = DaemonStateTests
    static let jpeg: [UInt8] = [0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]
    static let png: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 9]

    static func config(kind: String = "pollen", format: String = "jpeg", tag: Bool = true) throws -> AgentConfig {
        try D.config(
            """
            images:
              - {id: hall, kind: \(kind), width: 296, height: 128, palette: bwr, format: \(format)}
            \(tag ? "outputs:\n  - {type: openepaperlink, ap: \"http://127.0.0.1:9\", mac: 0000021CBA123456, image: hall}" : "")
            """)
    }

    static func renders(_ actions: [DaemonAction]) -> [RenderRequest] {
        actions.compactMap { if case .render(_, let request) = $0 { request } else { nil } }
    }
    static func uploads(_ actions: [DaemonAction]) -> [OpenEPaperLinkUpload] {
        actions.compactMap { if case .upload(_, let upload) = $0 { upload } else { nil } }
    }
    static func ready(_ actions: [DaemonAction]) -> [[UInt8]] {
        actions.compactMap { if case .imageReady(_, _, _, let bytes) = $0 { bytes } else { nil } }
    }

    static let key = ImageKey(index: 0)
    static let topic = "breeze/home/image/hall"

    /// Pollen with other values than ``DaemonStateTests/report``.
    static func otherPollen(_ now: Int64) -> FetchOutcome {
        var report = D.report
        report.days[0].items[0].value = 1
        return .answer(
            .pollen,
            PollenAnswer(
                source: .google, outcome: .report(report, body: Array("{}".utf8)),
                fetchedAt: DaemonInstant(unixSeconds: now)))
    }

    /// Started, first fetches asked for, pollen arrived at t0 + 7: the first render is asked for.
    static func rendering(_ config: AgentConfig) -> (DaemonState, [DaemonAction]) {
        var (state, _) = D.started(config)
        let actions = state.handle(.fetched(D.pollenKey, D.pollenOK(t0 + 7)), at: D.at(t0 + 7))
        return (state, actions)
    }

    @Test func rendersOnceDataIsKnownAndAgainOnlyWhenTheRequestChanges() throws {
        let config = try Self.config()
        var (state, first) = D.started(config)
        // Nothing known yet: nothing to draw (the last run's image stays published).
        #expect(Self.renders(first).isEmpty)
        #expect(D.scopes(first).contains(SinkScope(prefix: Self.topic, tree: nil)))

        first = state.handle(.fetched(D.pollenKey, D.pollenOK(t0 + 7)), at: D.at(t0 + 7))
        let request = try #require(Self.renders(first).first)
        #expect(Self.renders(first).count == 1)
        #expect(request.kind == .pollen)
        #expect(request.width == 296 && request.height == 128 && request.palette == .bwr && request.format == .jpeg)
        #expect(request.content.pollen?.today == LevelCell(label: "Today", level: "High", color: "#ff3b30"))
        #expect(request.content.locationName == "Home")

        // In flight: a change waits for the result.
        #expect(Self.renders(state.handle(.fetched(D.pollenKey, Self.otherPollen(t0 + 8)), at: D.at(t0 + 8))).isEmpty)
        _ = state.handle(.fetched(D.pollenKey, D.pollenOK(t0 + 9)), at: D.at(t0 + 9))

        // The result: kept, published by reference, flushed.
        let done = state.handle(.rendered(Self.key, .image(Self.jpeg)), at: D.at(t0 + 10))
        #expect(Self.ready(done) == [Self.jpeg])
        var tree = TopicTree()
        tree.set(Self.topic, BinaryPayload.reference(for: Self.jpeg))
        #expect(D.scopes(done).contains(SinkScope(prefix: Self.topic, tree: tree)))
        #expect(done.contains { if case .flush = $0 { true } else { false } })
        // The data is the same as what was rendered: nothing more to do.
        #expect(Self.renders(done).isEmpty)
        // Same data again: no render; full updates keep the published reference.
        let again = state.handle(.fetched(D.pollenKey, D.pollenOK(t0 + 20)), at: D.at(t0 + 20))
        #expect(Self.renders(again).isEmpty)
        #expect(D.scopes(state.handle(.tick, at: D.at(t0 + 21))).contains(SinkScope(prefix: Self.topic, tree: tree)))
    }

    /// The stops and kills of runs in flight (``DaemonAction/stopRender(_:)``, ``DaemonAction/killRender(_:)``).
    static func runSteps(_ actions: [DaemonAction]) -> [String] {
        actions.compactMap {
            switch $0 {
            case .stopRender(let key): "stop \(key.index)"
            case .killRender(let key): "kill \(key.index)"
            default: nil
            }
        }
    }

    /// A run's timeout and grace are deadlines of the state, served by the one wake: the stop
    /// comes at 30 s after the helper started and not a second before, once; the kill 2 s after
    /// its SIGTERM went; a run that came back has no deadline left.
    @Test func aRunIsStoppedAtItsTimeoutAndKilledAfterItsGrace() throws {
        var (state, first) = Self.rendering(try Self.config(tag: false))
        try #require(Self.renders(first).count == 1)
        let started = t0 + 8
        let running = state.handle(.renderPhase(Self.key, .running), at: D.at(started))
        #expect(state.outputs.images.nextRunDeadline == DaemonInstant(unixSeconds: started + 30))
        let wake = running.compactMap { if case .wake(let at) = $0 { at } else { nil } }.last
        #expect(wake.map { $0 <= DaemonInstant(unixSeconds: started + 30) } == true, "\(String(describing: wake))")
        #expect(Self.runSteps(state.handle(.tick, at: D.at(started + 29))).isEmpty)
        #expect(Self.runSteps(state.handle(.tick, at: D.at(started + 30))) == ["stop 0"])
        #expect(Self.runSteps(state.handle(.tick, at: D.at(started + 31))).isEmpty)
        #expect(state.outputs.images.nextRunDeadline == nil)

        // The SIGTERM went at +31 (the loop reports it): the grace counts from there.
        _ = state.handle(.renderPhase(Self.key, .terminating), at: D.at(started + 31))
        #expect(state.outputs.images.nextRunDeadline == DaemonInstant(unixSeconds: started + 33))
        #expect(Self.runSteps(state.handle(.tick, at: D.at(started + 32))).isEmpty)
        #expect(Self.runSteps(state.handle(.tick, at: D.at(started + 33))) == ["kill 0"])
        #expect(Self.runSteps(state.handle(.tick, at: D.at(started + 34))).isEmpty)

        let failure = "breeze-agent-render timed out after 30.0 seconds and was killed"
        let back = state.handle(.rendered(Self.key, .failed(failure)), at: D.at(started + 34))
        #expect(state.outputs.images.nextRunDeadline == nil)
        #expect(D.logs(back, .warning).contains { $0.contains("render failed: \(failure)") })
        // A phase reported after the run came back starts nothing.
        _ = state.handle(.renderPhase(Self.key, .running), at: D.at(started + 35))
        #expect(state.outputs.images.nextRunDeadline == nil)
    }

    /// A run's timeout counts uptime, not the wall clock: an hour's step forward (NTP at boot on
    /// a hub without a clock) does not stop a healthy run, and a step back does not spare a hung
    /// one; the wake is armed at the wall time the uptime deadline falls on.
    @Test func aRunsTimeoutIgnoresAStepOfTheWallClock() throws {
        var (state, first) = Self.rendering(try Self.config(tag: false))
        try #require(Self.renders(first).count == 1)
        func at(_ now: Int64, uptime: Int64) -> DaemonTime {
            DaemonTime(now: DaemonInstant(unixSeconds: now), uptimeSeconds: Int(uptime))
        }
        _ = state.handle(.renderPhase(Self.key, .running), at: at(t0 + 8, uptime: 8))
        // The wall clock jumps an hour ahead 5 s later: 25 s of the timeout are left.
        #expect(Self.runSteps(state.handle(.tick, at: at(t0 + 3613, uptime: 13))).isEmpty)
        #expect(state.outputs.images.nextRunDeadline == DaemonInstant(unixSeconds: t0 + 3613 + 25))
        // And two hours back: the timeout still comes 30 s of uptime after the start.
        #expect(Self.runSteps(state.handle(.tick, at: at(t0 - 3600 + 37, uptime: 37))).isEmpty)
        #expect(Self.runSteps(state.handle(.tick, at: at(t0 - 3600 + 38, uptime: 38))) == ["stop 0"])
    }

    /// A helper that wrote too much is sent SIGTERM by the runner itself: the grace still comes
    /// from the state, though it asked for no stop.
    @Test func aRunTheRunnerEndsItselfGetsTheGraceToo() throws {
        var (state, first) = Self.rendering(try Self.config(tag: false))
        try #require(Self.renders(first).count == 1)
        _ = state.handle(.renderPhase(Self.key, .running), at: D.at(t0 + 8))
        _ = state.handle(.renderPhase(Self.key, .terminating), at: D.at(t0 + 9))
        #expect(state.outputs.images.nextRunDeadline == DaemonInstant(unixSeconds: t0 + 11))
        #expect(Self.runSteps(state.handle(.tick, at: D.at(t0 + 11))) == ["kill 0"])
    }

    @Test func aChangeInsideTheMinuteRendersAtTheMinutesEnd() throws {
        var (state, first) = Self.rendering(try Self.config())
        #expect(Self.renders(first).count == 1)
        _ = state.handle(.rendered(Self.key, .image(Self.jpeg)), at: D.at(t0 + 9))
        // New data 20 s after the render started: due at t0 + 7 + 60.
        first = state.handle(.fetched(D.pollenKey, Self.otherPollen(t0 + 27)), at: D.at(t0 + 27))
        #expect(Self.renders(first).isEmpty)
        #expect(D.wake(first) == t0 + 67)
        #expect(Self.renders(state.handle(.tick, at: D.at(t0 + 66))).isEmpty)
        let due = state.handle(.tick, at: D.at(t0 + 67))
        let request = try #require(Self.renders(due).first)
        #expect(request.content.pollen?.today.level == "Low")
        // And the same bytes again publish nothing new.
        let same = state.handle(.rendered(Self.key, .image(Self.jpeg)), at: D.at(t0 + 68))
        #expect(Self.ready(same).isEmpty)
        #expect(Self.uploads(same).isEmpty)
    }

    @Test func aUnitChangeRendersAClimateImageAgain() throws {
        var (state, _) = D.started(try Self.config(kind: "summary", tag: false))
        let first = state.handle(.fetched(D.climateKey, try D.climateOK(t0 + 7)), at: D.at(t0 + 7))
        // Berlin: `climate.unit: auto` gives °C.
        #expect(Self.renders(first).first?.content.climate?.changeText.hasSuffix("°C") == true)
        _ = state.handle(.rendered(Self.key, .image(Self.png)), at: D.at(t0 + 8))
        let set = state.handle(D.message("breeze/home/climate/unit/set", "F"), at: D.at(t0 + 100))
        let request = try #require(Self.renders(set).first)
        #expect(request.content.climate?.changeText.hasSuffix("°F") == true)
        // Any other message does not look at the images.
        #expect(Self.renders(state.handle(D.message("breeze/home/refresh", "x"), at: D.at(t0 + 200))).isEmpty)
    }

    @Test func failedRendersAreLoggedAndRetriedWithBackoff() throws {
        var (state, _) = Self.rendering(try Self.config())
        let failed = state.handle(
            .rendered(Self.key, .failed("breeze-agent-render refused the request (exit 65): \"bad width\"")),
            at: D.at(t0 + 8))
        #expect(D.logs(failed, .warning).contains { $0.contains("exit 65") && $0.contains("next try in 60 s") })
        #expect(Self.ready(failed).isEmpty)
        #expect(D.wake(failed) == t0 + 68)
        #expect(Self.renders(state.handle(.tick, at: D.at(t0 + 67))).isEmpty)
        #expect(Self.renders(state.handle(.tick, at: D.at(t0 + 68))).count == 1)
        // Output that is not the configured format, and output over 256 KiB, are failures too.
        let wrong = state.handle(.rendered(Self.key, .image(Self.png)), at: D.at(t0 + 69))
        #expect(D.logs(wrong, .warning).contains { $0.contains("not a jpeg") && $0.contains("next try in 120 s") })
        _ = state.handle(.tick, at: D.at(t0 + 189))
        let big = Self.jpeg + [UInt8](repeating: 0, count: ImageBounds.maximumBytes)
        let over = state.handle(.rendered(Self.key, .image(big)), at: D.at(t0 + 190))
        #expect(D.logs(over, .warning).contains { $0.contains("over 262144") })
        #expect(Self.ready(over).isEmpty)
    }

    @Test func uploadsEachNewJPEGInMacDitherFileOrder() throws {
        var (state, _) = Self.rendering(try Self.config())
        let done = state.handle(.rendered(Self.key, .image(Self.jpeg)), at: D.at(t0 + 8))
        let upload = try #require(Self.uploads(done).first)
        #expect(
            upload
                == OpenEPaperLinkUpload(
                    url: "http://127.0.0.1:9/imgupload", mac: "0000021CBA123456", filename: "hall.jpg", jpeg: Self.jpeg)
        )
        let ok = state.handle(.uploaded(0, .status(200)), at: D.at(t0 + 9))
        #expect(D.logs(ok, .info).contains { $0.contains("uploaded") })
        #expect(Self.uploads(ok).isEmpty)
        #expect(Self.uploads(state.handle(.tick, at: D.at(t0 + 100))).isEmpty)
    }

    /// Issue 39: every restart uploaded every image again (one e-ink refresh per tag per
    /// restart). What the access point accepted is saved; the same bytes are not sent again.
    @Test func anImageTheAccessPointAlreadyTookIsNotUploadedAgainAfterARestart() throws {
        var (first, _) = Self.rendering(try Self.config())
        _ = first.handle(.rendered(Self.key, .image(Self.jpeg)), at: D.at(t0 + 8))
        let ok = first.handle(.uploaded(0, .status(200)), at: D.at(t0 + 9))
        let saved = ok.compactMap { action -> [String: String]? in
            if case .store(.uploadedImages(let digests)) = action { digests } else { nil }
        }
        let key = "http://127.0.0.1:9 0000021CBA123456"
        #expect(saved == [[key: PayloadDigest(bytes: Self.jpeg).description]], "\(saved)")

        // The next run: the same render is not uploaded, a different one is.
        var (second, _) = Self.rendering(try Self.config())
        second.outputs.images.restoreUploaded(try #require(saved.first))
        let same = second.handle(.rendered(Self.key, .image(Self.jpeg)), at: D.at(t0 + 8))
        #expect(Self.uploads(same).isEmpty)
        #expect(D.logs(same, .info).contains { $0.contains("unchanged since the access point took it") })
        #expect(Self.uploads(second.handle(.tick, at: D.at(t0 + 100))).isEmpty)
        _ = second.handle(.fetched(D.pollenKey, Self.otherPollen(t0 + 170)), at: D.at(t0 + 170))
        let changed = second.handle(.rendered(Self.key, .image(Self.jpeg + [9])), at: D.at(t0 + 171))
        #expect(Self.uploads(changed).map(\.jpeg) == [Self.jpeg + [9]])
    }

    @Test func busyAndNetworkErrorsAreRetriedWithJitteredBackoff() throws {
        var (state, _) = Self.rendering(try Self.config())
        _ = state.handle(.rendered(Self.key, .image(Self.jpeg)), at: D.at(t0 + 8))
        var now = t0 + 9
        var delays: [Int64] = []
        for outcome in [UploadOutcome.status(409), .failed("Couldn't connect to server"), .status(409), .status(503)] {
            let answer = state.handle(.uploaded(0, outcome), at: D.at(now))
            #expect(D.logs(answer, .warning).count == 1)
            let retry = state.outputs.images.tags[0].retryAt.unixSeconds
            // The loop is woken for it (or earlier).
            #expect(try #require(D.wake(answer)) <= retry)
            delays.append(retry - now)
            #expect(Self.uploads(state.handle(.tick, at: D.at(retry - 1))).isEmpty)
            now = retry
            #expect(Self.uploads(state.handle(.tick, at: D.at(now))).count == 1)
        }
        // 30 s doubling, each ±20 %.
        for (delay, base) in zip(delays, [30, 60, 120, 240] as [Int64]) {
            #expect(delay >= base * 8 / 10 && delay <= base * 12 / 10, "\(delays)")
        }
        // Success resets the backoff.
        _ = state.handle(.uploaded(0, .status(200)), at: D.at(now + 1))
        #expect(state.outputs.images.tags[0].retryDelay == 0)
    }

    @Test func backoffStopsAtThirtyMinutes() throws {
        var (state, _) = Self.rendering(try Self.config())
        _ = state.handle(.rendered(Self.key, .image(Self.jpeg)), at: D.at(t0 + 8))
        var now = t0 + 9
        var last: Int64 = 0
        for _ in 0..<10 {
            _ = state.handle(.uploaded(0, .status(409)), at: D.at(now))
            let retry = state.outputs.images.tags[0].retryAt.unixSeconds
            last = retry - now
            now = retry
            _ = state.handle(.tick, at: D.at(now))
        }
        #expect(last >= 1440 && last <= 2160)
    }

    @Test func aRejectedUploadIsLoggedOnceAndNotLooped() throws {
        var (state, _) = Self.rendering(try Self.config())
        _ = state.handle(.rendered(Self.key, .image(Self.jpeg)), at: D.at(t0 + 8))
        let rejected = state.handle(.uploaded(0, .status(400)), at: D.at(t0 + 9))
        #expect(D.logs(rejected, .error).count == 1)
        #expect(D.logs(rejected, .error)[0].contains("not retrying until the configuration changes"))
        for minute in 1...5 {
            #expect(Self.uploads(state.handle(.tick, at: D.at(t0 + 9 + Int64(minute) * 60))).isEmpty)
        }
        // Not even a new image goes to that tag.
        _ = state.handle(.fetched(D.pollenKey, Self.otherPollen(t0 + 400)), at: D.at(t0 + 400))
        let newer = state.handle(.rendered(Self.key, .image(Self.jpeg + [9])), at: D.at(t0 + 401))
        #expect(Self.ready(newer).count == 1)
        #expect(Self.uploads(newer).isEmpty)
    }

    @Test func aJPEGRenderedDuringAnUploadGoesOutAfterIt() throws {
        var (state, _) = Self.rendering(try Self.config())
        _ = state.handle(.rendered(Self.key, .image(Self.jpeg)), at: D.at(t0 + 8))
        _ = state.handle(.fetched(D.pollenKey, Self.otherPollen(t0 + 70)), at: D.at(t0 + 70))
        let newer = state.handle(.rendered(Self.key, .image(Self.jpeg + [7])), at: D.at(t0 + 71))
        #expect(Self.uploads(newer).isEmpty)  // one upload per tag in flight
        let ok = state.handle(.uploaded(0, .status(200)), at: D.at(t0 + 72))
        #expect(Self.uploads(ok).map(\.jpeg) == [Self.jpeg + [7]])
    }

    @Test func pngImagesAreNotUploaded() throws {
        var (state, _) = Self.rendering(try Self.config(format: "png", tag: false))
        let done = state.handle(.rendered(Self.key, .image(Self.png)), at: D.at(t0 + 8))
        #expect(Self.ready(done) == [Self.png])
        #expect(Self.uploads(done).isEmpty)
    }

    @Test func withoutTheHelperImagesAndTagsAreTakenOut() throws {
        var config = try Self.config()
        let log = Log(level: .error)
        #expect(Agent.renderHelper(for: &config, log: log, locate: { nil }) == nil)
        #expect(config.images.isEmpty && config.openEPaperLink.isEmpty)
        // The rest of the configuration is untouched.
        #expect(config.locations.map(\.id) == ["home"])
        var found = try Self.config()
        #expect(
            Agent.renderHelper(for: &found, log: log, locate: { "/x/breeze-agent-render" }) == "/x/breeze-agent-render")
        #expect(found.images.count == 1 && found.openEPaperLink.count == 1)
    }

    /// A shard renders only the images of its own locations; a location that moved to another
    /// shard hands its image topic over with the rest of `<p>/<loc>/` (cleared unless the new
    /// owner re-published it, ShardHandoverTests).
    @Test func aShardRendersItsOwnLocationsImagesAndHandsTheOthersOver() throws {
        let config = try ShardHandoverTests.config(
            shard: """
                shard: {index: 1, count: 4}
                images:
                  - {id: hall, location: home, kind: pollen, width: 296, height: 128}
                  - {id: desk, location: office, kind: pollen, width: 296, height: 128}
                """)
        let owned = config.ownedLocations.map {
            LocationRuntime(config: $0, zone: .utc, unit: $0.unit)
        }
        let state = DaemonState(config: config, locations: owned, storedCalls: [:], demo: false, seed: 1)
        #expect(state.outputs.images.images.map(\.config.id) == ["desk"])
        #expect(state.outputs.images.images.map(\.topic) == ["breeze/office/image/desk"])
        let reference = BinaryPayload.reference(for: Self.png)
        let handover = ShardHandover(
            config: config, layout: config.topicLayout,
            published: ["breeze/home/image/hall": reference, "breeze/office/image/desk": reference].digests)
        #expect(handover.released.map(\.id) == ["home"])
        // Remembered as the digest of the bytes on the broker, not of the reference text.
        #expect(handover.released[0].published == ["breeze/home/image/hall": PayloadDigest(bytes: Self.png)])
        #expect(handover.released[0].scopes.contains("breeze/home"))
    }

    @Test func helperLookupPrefersTheAgentsDirectory() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "render-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let agent = directory.appendingPathComponent("breeze-agent").path
        let helper = directory.appendingPathComponent("breeze-agent-render").path
        // Not there (and not installed on the test machine): nil.
        let installed = FileManager.default.isExecutableFile(atPath: RenderRunner.installedPath)
        #expect(RenderRunner.locate(ownExecutable: agent) == (installed ? RenderRunner.installedPath : nil))
        // There but not executable: skipped.
        #expect(FileManager.default.createFile(atPath: helper, contents: Data("#!/bin/sh\n".utf8)))
        #expect(RenderRunner.locate(ownExecutable: agent) == (installed ? RenderRunner.installedPath : nil))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: helper)
        #expect(RenderRunner.locate(ownExecutable: agent) == helper)
    }
}

/// The images' child alone: requests handed in, its own actions out, time and randomness as
/// arguments.
@Suite("ImagePipeline alone: renders, readiness and uploads as its own actions")
struct ImagePipelineChildTests {
    typealias S = ImagePipelineTests
    typealias D = DaemonStateTests

    @Test func aRenderAtMostOncePerMinuteAndANewJPEGGoesToItsTag() throws {
        let config = try S.config()
        let state = D.machine(config)
        var images = ImagePipeline(config: config, locations: state.locations, layout: config.topicLayout)
        let now = DaemonInstant(unixSeconds: D.t0)
        let request = RenderRequest(
            kind: .pollen, width: 296, height: 128, palette: .bwr, format: .jpeg, content: .init(locationName: "Home"))
        let first = images.startRenders(now: now, requests: [request])
        guard case .render(S.key, request) = try #require(first.first) else {
            Issue.record("no render: \(first)")
            return
        }
        // In flight: not asked again; the same request after it came back: not rendered again.
        #expect(images.startRenders(now: now + 1, requests: [request]).isEmpty)
        let done = images.rendered(S.key, .image(S.jpeg), now: now + 2)
        #expect(done.contains { if case .flush = $0 { true } else { false } })
        #expect(done.contains { if case .upload(0, let upload) = $0 { upload.jpeg == S.jpeg } else { false } })
        var shown = TopicTree()
        shown.set(S.topic, BinaryPayload.reference(for: S.jpeg))
        #expect(images.scopes == [SinkScope(prefix: S.topic, tree: shown)])
        // A changed request inside the minute waits for the minute's end: the deadline says when.
        var changed = request
        changed.width = 250
        #expect(images.startRenders(now: now + 30, requests: [changed]).isEmpty)
        #expect(images.nextDeadline == now + ImagePipeline.minimumInterval)
        // The busy access point: a retry after 30 s ± 20 %, jitter from the daemon's generator.
        var random = SplitMix64(seed: 7)
        let busy = images.uploaded(0, .status(409), now: now + 3, random: &random)
        #expect(busy.count == 1)
        #expect(images.nextDeadline.map { $0 >= now + .seconds(27) && $0 <= now + .seconds(39) } == true)
    }
}
