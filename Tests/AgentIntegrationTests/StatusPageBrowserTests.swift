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

@testable import BreezeConfig
import BreezeCore
import BreezeTestSupport
import Foundation
import Testing

@testable import BreezeAgent
@testable import BreezeDaemon

/// The status page (SPEC §13) in a real browser: the built binary serves `/` on a loopback
/// port, Debian's headless Chromium loads it with every other host and port unreachable, and
/// the test reads the DOM Chromium built (`--dump-dom`) and the pixels it drew (`--screenshot`).
///
/// Swift Testing rather than a shell script: the real run needs the loopback fake APIs, the
/// sandbox and the broker helpers the other end-to-end tests use, and it runs in `make test`.
/// `BREEZE_SCREENSHOT_DIR=docs/images` (`make screenshots`) keeps the demo's screenshots for the README.
@Suite("Status page in headless Chromium", .serialized)
struct StatusPageBrowserTests {
    static let hostile = "<script>document.documentElement.dataset.pwned='1'</script>"

    /// `run --demo` with `locations` (YAML list items), air, one risk profile and HTTP on a free
    /// loopback port. The sandbox's unique client id: other demo runs may share the test broker.
    static func startDemo(_ sandbox: AgentSandbox, brokerPort: Int, locations: [String]) throws -> (
        agent: AgentProcess, httpPort: Int
    ) {
        let httpPort = try FreePort.loopback()
        try sandbox.writeConfig(
            port: brokerPort,
            """
            locations:
            \(locations.joined(separator: "\n"))
            air: {enabled: true}
            profiles:
              - {id: anna, name: Anna, allergens: [birch, grass], alert_level: High}
            http:
              listen: "127.0.0.1:\(httpPort)"
            """)
        let agent = try AgentProcess(["run", "--demo", "--config", sandbox.configPath], directory: sandbox.directory)
        return (agent, httpPort)
    }

    /// Waits until `/api/state.json` has every payload the page should draw, returns it.
    static func waitForState(_ port: Int, agent: AgentProcess, air: Bool) async throws -> [String: Any] {
        var state: [String: Any]?
        let complete = await agent.waitForSnapshot(timeout: .seconds(60)) {
            guard let document = jsonObject(RawHTTP.get(port, "/api/state.json").text),
                let locations = document["locations"] as? [[String: Any]], !locations.isEmpty
            else { return false }
            state = document
            return locations.allSatisfy { location in
                location["pollen"] is [String: Any] && location["climate"] is [String: Any]
                    && location["stripes"] is [String: Any] && (!air || location["air"] is [String: Any])
            }
        }
        try #require(complete, "state.json never complete: \(String(describing: state))\n\(agent.log)")
        return try #require(state)
    }

    /// What every page must show of `location` (its state.json entry), read from Chromium's DOM.
    static func checkLocation(_ location: [String: Any], in dom: String) throws {
        let pollen = try #require(location["pollen"] as? [String: Any])
        let max = try #require(pollen["max"] as? [String: Any])
        let maxLevel = try #require(max["level"] as? String)
        // Today's max: its level word on its color.
        #expect(dom.contains("Today <span class=\"b k"), "no max badge")
        #expect(dom.contains(">\(maxLevel)</span>"), "max level \(maxLevel)")
        // Every type and every day's level word.
        for item in (pollen["items"] as? [[String: Any]] ?? []) where item["is_plant"] as? Bool == false {
            let name = try #require(item["name"] as? String)
            let level = try #require(item["level"] as? String)
            #expect(dom.contains("<span>\(DOM.escaped(name))</span>"), "type \(name)")
            #expect(dom.contains(">\(level)</span>"), "level \(level) of \(name)")
        }

        let climate = try #require(location["climate"] as? [String: Any])
        let change = try #require(climate["change"] as? [String: Any])
        let changeText = try #require(change["text"] as? String)
        let changeColor = try #require(change["color"] as? String)
        #expect(dom.contains("style=\"color:\(changeColor)\">\(changeText)</b>"), "change \(changeText)")
        let points = try #require(climate["points"] as? [[String: Any]])
        let chart = try #require(DOM.element("svg", class: "ch", in: dom))
        let bars = DOM.rects(in: chart)
        #expect(bars.count == points.count, "\(bars.count) bars for \(points.count) points")
        #expect(bars.map(\.fill) == points.map { $0["color"] as? String ?? "" })
        for point in points {
            #expect(chart.contains(">\(point["text"] as? String ?? "?")</text>"))
            #expect(chart.contains(">\(point["year"] as? Int ?? 0)</text>"))
        }

        let stripes = try #require(location["stripes"] as? [String: Any])
        let years = try #require(stripes["years"] as? [[String: Any]])
        let stripeSVG = try #require(DOM.element("svg", class: "st", in: dom))
        let stripeRects = DOM.rects(in: stripeSVG)
        #expect(stripeRects.count == years.count, "\(stripeRects.count) stripes for \(years.count) years")
        #expect(stripeRects.map(\.fill) == years.map { $0["color"] as? String ?? "" })
    }

    /// Both screenshots drawn, not blank; kept under `BREEZE_SCREENSHOT_DIR` as `<name>-<w>.png`.
    static func screenshots(_ url: String, port: Int, name: String, directory: String) throws {
        let keep = ProcessInfo.processInfo.environment["BREEZE_SCREENSHOT_DIR"]
        if let keep { try FileManager.default.createDirectory(atPath: keep, withIntermediateDirectories: true) }
        for (width, height) in [(390, 844), (1280, 800)] {
            let path = (keep ?? directory) + "/\(name)-\(width).png"
            try Chromium.screenshot(url, allowPort: port, width: width, height: height, to: path)
            let stats = try PNGStats.of(path)
            #expect(stats.width == width && stats.height == height, "\(path): \(stats)")
            // A blank or failed page is one color; this page has cards, badges, bars and text.
            #expect(stats.distinctColors >= 50, "\(path): \(stats)")
            #expect(stats.dominantFraction <= 0.9, "\(path): \(stats)")
        }
    }

    @Test("the network beyond the agent's port is unreachable for the browser under test")
    func browserIsFencedIn() throws {
        let canary = LoopbackHTTPServer()
        canary.setHandler { _ in .respond(status: 200, text: "canary") }
        try canary.start()
        defer { canary.stop() }
        let page = LoopbackHTTPServer()
        let canaryURL = canary.url("/pixel.png")
        page.setHandler { _ in
            .respond(
                status: 200, headers: [("Content-Type", "text/html; charset=utf-8")],
                text:
                    "<!DOCTYPE html><html><body><img src=\"\(canaryURL)\"><img src=\"http://example.com/x.png\">"
                    + "<p>fenced</p></body></html>")
        }
        try page.start()
        defer { page.stop() }
        let dom = try Chromium.dumpDOM(page.url("/"), allowPort: page.port)
        #expect(dom.contains("<p>fenced</p>"))
        // The page loaded from its port; the other loopback port and the internet were not reached.
        #expect(canary.requests.isEmpty, "the browser reached \(canaryURL)")
    }

    @Test("--demo: the page shows the demo's levels, change, bars and stripes; screenshots drawn")
    func demoPage() async throws {
        let sandbox = try AgentSandbox()
        try await MosquittoBroker.withPlainBroker { brokerPort in
            let (agent, httpPort) = try Self.startDemo(
                sandbox, brokerPort: brokerPort,
                locations: [
                    "  - {id: demo, name: Demo Garden, latitude: 52.52, longitude: 13.405, timezone: Europe/Berlin}"
                ])
            let state = try await Self.waitForState(httpPort, agent: agent, air: true)

            let response = RawHTTP.get(httpPort, "/")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "text/html; charset=utf-8")
            #expect(response.header("Content-Security-Policy") == StatusPage.contentSecurityPolicy)
            #expect(response.body.count <= StatusPage.maximumBytes)

            let url = "http://127.0.0.1:\(httpPort)/"
            let dom = try Chromium.dumpDOM(url, allowPort: httpPort)
            #expect(dom.contains("<html lang=\"en\">"))
            #expect(dom.contains("demo: sample data"))
            #expect(dom.contains("<h2>Demo Garden</h2>"))
            let location = try #require((state["locations"] as? [[String: Any]])?.first)
            try Self.checkLocation(location, in: dom)
            for word in ["Birch", "Anna", "European AQI", "Includes pollen data from Google", "Copernicus"] {
                #expect(dom.contains(word), "\(word)")
            }
            try Self.screenshots(url, port: httpPort, name: "status-page", directory: sandbox.directory)
            #expect(await agent.terminate() == 0)
        }
    }

    @Test("a real run against the loopback APIs: a <script> location and plant name are text")
    func realRunWithHostileNames() async throws {
        let zone = "UTC"
        let today = CivilDate(daysSinceEpoch: Int(Date().timeIntervalSince1970 / 86_400))
        let google = DemoResponder.googlePollen(start: today, days: 5)
            .replacingOccurrences(of: #""displayName":"Birch""#, with: #""displayName":"\#(Self.hostile)""#)
        #expect(google.contains(Self.hostile))
        let sandbox = try AgentSandbox(
            routes: FakeAPIs.Routes(
                google: { _ in
                    .respond(status: 200, headers: [("Content-Type", "application/json")], text: google)
                },
                celsius: [1980: 11.2, 2000: 11.9, 2020: 12.8, today.year: 13.9]))
        try await MosquittoBroker.withPlainBroker { brokerPort in
            let httpPort = try FreePort.loopback()
            try sandbox.writeConfig(
                port: brokerPort,
                """
                homeassistant: {discovery: false}
                locations:
                  - {id: home, name: "\(Self.hostile)", latitude: 52.52, longitude: 13.405, timezone: \(zone)}
                pollen: {api_key: browser-test-key}
                climate: {years: [1980, 2000, 2020], unit: celsius}
                http:
                  listen: "127.0.0.1:\(httpPort)"
                \(sandbox.apis.endpointsYAML)
                """)
            let agent = try AgentProcess(["run", "--config", sandbox.configPath], directory: sandbox.directory)
            let state = try await Self.waitForState(httpPort, agent: agent, air: false)
            let location = try #require((state["locations"] as? [[String: Any]])?.first)
            #expect(location["name"] as? String == Self.hostile)

            let url = "http://127.0.0.1:\(httpPort)/"
            let dom = try Chromium.dumpDOM(url, allowPort: httpPort)
            try Self.checkLocation(location, in: dom)
            // The names are text: no script element in the DOM, nothing it would have done.
            #expect(!dom.contains("<script"), "a script element was created")
            #expect(!dom.contains("data-pwned"), "a script ran")
            let escaped = DOM.escaped(Self.hostile)
            #expect(dom.contains("<h2>\(escaped)</h2>"), "location name not shown as text")
            #expect(dom.contains("<span>\(escaped)</span>"), "plant name not shown as text")
            // The change in °C, as the broker's climate JSON says (+2.7°C).
            #expect(dom.contains(">+2.7°C</b>"))
            try Self.screenshots(url, port: httpPort, name: "status-page-hostile", directory: sandbox.directory)
            #expect(await agent.terminate() == 0)
        }
    }
}

/// Debian's headless Chromium, fenced in: every host name resolves to nothing, every
/// connection goes to a dead proxy (127.0.0.1:9) except to `127.0.0.1:<allowPort>`
/// (`<-loopback>` removes Chromium's implicit loopback bypass). `browserIsFencedIn` proves it.
enum Chromium {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func binary() throws -> String {
        for path in ["/usr/bin/chromium", "/usr/lib/chromium/chromium"]
        where FileManager.default.isExecutableFile(atPath: path) {
            return path
        }
        throw Failure(description: "chromium is not installed: `scripts/deps.sh chromium` (make test does it)")
    }

    static func arguments(allowPort: Int, profile: String) -> [String] {
        [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
            "--disable-extensions", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--disable-default-apps", "--mute-audio", "--user-data-dir=\(profile)",
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
            "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>;127.0.0.1:\(allowPort)",
            "--virtual-time-budget=3000",
        ]
    }

    /// The DOM after load, serialized (`--dump-dom`).
    static func dumpDOM(_ url: String, allowPort: Int) throws -> String {
        let (status, out, err) = try run(extra: ["--dump-dom", url], allowPort: allowPort)
        guard status == 0, !out.isEmpty else {
            throw Failure(description: "chromium --dump-dom \(url) exited \(status): \(err.suffix(2000))")
        }
        return out
    }

    static func screenshot(_ url: String, allowPort: Int, width: Int, height: Int, to path: String) throws {
        try? FileManager.default.removeItem(atPath: path)
        let (status, _, err) = try run(
            extra: ["--window-size=\(width),\(height)", "--screenshot=\(path)", url], allowPort: allowPort)
        guard status == 0, FileManager.default.fileExists(atPath: path) else {
            throw Failure(description: "chromium --screenshot \(url) exited \(status): \(err.suffix(2000))")
        }
    }

    /// Runs Chromium with a fresh profile; killed after 90 s.
    static func run(extra: [String], allowPort: Int) throws -> (Int32, String, String) {
        let profile = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: profile) }
        return try runProcess(
            try binary(), arguments(allowPort: allowPort, profile: profile) + extra, timeout: .seconds(90))
    }
}

/// `test/browser/png_stats.py`: a PNG decoded with Python's zlib, its colors counted.
struct PNGStats: CustomStringConvertible {
    var width: Int
    var height: Int
    var distinctColors: Int
    var dominantFraction: Double

    var description: String {
        "\(width)×\(height), \(distinctColors) colors, the commonest on \(Int(dominantFraction * 100)) %"
    }

    static func of(_ path: String) throws -> PNGStats {
        var script = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { script.deleteLastPathComponent() }
        script.appendPathComponent("test/browser/png_stats.py")
        let (status, out, err) = try runProcess("/usr/bin/python3", [script.path, path], timeout: .seconds(60))
        guard status == 0, let object = jsonObject(out), let width = object["width"] as? Int,
            let height = object["height"] as? Int, let colors = object["distinct_colors"] as? Int,
            let dominant = object["dominant_fraction"] as? Double
        else { throw Chromium.Failure(description: "png_stats.py \(path): \(status) \(out) \(err)") }
        return PNGStats(width: width, height: height, distinctColors: colors, dominantFraction: dominant)
    }
}

/// Reading Chromium's serialized DOM (it writes attributes in double quotes, text escaped).
enum DOM {
    /// `<`, `>`, `&` as Chromium serializes text (quotes stay as they are in text).
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }

    /// The first `<tag class="cls" …>…</tag>`.
    static func element(_ tag: String, class cls: String, in dom: String) -> String? {
        guard let start = dom.range(of: "<\(tag) class=\"\(cls)\""),
            let end = dom[start.upperBound...].range(of: "</\(tag)>")
        else { return nil }
        return String(dom[start.lowerBound..<end.upperBound])
    }

    /// The `<rect>` elements of an SVG, with their fill, in document order.
    static func rects(in svg: String) -> [(markup: String, fill: String)] {
        svg.matches(of: /<rect [^>]*fill="([^"]*)"[^>]*>/).map { (String($0.0), String($0.1)) }
    }
}

/// Runs a program to its end (killed after `timeout`); stdout and stderr through files, so a
/// chatty child never blocks on a full pipe.
func runProcess(_ executable: String, _ arguments: [String], timeout: Duration) throws -> (Int32, String, String) {
    let directory = temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let outPath = directory + "/out"
    let errPath = directory + "/err"
    _ = FileManager.default.createFile(atPath: outPath, contents: nil)
    _ = FileManager.default.createFile(atPath: errPath, contents: nil)
    let child = try ChildProcess(executable, arguments, standardOutput: .file(outPath), standardError: .file(errPath))
    // The exit is an event (ChildProcess); the timeout only ends a hung child.
    if child.waitForExitBlocking(timeout: timeout) == nil { child.kill() }
    let out = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
    let err = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
    return (child.terminationStatus ?? -1, out, err)
}
