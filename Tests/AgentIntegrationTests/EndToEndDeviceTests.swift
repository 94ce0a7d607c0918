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
import BreezeConfig
import BreezeCore
import BreezeMQTT
import BreezeTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// SPEC §8 end to end: the built binary on the demo's data (served by the loopback APIs:
/// `--demo` itself commands no device), a real mosquitto, and a stand-in
/// for each device (DeviceStandIns.swift) receiving the agent's payloads after `once` and
/// during `run` — a device reboot re-sends, a repeated `online` does not, a light with
/// `power: leave` is not switched on, and an output removed from the config is cleaned up.
@Suite("End to end: device outputs (WLED, Tasmota, Awtrix, display)")
struct EndToEndDeviceTests {
    /// The demo's pollen today: GRASS 2 (Moderate, #ff9500), TREE 4 (High, #ff3b30), WEED 0
    /// (None, #34c759); the max is Tree, High.
    static let wledTypes =
        #"{"bri":128,"seg":[{"id":0,"start":0,"stop":20,"frz":false,"fx":0,"col":[[255,149,0]]},"#
        + #"{"id":1,"start":20,"stop":40,"frz":false,"fx":0,"col":[[255,59,48]]},"#
        + #"{"id":2,"start":40,"stop":60,"frz":false,"fx":0,"col":[[52,199,89]]}]}"#
    static let tasmotaColor = "#ff3b30"
    static let indicator = ##"{"color":"#ff3b30"}"##

    /// The demo's answers (``DemoResponder``'s bodies) from the loopback APIs, for "today" in
    /// Europe/Berlin (the devices' location): the agent runs on a real configuration with the
    /// demo's values, since `--demo` commands no device (issue 39; DemoGuard).
    static func demoRoutes() -> FakeAPIs.Routes {
        @Sendable func today() -> CivilDate {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "Europe/Berlin")!
            let parts = calendar.dateComponents([.year, .month, .day], from: Date())
            return CivilDate(year: parts.year!, month: parts.month!, day: parts.day!)!
        }
        @Sendable func json(_ body: String) -> LoopbackHTTPServer.Action {
            .respond(status: 200, headers: [("Content-Type", "application/json")], body: Array(body.utf8))
        }
        @Sendable func date(_ text: String?) -> CivilDate? { text.flatMap { CivilDate(iso: $0) } }
        return FakeAPIs.Routes(
            google: { request in
                json(DemoResponder.googlePollen(start: today(), days: Int(request.queryValue("days") ?? "5") ?? 5))
            },
            climate: { request in
                let dates = (request.queryValue("start_date") ?? "").split(separator: ",").compactMap {
                    CivilDate(iso: $0)
                }
                return json(DemoResponder.climate(dates: dates, timezone: request.queryValue("timezone") ?? "GMT"))
            },
            stripes: { request in
                guard let start = date(request.queryValue("start_date")), let end = date(request.queryValue("end_date"))
                else { return .respond(status: 400) }
                return json(
                    DemoResponder.dailyMeans(
                        from: start, through: end, timezone: request.queryValue("timezone") ?? "GMT"))
            })
    }

    /// The demo's configuration settings (AgentMain.applyDemo) on the loopback APIs.
    static func demoLike(_ sandbox: AgentSandbox) -> String {
        """
        homeassistant: {discovery: false}
        pollen: {source: google, api_key: breeze-demo-sample-data-no-key}
        \(sandbox.apis.endpointsYAML)

        """
    }

    struct Devices {
        let id = shortID()
        let wled: WLEDStandIn
        let tasmota: TasmotaStandIn
        let awtrix: AwtrixStandIn
        var location: String { "dev\(id)" }

        init(port: Int) {
            wled = WLEDStandIn(port: port, topic: "wled/\(id)")
            // The recipe for `power: leave` tells the user to set SetOption20 1.
            tasmota = TasmotaStandIn(port: port, topic: "bulb_\(id)", setOption20: true)
            awtrix = AwtrixStandIn(port: port, prefix: "awtrix_\(id)")
        }

        var all: [DeviceStandIn] { [wled, tasmota, awtrix] }

        func connect() async throws { for device in all { try await device.connect() } }
        func stop() async { for device in all { await device.stop() } }

        func config(wled: Bool = true, awtrix: Bool = true) -> String {
            var text = """
                locations:
                  - {id: \(location), name: Home, latitude: 52.52, longitude: 13.405, timezone: Europe/Berlin}
                outputs:
                  - {type: tasmota, topic: bulb_\(id)}

                """
            if wled { text += "  - {type: wled, topic: wled/\(id), show: pollen_types, leds: 60, brightness: 128}\n" }
            if awtrix { text += "  - {type: awtrix, topic: awtrix_\(id), app: breeze, indicator: 1}\n" }
            return text
        }
    }

    /// The Awtrix apps expected from the climate JSON the agent published: the change text in
    /// its color after the max pollen, and the points as `celsius` × 10.
    static func expectedAwtrix(port: Int, location: String) async throws -> (text: String, chart: String) {
        let climateTopic = "breeze-demo/\(location)/climate"
        let tree = try await BrokerView.snapshot(port: port, [climateTopic + "/#"])
        let climate = try #require(jsonObject(tree[climateTopic]))
        let change = try #require(climate["change"] as? [String: Any])
        let text = try #require(change["text"] as? String)
        let color = try #require(change["color"] as? String).dropFirst().uppercased()
        let points = try #require(climate["points"] as? [[String: Any]])
        let bars = points.suffix(16).map { point in
            String(Int(((point["celsius"] as? Double ?? .nan) * 10).rounded()))
        }
        return (
            #"{"text":[{"t":"Tree High","c":"FF3B30"},{"t":" \#(text)","c":"\#(color)"}]}"#,
            #"{"bar":[\#(bars.joined(separator: ","))],"autoscale":true}"#
        )
    }

    @Test("once (the demo's data): each device gets its payload; display ≤ 1024 bytes; no power-on with power: leave")
    func once() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let sandbox = try AgentSandbox(routes: Self.demoRoutes())
            let devices = Devices(port: port)
            try await devices.connect()
            defer { Task { await devices.stop() } }
            try sandbox.writeConfig(port: port, prefix: "breeze-demo", Self.demoLike(sandbox) + devices.config())

            let (status, _, log) = try await AgentProcess.run(
                ["once", "--config", sandbox.configPath], logDirectory: sandbox.directory)
            #expect(status == 0, "\(log)")

            let wled = devices.wled
            #expect(await eventually(bound: .seconds(10)) { wled.apiCommands.count == 1 }, "\(log)")
            #expect(wled.apiCommands == [Self.wledTypes])
            #expect(wled.errors == [])
            #expect(!wled.current.on, "power: leave must not switch WLED on")
            #expect(wled.current.brightness == 128)
            #expect(wled.current.segments[1]?.color == [255, 59, 48])
            #expect(wled.received.allSatisfy { !$0.retained }, "device commands are not retained")

            let tasmota = devices.tasmota
            #expect(await eventually(bound: .seconds(10)) { tasmota.colorCommands.count == 1 })
            // The state is asked first (`Power` without a parameter), then the color; no `Power ON`.
            #expect(
                tasmota.received.map(\.topic) == ["cmnd/bulb_\(devices.id)/Power", "cmnd/bulb_\(devices.id)/Color"])
            #expect(tasmota.powerCommands == [""])
            #expect(tasmota.colorCommands == [Self.tasmotaColor])
            #expect(!tasmota.current.power)
            #expect(tasmota.current.color == "FF3B30")

            let awtrix = devices.awtrix
            let expected = try await Self.expectedAwtrix(port: port, location: devices.location)
            #expect(
                await eventually(bound: .seconds(10)) { awtrix.loop.count == 2 && awtrix.indicatorColors.count == 1 })
            #expect(awtrix.loop == ["breeze": expected.text, "breezec": expected.chart])
            #expect(awtrix.indicatorColors == [1: "#ff3b30"])
            #expect(awtrix.errors == [])
            // Awtrix apps are retained (they come back after the clock reboots); device commands are not.
            let retained = try await BrokerView.snapshot(
                port: port, ["awtrix_\(devices.id)/#", "wled/\(devices.id)/#"])
            #expect(retained["awtrix_\(devices.id)/custom/breeze"] == expected.text)
            #expect(retained["awtrix_\(devices.id)/indicator1"] == Self.indicator)
            #expect(retained["wled/\(devices.id)/api"] == nil)

            let display = try #require(
                try await BrokerView.snapshot(port: port, ["breeze-demo/\(devices.location)/display/#"])[
                    "breeze-demo/\(devices.location)/display"])
            #expect(display.utf8.count <= 1024)
            let json = try #require(jsonObject(display))
            let max = try #require(json["max"] as? [String: Any])
            #expect(max["id"] as? String == "tree" && max["v"] as? Int == 4)
            #expect(max["l"] as? String == "High" && max["c"] as? String == "#ff3b30")
            #expect(json["stale"] as? Bool == false)
        }
    }

    /// SPEC §8 `climate_stripes`: after `once` the strip shows the stripes the agent
    /// published on `<p>/<loc>/climate/stripes/colors`, one LED per year from LED 0, the LEDs
    /// past the last year black.
    @Test("once (the demo's data): a WLED strip with show: climate_stripes shows the published stripes")
    func climateStripes() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let sandbox = try AgentSandbox(routes: Self.demoRoutes())
            let id = shortID()
            let wled = WLEDStandIn(port: port, topic: "wled/\(id)")
            try await wled.connect()
            defer { Task { await wled.stop() } }
            try sandbox.writeConfig(
                port: port, prefix: "breeze-demo",
                Self.demoLike(sandbox) + """
                    locations:
                      - {id: dev\(id), name: Home, latitude: 52.52, longitude: 13.405, timezone: Europe/Berlin}
                    outputs:
                      - {type: wled, topic: wled/\(id), show: climate_stripes, leds: 60}

                    """)
            let (status, _, log) = try await AgentProcess.run(
                ["once", "--config", sandbox.configPath], logDirectory: sandbox.directory)
            #expect(status == 0, "\(log)")

            let colorsTopic = "breeze-demo/dev\(id)/climate/stripes/colors"
            let published = try #require(try await BrokerView.snapshot(port: port, [colorsTopic + "/#"])[colorsTopic])
            let years = published.split(separator: ",").map { String($0.dropFirst()).uppercased() }
            #expect(years.count == 46, "the demo's stripes are 1980–2025")
            #expect(await eventually(bound: .seconds(10)) { wled.apiCommands.count == 1 }, "\(log)")
            let list = years.map { "\"\($0)\"" }.joined(separator: ",")
            #expect(
                wled.apiCommands == [
                    #"{"seg":[{"id":0,"start":0,"stop":60,"frz":false,"fx":0,"col":[[0,0,0]],"i":["# + list + "]}]}"
                ])
            #expect(wled.errors == [])
            let light = wled.current
            for (index, hex) in years.enumerated() {
                let value = Int(hex, radix: 16) ?? -1
                #expect(light.led(index) == [value >> 16 & 255, value >> 8 & 255, value & 255], "LED \(index)")
            }
            for index in years.count..<60 { #expect(light.led(index) == [0, 0, 0], "LED \(index)") }
            #expect(!light.on, "power: leave must not switch WLED on")
        }
    }

    @Test("run (the demo's data): sent on start, not on a repeated online; re-sent after a reboot; removal cleans up")
    func run() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let sandbox = try AgentSandbox(routes: Self.demoRoutes())
            let devices = Devices(port: port)
            try await devices.connect()
            defer { Task { await devices.stop() } }
            let (wled, tasmota, awtrix) = (devices.wled, devices.tasmota, devices.awtrix)
            // A second Tasmota light without SetOption20 1: its `Color` switches it on, and the
            // agent says so, once.
            let lamp = TasmotaStandIn(port: port, topic: "lamp_\(devices.id)", setOption20: false)
            try await lamp.connect()
            defer { Task { await lamp.stop() } }
            try sandbox.writeConfig(
                port: port, prefix: "breeze-demo",
                Self.demoLike(sandbox) + devices.config() + "  - {type: tasmota, topic: lamp_\(devices.id)}\n")

            var agent = try AgentProcess(
                ["run", "--config", sandbox.configPath], logDirectory: sandbox.directory)
            #expect(await eventually(bound: .seconds(20)) { wled.apiCommands.count == 1 }, "\(agent.log)")
            #expect(await eventually(bound: .seconds(10)) { tasmota.colorCommands.count == 1 }, "\(agent.log)")
            #expect(await eventually(bound: .seconds(10)) { awtrix.loop.count == 2 }, "\(agent.log)")
            #expect(wled.apiCommands == [Self.wledTypes])
            #expect(tasmota.colorCommands == [Self.tasmotaColor])
            #expect(!wled.current.on && !tasmota.current.power)
            let warning = "output tasmota lamp_\(devices.id): the light was off and its color command switched it on"
            #expect(await agent.waitForLine(warning, timeout: .seconds(10)), "\(agent.log)")
            #expect(lamp.current.power, "the stand-in follows Tasmota: Color powers on without SetOption20")
            #expect(agent.lines(containing: "output tasmota bulb_\(devices.id): the light was off").isEmpty)

            // WLED answered the command with `online` (publishMqtt); the user then changes the
            // color by hand, and WLED says `online` again: the agent sends nothing either time.
            let user = try BrokerView(port: port)
            try await user.start([])
            defer { Task { await user.stop() } }
            try user.client.publish("wled/\(devices.id)/col", "#0000FF", qos: 1)
            #expect(await eventually(bound: .seconds(20)) { wled.current.segments[0]?.color == [0, 0, 255] })
            // That a repeated `online` is sent nothing is DeviceCommandStateTests'
            // `unknownToOnlineSendsOnlineToOnlineDoesNot`; here the counts below (2 after the
            // reboot, still 2 at the end of this run) would show a command it caused.

            // A reboot (offline → online) re-sends, once: at the earliest 10 s after the device's
            // last commands (DeviceCommandState.minimumInterval), so the bounds are 25 s.
            try await wled.reboot()
            #expect(await eventually(bound: .seconds(25)) { wled.apiCommands.count == 2 }, "\(agent.log)")
            #expect(wled.apiCommands.last == Self.wledTypes)
            #expect(!wled.current.on)
            try await tasmota.reboot()
            #expect(await eventually(bound: .seconds(25)) { tasmota.colorCommands.count == 2 }, "\(agent.log)")
            #expect(!tasmota.current.power)
            try await lamp.reboot()
            #expect(await eventually(bound: .seconds(25)) { lamp.colorCommands.count == 2 }, "\(agent.log)")
            // The Awtrix apps are retained: the rebooted clock gets them from the broker.
            try await awtrix.reboot()
            let expected = try await Self.expectedAwtrix(port: port, location: devices.location)
            #expect(
                await eventually(bound: .seconds(10)) {
                    awtrix.loop == ["breeze": expected.text, "breezec": expected.chart]
                })
            #expect(await eventually(bound: .seconds(10)) { awtrix.indicatorColors == [1: "#ff3b30"] })
            // Warned once per run (the second switch-on after the lamp's reboot says nothing):
            // DeviceCommandStateTests' `warnsOnceWhenTheColorSwitchedAnOffLightOn` pins it; this
            // line is what the run had logged by now.
            #expect(agent.lines(containing: warning).count == 1, "warned once per run")
            #expect(wled.apiCommands.count == 2 && tasmota.colorCommands.count == 2, "\(agent.log)")
            #expect(wled.errors == [] && awtrix.errors == [])
            #expect(await agent.terminate() == 0)

            // WLED and Awtrix leave the config: WLED is no longer driven, Tasmota still is.
            try sandbox.writeConfig(
                port: port, prefix: "breeze-demo", Self.demoLike(sandbox) + devices.config(wled: false, awtrix: false))
            agent = try AgentProcess(
                ["run", "--config", sandbox.configPath], logDirectory: sandbox.directory)
            #expect(await eventually(bound: .seconds(20)) { tasmota.colorCommands.count == 3 }, "\(agent.log)")
            // WLED's retained `online` would have come with the agent's subscriptions, as
            // Tasmota's did; a removed output is not subscribed to (DeviceCommandStateTests
            // `connectSubscribesToEveryDeviceAvailabilityTopic`, `devicesOfAnotherLocationAreNotSent`).
            #expect(wled.apiCommands.count == 2, "a removed WLED output must not be driven: \(agent.log)")
            #expect(await agent.terminate() == 0)
        }
    }

    /// Removal across runs needs the persisted published set, so this runs on real (loopback)
    /// upstream data with a state directory rather than `--demo`, which persists nothing.
    @Test("once, then once without the Awtrix output: its apps and indicator are deleted")
    func removal() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            let sandbox = try AgentSandbox()
            let devices = Devices(port: port)
            try await devices.connect()
            defer { Task { await devices.stop() } }
            let awtrix = devices.awtrix
            let zone = "Europe/Berlin"
            let body = try googleBody(zone: zone)
            let today = Day.today(in: zone)
            let upstream = sandbox.apis
            upstream.set(
                .init(google: { _ in .respond(status: 200, body: body) }, celsius: [2000: 10.0, today.year: 12.4]))
            let prefix = "e2e-dev-\(devices.id)"
            func config(awtrix: Bool) -> String {
                devices.config(wled: false, awtrix: awtrix) + """
                    pollen: {api_key: e2e-key}
                    climate: {years: [2000]}
                    homeassistant: {discovery: false}
                    \(upstream.endpointsYAML)
                    """
            }
            try sandbox.writeConfig(port: port, prefix: prefix, config(awtrix: true))
            var result = try await AgentProcess.run(
                ["once", "--config", sandbox.configPath], logDirectory: sandbox.directory)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                await eventually(bound: .seconds(10)) { awtrix.loop.count == 2 && awtrix.indicatorColors.count == 1 })
            #expect(awtrix.errors == [])
            let maxColor = try #require(
                try await BrokerView.snapshot(port: port, ["\(prefix)/#"])[
                    "\(prefix)/\(devices.location)/pollen/max/color"])
            #expect(awtrix.indicatorColors == [1: maxColor])
            #expect(devices.tasmota.colorCommands == [maxColor])

            try sandbox.writeConfig(port: port, prefix: prefix, config(awtrix: false))
            result = try await AgentProcess.run(
                ["once", "--config", sandbox.configPath], logDirectory: sandbox.directory)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(await eventually(bound: .seconds(10)) { awtrix.loop.isEmpty && awtrix.indicatorColors.isEmpty })
            let cleared =
                ["breeze", "breezec"].map { "awtrix_\(devices.id)/custom/\($0)" } + ["awtrix_\(devices.id)/indicator1"]
            for topic in cleared { #expect(awtrix.payloads(on: topic).last == "", "\(topic) not deleted") }
            let left = try await BrokerView.snapshot(port: port, ["awtrix_\(devices.id)/#"])
            #expect(left.keys.filter { $0.contains("/custom/") || $0.contains("/indicator") } == [])
            // The rest of the tree stays.
            let tree = try await BrokerView.snapshot(port: port, ["\(prefix)/#"])
            #expect(tree["\(prefix)/\(devices.location)/display"] != nil)
        }
    }
}
