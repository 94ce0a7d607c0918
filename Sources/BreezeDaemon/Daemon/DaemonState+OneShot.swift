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

/// `once` and `print` on the daemon's state: ``OneShot`` decides the phases; this routes the
/// loop's events to it and maps its actions onto the same children the daemon uses (the
/// planner's due fetches, ``pace(_:now:)``, ``begin(_:now:)``, ``apply(_:_:now:)``, the sinks,
/// the image pipeline, the device commands). In one-shot mode nothing of the daemon's
/// presence runs: no subscriptions, no `online`, no announcement, no diagnostics.
extension DaemonState {
    /// Puts the state in one-shot mode: every enabled source of every location is to be fetched once.
    package mutating func startOneShot(_ mode: OneShot.Mode, now: DaemonInstant) {
        var keys: [(FetchKey, String)] = []
        for index in locations.indices {
            // A shared source (the DWD's one document) is awaited of the location that fetches it.
            for kind in SourceKind.allCases where enabled(kind) && kind.fetches(at: index, in: config) {
                keys.append((FetchKey(location: index, kind: kind), "\(kind.rawValue)[\(locations[index].config.id)]"))
            }
        }
        oneShot = OneShot(mode, keys: keys, qos: config.mqtt.qos, now: now)
    }

    /// An event in one-shot mode (``handle(_:at:)`` routes here): its effect on the state, then
    /// what ``OneShot`` makes of it, and a wake at its next deadline.
    mutating func handleOneShot(_ event: DaemonEvent, at time: DaemonTime) -> [DaemonAction] {
        let now = time.now
        var actions: [DaemonAction] = []
        switch event {
        case .tick:
            actions = expireRuns() + oneShotStep(.tick, now: now)
        case .mqtt(.connected):
            actions = oneShotStep(.connected, now: now)
        case .prepared:
            actions = oneShotStep(.prepared, now: now)
        case .fetched(let key, let outcome):
            planner.fetches.finished(key)
            actions = apply(key, outcome, now: now)
            // Due again at once: the rules want another try now (`auto` falls back to Open-Meteo
            // when Google rejects the key).
            let fallBack = planner[key].isDue(at: now)
            actions += oneShotStep(.fetched(key, fallBack: fallBack, hasData: hasData(key)), now: now)
        case .rendered(let key, let outcome):
            // One flush after every render (``OneShot/Action/flush``), not one per image.
            actions = applyRendered(key, outcome, now: now).filter { if case .flush = $0 { false } else { true } }
            actions += rendersSettled(now: now)
        case .renderPhase(let key, let phase):
            actions = applyRenderPhase(key, phase)
        case .uploaded(let index, let outcome):
            // Logged; `once` does not wait for a retry.
            actions = applyUploaded(index, outcome, now: now) + rendersSettled(now: now)
        case .flushed(let sent, let clearsDueAt):
            actions = oneShotStep(.flushed(sent: sent, clearsDueAt: clearsDueAt), now: now)
        case .clearsHeld:
            break  // `once` learns of its held-back clears with `.flushed`
        case .outcomes(let outcomes):
            // Logged and kept out of the published set before the run's summary.
            actions = [.reportOutcomes(outcomes, pendingIsLost: true)]
            actions += oneShotStep(.outcomes(outcomes, failingImages: outputs.images.failing.map(\.image)), now: now)
        case .mqtt, .signal, .restored, .brokerProtocol, .outcomesSettled:
            break
        }
        // A render's timeout or grace is the only deadline of the images `once` waits for.
        if let at = [oneShot?.nextDeadline, outputs.images.nextRunDeadline].compactMap(\.self).min() {
            actions.append(.wake(at: at))
        }
        return actions
    }

    /// Hands ``OneShot`` an event and maps its actions.
    private mutating func oneShotStep(_ event: OneShot.Event, now: DaemonInstant) -> [DaemonAction] {
        guard var shot = oneShot else { return [] }
        let decided = shot.handle(event, now: now)
        oneShot = shot
        var actions: [DaemonAction] = []
        for action in decided {
            switch action {
            case .prepare:
                actions.append(.prepareOnce)
            case .startFetches(let due):
                for key in due { planner[key].due(at: now) }
                actions += startOneShotFetches(now: now)
            case .saveCallCounts:
                actions += callCountStore(now: now, force: true)
            case .setScopes:
                // The device commands come later, all at once (``OneShot/Action/sendDeviceCommands``).
                actions += scopeActions(now: now).filter {
                    switch $0 {
                    case .setScope, .log, .store: true
                    default: false
                    }
                }
            case .render:
                actions += startRenders(now: now) + rendersSettled(now: now)
            case .flush:
                actions.append(.flushAndReport)
            case .sendDeviceCommands:
                actions += sendAllDeviceCommands()
            case .awaitOutcomes(let timeout):
                actions.append(.awaitOutcomes(timeout: timeout))
            case .printTree:
                actions += printTree(now: now)
            case .connectFailed:
                actions.append(.reportConnectFailure)
            case .log(let level, let text):
                actions.append(.log(level, text))
            case .stop(let code):
                actions.append(.stop(exitCode: code))
            }
        }
        return actions
    }

    /// Starts every due fetch ``OneShot`` wants, each paced and begun in order as in `run`.
    private mutating func startOneShotFetches(now: DaemonInstant) -> [DaemonAction] {
        var actions: [DaemonAction] = []
        for key in planner.due(now: now, in: locations.indices)
        where oneShot?.wants(key) == true {
            let (started, how) = startFetch(key, now: now)
            actions += started
            let event: OneShot.Event =
                how == .deferred
                ? .deferred(key, until: planner[key].nextDue, hasData: hasData(key))
                : .began(key, fetching: how == .started, hasData: hasData(key))
            actions += oneShotStep(event, now: now)
        }
        return actions
    }

    /// ``OneShot/Event/rendersSettled`` once no render or upload is in flight.
    private mutating func rendersSettled(now: DaemonInstant) -> [DaemonAction] {
        outputs.images.isSettled ? oneShotStep(.rendersSettled, now: now) : []
    }

    /// `print`: `topic<TAB>payload` for every wanted topic (locations in config order, sinks in
    /// order), then the device commands (not retained) `once` and `run` would send.
    private mutating func printTree(now: DaemonInstant) -> [DaemonAction] {
        var out = ""
        let tree = printableTree(now: now)
        for topic in tree.topics { out += "\(topic)\t\(tree[topic]!)\n" }
        var actions: [DaemonAction] = []
        for action in sendAllDeviceCommands() {
            if case .publish(let message) = action {
                out += "\(message.topic)\t\(message.payload)\n"
            } else {
                actions.append(action)
            }
        }
        return actions + [.write(out)]
    }
}
