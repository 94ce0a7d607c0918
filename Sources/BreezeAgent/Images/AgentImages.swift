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
import BreezeDaemon
import BreezeHTTP
import Synchronization

extension Agent {
    /// Finds the render helper when images are configured. Missing, it is one error at start
    /// and the images (and their OpenEPaperLink tags) are taken out of `config`: no topics, no
    /// Home Assistant entities for pictures that cannot be drawn; the rest of the agent runs.
    static func renderHelper(
        for config: inout AgentConfig, log: Log, locate: () -> String? = { RenderRunner.locate() }
    ) -> String? {
        guard !config.images.isEmpty else { return nil }
        if let helper = locate() { return helper }
        log.error(
            "images: the render helper \(RenderRunner.helperName) is missing (looked next to the agent and at \(RenderRunner.installedPath); install the breeze-agent-render package); the \(config.images.count) configured image(s) are skipped"
        )
        config.images = []
        config.openEPaperLink = []
        return nil
    }

    /// The runner over the helper found at start, and the uploader when tags are configured.
    func setUpImages(helper: String?) {
        guard let helper, !state.outputs.images.isEmpty else { return }
        renderer = RenderRunner(helper: helper)
        if !state.outputs.images.tags.isEmpty { uploader = HTTPClient(version: BreezeVersion.string) }
        log.debug("images: rendering with \(helper)")
    }

    /// The publisher's lookup from an image topic and its published reference to the bytes.
    func imageBytes() -> @Sendable (String, String) -> [UInt8]? {
        var byTopic: [String: (location: String, id: String)] = [:]
        for image in config.images {
            byTopic[state.layout.location(image.location).image(image.id).name] = (image.location, image.id)
        }
        let (store, topics) = (imageStore, byTopic)
        return { topic, reference in
            guard let image = topics[topic] else { return nil }
            return store.bytes(location: image.location, id: image.id, reference: reference)
        }
    }

    /// The runs of the render helper in flight, by image: where the state's stop and kill go.
    final class RenderControls: Sendable {
        private let running = Mutex<[ImageKey: RenderRunner.RunControl]>([:])

        subscript(key: ImageKey) -> RenderRunner.RunControl? { running.withLock { $0[key] } }

        func started(_ key: ImageKey, _ control: RenderRunner.RunControl) {
            running.withLock { $0[key] = control }
        }

        /// The run of `control` is over (a later run of the same image may have replaced it).
        func ended(_ key: ImageKey, _ control: RenderRunner.RunControl) {
            running.withLock { if $0[key] === control { $0[key] = nil } }
        }
    }

    /// The longest an upload may take (connect included).
    static let uploadTimeout: Duration = .seconds(30)

    /// POSTs a JPEG to an OpenEPaperLink access point: `mac`, then `dither` = 0, then `file`,
    /// in that order (the AP reads `mac` when the file part starts: OpenEPaperLink
    /// ESP32_AP-Flasher/src/web.cpp, `doImageUpload`).
    static func upload(_ upload: OpenEPaperLinkUpload, with client: HTTPClient) async -> UploadOutcome {
        var request = HTTPRequest(
            url: upload.url, connectTimeout: .seconds(10), totalTimeout: uploadTimeout, maxBodyBytes: 64 << 10)
        request.multipart = [
            MultipartPart(name: "mac", data: Array(upload.mac.utf8)),
            MultipartPart(name: "dither", data: Array("0".utf8)),
            MultipartPart(name: "file", data: upload.jpeg, filename: upload.filename, contentType: "image/jpeg"),
        ]
        do {
            return .status(try await client.postMultipart(request).status)
        } catch {
            return .failed(error.message)
        }
    }

    /// Performs the image actions of the loop that need no broker; returns false for others.
    /// `spawn` runs a closure as a child task of the loop's task group.
    func performImageAction(
        _ action: DaemonAction, report: @escaping @Sendable (DaemonEvent) -> Void,
        spawn: (@escaping @Sendable () async -> Void) -> Void
    ) -> Bool {
        switch action {
        case .render(let key, let request):
            guard let renderer else {
                report(.rendered(key, .failed("no render helper")))
                return true
            }
            guard let control = RenderRunner.RunControl(onPhase: { report(.renderPhase(key, $0)) }) else {
                report(.rendered(key, .failed("pipe: \(RenderRunner.errnoText())")))
                return true
            }
            renders.started(key, control)
            spawn { [renders] in
                let outcome = await renderer.render(request, control: control)
                renders.ended(key, control)
                report(.rendered(key, outcome))
            }
        case .stopRender(let key):
            renders[key]?.stop(.timedOut(after: ImagePipeline.renderTimeout.swiftDuration))
        case .killRender(let key):
            renders[key]?.endGrace()
        case .imageReady(let location, let id, let format, let bytes):
            imageStore.put(location: location, id: id, format: format, bytes: bytes)
        case .upload(let index, let request):
            guard let uploader else {
                report(.uploaded(index, .failed("no HTTP client")))
                return true
            }
            spawn {
                report(.uploaded(index, await Agent.upload(request, with: uploader)))
            }
        default:
            return false
        }
        return true
    }
}
