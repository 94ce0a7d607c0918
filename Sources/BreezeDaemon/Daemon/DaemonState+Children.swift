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

// What the children's actions become: each child speaks its own vocabulary, and these are the
// only places that translate it into the daemon's.

extension DaemonState {
    /// Maps the presence child's actions to the daemon's.
    mutating func perform(_ presenceActions: [Presence.Action], at time: DaemonTime) -> [DaemonAction] {
        var actions: [DaemonAction] = []
        for action in presenceActions {
            switch action {
            case .log(let level, let text):
                actions.append(.log(level, text))
            case .announce:
                actions += announce(now: time.now)
            case .publishDiagnostics:
                actions.append(
                    .publish(
                        .init(topic: layout.diagnostics.name, payload: diagnosticsJSON(at: time), qos: 0, retain: false)
                    )
                )
            case .republishDiscovery:
                for location in locations {
                    actions.append(.republish(scope: layout.location(location.config.id).deviceConfig.name))
                }
            }
        }
        return actions
    }

    /// Maps the identity child's actions to the daemon's.
    mutating func perform(_ identityActions: [IdentityGuard.Action], at time: DaemonTime) -> [DaemonAction] {
        var actions: [DaemonAction] = []
        for action in identityActions {
            switch action {
            case .announce(let payload):
                actions.append(
                    .publish(.init(topic: identity.topic, payload: payload, qos: config.mqtt.qos, retain: true)))
            case .reassertOnline:
                actions.append(
                    .publish(
                        .init(
                            topic: layout.status.name, payload: Availability.online, qos: config.mqtt.qos, retain: true)
                    ))
            case .reconnectDelay(let delay):
                actions.append(.reconnectDelay(delay))
            case .holdRemoved(let scopes):
                actions.append(.handover(.hold(scopes: scopes)))
            case .releaseRemoved(let scopes):
                actions += [.handover(.release(scopes: scopes)), .flush(persist: true)]
            case .publishDiagnostics:
                actions += perform([Presence.Action.publishDiagnostics], at: time)
            case .log(let level, let text):
                actions.append(.log(level, text))
            }
        }
        return actions
    }

    /// Maps the device outputs' actions to the daemon's.
    func perform(_ deviceActions: [DeviceCommandState.Action]) -> [DaemonAction] {
        deviceActions.map { action in
            switch action {
            case .send(let message): .publish(message)
            case .log(let level, let text): .log(level, text)
            }
        }
    }

    /// Maps the handover child's actions to the daemon's.
    func perform(_ handoverActions: [ShardHandover.Action]) -> [DaemonAction] {
        handoverActions.map { action in
            switch action {
            case .step(let step): .handover(step)
            case .subscribe(let topics): .subscribe(topics)
            case .log(let level, let text): .log(level, text)
            }
        }
    }

    /// Maps the call ledger's actions to the daemon's.
    func perform(_ ledgerActions: [CallLedger.Action]) -> [DaemonAction] {
        ledgerActions.map { action in
            switch action {
            case .save(let counts): .store(.callCounts(counts))
            case .log(let level, let text): .log(level, text)
            }
        }
    }

    /// Maps the images' actions to the daemon's.
    func perform(_ imageActions: [ImagePipeline.Action]) -> [DaemonAction] {
        imageActions.map { action in
            switch action {
            case .render(let key, let request): .render(key, request)
            case .stopRender(let key): .stopRender(key)
            case .killRender(let key): .killRender(key)
            case .ready(let location, let id, let format, let bytes):
                .imageReady(location: location, id: id, format: format, bytes: bytes)
            case .show(let scope): .setScope(scope)
            case .flush: .flush(persist: true)
            case .upload(let index, let upload): .upload(index, upload)
            case .saveUploaded(let digests): .store(.uploadedImages(digests))
            case .log(let level, let text): .log(level, text)
            }
        }
    }

    /// Carries out what the commands child decided: the clear, the refresh, the unit shown.
    mutating func perform(_ commandActions: [Commands.Action], now: DaemonInstant) -> [DaemonAction] {
        var actions: [DaemonAction] = []
        for action in commandActions {
            switch action {
            case .clear(let topic):
                actions.append(.publish(.init(topic: topic, payload: "", qos: config.mqtt.qos, retain: true)))
            case .refresh(let index, let id, let republish):
                actions += refresh(index, id: id, republish: republish, now: now)
            case .applyUnit(let index, let unit, let note):
                actions += applyUnit(index, unit, now: now, note: note)
            case .wake:
                actions.append(wake(now: now))
            case .log(let level, let text):
                actions.append(.log(level, text))
            }
        }
        return actions
    }

    // MARK: the broker

    /// Connected: subscribe, say `online`, and publish the whole tree again.
    private mutating func announce(now: DaemonInstant) -> [DaemonAction] {
        var topics = locations.flatMap { layout.location($0.config.id).commandTopics.map(\.name) }
        // Another instance on this identity, and someone else's `offline` on ours (docs/operations.md, Limits).
        topics += [layout.agent.name, layout.status.name]
        if context.discoveryEnabled { topics.append(layout.homeAssistantBirth.name) }
        // Devices are unknown until their retained status arrives with the subscription.
        outputs.devices.brokerConnected()
        topics += outputs.devices.availabilityTopics
        var actions: [DaemonAction] = [
            .subscribe(topics),
            .publish(
                .init(topic: layout.status.name, payload: Availability.online, qos: config.mqtt.qos, retain: true)),
        ]
        let handing = perform(handover.brokerConnected(now: now))
        if !handing.isEmpty { actions += handing + [wake(now: now)] }
        // The broker may have lost its retained store: publish the whole tree again. The
        // publisher forgets trees once flushed (memory per location), so every scope is
        // set again first.
        actions += scopeActions(now: now)
        actions.append(.republishAll)
        republishing.removeAll()
        return actions
    }

    /// Holds the scopes of the locations this shard published and no longer owns (run and
    /// once); `published` is the publisher's persisted set.
    package mutating func beginHandover(published: [String: PayloadDigest]) -> [DaemonAction] {
        handover = ShardHandover(config: config, layout: layout, published: published)
        return perform(handover.begin())  // holds and log lines: nothing a demo must guard
    }

    /// `run` without `shard`: holds the topics of locations removed from the configuration
    /// until the first connect has shown no other live instance (IdentityGuard).
    package mutating func holdRemovedLocations(published: [String: PayloadDigest]) -> [DaemonAction] {
        let decided = identity.holdRemovedLocations(published: published, config: config, layout: layout)
        var actions: [DaemonAction] = []
        for action in decided {
            switch action {
            case .holdRemoved(let scopes): actions.append(.handover(.hold(scopes: scopes)))
            case .log(let level, let text): actions.append(.log(level, text))
            default: break
            }
        }
        return actions
    }

    /// What the daemon publishes when it leaves, connected (``IdentityGuard/farewell(status:qos:)``).
    package var farewell: [OutgoingMessage] { identity.farewell(status: layout.status.name, qos: config.mqtt.qos) }

    // MARK: commands

    /// Shows location `index`'s climate in `unit` when it differs from the one shown.
    private mutating func applyUnit(_ index: Int, _ unit: TemperatureUnit, now: DaemonInstant, note: String)
        -> [DaemonAction]
    {
        guard unit != locations[index].unit else { return note.isEmpty ? [] : [.log(.info, note)] }
        let id = locations[index].config.id
        locations[index].unit = unit
        return [
            .store(.unit(unit.symbol, location: id)),
            .log(.info, "command: climate unit of \(id) is now \(unit.symbol)" + (note.isEmpty ? "" : " (\(note))")),
        ] + scopeActions(now: now, only: index) + [.flush(persist: true)]
    }

    /// A `refresh` command (``FetchPlanner/refresh(_:id:now:)``): what it made due starts now;
    /// with `republish`, the location's whole tree is queued to be published again
    /// (``RepublishQueue``).
    private mutating func refresh(_ index: Int, id: String, republish: Bool, now: DaemonInstant) -> [DaemonAction] {
        var actions: [DaemonAction] = []
        let planned = planner.refresh(index, id: id, now: now)
        for case .log(let level, let text) in planned { actions.append(.log(level, text)) }
        if republish { republishing.add(index) }
        for case .startDue(let location) in planned {
            actions += startDueFetches(now: now, changed: location)
            actions.append(wake(now: now))
        }
        return actions
    }
}
