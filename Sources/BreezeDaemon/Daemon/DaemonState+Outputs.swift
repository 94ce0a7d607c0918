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

// The outputs that are not retained sinks: the device commands and the images (what each image
// shows is worked out here from the locations; its renders and uploads are ``ImagePipeline``'s).

extension DaemonState {
    /// `once` and `print`: every device's known commands, whatever its availability
    /// (``DeviceCommandState/sendAll(qos:)``).
    mutating func sendAllDeviceCommands() -> [DaemonAction] { perform(outputs.devices.sendAll(qos: config.mqtt.qos)) }

    // MARK: rendering

    /// What the image should show now; nil while none of the data it draws is known yet (a
    /// fresh start: the published image of the last run stays until there is something to draw).
    func renderRequest(_ key: ImageKey, now: DaemonInstant) -> RenderRequest? {
        let image = outputs.images[key]
        let location = locations[image.location]
        let kind = image.config.kind
        var known = false
        var selection: PollenSelection?
        if kind == .pollen || kind == .summary {
            switch location.pollenView(settings: config.pollen, now: now) {
            case .unknown: break
            case .unavailable: known = true
            case .selected(let selected, _):
                selection = selected
                known = true
            }
        }
        let climate = config.climate.enabled ? location.climate?.trend : nil
        let stripes = config.climate.enabled ? location.stripes?.series : nil
        if kind == .climate || kind == .summary { known = known || climate != nil }
        if kind == .stripes || kind == .summary { known = known || stripes != nil }
        guard known else { return nil }
        let content = ImageContentBuilder.content(
            kind: kind,
            .init(
                locationName: location.config.name, pollen: selection, palette: config.pollen.colors,
                climate: climate, unit: location.unit, stripes: stripes, language: config.language))
        return RenderRequest(
            kind: kind, width: image.config.width, height: image.config.height, palette: image.config.palette,
            format: image.config.format, content: content)
    }

    /// The images' decisions after an event: runs past their timeout or grace, renders whose
    /// request changed (at most one per image and minute), uploads due; plus the next wake when
    /// anything is waiting.
    mutating func imageActions(after event: DaemonEvent, now: DaemonInstant) -> [DaemonAction] {
        guard !outputs.images.isEmpty else { return [] }
        switch event {
        case .tick, .fetched, .rendered, .uploaded, .renderPhase: break
        case .mqtt(let mqtt):
            guard case .message = mqtt else { return [] }
            // Only a `unit/set` changes what an image shows.
            let units = locations.map(\.unit)
            guard units != outputs.images.units else { return [] }
            outputs.images.units = units
        default: return []
        }
        let actions = expireRuns() + startRenders(now: now) + startUploads(now: now)
        guard !actions.isEmpty || outputs.images.nextWake != nil else { return [] }
        return actions + [wake(now: now)]
    }

    /// Starts the render of every image whose request changed (``ImagePipeline/startRenders(now:requests:)``).
    mutating func startRenders(now: DaemonInstant) -> [DaemonAction] {
        let requests = outputs.images.images.indices.map { index in
            outputs.images.images[index].inFlight ? nil : renderRequest(ImageKey(index: index), now: now)
        }
        return perform(outputs.images.startRenders(now: now, requests: requests))
    }

    /// A run of the render helper started or was sent SIGTERM (``ImagePipeline/phase(_:_:)``).
    mutating func applyRenderPhase(_ key: ImageKey, _ phase: RenderPhase) -> [DaemonAction] {
        perform(outputs.images.phase(key, phase))
    }

    /// Stops or kills the runs whose timeout or grace is over (``ImagePipeline/expireRuns()``).
    mutating func expireRuns() -> [DaemonAction] { perform(outputs.images.expireRuns()) }

    /// A render came back (``ImagePipeline/rendered(_:_:now:)``).
    mutating func applyRendered(_ key: ImageKey, _ outcome: RenderOutcome, now: DaemonInstant) -> [DaemonAction] {
        perform(outputs.images.rendered(key, outcome, now: now))
    }

    /// An upload came back (``ImagePipeline/uploaded(_:_:now:random:)``).
    mutating func applyUploaded(_ index: Int, _ outcome: UploadOutcome, now: DaemonInstant) -> [DaemonAction] {
        perform(outputs.images.uploaded(index, outcome, now: now, random: &random))
    }

    /// Starts the uploads whose time has come (``ImagePipeline/startUploads(now:)``).
    mutating func startUploads(now: DaemonInstant) -> [DaemonAction] { perform(outputs.images.startUploads(now: now)) }

    /// Every image's topic as a scope: its latest render, or kept (nil) before the first one.
    func imageScopes() -> [DaemonAction] { outputs.images.scopes.map { .setScope($0) } }
}
