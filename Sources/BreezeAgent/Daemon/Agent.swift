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
import BreezeMQTT

#if canImport(Glibc)
    import Glibc
#endif

/// The agent: the daemon's decisions (``DaemonState``) and the edges that carry them out —
/// fetchers, the state directory, the log (docs/reference.md, Topics; docs/operations.md, Faults).
///
/// One task owns it: `run` feeds the state machine events (MQTT, commands, signals, timer,
/// finished fetches) one at a time and performs the actions it returns; fetches run in a task
/// group and report back as events, so a slow API never delays a command or a shutdown.
/// `once` and `print` run on the same loop with a one-shot policy (``OneShot``).
final class Agent {
    let config: AgentConfig
    let log: Log
    let store: StateStore
    let fetcher: FetchRunner
    var state: DaemonState
    /// The loop's clock (``DaemonClock``): the real one, or a test's.
    let clock: any DaemonClock
    /// The latest rendered images (docs/images.md), for the publisher and the HTTP server.
    let imageStore = ImageStore()
    /// The render helper; nil without images, or when it is missing (then images are skipped).
    var renderer: RenderRunner?
    /// The renders in flight, for the state's stop and kill.
    let renders = RenderControls()
    /// OpenEPaperLink uploads, on their own libcurl handle and queue: a slow access point never
    /// delays a fetch.
    var uploader: HTTPClient?

    init(
        config configured: AgentConfig, log: Log, store: StateStore, http: any HTTPFetching, demo: Bool,
        clock: any DaemonClock = SystemDaemonClock(), locateRenderHelper: () -> String? = { RenderRunner.locate() }
    ) {
        // Without the render helper the images are skipped as if not configured (one error).
        var config = configured
        let helper = Self.renderHelper(for: &config, log: log, locate: locateRenderHelper)
        self.config = config
        self.log = log
        self.store = store
        self.clock = clock
        self.fetcher = FetchRunner(http: http, config: config)
        let units = store.units()
        var locations: [LocationRuntime] = []
        var overruled: [String] = []
        for location in config.ownedLocations {
            var unit = location.unit
            if let choice = units[location.id], let chosen = TemperatureUnit(command: choice.unit) {
                if choice.configured == nil || choice.configured == config.climate.unitSetting {
                    unit = chosen
                } else {
                    overruled.append(location.id)
                    log.info(
                        "climate[\(location.id)]: climate.unit changed from \(choice.configured ?? "") to "
                            + "\(config.climate.unitSetting): \(location.unit.symbol) replaces the \(chosen.symbol) chosen with unit/set"
                    )
                }
            }
            locations.append(LocationRuntime(config: location, zone: location.zone, unit: unit))
        }
        if !overruled.isEmpty { store.removeUnits(for: overruled) }
        var generator = SystemRandomNumberGenerator()
        self.state = DaemonState(
            config: config, locations: locations, storedCalls: store.callCounts(), demo: demo, seed: generator.next())
        // The start time the announcement carries is the loop's clock's, as every other time.
        state.identify(host: currentHostname(), pid: Int(getpid()), started: clock.now().now)
        // What the access points already show: an unchanged image is not uploaded again.
        state.outputs.images.restoreUploaded(store.uploadedImages())
        setUpImages(helper: helper)
    }

    /// How long state topics wait to be cleared after the discovery config that stops using
    /// them (docs/reference.md, Topics removal order: no sooner than 3 s).
    static let clearDelayAfterDiscovery: Duration = .seconds(3)

    /// The publisher of the retained tree over `broker`: with discovery on, device configs
    /// change at once and state topics are cleared ``clearDelayAfterDiscovery`` later. Not
    /// `persisting`, it neither reads nor writes the published set in `state_dir` (`print`).
    func makePublisher(broker: any BrokerConnection, persisting: Bool = true) -> RetainedPublisher {
        let discovery = state.context.discoveryEnabled
        let layout = state.layout
        return RetainedPublisher(
            transport: MQTTTransport(broker: broker, qos: config.mqtt.qos, log: log), store: persisting ? store : nil,
            grouping: PublishedGrouping(layout: layout),
            clearDelay: discovery ? Self.clearDelayAfterDiscovery : .zero,
            clearsAtOnce: { layout.isDiscoveryTopic($0) }, binary: imageBytes(), dropsFlushedTrees: true,
            deviceConfigs: layout)
    }

    /// The clock as the state machine reads it.
    func time() -> DaemonTime { clock.now() }

    // MARK: stored responses (restarts spend no quota)

    /// Reads the last good responses from `state_dir` and hands them to the state
    /// (``DaemonEvent/restored(location:_:)``), whose actions are performed like any other; a
    /// source whose stored data is still within its schedule is not fetched again until it ages
    /// out (docs/operations.md, Faults). `only`: one source (`print` restores the stripes alone: fetching them again
    /// weighs ≈ 120 of Open-Meteo's calls).
    func restoreStoredResponses(
        only: SourceKind? = nil, loop: inout LoopEffects, group: inout DiscardingTaskGroup
    ) {
        for index in state.locations.indices {
            let id = state.locations[index].config.id
            let responses = state.storedResponseNames(index).compactMap { entry -> RestoredResponse? in
                guard only == nil || only == entry.kind,
                    let response = store.response(location: id, source: entry.name)
                else { return nil }
                return RestoredResponse(kind: entry.kind, name: entry.name, response: response)
            }
            guard !responses.isEmpty else { continue }
            perform(state.handle(.restored(location: index, responses), at: time()), loop: &loop, group: &group)
        }
    }

    // MARK: performing actions

    /// Performs the actions that need no broker: log lines and state-directory writes.
    /// Returns the others, in order, for the caller.
    func performLogsAndWrites(_ actions: [DaemonAction]) -> [DaemonAction] {
        var rest: [DaemonAction] = []
        for action in actions {
            switch action {
            case .log(let level, let message):
                switch level {
                case .debug: log.debug(message)
                case .info: log.info(message)
                case .warning: log.warning(message)
                case .error: log.error(message)
                }
            case .store(let write):
                perform(write)
            default:
                rest.append(action)
            }
        }
        return rest
    }

    private func perform(_ write: StoreWrite) {
        switch write {
        case .response(let response, let location, let source):
            store.saveResponse(response, location: location, source: source)
        case .removeResponse(let location, let source):
            store.removeResponse(location: location, source: source)
        case .callCounts(let counts):
            store.saveCallCounts(counts)
        case .unit(let unit, let location):
            store.saveUnit(unit, configured: config.climate.unitSetting, for: location)
        case .uploadedImages(let digests):
            store.saveUploadedImages(digests)
        }
    }
}
