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
import BreezeMQTT
import Testing

/// When WLED and Tasmota commands are sent (SPEC §8), decided by the daemon's state machine:
/// driven with events and a fake clock, no broker.
@Suite("DaemonState: device commands and availability")
struct DeviceCommandStateTests {
    typealias D = DaemonStateTests

    static let outputs = """
        outputs:
          - {type: wled, topic: wled/strip1}
          - {type: tasmota, topic: bulb}
        """

    /// Today GRASS 4 (High), TREE 0, WEED none → max is grass, High (#ff3b30).
    static let wledHigh = #"{"seg":[{"id":0,"frz":false,"fx":0,"col":[[255,59,48]]}]}"#
    /// Today GRASS 1 (Low) → max Low (#34c759).
    static let wledLow = #"{"seg":[{"id":0,"frz":false,"fx":0,"col":[[52,199,89]]}]}"#

    static func lowReport(_ now: Int64) -> FetchOutcome {
        var report = D.report
        report.days[0].items[0].value = 1
        return .answer(
            .pollen,
            PollenAnswer(
                source: .google, outcome: .report(report, body: Array("{}".utf8)),
                fetchedAt: DaemonInstant(unixSeconds: now)))
    }

    /// The device commands among `actions` (the agent's own `<p>/diagnostics` left out).
    static func sent(_ actions: [DaemonAction]) -> [String] {
        D.published(actions).filter { $0.topic != "breeze/diagnostics" }.map { message in
            #expect(!message.retain, "device commands are not retained: \(message.topic)")
            return "\(message.topic) \(message.payload)"
        }
    }

    /// Started, connected, first pollen data applied; devices still unknown.
    static func connectedWithData(_ extra: String = outputs) throws -> DaemonState {
        var state = D.machine(try D.config(extra))
        _ = state.start(at: D.at(D.t0))
        _ = state.handle(.mqtt(.connected), at: D.at(D.t0 + 1))
        let actions = state.handle(.fetched(D.pollenKey, D.pollenOK(D.t0 + 2)), at: D.at(D.t0 + 2))
        // Unknown devices are sent nothing: their retained status comes with the subscription.
        #expect(sent(actions).isEmpty)
        return state
    }

    @Test func connectSubscribesToEveryDeviceAvailabilityTopic() throws {
        var state = D.machine(try D.config(Self.outputs))
        _ = state.start(at: D.at(D.t0))
        let actions = state.handle(.mqtt(.connected), at: D.at(D.t0))
        let topics: [String] = actions.flatMap { action -> [String] in
            if case .subscribe(let topics) = action { topics } else { [] }
        }
        #expect(topics.contains("wled/strip1/status"))
        #expect(topics.contains("tele/bulb/LWT"))
    }

    @Test func unknownToOnlineSendsOnlineToOnlineDoesNot() throws {
        var state = try Self.connectedWithData()
        let now = D.t0 + 3
        let first = state.handle(D.message("wled/strip1/status", "online", retain: true), at: D.at(now))
        #expect(Self.sent(first) == ["wled/strip1/api \(Self.wledHigh)"])
        // WLED says `online` again after applying the command (and after any user change).
        for _ in 0..<3 {
            #expect(Self.sent(state.handle(D.message("wled/strip1/status", "online"), at: D.at(now))).isEmpty)
        }
        let tasmota = state.handle(D.message("tele/bulb/LWT", "Online", retain: true), at: D.at(now))
        // The light must stay off (power: leave) and its state is not known: asked first.
        #expect(Self.sent(tasmota) == ["cmnd/bulb/Power ", "cmnd/bulb/Color #ff3b30"])
        #expect(Self.sent(state.handle(D.message("tele/bulb/LWT", "Online"), at: D.at(now))).isEmpty)
    }

    /// `climate_stripes` is fed by the stripes fetch (SPEC §8, §9.1), not by pollen; a strip
    /// online before the stripes are known is sent them when they arrive. `risk:<profile>` is
    /// fed by pollen, in today's risk color.
    @Test func climateStripesFollowTheStripesFetchAndRiskTheProfile() throws {
        var state = try Self.connectedWithData(
            """
            profiles:
              - {id: anna, allergens: [tree]}
            outputs:
              - {type: wled, topic: w/stripes, show: climate_stripes, leds: 3}
              - {type: wled, topic: w/risk, show: "risk:anna"}
            """)
        let online = state.handle(D.message("w/stripes/status", "online"), at: D.at(D.t0 + 3))
        #expect(Self.sent(online).isEmpty, "no stripes known yet")
        // Tree 0 today: the profile's risk is None (#34c759), though the max pollen is High.
        let risk = state.handle(D.message("w/risk/status", "online"), at: D.at(D.t0 + 3))
        #expect(Self.sent(risk) == ["w/risk/api \(Self.wledLow)"])

        let data = try D.stripesData(D.t0 + 4)
        let lastThree = data.series.years.suffix(3).map { "\"" + $0.color.description.dropFirst().uppercased() + "\"" }
        #expect(lastThree.count == 3)
        let stripes = state.handle(.fetched(D.stripesKey, try D.stripesOK(D.t0 + 4)), at: D.at(D.t0 + 4))
        #expect(
            Self.sent(stripes) == [
                #"w/stripes/api {"seg":[{"id":0,"start":0,"stop":3,"frz":false,"fx":0,"col":[[0,0,0]],"i":["#
                    + lastThree.joined(separator: ",") + "]}]}"
            ])
        // Grass 4 → 1 changes the max pollen but not the profile's tree: nothing to either strip.
        let changed = state.handle(.fetched(D.pollenKey, Self.lowReport(D.t0 + 5)), at: D.at(D.t0 + 5))
        #expect(Self.sent(changed).isEmpty)
        // A reboot re-sends the stripes (10 s after the last batch: SPEC §16's limit).
        _ = state.handle(D.message("w/stripes/status", "offline"), at: D.at(D.t0 + 13))
        let back = state.handle(D.message("w/stripes/status", "online"), at: D.at(D.t0 + 14))
        #expect(Self.sent(back).count == 1 && Self.sent(back).first?.hasPrefix("w/stripes/api ") == true)
    }

    @Test func offlineToOnlineResends() throws {
        var state = try Self.connectedWithData()
        _ = state.handle(D.message("wled/strip1/status", "online"), at: D.at(D.t0 + 3))
        // The device reboots: its will says offline, then it comes back.
        #expect(Self.sent(state.handle(D.message("wled/strip1/status", "offline"), at: D.at(D.t0 + 4))).isEmpty)
        #expect(state.outputs.devices.availability[0] == .offline)
        // Back within 10 s of the last batch: held (SPEC §16), sent when the 10 s are up.
        let back = state.handle(D.message("wled/strip1/status", "online"), at: D.at(D.t0 + 5))
        #expect(Self.sent(back).isEmpty)
        #expect(D.wake(back).map { $0 <= D.t0 + 13 } == true)
        #expect(Self.sent(state.handle(.tick, at: D.at(D.t0 + 13))) == ["wled/strip1/api \(Self.wledHigh)"])
    }

    @Test func dataChangeSendsNoChangeSendsNothing() throws {
        var state = try Self.connectedWithData()
        _ = state.handle(D.message("wled/strip1/status", "online"), at: D.at(D.t0 + 3))
        _ = state.handle(D.message("tele/bulb/LWT", "Online"), at: D.at(D.t0 + 3))
        // The same data again (a refetch, ticks): nothing.
        let same = state.handle(.fetched(D.pollenKey, D.pollenOK(D.t0 + 10)), at: D.at(D.t0 + 10))
        #expect(Self.sent(same).isEmpty)
        #expect(Self.sent(state.handle(.tick, at: D.at(D.t0 + 20))).isEmpty)
        // A climate fetch does not touch pollen devices.
        #expect(
            Self.sent(state.handle(.fetched(D.climateKey, try D.climateOK(D.t0 + 25)), at: D.at(D.t0 + 25))).isEmpty)
        // New levels: each device is sent once.
        let changed = state.handle(.fetched(D.pollenKey, Self.lowReport(D.t0 + 30)), at: D.at(D.t0 + 30))
        #expect(
            Self.sent(changed) == ["wled/strip1/api \(Self.wledLow)", "cmnd/bulb/Power ", "cmnd/bulb/Color #34c759"])
        #expect(Self.sent(state.handle(.tick, at: D.at(D.t0 + 40))).isEmpty)
    }

    @Test func changeWhileOfflineIsSentWhenTheDeviceReturns() throws {
        var state = try Self.connectedWithData()
        _ = state.handle(D.message("wled/strip1/status", "online"), at: D.at(D.t0 + 3))
        _ = state.handle(D.message("wled/strip1/status", "offline"), at: D.at(D.t0 + 4))
        let changed = state.handle(.fetched(D.pollenKey, Self.lowReport(D.t0 + 5)), at: D.at(D.t0 + 5))
        #expect(Self.sent(changed).isEmpty)
        let back = state.handle(D.message("wled/strip1/status", "online"), at: D.at(D.t0 + 13))
        #expect(Self.sent(back) == ["wled/strip1/api \(Self.wledLow)"])
    }

    @Test func brokerReconnectResetsAvailabilityToUnknown() throws {
        var state = try Self.connectedWithData()
        _ = state.handle(D.message("wled/strip1/status", "online"), at: D.at(D.t0 + 3))
        _ = state.handle(.mqtt(.disconnected(reason: "test")), at: D.at(D.t0 + 11))
        let reconnect = state.handle(.mqtt(.connected), at: D.at(D.t0 + 12))
        // Only the agent's own status, diagnostics and announcement: no device command before a
        // status arrives.
        #expect(D.published(reconnect).map(\.topic) == ["breeze/status", "breeze/diagnostics", "breeze/agent/-"])
        #expect(state.outputs.devices.availability == [.unknown, .unknown])
        // The retained `online` that comes with the new subscription sends again (the device
        // may have missed a change while the agent was away).
        let online = state.handle(D.message("wled/strip1/status", "online", retain: true), at: D.at(D.t0 + 13))
        #expect(Self.sent(online) == ["wled/strip1/api \(Self.wledHigh)"])
    }

    @Test func onlineBeforeAnyDataSendsOnceDataArrives() throws {
        var state = D.machine(try D.config(Self.outputs))
        _ = state.start(at: D.at(D.t0))
        _ = state.handle(.mqtt(.connected), at: D.at(D.t0))
        let early = state.handle(D.message("wled/strip1/status", "online", retain: true), at: D.at(D.t0))
        #expect(Self.sent(early).isEmpty)
        #expect(D.logs(early, .info) == ["output wled wled/strip1: online; nothing to show yet"])
        let data = state.handle(.fetched(D.pollenKey, D.pollenOK(D.t0 + 2)), at: D.at(D.t0 + 2))
        #expect(Self.sent(data) == ["wled/strip1/api \(Self.wledHigh)"])
    }

    @Test func otherPayloadsOnAvailabilityTopicsAreIgnored() throws {
        var state = try Self.connectedWithData()
        for payload in ["", "Online", "ONLINE", "1", "\u{FF}"] {
            #expect(D.published(state.handle(D.message("wled/strip1/status", payload), at: D.at(D.t0 + 3))).isEmpty)
        }
        // Tasmota's words are capitalised; WLED's are not.
        #expect(D.published(state.handle(D.message("tele/bulb/LWT", "online"), at: D.at(D.t0 + 3))).isEmpty)
        #expect(state.outputs.devices.availability == [.unknown, .unknown])
    }

    @Test func powerOnOnlyWhenConfigured() throws {
        var state = try Self.connectedWithData(
            """
            outputs:
              - {type: wled, topic: w/leave, show: pollen_types, leds: 10}
              - {type: wled, topic: w/on, power: on, brightness: 40}
              - {type: tasmota, topic: bulb, power: on}
            """)
        let leave = Self.sent(state.handle(D.message("w/leave/status", "online"), at: D.at(D.t0 + 3)))
        // GRASS 4 High, TREE 0 None, WEED no index → Unknown; thirds of 10 LEDs: 0–3, 3–6, 6–10.
        #expect(
            leave == [
                "w/leave/api "
                    + #"{"seg":[{"id":0,"start":0,"stop":3,"frz":false,"fx":0,"col":[[255,59,48]]},"#
                    + #"{"id":1,"start":3,"stop":6,"frz":false,"fx":0,"col":[[52,199,89]]},"#
                    + #"{"id":2,"start":6,"stop":10,"frz":false,"fx":0,"col":[[142,142,147]]}]}"#
            ])
        let on = Self.sent(state.handle(D.message("w/on/status", "online"), at: D.at(D.t0 + 3)))
        #expect(on == [#"w/on/api {"on":true,"bri":40,"seg":[{"id":0,"frz":false,"fx":0,"col":[[255,59,48]]}]}"#])
        let bulb = Self.sent(state.handle(D.message("tele/bulb/LWT", "Online"), at: D.at(D.t0 + 3)))
        #expect(bulb == ["cmnd/bulb/Color #ff3b30", "cmnd/bulb/Power ON"])
    }

    @Test func devicesOfAnotherLocationAreNotSent() throws {
        var state = D.machine(
            try D.config(
                """
                outputs:
                  - {type: wled, topic: w/office, location: office}
                """,
                locations: """
                    locations:
                      - {id: home, latitude: 52.52, longitude: 13.405, timezone: UTC}
                      - {id: office, latitude: 52.52, longitude: 13.405, timezone: UTC}
                    """))
        _ = state.start(at: D.at(D.t0))
        _ = state.handle(.mqtt(.connected), at: D.at(D.t0))
        _ = state.handle(D.message("w/office/status", "online"), at: D.at(D.t0))
        let home = state.handle(.fetched(D.pollenKey, D.pollenOK(D.t0 + 1)), at: D.at(D.t0 + 1))
        #expect(Self.sent(home).isEmpty)
        let office = state.handle(
            .fetched(FetchKey(location: 1, kind: .pollen), D.pollenOK(D.t0 + 2)), at: D.at(D.t0 + 2))
        #expect(Self.sent(office) == ["w/office/api \(Self.wledHigh)"])
    }
}

/// SPEC §8: with `power: leave` a Tasmota light must stay off; `Color` switches it on unless
/// the device has SetOption20 1, so the agent warns once when the device's answer shows it did.
@Suite("DaemonState: Tasmota power-on check")
struct TasmotaPowerCheckTests {
    typealias D = DaemonStateTests
    typealias S = DeviceCommandStateTests

    static func online(_ outputs: String = "outputs:\n  - {type: tasmota, topic: bulb}") throws -> DaemonState {
        var state = try S.connectedWithData(outputs)
        _ = state.handle(D.message("tele/bulb/LWT", "Online", retain: true), at: D.at(D.t0 + 3))
        return state
    }

    static func warnings(_ actions: [DaemonAction]) -> [String] { D.logs(actions, .warning) }

    @Test func subscribesToTheResultAndPowerTopics() throws {
        var state = D.machine(try D.config("outputs:\n  - {type: tasmota, topic: bulb}"))
        _ = state.start(at: D.at(D.t0))
        let actions = state.handle(.mqtt(.connected), at: D.at(D.t0))
        let topics: [String] = actions.flatMap { action -> [String] in
            if case .subscribe(let topics) = action { topics } else { [] }
        }
        #expect(Array(topics.suffix(3)) == ["tele/bulb/LWT", "stat/bulb/RESULT", "stat/bulb/POWER"])
    }

    @Test func warnsOnceWhenTheColorSwitchedAnOffLightOn() throws {
        var state = try Self.online()
        let at = D.at(D.t0 + 4)
        // The answer to the query, then the answer to Color (SetOption20 0: power went on).
        #expect(Self.warnings(state.handle(D.message("stat/bulb/RESULT", #"{"POWER":"OFF"}"#), at: at)).isEmpty)
        let answer = state.handle(D.message("stat/bulb/RESULT", #"{"POWER":"ON","Color":"FF3B30"}"#), at: at)
        #expect(
            Self.warnings(answer) == [
                "output tasmota bulb: the light was off and its color command switched it on; set SetOption20 1 on the device (or power: on in the config), see docs/displays.md"
            ])
        #expect(D.published(answer).isEmpty)
        // The user switches it off again; the next change does the same: no second warning.
        _ = state.handle(D.message("stat/bulb/POWER", "OFF"), at: at)
        let change = state.handle(.fetched(D.pollenKey, S.lowReport(D.t0 + 13)), at: D.at(D.t0 + 13))
        #expect(S.sent(change) == ["cmnd/bulb/Color #34c759"], "the state is known: no query")
        let again = state.handle(D.message("stat/bulb/RESULT", #"{"POWER":"ON","Color":"34C759"}"#), at: at)
        #expect(Self.warnings(again).isEmpty)
    }

    @Test func noWarningWithSetOption20OrWhenTheLightWasAlreadyOn() throws {
        var state = try Self.online()
        let at = D.at(D.t0 + 4)
        _ = state.handle(D.message("stat/bulb/RESULT", #"{"POWER":"OFF"}"#), at: at)
        // SetOption20 1: the color changes, the power stays off.
        #expect(
            Self.warnings(state.handle(D.message("stat/bulb/RESULT", #"{"POWER":"OFF","Color":"FF3B30"}"#), at: at))
                .isEmpty)
        // The user turns it on; a later color command finds it on: not the agent's doing.
        _ = state.handle(D.message("stat/bulb/POWER", "ON"), at: at)
        _ = state.handle(.fetched(D.pollenKey, S.lowReport(D.t0 + 13)), at: D.at(D.t0 + 13))
        #expect(
            Self.warnings(state.handle(D.message("stat/bulb/RESULT", #"{"POWER":"ON","Color":"34C759"}"#), at: at))
                .isEmpty)
    }

    @Test func powerOnSendsNoQueryAndNeverWarns() throws {
        var state = try S.connectedWithData("outputs:\n  - {type: tasmota, topic: bulb, power: on}")
        let sent = state.handle(D.message("tele/bulb/LWT", "Online"), at: D.at(D.t0 + 3))
        #expect(S.sent(sent) == ["cmnd/bulb/Color #ff3b30", "cmnd/bulb/Power ON"])
        let at = D.at(D.t0 + 4)
        _ = state.handle(D.message("stat/bulb/POWER", "OFF"), at: at)
        #expect(
            Self.warnings(state.handle(D.message("stat/bulb/RESULT", #"{"POWER":"ON","Color":"FF3B30"}"#), at: at))
                .isEmpty)
    }

    @Test func aDeviceThatWentAwayIsAskedAgain() throws {
        var state = try Self.online()
        _ = state.handle(D.message("stat/bulb/RESULT", #"{"POWER":"OFF"}"#), at: D.at(D.t0 + 4))
        _ = state.handle(D.message("tele/bulb/LWT", "Offline"), at: D.at(D.t0 + 5))
        let back = state.handle(D.message("tele/bulb/LWT", "Online"), at: D.at(D.t0 + 13))
        #expect(S.sent(back) == ["cmnd/bulb/Power ", "cmnd/bulb/Color #ff3b30"])
    }
}

/// The device outputs' child alone: its own actions, no daemon around it.
@Suite("DeviceCommandState alone: availability and commands as its own actions")
struct DeviceCommandChildTests {
    typealias D = DaemonStateTests

    @Test func availabilityDecidesAndCommandsGoOutAsItsOwnActions() throws {
        let config = try D.config("outputs:\n  - {type: wled, topic: wled/strip1}")
        var devices = DeviceCommandState(sinks: Sinks.devices(for: config))
        #expect(devices.availabilityTopics == ["wled/strip1/status"])
        // Online before any data: nothing to show yet.
        let early = devices.handle(
            MQTTMessage(topic: "wled/strip1/status", string: "online"), qos: 1, now: .init(unixSeconds: D.t0 + 3))
        #expect(early == [.log(.info, "output wled wled/strip1: online; nothing to show yet")])
        // Not one of its topics: not its message.
        #expect(
            devices.handle(
                MQTTMessage(topic: "breeze/home/refresh", string: "1"), qos: 1, now: .init(unixSeconds: D.t0 + 3))
                == nil)
        // Offline, then back online once there is something to show: it is sent.
        #expect(
            devices.handle(
                MQTTMessage(topic: "wled/strip1/status", string: "offline"), qos: 1, now: .init(unixSeconds: D.t0 + 3))
                == [.log(.info, "output wled wled/strip1: offline")])
        var state = D.machine(config)
        _ = state.start(at: D.at(D.t0))
        _ = state.handle(.fetched(D.pollenKey, D.pollenOK(D.t0 + 2)), at: D.at(D.t0 + 2))
        let snapshot = LocationSnapshot(
            location: state.locations[0], topics: state.layout.location("home"),
            pollen: state.locations[0].pollenView(settings: config.pollen, now: DaemonInstant(unixSeconds: D.t0 + 2)),
            now: DaemonInstant(unixSeconds: D.t0 + 2))
        #expect(
            devices.update(snapshot, context: state.context, kind: .pollen, now: .init(unixSeconds: D.t0 + 2)).isEmpty)
        let back = devices.handle(
            MQTTMessage(topic: "wled/strip1/status", string: "online"), qos: 1, now: .init(unixSeconds: D.t0 + 3))
        #expect(
            back.map { $0.compactMap { if case .send(let message) = $0 { message } else { nil } } }
                == [
                    OutgoingMessage(
                        topic: "wled/strip1/api", payload: DeviceCommandStateTests.wledHigh, qos: 1, retain: false)
                ])
        // A repeated `online` (WLED says it after every change): nothing.
        #expect(
            devices.handle(
                MQTTMessage(topic: "wled/strip1/status", string: "online"), qos: 1, now: .init(unixSeconds: D.t0 + 3))
                == [])
    }
}
