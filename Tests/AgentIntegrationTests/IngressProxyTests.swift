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
import BreezeTestSupport
import Foundation
import Synchronization
import Testing

@testable import BreezeAgent
@testable import BreezeDaemon

/// The status page behind Home Assistant's ingress proxy (SPEC §15, issue 28 item 3): the agent
/// runs with the `http:` the add-on generates (`AddonConfig.plan`: the allow list of the
/// Supervisor and loopback), a stand-in for the ingress proxy forwards
/// `/api/hassio_ingress/<token>/<rest>` to it as `/<rest>`, and headless Chromium, which can
/// reach only the proxy's port, loads the page under that prefix — once directly, once in an
/// iframe the way Home Assistant's frontend shows an add-on panel — for two tokens. Every
/// request the browser made must have stayed under the prefix.
@Suite("Status page behind the ingress proxy", .serialized)
struct IngressProxyTests {
    /// The add-on's options as the Supervisor writes them (config.yaml's defaults) plus two
    /// images, one per format, and `advanced` moving the listener to a free loopback port (the
    /// allow list stays the generated one) and the MQTT identity to the sandbox's.
    static func addonConfig(_ sandbox: AgentSandbox, brokerPort: Int, httpPort: Int) throws -> String {
        let advanced = """
            mqtt: {client_id: \(sandbox.prefix)-agent, topic_prefix: \(sandbox.prefix)}
            http: {listen: "127.0.0.1:\(httpPort)"}
            """
        let options: [String: Any] = [
            "home_location": true, "locations": [Any](), "unit": "auto", "pollen_source": "auto", "air": false,
            "profiles": [Any](), "outputs": [Any](), "log_level": "debug", "advanced": advanced,
            "images": [
                ["id": "panel", "location": "home", "kind": "pollen", "width": 296, "height": 128, "palette": "bwr"],
                ["id": "stripes", "location": "home", "kind": "stripes", "width": 400, "height": 96, "format": "jpeg"],
            ],
        ]
        let json = String(decoding: try JSONSerialization.data(withJSONObject: options), as: UTF8.self)
        let plan = try AddonConfig.plan(
            options: AddonConfig.parseOptions(json), broker: AddonConfig.Broker(host: "127.0.0.1", port: brokerPort),
            home: AddonConfig.Home(
                latitude: "52.52", longitude: "13.405", timeZone: "Europe/Berlin", name: Self.homeName,
                temperatureUnit: "°C"),
            stateDir: sandbox.stateDir)
        return plan.text
    }

    /// Not ASCII: the proxy drops `charset` from `Content-Type` (as Home Assistant's does), so
    /// the page's own `<meta charset>` must carry it.
    static let homeName = "Gärtnerei Süd"

    /// A token as the Supervisor makes one: `secrets.token_urlsafe()`, 32 random bytes in
    /// URL-safe base64 without padding (43 of `[A-Za-z0-9_-]`) [SV supervisor/apps/validate.py].
    static func token() -> String {
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    @Test("the page, its images and /api/state.json load under /api/hassio_ingress/<token>/ (two tokens)")
    func pageUnderIngressPrefix() async throws {
        let sandbox = try AgentSandbox()
        try FileManager.default.createDirectory(atPath: sandbox.stateDir, withIntermediateDirectories: true)
        try await MosquittoBroker.withPlainBroker { brokerPort in
            let httpPort = try FreePort.loopback()
            let config = try Self.addonConfig(sandbox, brokerPort: brokerPort, httpPort: httpPort)
            #expect(config.contains("allow:"), "the generated http: has its allow list\n\(config)")
            try config.write(toFile: sandbox.configPath, atomically: true, encoding: .utf8)
            let agent = try AgentProcess(
                ["run", "--demo", "--config", sandbox.configPath], directory: sandbox.directory)

            // Ready: both images rendered (the page lists an image once the agent serves it; how
            // its path is written is for the checks below).
            var page = ""
            let ready = await agent.waitForSnapshot(timeout: .seconds(60)) {
                page = RawHTTP.get(httpPort, "/").text
                return page.contains("images/home/panel.png\"") && page.contains("images/home/stripes.jpg\"")
                    && page.contains("Local Climate Trend") && !page.contains("Waiting for the first fetch")
            }
            try #require(ready, "the page never showed both images and data:\n\(page)\n\(agent.log)")

            let tokens = [Self.token(), Self.token()]
            for token in tokens {
                let proxy = try IngressProxy(token: token, upstreamPort: httpPort)
                defer { proxy.stop() }
                try Self.checkProxyRefusals(proxy)
                try Self.checkDirectLoad(proxy)
                try Self.checkInFrontendIframe(proxy)
                if token == tokens[0] {
                    // Drawn, not blank (`BREEZE_SCREENSHOT_DIR` keeps them as ingress-<width>.png).
                    try StatusPageBrowserTests.screenshots(
                        proxy.url(proxy.prefix + "/"), port: proxy.port, name: "ingress", directory: sandbox.directory)
                }
                // Nothing the browser asked for left the prefix (HA answers such paths itself:
                // they would never reach the add-on, and the page would be broken).
                let escaped = proxy.browserRequests.filter { !$0.path.hasPrefix(proxy.prefix + "/") }
                #expect(escaped.isEmpty, "requests outside \(proxy.prefix)/: \(escaped.map(\.target))")
                let images = proxy.browserRequests.filter { $0.path.contains("/images/") }
                #expect(
                    Set(images.map(\.path)) == [
                        proxy.prefix + "/images/home/panel.png", proxy.prefix + "/images/home/stripes.jpg",
                    ],
                    "\(images.map(\.target))")
                #expect(images.allSatisfy { $0.status == 200 }, "\(images.map { "\($0.target) \($0.status)" })")
            }
            #expect(await agent.terminate() == 0)
        }
    }

    /// The stand-in answers as Home Assistant does outside a live token's prefix.
    static func checkProxyRefusals(_ proxy: IngressProxy) throws {
        #expect(RawHTTP.get(proxy.port, "/").status == 404)
        #expect(RawHTTP.get(proxy.port, "/api/state.json").status == 404)
        #expect(RawHTTP.get(proxy.port, proxy.prefix).status == 404, "the route needs the slash after the token")
        #expect(RawHTTP.get(proxy.port, "/api/hassio_ingress/\(token())/").status == 503)
        let forwarded = RawHTTP.get(proxy.port, proxy.prefix + "/api/state.json?location=home")
        #expect(forwarded.status == 200, "\(forwarded.head)")
        proxy.forgetRequests()
    }

    /// Chromium opens `<prefix>/` as the iframe's `src` would (Home Assistant's `ingress_url`
    /// ends in `/`): the agent's page, with its non-ASCII name intact and relative images.
    static func checkDirectLoad(_ proxy: IngressProxy) throws {
        let dom = try Chromium.dumpDOM(proxy.url(proxy.prefix + "/"), allowPort: proxy.port)
        #expect(dom.contains("<h2>\(homeName)</h2>"), "the location's name as Home Assistant names it")
        #expect(dom.contains("demo: sample data"))
        #expect(dom.contains("<img src=\"images/home/panel.png\""), "relative image path")
        #expect(dom.contains("<a href=\"api/state.json\">"), "relative state link")
        #expect(!dom.contains("href=\"/") && !dom.contains("src=\"/"), "an absolute link or source on the page")
    }

    /// Home Assistant's frontend shows the panel as `<iframe src="${addon.ingress_url}">`
    /// [frontend hassio/src/ingress-view/hassio-ingress-view.ts, bundled in SV
    /// supervisor/api/panel]. The stand-in's frontend page does the same and, same-origin, reads
    /// the framed page once it has loaded: every image's `naturalWidth`, every link, and the
    /// state document fetched from the page's own `/api/state.json` link.
    static func checkInFrontendIframe(_ proxy: IngressProxy) throws {
        let dom = try Chromium.dumpDOM(proxy.url(IngressProxy.frontendPath), allowPort: proxy.port)
        let text = try #require(DOM.text(of: "pre", id: "result", in: dom), "no result from the frame:\n\(dom)")
        let result = try #require(jsonObject(text), "not JSON: \(text)")
        let base = proxy.url(proxy.prefix + "/")
        #expect(result["url"] as? String == base)
        #expect(result["h2"] as? [String] == [homeName], "\(String(describing: result["h2"]))")

        let images = try #require(result["images"] as? [[String: Any]])
        #expect(images.count == 2, "\(images)")
        for image in images {
            let source = image["src"] as? String ?? ""
            #expect(source.hasPrefix(base + "images/home/"), "image \(source) not under \(base)")
            #expect((image["naturalWidth"] as? Int ?? 0) > 0, "image \(source) did not load: \(image)")
        }
        let widths = Set(images.compactMap { $0["naturalWidth"] as? Int })
        #expect(widths == [296, 400], "the rendered sizes: \(images)")

        let links = try #require(result["links"] as? [String])
        #expect(!links.isEmpty)
        for link in links { #expect(link.hasPrefix(base), "link \(link) leaves \(base)") }
        #expect(links.contains(base + "api/state.json") && links.contains(base + "metrics"), "\(links)")

        // Not a `#require`: the caller's check of every request the browser made still runs.
        guard let state = result["state"] as? [String: Any] else {
            Issue.record("state.json not fetched from the page's link: \(result["stateError"] ?? result)")
            return
        }
        #expect(state["url"] as? String == base + "api/state.json")
        #expect(state["status"] as? Int == 200)
        #expect(state["names"] as? [String] == [homeName], "\(state)")
    }
}

/// A stand-in for Home Assistant's ingress path, written from its source (docs/home-assistant.md,
/// "Ingress", cites both at their commits):
/// - Core's `HassIOIngress` view [CORE homeassistant/components/hassio/ingress.py] takes
///   `/api/hassio_ingress/{token}/{path:.*}` (the slash after the token is part of the route;
///   anything else is not an ingress URL: 404 here), copies the browser's headers except
///   Content-Length, Content-Encoding, Transfer-Encoding, Accept-Encoding and Sec-WebSocket-*,
///   adds `X-Hass-Source: core.ingress`, `X-Ingress-Path: /api/hassio_ingress/<token>` (no
///   trailing slash), `X-Forwarded-For` (the browser's address), `X-Forwarded-Host` (its Host)
///   and `X-Forwarded-Proto`, passes the query on, follows no redirect, and answers with the
///   add-on's status and headers minus Transfer-Encoding, Content-Length, Content-Type and
///   Content-Encoding, setting Content-Type to the add-on's media type **without its
///   parameters** (`text/html; charset=utf-8` → `text/html`).
/// - The Supervisor [SV supervisor/api/ingress.py] looks the token up (unknown: 503), appends
///   Core's address to `X-Forwarded-For` and requests `http://<add-on>:<ingress_port>/<path>`:
///   the prefix is gone. Both hops are one here; the ingress session cookie is not modelled.
/// The frontend page at ``frontendPath`` frames `<prefix>/` as Home Assistant's panel does.
final class IngressProxy: Sendable {
    struct Seen: Sendable {
        var target: String
        var path: String
        var status: Int
    }

    /// Home Assistant's frontend route of an add-on's panel (`/hassio/ingress/<slug>`).
    static let frontendPath = "/hassio/ingress/breeze_agent"

    let token: String
    let upstreamPort: Int
    private let server: LoopbackHTTPServer
    private let seen = Mutex<[Seen]>([])

    var prefix: String { "/api/hassio_ingress/\(token)" }
    var port: Int { server.port }
    func url(_ path: String) -> String { server.url(path) }

    /// What the browser asked the proxy for, the frontend page left out.
    var browserRequests: [Seen] { seen.withLock { $0 }.filter { $0.path != Self.frontendPath } }
    func forgetRequests() { seen.withLock { $0.removeAll() } }

    init(token: String, upstreamPort: Int) throws {
        self.token = token
        self.upstreamPort = upstreamPort
        server = LoopbackHTTPServer()
        server.setHandler { [weak self] request in
            guard let self else { return .close }
            let (status, headers, body) = self.answer(request)
            self.seen.withLock { $0.append(Seen(target: request.target, path: request.path, status: status)) }
            return .respond(status: status, headers: headers, body: body)
        }
        try server.start()
    }

    func stop() { server.stop() }

    private func answer(_ request: LoopbackHTTPServer.Request) -> (Int, [(String, String)], [UInt8]) {
        if request.path == Self.frontendPath {
            return (200, [("Content-Type", "text/html; charset=utf-8")], Array(Self.frontend(prefix: prefix).utf8))
        }
        let route = "/api/hassio_ingress/"
        guard request.path.hasPrefix(route) else { return (404, [], Array("404: Not Found".utf8)) }
        let afterRoute = request.path.dropFirst(route.count)
        guard let slash = afterRoute.firstIndex(of: "/") else { return (404, [], Array("404: Not Found".utf8)) }
        guard afterRoute[..<slash] == token else { return (503, [], Array("503: Service Unavailable".utf8)) }
        let rest = String(afterRoute[afterRoute.index(after: slash)...])

        var head = "\(request.method) /\(rest)\(request.rawQuery.isEmpty ? "" : "?" + request.rawQuery) HTTP/1.1\r\n"
        let dropped: Set<String> = [
            "content-length", "content-encoding", "transfer-encoding", "accept-encoding", "sec-websocket-extensions",
            "sec-websocket-protocol", "sec-websocket-version", "sec-websocket-key", "connection",
        ]
        for (name, value) in request.headers where !dropped.contains(name.lowercased()) {
            head += "\(name): \(value)\r\n"
        }
        head += "X-Hass-Source: core.ingress\r\nX-Ingress-Path: \(prefix)\r\n"
        head += "X-Forwarded-For: 127.0.0.1, 127.0.0.1\r\n"
        head += "X-Forwarded-Host: \(request.header("Host") ?? "127.0.0.1:\(port)")\r\nX-Forwarded-Proto: http\r\n"
        // One request per connection to the add-on (the stand-in reads its answer to the end).
        head += "Connection: close\r\n\r\n"
        let response = RawHTTP.request(upstreamPort, head)
        guard let status = response.status else { return (502, [], Array("502: Bad Gateway".utf8)) }
        let hopByHop: Set<String> = [
            "transfer-encoding", "content-length", "content-type", "content-encoding", "connection", "keep-alive",
        ]
        var headers = response.headers.filter { !hopByHop.contains($0.0.lowercased()) }
        let mediaType = response.header("Content-Type").map {
            String($0.split(separator: ";", maxSplits: 1).first ?? "").trimmingCharacters(in: .whitespaces)
        }
        headers.append(("Content-Type", mediaType ?? "application/octet-stream"))
        return (status, headers, response.body)
    }

    /// The frontend stand-in: the panel's iframe, and a script that reports what the framed page
    /// loaded once its `load` event (after every image) has fired. It names its own icon, as
    /// Home Assistant's frontend does, so a `/favicon.ico` request could only be the agent page's.
    static func frontend(prefix: String) -> String {
        """
        <!DOCTYPE html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">
        <title>Home Assistant</title></head><body>
        <iframe id="ingress" title="breeze-agent" src="\(prefix)/" style="width:1280px;height:900px;border:0"></iframe>
        <script>
        const frame = document.getElementById("ingress");
        frame.addEventListener("load", async () => {
          const page = frame.contentDocument;
          const result = {
            url: page.URL,
            h2: [...page.querySelectorAll("main h2")].map((e) => e.textContent),
            images: [...page.images].map((i) => ({src: i.src, complete: i.complete, naturalWidth: i.naturalWidth})),
            links: [...page.querySelectorAll("a[href]")].map((a) => a.href),
          };
          const link = [...page.querySelectorAll("a[href]")].find((a) => a.textContent === "/api/state.json");
          try {
            const answer = await fetch(link.href);
            const body = await answer.json();
            result.state = {url: answer.url, status: answer.status, names: body.locations.map((l) => l.name)};
          } catch (error) {
            result.stateError = String(error);
          }
          const out = document.createElement("pre");
          out.id = "result";
          out.textContent = JSON.stringify(result);
          document.body.appendChild(out);
        });
        </script></body></html>
        """
    }
}

extension DOM {
    /// The text of the first `<tag id="id">…</tag>`, entities of Chromium's serialization undone.
    static func text(of tag: String, id: String, in dom: String) -> String? {
        guard let start = dom.range(of: "<\(tag) id=\"\(id)\">"),
            let end = dom[start.upperBound...].range(of: "</\(tag)>")
        else { return nil }
        return String(dom[start.upperBound..<end.lowerBound]).replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&nbsp;", with: "\u{A0}").replacingOccurrences(of: "&amp;", with: "&")
    }
}
