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

import BreezeConfig
import BreezeCore

/// One configured image of a location this agent serves: an index into ``ImagePipeline/images``.
package struct ImageKey: Hashable, Sendable {
    let index: Int
}

/// One multipart POST to an OpenEPaperLink access point (docs/images.md): `mac`, `dither`, `file`.
package struct OpenEPaperLinkUpload: Sendable, Equatable {
    /// `<ap>/imgupload`.
    package let url: String
    package let mac: String
    /// The part's filename (`<id>.jpg`).
    package let filename: String
    package let jpeg: [UInt8]
}

/// What one run of the render helper came to.
package enum RenderOutcome: Sendable, Equatable {
    /// The image bytes the helper wrote (exit 0).
    case image([UInt8])
    /// Why there is no image: the helper's exit code and stderr line, a timeout, too much output.
    case failed(String)
}

/// How far a run of the render helper has got, as the loop reports it
/// (``DaemonEvent/renderPhase(_:_:)``): the timeout counts from `running`, the grace from
/// `terminating` (its SIGTERM is sent).
package enum RenderPhase: Sendable, Equatable {
    case running, terminating
}

/// What an upload came to: the access point's HTTP status, or a transport failure.
package enum UploadOutcome: Sendable, Equatable {
    case status(Int)
    case failed(String)
}

/// The images' part of the daemon's state (docs/images.md): what each image last asked the helper
/// for, when, and what it got; and for each OpenEPaperLink tag the JPEG still to send and its
/// retry state. A child of ``DaemonState`` with its own actions and deadline: the daemon
/// works out what each image should show (``DaemonState/renderRequest(_:now:)``, from its
/// locations) and routes the events; the decisions are here.
package struct ImagePipeline {
    /// An image is rendered at most once per this many seconds (a change inside the minute
    /// renders at the minute's end).
    static let minimumInterval: DaemonDuration = .minutes(1)
    /// A failed render is tried again after 1, 2, 4, … minutes, at most an hour.
    static let longestRenderRetry: DaemonDuration = .hours(1)
    /// An upload answered 409 (the AP is busy) or failed on the network is retried after 30 s,
    /// doubling to at most 30 min, with ±20 % jitter.
    static let firstUploadRetry: DaemonDuration = .seconds(30)
    static let longestUploadRetry: DaemonDuration = .minutes(30)
    /// How long one run of the render helper may take before it is stopped (SIGTERM).
    package static let renderTimeout: DaemonDuration = .seconds(30)
    /// Between the SIGTERM that ends a run and the SIGKILL for a helper still alive. Both are
    /// counted in whole seconds of uptime, so each is a second more or less
    /// (docs/operations.md, Limits).
    package static let terminationGrace: DaemonDuration = .seconds(2)

    /// What the images ask the daemon to do; ``DaemonState`` maps these to its own actions.
    enum Action: Sendable {
        /// Run the render helper; it comes back as ``DaemonEvent/rendered(_:_:)``.
        case render(ImageKey, RenderRequest)
        /// The run went past ``renderTimeout``: end it (SIGTERM to the helper's group).
        case stopRender(ImageKey)
        /// The helper outlived ``terminationGrace`` after its SIGTERM: SIGKILL.
        case killRender(ImageKey)
        /// Keep an image's new bytes (in the ``ImageStore``, before the flush that publishes them).
        case ready(location: String, id: String, format: ImageFormat, bytes: [UInt8])
        /// Set the image's topic to its new reference.
        case show(SinkScope)
        /// Publish what changed.
        case flush
        /// POST a JPEG to an access point; it comes back as ``DaemonEvent/uploaded(_:_:)``.
        case upload(Int, OpenEPaperLinkUpload)
        /// Save what each tag's access point last accepted (``uploadedDigests``).
        case saveUploaded([String: String])
        case log(LogLevel, String)
    }

    /// The next time this child needs the loop (``nextWake``).
    var nextDeadline: DaemonInstant? { nextWake }

    struct Image {
        let config: ImageConfig
        /// The location's index in ``DaemonState/locations``.
        let location: Int
        let topic: String
        /// The request of the last render started; equal requests are not rendered again.
        var requested: RenderRequest?
        var inFlight = false
        /// The run in flight: when the helper started, and when its SIGTERM went (timeout, too
        /// much output), in seconds of uptime; whether the timeout's stop or the grace's kill
        /// was asked for already.
        var runningSince: Int?
        var terminatingSince: Int?
        var stopAsked = false
        var killAsked = false
        var lastStart: DaemonInstant?
        /// A change waits for the minute's end (or a failure's backoff) until then.
        var dueAt: DaemonInstant?
        var retryAt: DaemonInstant?
        var failures = 0
        /// Why the last render failed (nil after a good one): `<p>/diagnostics` and `once`'s exit.
        var lastError: String?
        /// ``BinaryPayload/reference(for:)`` of the latest good render.
        var reference: String?
    }

    package struct Tag {
        let output: OpenEPaperLinkOutput
        /// The image's index in ``ImagePipeline/images``.
        let image: Int
        /// The newest JPEG not yet accepted by the access point.
        var pending: [UInt8]?
        /// Counts the JPEGs handed to this tag; `sentVersion` is the one of the upload in flight.
        var pendingVersion = 0
        var sentVersion = 0
        var inFlight = false
        var retryAt = DaemonInstant(unixSeconds: 0)
        var retryDelay = DaemonDuration.zero
        /// Answered 400: not sent again until the configuration changes.
        var rejected = false
        /// The digest (``PayloadDigest``) of the JPEG the access point last accepted, kept in
        /// `state_dir` across restarts: a render with the same bytes is not sent again.
        var acceptedDigest: String?
        /// The digest of the JPEG on its way.
        var sentDigest: String?
        var uploaded = 0
        var failed = 0
    }

    private(set) var images: [Image] = []
    /// The current event's time on both clocks (``observe(_:)``). A run's timeout and grace
    /// count uptime, which only moves forward: a wall clock stepped by NTP at boot must neither
    /// stop a healthy render nor spare a hung one. The wake is armed on the wall clock, so a
    /// run's deadline is turned into a wall instant from this.
    private var clock = DaemonTime(now: DaemonInstant(unixSeconds: 0), uptimeSeconds: 0)
    package var tags: [Tag] = []
    /// The locations' display units when last looked at (a `unit/set` re-renders).
    var units: [TemperatureUnit] = []

    init() {}

    init(config: AgentConfig, locations: [LocationRuntime], layout: TopicLayout) {
        for image in config.images {
            guard let location = locations.firstIndex(where: { $0.config.id == image.location }) else { continue }
            images.append(
                Image(config: image, location: location, topic: layout.location(image.location).image(image.id).name))
        }
        for output in config.openEPaperLink {
            guard let image = images.firstIndex(where: { $0.config.id == output.image }) else { continue }
            tags.append(Tag(output: output, image: image))
        }
        units = locations.map(\.unit)
    }

    package var isEmpty: Bool { images.isEmpty }

    /// No render or upload is in flight (`once` publishes then).
    var isSettled: Bool { !images.contains(where: \.inFlight) && !tags.contains(where: \.inFlight) }

    subscript(key: ImageKey) -> Image {
        get { images[key.index] }
        set { images[key.index] = newValue }
    }

    /// The earliest time a deferred render, a render retry, an upload retry or a run's timeout
    /// or grace is due.
    var nextWake: DaemonInstant? {
        var times: [DaemonInstant] = images.filter { !$0.inFlight }.compactMap(\.dueAt)
        times += tags.filter { $0.pending != nil && !$0.inFlight && !$0.rejected }.map(\.retryAt)
        return [times.min(), nextRunDeadline].compactMap(\.self).min()
    }

    /// When a run in flight must be stopped or killed: the one timer of the render helper,
    /// served by the loop's wake like every other deadline.
    var nextRunDeadline: DaemonInstant? {
        images.compactMap(\.runDeadline).min().map {
            clock.now + .seconds(Int64($0 - clock.uptimeSeconds))
        }
    }

    /// Every event's time, before anything else of the images is decided.
    mutating func observe(_ time: DaemonTime) { clock = time }
}

extension ImagePipeline.Image {
    /// This run's next step is due, in seconds of uptime: the kill after the grace, else the
    /// stop at the timeout.
    var runDeadline: Int? {
        guard inFlight else { return nil }
        if let terminatingSince {
            return killAsked ? nil : terminatingSince + Int(ImagePipeline.terminationGrace.seconds)
        }
        if let runningSince, !stopAsked { return runningSince + Int(ImagePipeline.renderTimeout.seconds) }
        return nil
    }
}

extension ImagePipeline {
    /// Starts the render of every image whose request changed, unless it is in flight or its
    /// minute (or failure backoff) has not passed: then it is due at that time.
    /// - Parameter requests: what each image should show now (``DaemonState/renderRequest(_:now:)``),
    ///   by index; nil for one in flight or with nothing known to draw.
    mutating func startRenders(now: DaemonInstant, requests: [RenderRequest?]) -> [Action] {
        var actions: [Action] = []
        for index in images.indices {
            let key = ImageKey(index: index)
            guard !self[key].inFlight, let request = requests[index] else { continue }
            guard request != self[key].requested else {
                self[key].dueAt = nil
                continue
            }
            let earliest = max(
                self[key].lastStart.map { $0 + Self.minimumInterval } ?? now, self[key].retryAt ?? now)
            guard now >= earliest else {
                self[key].dueAt = earliest
                continue
            }
            self[key].requested = request
            self[key].inFlight = true
            (self[key].runningSince, self[key].terminatingSince) = (nil, nil)
            (self[key].stopAsked, self[key].killAsked) = (false, false)
            self[key].lastStart = now
            self[key].dueAt = nil
            actions.append(.render(key, request))
        }
        return actions
    }

    /// The loop reports how far a run has got: its timeout or its grace starts now.
    mutating func phase(_ key: ImageKey, _ phase: RenderPhase) -> [Action] {
        guard key.index < images.count, self[key].inFlight else { return [] }
        let name = "image[\(self[key].config.location)/\(self[key].config.id)]"
        switch phase {
        case .running:
            guard self[key].runningSince == nil else { return [] }
            self[key].runningSince = clock.uptimeSeconds
            return [.log(.debug, "\(name): the render helper runs, stopped after \(Self.renderTimeout) s")]
        case .terminating:
            guard self[key].terminatingSince == nil else { return [] }
            self[key].terminatingSince = clock.uptimeSeconds
            return [
                .log(.debug, "\(name): the render helper was sent SIGTERM, killed after \(Self.terminationGrace) s")
            ]
        }
    }

    /// The runs whose timeout or grace is over: stopped, or killed. Each is asked for once; the
    /// run's end comes back as ``DaemonEvent/rendered(_:_:)``.
    mutating func expireRuns() -> [Action] {
        var actions: [Action] = []
        for index in images.indices {
            let key = ImageKey(index: index)
            guard let due = self[key].runDeadline, due <= clock.uptimeSeconds else { continue }
            if self[key].terminatingSince != nil {
                self[key].killAsked = true
                actions.append(.killRender(key))
            } else {
                self[key].stopAsked = true
                actions.append(.stopRender(key))
            }
        }
        return actions
    }

    /// A render came back: new bytes are kept (``Action/ready(location:id:format:bytes:)``),
    /// set on the image's topic and handed to its OpenEPaperLink tags; a failure is logged and
    /// retried with backoff.
    mutating func rendered(_ key: ImageKey, _ outcome: RenderOutcome, now: DaemonInstant) -> [Action] {
        guard key.index < images.count else { return [] }
        self[key].inFlight = false
        let config = self[key].config
        let name = "image[\(config.location)/\(config.id)]"
        switch outcome {
        case .failed(let message):
            return renderFailed(key, name, "render failed: \(message)", now: now)
        case .image(let bytes):
            guard bytes.count <= ImageBounds.maximumBytes else {
                return renderFailed(
                    key, name, "\(bytes.count) bytes is over \(ImageBounds.maximumBytes); not published", now: now)
            }
            guard Self.hasSignature(bytes, of: config.format) else {
                return renderFailed(key, name, "the helper's output is not a \(config.format.rawValue)", now: now)
            }
            self[key].failures = 0
            self[key].lastError = nil
            self[key].retryAt = nil
            let reference = BinaryPayload.reference(for: bytes)
            guard reference != self[key].reference else {
                return [.log(.debug, "\(name): rendered the same \(bytes.count) bytes again")]
            }
            self[key].reference = reference
            var tree = TopicTree()
            tree.set(self[key].topic, reference)
            var actions: [Action] = [
                .ready(location: config.location, id: config.id, format: config.format, bytes: bytes),
                .show(SinkScope(prefix: self[key].topic, tree: tree)),
                .flush,
                .log(
                    .info,
                    "\(name): rendered \(config.width)×\(config.height) \(config.format.rawValue), \(bytes.count) bytes"
                ),
            ]
            if config.format == .jpeg {
                let digest = PayloadDigest(bytes: bytes).description
                for index in tags.indices where tags[index].image == key.index {
                    // The access point already shows these bytes (an earlier run sent them):
                    // one e-ink refresh and upload fewer per restart.
                    if tags[index].acceptedDigest == digest, !tags[index].inFlight {
                        tags[index].pending = nil
                        actions.append(
                            .log(
                                .info,
                                "openepaperlink[\(tags[index].output.mac)]: image \(config.id) unchanged since the access point took it; not uploaded"
                            ))
                        continue
                    }
                    tags[index].pending = bytes
                    tags[index].pendingVersion += 1
                    // A new image goes out at once, whatever the backoff of the old one.
                    tags[index].retryAt = DaemonInstant(unixSeconds: 0)
                    tags[index].retryDelay = .zero
                }
                actions += startUploads(now: now)
            }
            return actions
        }
    }

    private mutating func renderFailed(
        _ key: ImageKey, _ name: String, _ problem: String, now: DaemonInstant
    ) -> [Action] {
        let message = "\(name): \(problem)"
        self[key].failures += 1
        self[key].lastError = problem
        self[key].requested = nil
        let delay = min(
            Self.minimumInterval * (1 << Int64(min(self[key].failures - 1, 6))), Self.longestRenderRetry
        )
        self[key].retryAt = now + delay
        return [.log(.warning, "\(message); next try in \(delay) s")]
    }

    /// The images whose last render failed (docs/operations.md, Limits: shown in `<p>/diagnostics`, and `once`
    /// exits 69), in configuration order.
    var failing: [AgentDiagnostics.ImageFailure] {
        images.compactMap { image in
            image.lastError.map {
                .init(image: "\(image.config.location)/\(image.config.id)", failures: image.failures, error: $0)
            }
        }
    }

    /// PNG's 8-byte signature, JPEG's SOI marker.
    static func hasSignature(_ bytes: [UInt8], of format: ImageFormat) -> Bool {
        switch format {
        case .png: return bytes.starts(with: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
        case .jpeg: return bytes.starts(with: [0xff, 0xd8, 0xff])
        }
    }

    /// Every image's topic as a scope: its latest render, or kept (nil) before the first one.
    var scopes: [SinkScope] {
        images.map { image in
            var tree: TopicTree?
            if let reference = image.reference {
                var set = TopicTree()
                set.set(image.topic, reference)
                tree = set
            }
            return SinkScope(prefix: image.topic, tree: tree)
        }
    }

    // MARK: OpenEPaperLink

    /// What each tag's access point last accepted: `"<ap> <mac>"` → the JPEG's digest.
    var uploadedDigests: [String: String] {
        var result: [String: String] = [:]
        for tag in tags {
            if let digest = tag.acceptedDigest { result[Self.uploadKey(tag.output)] = digest }
        }
        return result
    }

    static func uploadKey(_ output: OpenEPaperLinkOutput) -> String { output.accessPoint + " " + output.mac }

    /// At start: what the access points accepted in an earlier run (`state_dir/uploads.json`).
    package mutating func restoreUploaded(_ digests: [String: String]) {
        for index in tags.indices {
            tags[index].acceptedDigest = digests[Self.uploadKey(tags[index].output)]
        }
    }

    /// Starts the upload of every tag with a JPEG waiting whose retry time has come (one in
    /// flight per tag; a tag answered 400 waits for a configuration change).
    mutating func startUploads(now: DaemonInstant) -> [Action] {
        var actions: [Action] = []
        for index in tags.indices {
            let tag = tags[index]
            guard let jpeg = tag.pending, !tag.inFlight, !tag.rejected, now >= tag.retryAt else { continue }
            tags[index].inFlight = true
            tags[index].sentVersion = tag.pendingVersion
            tags[index].sentDigest = PayloadDigest(bytes: jpeg).description
            let image = images[tag.image].config
            actions.append(
                .upload(
                    index,
                    OpenEPaperLinkUpload(
                        url: tag.output.accessPoint + "/imgupload", mac: tag.output.mac, filename: image.id + ".jpg",
                        jpeg: jpeg)))
        }
        return actions
    }

    /// An upload came back: 200 done; 409 or a network error retried with jittered backoff; 400
    /// logged once and not retried until the configuration changes.
    /// - Parameter random: the daemon's seeded generator (the retry's jitter).
    mutating func uploaded(
        _ index: Int, _ outcome: UploadOutcome, now: DaemonInstant, random: inout SplitMix64
    ) -> [Action] {
        guard index < tags.count else { return [] }
        tags[index].inFlight = false
        let output = tags[index].output
        let name = "openepaperlink[\(output.mac) at \(output.displayAccessPoint)]"
        let problem: String
        switch outcome {
        case .status(let status) where (200..<300).contains(status):
            tags[index].uploaded += 1
            tags[index].retryDelay = .zero
            tags[index].retryAt = DaemonInstant(unixSeconds: 0)
            tags[index].acceptedDigest = tags[index].sentDigest
            let log = Action.log(.info, "\(name): image \(output.image) uploaded")
            let save = Action.saveUploaded(uploadedDigests)
            // A newer JPEG rendered while this one was on its way goes out now.
            guard tags[index].sentVersion == tags[index].pendingVersion else {
                return [log, save] + startUploads(now: now)
            }
            tags[index].pending = nil
            return [log, save]
        case .status(400):
            tags[index].rejected = true
            tags[index].failed += 1
            return [
                .log(
                    .error,
                    "\(name): the access point refused the upload (400: unknown or bad mac?); not retrying until the configuration changes"
                )
            ]
        case .status(let status):
            problem = "answered \(status)\(status == 409 ? " (busy)" : "")"
        case .failed(let message):
            problem = "failed: \(message)"
        }
        tags[index].failed += 1
        let previous = tags[index].retryDelay
        let base =
            previous == .zero ? Self.firstUploadRetry : min(previous * 2, Self.longestUploadRetry)
        tags[index].retryDelay = base
        let jittered = DaemonDuration(seconds: max(1, Int64(Double(base.seconds) * (0.8 + 0.4 * random.fraction()))))
        tags[index].retryAt = now + jittered
        return [.log(.warning, "\(name): upload \(problem); retry in \(jittered) s")] + startUploads(now: now)
    }
}
