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

import BreezeCore
import BreezeMQTT
import BreezeTestSupport
import Foundation
import Synchronization
import Testing

/// Stand-ins for the displays of SPEC §8, each written from its firmware's documented MQTT
/// behaviour and talking to a real mosquitto: it connects with the firmware's will, subscribes
/// to the firmware's command topics, applies what it receives the way the firmware does,
/// publishes what the firmware publishes, records everything, and can drop off the network and
/// come back.
///
/// A real device that loses power stops answering and the broker publishes its will after
/// the keepalive runs out; a clean disconnect (all a test client can do) makes the broker
/// discard the will. ``DeviceStandIn/powerCut()`` therefore publishes the will's payload itself,
/// retained, exactly as the broker would, and then disconnects.
class DeviceStandIn: @unchecked Sendable {
    // @unchecked: every mutable field is behind `state`, a Mutex; the rest is immutable.
    struct Received: Sendable, Equatable {
        var topic: String
        var payload: String
        var retained: Bool
    }

    struct State {
        var client: MQTTClient?
        var pump: Task<Void, Never>?
        var received: [Received] = []
        var connections = 0
    }

    let port: Int
    let clientID: String
    /// The availability topic and its words (the will).
    let statusTopic: String
    let onlinePayload: String
    let offlinePayload: String
    /// The command topics the firmware subscribes to.
    let subscriptions: [String]
    let state = Mutex(State())

    init(
        port: Int, clientID: String, statusTopic: String, online: String, offline: String, subscriptions: [String]
    ) {
        self.port = port
        self.clientID = clientID
        self.statusTopic = statusTopic
        self.onlinePayload = online
        self.offlinePayload = offline
        self.subscriptions = subscriptions
    }

    /// Everything received on the command topics, in order.
    var received: [Received] { state.withLock { $0.received } }
    /// The payloads received on one topic, in order.
    func payloads(on topic: String) -> [String] { received.filter { $0.topic == topic }.map(\.payload) }

    /// Connects (with the will), subscribes, announces `online` (retained) and whatever else
    /// the firmware publishes on connect.
    func connect() async throws {
        let client = try MQTTClient(
            MQTTConfiguration(
                host: "127.0.0.1", port: port, clientID: clientID, keepalive: 5,
                will: MQTTMessage(topic: statusTopic, string: offlinePayload, qos: 1, retain: true)))
        let events = client.events
        let pump = Task { [self] in
            for await event in events {
                guard case .message(let message) = event else { continue }
                let received = Received(topic: message.topic, payload: message.payloadString, retained: message.retain)
                state.withLock { $0.received.append(received) }
                handle(received, client: client)
                TestEvents.shared.report()
            }
        }
        state.withLock {
            $0.client = client
            $0.pump = pump
            $0.connections += 1
        }
        try client.start()
        let connected = await client.waitUntilConnected(timeout: .seconds(15))
        try #require(connected, "\(clientID) did not connect")
        for topic in subscriptions { try client.subscribe(topic, qos: 0) }
        announce(client)
        _ = await client.waitForAcknowledgements(timeout: .seconds(5))
    }

    /// The device loses power: the broker's will (`offline`, retained) is published and the
    /// connection is gone.
    func powerCut() async throws {
        let (client, pump) = state.withLock { ($0.client, $0.pump) }
        guard let client else { return }
        try client.publish(statusTopic, offlinePayload, qos: 1, retain: true)
        _ = await client.waitForAcknowledgements(timeout: .seconds(5))
        await client.stop()
        pump?.cancel()
        state.withLock {
            $0.client = nil
            $0.pump = nil
        }
        powerLost()
    }

    /// A reboot: power cut, then the firmware connects again from scratch.
    func reboot() async throws {
        try await powerCut()
        try await connect()
    }

    func stop() async {
        let client = state.withLock { $0.client }
        await client?.stop()
        state.withLock { $0.pump?.cancel() }
    }

    // MARK: firmware behaviour (overridden)

    /// What the firmware publishes right after connecting.
    func announce(_ client: MQTTClient) {
        try? client.publish(statusTopic, onlinePayload, qos: 0, retain: true)
    }

    /// What the firmware does with a message on a command topic.
    func handle(_ message: Received, client: MQTTClient) {}

    /// What a power loss resets (RAM state).
    func powerLost() {}
}

// MARK: WLED

/// WLED ≥ 0.14 with MQTT on (wled00/mqtt.cpp): will `<t>/status` = `offline` (retained);
/// subscribes to `<t>`, `<t>/col`, `<t>/api` at QoS 0 (`onMqttConnect`); a JSON object on
/// `/api` goes to the JSON state API (`deserializeState`); after connecting and after every
/// state change `publishMqtt` sends `<t>/g` (brightness), `<t>/c` (`#RRGGBB`) and
/// `<t>/status` = `online`, retained — the repeated `online` the agent must not answer.
final class WLEDStandIn: DeviceStandIn, @unchecked Sendable {
    struct Light: Sendable, Equatable {
        var on = false
        var brightness = 77
        /// Segment id → (start, stop, first color).
        var segments: [Int: (start: Int, stop: Int, color: [Int])] = [0: (0, 60, [255, 160, 0])]
        /// LED index → color set with `"i"` (over the segment's solid color).
        var pixels: [Int: [Int]] = [:]

        /// What LED `index` shows: its `"i"` color, else its segment's color, else black.
        func led(_ index: Int) -> [Int] {
            if let pixel = pixels[index] { return pixel }
            return segments.values.first { $0.start <= index && index < $0.stop }?.color ?? [0, 0, 0]
        }

        static func == (a: Light, b: Light) -> Bool {
            a.on == b.on && a.brightness == b.brightness && a.pixels == b.pixels
                && a.segments.keys.sorted() == b.segments.keys.sorted()
                && a.segments.allSatisfy { id, s in
                    b.segments[id].map { $0.start == s.start && $0.stop == s.stop && $0.color == s.color } ?? false
                }
        }
    }

    let topic: String
    let leds: Int
    private let light = Mutex(Light())
    /// Shape errors found in `/api` payloads (checked against the documented JSON state API).
    private let shapeErrors = Mutex<[String]>([])

    init(port: Int, topic: String, leds: Int = 60) {
        self.topic = topic
        self.leds = leds
        super.init(
            port: port, clientID: "wled-\(shortID())", statusTopic: topic + "/status", online: "online",
            offline: "offline", subscriptions: [topic, topic + "/col", topic + "/api"])
    }

    var current: Light { light.withLock { $0 } }
    var errors: [String] { shapeErrors.withLock { $0 } }
    /// The JSON payloads received on `<t>/api`.
    var apiCommands: [String] { payloads(on: topic + "/api") }

    override func announce(_ client: MQTTClient) { publishState(client) }

    /// `publishMqtt`: brightness, color, then `online` (retained), after every state change.
    private func publishState(_ client: MQTTClient) {
        let state = current
        let color = state.segments[0]?.color ?? [0, 0, 0]
        try? client.publish(topic + "/g", String(state.on ? state.brightness : 0), qos: 0)
        try? client.publish(topic + "/c", String(format: "#%02X%02X%02X", color[0], color[1], color[2]), qos: 0)
        try? client.publish(topic + "/status", "online", qos: 0, retain: true)
    }

    override func handle(_ message: Received, client: MQTTClient) {
        if message.topic == topic + "/col" {
            // A user's own change (the `/col` topic takes `#RRGGBB`): a state change → publishMqtt.
            if let value = Int(message.payload.dropFirst(), radix: 16) {
                light.withLock { $0.segments[0]?.color = [value >> 16 & 255, value >> 8 & 255, value & 255] }
            }
            publishState(client)
            return
        }
        guard message.topic == topic + "/api" else { return }
        guard let json = jsonObject(message.payload) else {
            shapeErrors.withLock { $0.append("not a JSON object: \(message.payload)") }
            return
        }
        apply(json)
        publishState(client)
    }

    /// Applies a JSON state object the way WLED's JSON API does, checking its shape against
    /// the documentation: kno.wled.ge/interfaces/json-api, "Setting new values" and the
    /// segment object (`id`, `start`, `stop` exclusive, `frz`, `fx`, `col` = array of up to 3
    /// colors, each `[r,g,b]` or hex), and wled00/json.cpp `deserializeSegment`, which drops a
    /// segment id the strip does not have yet unless `stop` is given.
    private func apply(_ json: [String: Any]) {
        var problems: [String] = []
        let known: Set<String> = ["on", "bri", "seg"]
        for key in json.keys where !known.contains(key) { problems.append("unexpected state key \(key)") }
        light.withLock { light in
            if let on = json["on"] {
                if let on = on as? Bool { light.on = on } else { problems.append("on is not a boolean") }
            }
            if let bri = json["bri"] {
                if let bri = bri as? Int, (1...255).contains(bri) {
                    light.brightness = bri
                } else {
                    problems.append("bri is not 1–255")
                }
            }
            guard let segments = json["seg"] as? [[String: Any]] else {
                problems.append("seg is not an array of objects")
                return
            }
            for segment in segments {
                guard let id = segment["id"] as? Int else {
                    problems.append("segment without an integer id")
                    continue
                }
                let stop = segment["stop"] as? Int
                if light.segments[id] == nil && stop == nil {
                    // wled00/json.cpp: `if (stop <= 0) return;` for a segment id not present yet.
                    problems.append("segment \(id) is new but has no stop: WLED ignores it")
                    continue
                }
                if segment["frz"] as? Bool != false { problems.append("segment \(id) does not unfreeze (frz:false)") }
                if segment["fx"] as? Int != 0 { problems.append("segment \(id) is not Solid (fx:0)") }
                guard let colors = segment["col"] as? [[Int]], let first = colors.first, (1...3).contains(colors.count),
                    colors.allSatisfy({ $0.count == 3 && $0.allSatisfy { (0...255).contains($0) } })
                else {
                    problems.append("segment \(id) col is not 1–3 [r,g,b] arrays")
                    continue
                }
                let start = segment["start"] as? Int ?? light.segments[id]?.start ?? 0
                let end = stop ?? light.segments[id]?.stop ?? leds
                if !(0 <= start && start < end && end <= leds) {
                    problems.append("segment \(id) bounds \(start)–\(end)")
                }
                light.segments[id] = (start, end, first)
                // A solid color repaints the segment; `"i"` then sets single LEDs on it.
                for index in start..<max(start, end) { light.pixels[index] = nil }
                if let individual = segment["i"] {
                    guard let items = individual as? [Any] else {
                        problems.append("segment \(id) i is not an array")
                        continue
                    }
                    problems += Self.applyIndividual(items, start: start, stop: end, to: &light.pixels)
                }
            }
        }
        if !problems.isEmpty { shapeErrors.withLock { $0 += problems } }
    }

    /// kno.wled.ge/interfaces/json-api, "Per-segment individual LED control": in `"i"`, a color
    /// (`"RRGGBB"` hex or `[r,g,b]`) sets the next LED (from the segment's start); one index
    /// before a color sets that LED, two (start, stop exclusive) a range; indices are relative
    /// to the segment's start.
    static func applyIndividual(_ items: [Any], start: Int, stop: Int, to pixels: inout [Int: [Int]]) -> [String] {
        var problems: [String] = []
        var next = 0
        var indices: [Int] = []
        for item in items {
            if let index = item as? Int {
                indices.append(index)
                if indices.count > 2 { problems.append("i: more than two indices before a color") }
                continue
            }
            var color: [Int]?
            if let hex = item as? String, hex.utf8.count == 6, let value = Int(hex, radix: 16) {
                color = [value >> 16 & 255, value >> 8 & 255, value & 255]
            } else if let rgb = item as? [Int], rgb.count == 3, rgb.allSatisfy({ (0...255).contains($0) }) {
                color = rgb
            }
            guard let color else {
                problems.append("i: \(item) is neither an index nor a color")
                continue
            }
            let range: Range<Int>
            switch indices.count {
            case 0: range = next..<(next + 1)
            case 1: range = indices[0]..<(indices[0] + 1)
            default: range = indices[0]..<indices[1]
            }
            for offset in range {
                guard start + offset < stop else {
                    problems.append("i: LED \(offset) is past the segment's end")
                    break
                }
                pixels[start + offset] = color
            }
            next = range.upperBound
            indices = []
        }
        return problems
    }

    override func powerLost() {
        // WLED boots into its saved state; "off" here: a bedroom light at night.
        light.withLock { $0.on = false }
    }
}

// MARK: Tasmota

/// A Tasmota light with the default FullTopic `%prefix%/%topic%/` (tasmota.github.io/docs/MQTT):
/// will `tele/<t>/LWT` = `Offline`, `Online` on connect (both retained); commands on
/// `cmnd/<t>/<Command>`. `Color` (docs: Commands → Light, `Color` takes `#RRGGBB`) sets the
/// color and switches the light on unless `SetOption20 1` ("update of Dimmer/Color/CT without
/// turning power on"); the result goes to `stat/<t>/RESULT`.
final class TasmotaStandIn: DeviceStandIn, @unchecked Sendable {
    struct Light: Sendable, Equatable {
        var power = false
        var color = "FFFFFF"
    }

    let topic: String
    let setOption20: Bool
    private let light = Mutex(Light())

    init(port: Int, topic: String, setOption20: Bool) {
        self.topic = topic
        self.setOption20 = setOption20
        super.init(
            port: port, clientID: "tasmota-\(shortID())", statusTopic: "tele/\(topic)/LWT", online: "Online",
            offline: "Offline", subscriptions: ["cmnd/\(topic)/#"])
    }

    var current: Light { light.withLock { $0 } }
    var colorCommands: [String] { payloads(on: "cmnd/\(topic)/Color") }
    var powerCommands: [String] { payloads(on: "cmnd/\(topic)/Power") }

    override func handle(_ message: Received, client: MQTTClient) {
        let command = message.topic.dropFirst("cmnd/\(topic)/".count).lowercased()
        let result: String
        switch command {
        case "color":
            let hex = message.payload.hasPrefix("#") ? String(message.payload.dropFirst()) : message.payload
            guard hex.count == 6, Int(hex, radix: 16) != nil else { return }
            let state = light.withLock { light in
                light.color = hex.uppercased()
                if !setOption20 { light.power = true }
                return light
            }
            result = #"{"POWER":"\#(state.power ? "ON" : "OFF")","Color":"\#(state.color)"}"#
        case "power":
            // No parameter: show the state (docs: Commands → Control, `Power`).
            let on =
                message.payload.isEmpty
                ? current.power : ["ON", "1", "TRUE"].contains(message.payload.uppercased())
            light.withLock { $0.power = on }
            result = #"{"POWER":"\#(on ? "ON" : "OFF")"}"#
        default:
            return
        }
        try? client.publish("stat/\(topic)/RESULT", result, qos: 0)
    }

    override func powerLost() { light.withLock { $0.power = false } }
}

// MARK: Awtrix 3

/// An Awtrix 3 clock (Blueforcer/awtrix3 docs/api.md): custom apps on `<p>/custom/<app>` (a
/// JSON object; "To remove a custom app, dispatch an empty payload", and deletion matches
/// every app whose name *starts with* the deleted name), indicators on `<p>/indicator1…3`
/// (`{"color":…}`; an empty payload hides it). Retained apps come back with the subscription
/// after a reboot. Awtrix has no MQTT will; `stats` stand for its presence.
final class AwtrixStandIn: DeviceStandIn, @unchecked Sendable {
    let prefix: String
    private let apps = Mutex<[String: String]>([:])
    private let indicators = Mutex<[Int: String]>([:])
    private let shapeErrors = Mutex<[String]>([])

    init(port: Int, prefix: String) {
        self.prefix = prefix
        super.init(
            port: port, clientID: "awtrix-\(shortID())", statusTopic: prefix + "/stats", online: #"{"app":"Time"}"#,
            offline: "",
            subscriptions: [
                prefix + "/custom/#", prefix + "/indicator1", prefix + "/indicator2", prefix + "/indicator3",
            ])
    }

    /// The apps in the loop now: name → JSON.
    var loop: [String: String] { apps.withLock { $0 } }
    var indicatorColors: [Int: String] { indicators.withLock { $0 } }
    var errors: [String] { shapeErrors.withLock { $0 } }

    override func handle(_ message: Received, client: MQTTClient) {
        if message.topic.hasPrefix(prefix + "/custom/") {
            let name = String(message.topic.dropFirst((prefix + "/custom/").count))
            if message.payload.isEmpty {
                apps.withLock { $0 = $0.filter { !$0.key.hasPrefix(name) } }
                return
            }
            check(app: name, message.payload)
            apps.withLock { $0[name] = message.payload }
        } else if let number = Int(message.topic.dropFirst((prefix + "/indicator").count)) {
            if message.payload.isEmpty {
                indicators.withLock { $0[number] = nil }
                return
            }
            guard let color = jsonObject(message.payload)?["color"] as? String, color.count == 7, color.hasPrefix("#"),
                Int(color.dropFirst(), radix: 16) != nil
            else {
                shapeErrors.withLock { $0.append("indicator\(number): color is not \"#RRGGBB\": \(message.payload)") }
                return
            }
            indicators.withLock { $0[number] = color }
        }
    }

    /// api.md "JSON Properties": `text` is a string or an array of fragments `{"t","c"}` with
    /// `c` a hex color without `#` ("Display Text in Colored Fragments"); `bar` an array of
    /// integers, at most 16 without an icon; `autoscale` a boolean.
    private func check(app: String, _ payload: String) {
        var problems: [String] = []
        guard let json = jsonObject(payload) else {
            shapeErrors.withLock { $0.append("\(app): not a JSON object") }
            return
        }
        let known: Set<String> = ["text", "bar", "autoscale", "color", "icon", "duration"]
        for key in json.keys where !known.contains(key) { problems.append("\(app): unexpected key \(key)") }
        if let text = json["text"] {
            if let fragments = text as? [[String: Any]] {
                for fragment in fragments {
                    guard fragment["t"] is String, let c = fragment["c"] as? String, c.count == 6,
                        Int(c, radix: 16) != nil
                    else {
                        problems.append("\(app): fragment is not {t, c:RRGGBB}: \(fragment)")
                        continue
                    }
                }
            } else if !(text is String) {
                problems.append("\(app): text is neither a string nor fragments")
            }
        }
        if let bar = json["bar"] {
            if let values = bar as? [Int], (1...16).contains(values.count) {
            } else {
                problems.append("\(app): bar is not 1–16 integers")
            }
        }
        if let autoscale = json["autoscale"], !(autoscale is Bool) { problems.append("\(app): autoscale not boolean") }
        if !problems.isEmpty { shapeErrors.withLock { $0 += problems } }
    }

    override func powerLost() {
        apps.withLock { $0 = [:] }
        indicators.withLock { $0 = [:] }
    }
}
