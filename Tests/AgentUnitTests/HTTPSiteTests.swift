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
import BreezeServe
import Foundation
import Testing

@Suite("HTTP: config, routes, /healthz, /metrics from the daemon's snapshot (SPEC §9.2)")
struct HTTPSiteTests {
    typealias T = DaemonStateTests

    // MARK: config

    @Test func offByDefaultOnWithDefaultsWhenPresent() throws {
        #expect(try ConfigSandbox().load(oneLocation).http == nil)
        let http = try #require(try ConfigSandbox().load(oneLocation + "\nhttp: {}\n").http)
        #expect(http.listenText == "127.0.0.1:8765")
        #expect(http.allow.map(\.description) == ["127.0.0.0/8", "::1/128"])
        #expect(!http.allowExplicit)
        #expect(http.exposureWarning == nil)
    }

    @Test func maxConcurrentAloneTunesTheClientAndServesNothing() throws {
        let client = try ConfigSandbox().load(oneLocation + "\nhttp: {max_concurrent: 8}\n")
        #expect(client.http == nil)
        #expect(client.httpMaxConcurrent == 8)
        let both = try ConfigSandbox().load(oneLocation + "\nhttp: {listen: \"127.0.0.1:9000\", max_concurrent: 2}\n")
        #expect(both.http?.listenText == "127.0.0.1:9000")
        #expect(both.httpMaxConcurrent == 2)
    }

    @Test func listenAndAllow() throws {
        let http = try #require(
            try ConfigSandbox().load(
                oneLocation + "\nhttp:\n  listen: \"[::]:9000\"\n  allow: [192.168.1.0/24, \"fd00::/8\", 10.1.2.3]\n"
            ).http)
        #expect(http.address == IPAddress("::"))
        #expect(http.port == 9000)
        #expect(http.listenText == "[::]:9000")
        #expect(http.allow.map(\.description) == ["192.168.1.0/24", "fd00::/8", "10.1.2.3/32"])
        #expect(http.exposureWarning == nil)
    }

    @Test func aNonLoopbackListenWithoutAllowIsWarnedAbout() throws {
        let http = try #require(try ConfigSandbox().load(oneLocation + "\nhttp: {listen: \"0.0.0.0:8765\"}\n").http)
        let warning = try #require(http.exposureWarning)
        #expect(warning.hasPrefix("http: listening on 0.0.0.0:8765, beyond the loopback interface, without http.allow"))
        // The default allow list still applies: loopback only.
        #expect(http.allow == CIDR.loopback)
    }

    @Test(
        "config errors name file, line and key",
        arguments: [
            (
                "http: {listen: \"localhost:8765\"}",
                "config.yaml:3: http.listen: expected an address and port like 127.0.0.1:8765, 0.0.0.0:8765 or [::1]:8765, got \"localhost:8765\""
            ),
            (
                "http: {listen: \"127.0.0.1\"}",
                "config.yaml:3: http.listen: expected an address and port like 127.0.0.1:8765, 0.0.0.0:8765 or [::1]:8765, got \"127.0.0.1\""
            ),
            (
                "http: {listen: \"127.0.0.1:70000\"}",
                "config.yaml:3: http.listen: expected an address and port like 127.0.0.1:8765, 0.0.0.0:8765 or [::1]:8765, got \"127.0.0.1:70000\""
            ),
            (
                "http: {listen: \"::1:8765\"}",
                "config.yaml:3: http.listen: expected an address and port like 127.0.0.1:8765, 0.0.0.0:8765 or [::1]:8765, got \"::1:8765\""
            ),
            (
                "http: {listen: \"[127.0.0.1]:8765\"}",
                "config.yaml:3: http.listen: expected an address and port like 127.0.0.1:8765, 0.0.0.0:8765 or [::1]:8765, got \"[127.0.0.1]:8765\""
            ),
            (
                "http: {allow: []}",
                "config.yaml:3: http.allow: expected a list of networks like [192.168.1.0/24, \"fd00::/8\"], got a list"
            ),
            (
                "http: {allow: 10.0.0.0/8}",
                "config.yaml:3: http.allow: expected a list of networks like [192.168.1.0/24, \"fd00::/8\"], got \"10.0.0.0/8\""
            ),
            (
                "http:\n  allow:\n    - 10.0.0.0/8\n    - 192.168.1.5/24",
                "config.yaml:6: http.allow[1]: \"192.168.1.5/24\" has host bits set; the network is 192.168.1.0/24"
            ),
            (
                "http: {allow: [\"::ffff:127.0.0.1\"]}",
                "config.yaml:3: http.allow[0]: \"::ffff:127.0.0.1\" is an IPv4 address in IPv4-mapped IPv6 form, which no peer matches (IPv4 peers are matched as IPv4); write 127.0.0.1"
            ),
            (
                "http:\n  allow:\n    - 10.0.0.0/8\n    - \"::ffff:192.168.1.0/120\"",
                "config.yaml:6: http.allow[1]: \"::ffff:192.168.1.0/120\" is an IPv4 network in IPv4-mapped IPv6 form, which no peer matches (IPv4 peers are matched as IPv4); write 192.168.1.0/24"
            ),
            (
                "http: {allow: [lan]}",
                "config.yaml:3: http.allow[0]: expected a network like 192.168.1.0/24, 10.0.0.0/8, fd00::/8 or a single address, got \"lan\""
            ),
            (
                "http: {allow: [[10.0.0.0/8]]}",
                "config.yaml:3: http.allow[0]: expected a network like 192.168.1.0/24, got a list"
            ),
            (
                "http: {listn: \"127.0.0.1:1\"}",
                "config.yaml:3: http.listn: unknown key \"listn\"; did you mean \"listen\"? (known keys: listen, allow, max_per_ip, hosts, max_concurrent)"
            ),
            ("http: [1]", "config.yaml:3: http: expected a mapping of keys, got a list"),
            ("http: {max_per_ip: 0}", "config.yaml:3: http.max_per_ip: expected an integer 1–256, got \"0\""),
            ("http: {max_per_ip: 257}", "config.yaml:3: http.max_per_ip: expected an integer 1–256, got \"257\""),
            ("http: {max_per_ip: many}", "config.yaml:3: http.max_per_ip: expected an integer 1–256, got \"many\""),
        ])
    func configErrors(_ yaml: String, _ expected: String) throws {
        let error = try #require(try ConfigSandbox().failure(oneLocation + "\n" + yaml + "\n"))
        #expect(error.description.hasSuffix(expected.dropFirst("config.yaml".count)), "\(error)")
        #expect(error.description.contains("config.yaml:"))
    }

    @Test func checkConfigShowsItAndReadsItBack() throws {
        let sandbox = try ConfigSandbox()
        let off = renderEffective(try sandbox.load(oneLocation))
        #expect(off.contains("http:  # server off: no listen\n  max_concurrent: 4\n"), "\(off)")
        #expect(try sandbox.load(off).http == nil)
        let config = try sandbox.load(oneLocation + "\nhttp: {listen: \"[::1]:9000\", allow: [\"fd00::/8\"]}\n")
        let text = renderEffective(config)
        #expect(
            text.contains(
                "http:\n  listen: \"[::1]:9000\"\n  allow: [\"fd00::/8\"]\n  max_per_ip: 8\n  max_concurrent: 4\n"),
            "\(text)")
        #expect(try sandbox.load(text).http == config.http)
        let defaults = renderEffective(try sandbox.load(oneLocation + "\nhttp:\n"))
        #expect(defaults.contains("http:  # allow: the default, loopback only\n  listen: \"127.0.0.1:8765\"\n"))
    }

    /// Issue 39 item 8: the `Host` a request names is an IP literal, localhost, or in
    /// `http.hosts`; a DNS-rebinding page's own name is refused.
    @Test func theHostHeaderIsCheckedAgainstLiteralsLocalhostAndHTTPHosts() throws {
        let config = try #require(
            try ConfigSandbox().load(
                oneLocation + "\nhttp: {listen: \"0.0.0.0:8765\", hosts: [Hub.Local., pollen.example.org]}\n"
            )
            .http)
        #expect(config.hosts == ["hub.local", "pollen.example.org"])
        #expect(
            renderEffective(try ConfigSandbox().load(oneLocation + "\nhttp: {hosts: [hub.local]}\n")).contains(
                "  hosts: [\"hub.local\"]\n"))
        let site = HTTPSite(allow: CIDR.loopback, hosts: config.hosts)
        func status(_ host: String?) -> Int {
            var request = Self.request("/healthz")
            request.host = host
            return site.respond(to: request, snapshot: try! Self.snapshot()).status
        }
        for host in [
            nil, "127.0.0.1", "127.0.0.1:8765", "192.168.1.5:8765", "[::1]:8765", "[fd00::1]", "localhost",
            "LOCALHOST:8765", "hub.local", "Hub.Local:8765", "pollen.example.org.",
        ] {
            #expect(status(host) == 200, "\(host ?? "nil")")
        }
        for host in [
            "evil.example", "evil.example:8765", "hub.local.evil.example", "", "[::1", "a b", "localhost.evil",
        ] {
            #expect(status(host) == 403, "\(host)")
        }
        // "*" (what the add-on writes behind the ingress proxy) turns the check off.
        let any = try #require(try ConfigSandbox().load(oneLocation + "\nhttp: {hosts: [\"*\"]}\n").http)
        var proxied = Self.request("/healthz")
        proxied.host = "homeassistant.example.org:8123"
        #expect(
            HTTPSite(allow: CIDR.loopback, hosts: any.hosts).respond(to: proxied, snapshot: try Self.snapshot()).status
                == 200)
        let bad = try #require(ConfigSandbox().failure(oneLocation + "\nhttp: {hosts: [\"hub:8765\"]}\n"))
        #expect(bad.keyPath == "http.hosts[0]", "\(bad)")
    }

    @Test func maxPerIPDefaultsToEightAndTurnsTheServerOn() throws {
        let sandbox = try ConfigSandbox()
        #expect(try #require(try sandbox.load(oneLocation + "\nhttp: {}\n").http).maxPerIP == 8)
        let set = try #require(try sandbox.load(oneLocation + "\nhttp: {max_per_ip: 2}\n").http)
        #expect(set.maxPerIP == 2)
        #expect(set.listenText == "127.0.0.1:8765")
        let text = renderEffective(try sandbox.load(oneLocation + "\nhttp: {max_per_ip: 3}\n"))
        #expect(text.contains("  max_per_ip: 3\n"), "\(text)")
        #expect(try sandbox.load(text).http?.maxPerIP == 3)
        // The server's bounds carry it, with the 5 s request-head deadline.
        let limits = AgentHTTPServer.limits(maxPerIP: set.maxPerIP)
        #expect(limits.connectionsPerAddress == 2)
        #expect(limits.requestHeadSeconds == 5)
    }

    @Test func aMappedEntryNamesTheIPv4FormAndOtherIPv6EntriesStay() throws {
        func message(_ text: String) throws -> String? {
            HTTPConfigParser.mappedEntryMessage(try CIDR(parsing: text), text: text)
        }
        #expect(try message("::ffff:10.0.0.0/104")?.hasSuffix("write 10.0.0.0/8") == true)
        #expect(try message("::ffff:0.0.0.0/96")?.hasSuffix("write 0.0.0.0/0") == true)
        #expect(try message("::ffff:10.1.2.3/128")?.hasSuffix("write 10.1.2.3") == true)
        // Not mapped, or wider than the mapped range: accepted as written.
        for text in ["::1", "fd00::/8", "::/0", "::/95", "64:ff9b::192.0.2.33", "10.0.0.0/8"] {
            #expect(try message(text) == nil, "\(text)")
        }
    }

    @Test func atMostSixtyFourAllowEntries() throws {
        let list = (0..<65).map { "10.0.\($0).0/24" }.joined(separator: ", ")
        let error = try #require(ConfigSandbox().failure(oneLocation + "\nhttp: {allow: [\(list)]}\n"))
        #expect(error.description.hasSuffix("http.allow: at most 64 networks, got 65"))
    }

    // MARK: routes

    static let loopbackPeer = IPAddress("127.0.0.1")
    static func request(
        _ path: String, method: String = "GET", query: [(String, String?)] = [], peer: IPAddress? = loopbackPeer
    )
        -> HTTPServerRequest
    {
        HTTPServerRequest(method: method, path: path, query: query.map { (key: $0.0, value: $0.1) }, peer: peer)
    }

    /// A daemon that fetched pollen and climate once and is connected: a real snapshot.
    static func snapshot(connected: Bool = true, climateFails: Bool = false) throws -> ServeSnapshot {
        var (state, _) = T.started(try T.config("climate: {years: [2000, 2010]}"))
        if connected { _ = state.handle(.mqtt(.connected), at: T.at(T.t0 + 1)) }
        let now = T.t0 + 7
        _ = state.handle(.fetched(T.pollenKey, T.pollenOK(now)), at: T.at(now))
        let climate: FetchOutcome =
            climateFails ? .failure(.climate, message: "HTTP 500") : try T.climateOK(now)
        _ = state.handle(.fetched(T.climateKey, climate), at: T.at(now))
        return state.serveSnapshot(at: T.at(now + 1), publishedTopics: 42)
    }

    static let site = HTTPSite(allow: CIDR.loopback)

    @Test func sourceStatesFollowTheDaemon() throws {
        var (state, _) = T.started(try T.config("air: {enabled: true}"))
        func states() -> [String: String] {
            let location = state.serveSnapshot(at: T.at(T.t0 + 100), publishedTopics: 0).locations[0]
            return Dictionary(uniqueKeysWithValues: location.sources.map { ($0.kind.rawValue, $0.state.rawValue) })
        }
        // Nothing fetched yet: every enabled source pending (air too, since it is on).
        #expect(states() == ["pollen": "pending", "climate": "pending", "stripes": "pending", "air": "pending"])
        let now = T.t0 + 7
        _ = state.handle(.fetched(T.pollenKey, T.pollenOK(now)), at: T.at(now))
        #expect(states()["pollen"] == "fresh")
        // A failure after good data: stale, the data's time kept.
        _ = state.handle(.fetched(T.pollenKey, T.pollenFailed(now + 60)), at: T.at(now + 60))
        #expect(states()["pollen"] == "stale")
        let pollen = state.serveSnapshot(at: T.at(now + 61), publishedTopics: 0).locations[0].sources[0]
        #expect(pollen.lastSuccess == DaemonInstant(unixSeconds: now))
        #expect(pollen.consecutiveFailures == 1)
        // The source has no pollen here: unavailable, which is not stale.
        let unsupported = FetchOutcome.answer(
            .pollen,
            PollenAnswer(
                source: .google, outcome: .unsupported(message: "no data"),
                fetchedAt: DaemonInstant(unixSeconds: now + 120)))
        _ = state.handle(.fetched(T.pollenKey, unsupported), at: T.at(now + 120))
        #expect(states()["pollen"] == "unavailable")
        #expect(!state.serveSnapshot(at: T.at(now + 121), publishedTopics: 0).anyStale)
        // Off sources are not listed.
        let (off, _) = T.started(try T.config())
        #expect(
            !off.serveSnapshot(at: T.at(T.t0), publishedTopics: 0).locations[0].sources.contains { $0.kind == .air })
    }

    @Test func healthz() throws {
        let ok = Self.site.respond(to: Self.request("/healthz"), snapshot: try Self.snapshot())
        #expect(ok.status == 200)
        #expect(ok.header("Content-Type") == "application/json")
        let body = try #require(
            try JSONSerialization.jsonObject(with: Data(ok.body)) as? [String: Any])
        #expect(body["status"] as? String == "ok")
        #expect(body["mqtt_connected"] as? Bool == true)
        let locations = try #require(body["locations"] as? [[String: Any]])
        #expect(locations.first?["id"] as? String == "home")
        let sources = try #require(locations.first?["sources"] as? [String: [String: Any]])
        #expect(sources["pollen"]?["state"] as? String == "fresh")
        #expect(sources["pollen"]?["last_success"] as? String == UTCTimestamp.rfc3339(unixSeconds: T.t0 + 7))
        #expect(sources["climate"]?["state"] as? String == "fresh")
        // The stripes have not been fetched: pending, which is not stale.
        #expect(sources["stripes"]?["state"] as? String == "pending")
        #expect(
            Self.site.respond(to: Self.request("/healthz", query: [("strict", nil)]), snapshot: try Self.snapshot())
                .status == 200)
    }

    @Test func healthzStrictIsUnavailableWhileSomethingIsStale() throws {
        let snapshot = try Self.snapshot(climateFails: true)
        #expect(snapshot.anyStale)
        let lenient = Self.site.respond(to: Self.request("/healthz"), snapshot: snapshot)
        #expect(lenient.status == 200)
        #expect(String(decoding: lenient.body, as: UTF8.self).contains(#""status":"stale""#))
        #expect(
            String(decoding: lenient.body, as: UTF8.self).contains(
                #""climate":{"state":"stale","stale":true,"last_success":null,"consecutive_failures":1}"#))
        let strict = Self.site.respond(to: Self.request("/healthz", query: [("strict", nil)]), snapshot: snapshot)
        #expect(strict.status == 503)
        // `?strict=1` is strict too.
        #expect(
            Self.site.respond(to: Self.request("/healthz", query: [("strict", "1")]), snapshot: snapshot).status == 503)
    }

    @Test func healthzIsUnavailableWithoutMQTT() throws {
        let response = Self.site.respond(to: Self.request("/healthz"), snapshot: try Self.snapshot(connected: false))
        #expect(response.status == 503)
        #expect(
            String(decoding: response.body, as: UTF8.self).hasPrefix(
                #"{"status":"mqtt_disconnected","mqtt_connected":false"#))
        // Before the daemon's first snapshot as well.
        #expect(Self.site.respond(to: Self.request("/healthz"), snapshot: .starting(version: "x")).status == 503)
    }

    @Test func onlyGetAndHead() throws {
        let snapshot = try Self.snapshot()
        for method in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT", "get"] {
            let response = Self.site.respond(to: Self.request("/healthz", method: method), snapshot: snapshot)
            #expect(response.status == 405, "\(method)")
            #expect(response.header("Allow") == "GET, HEAD")
        }
        #expect(Self.site.respond(to: Self.request("/metrics", method: "HEAD"), snapshot: snapshot).status == 200)
    }

    @Test func peersOutsideAllowAreForbiddenEverywhere() throws {
        let snapshot = try Self.snapshot()
        let site = HTTPSite(allow: [try CIDR(parsing: "10.0.0.0/8")])
        for path in ["/healthz", "/metrics", "/nothing", "/images/home/x.png"] {
            #expect(site.respond(to: Self.request(path), snapshot: snapshot).status == 403, "\(path)")
            #expect(site.respond(to: Self.request(path, method: "POST"), snapshot: snapshot).status == 403)
            #expect(site.respond(to: Self.request(path, peer: nil), snapshot: snapshot).status == 403)
        }
        #expect(
            site.respond(to: Self.request("/healthz", peer: IPAddress("10.9.8.7")), snapshot: snapshot).status == 200)
        #expect(
            site.respond(to: Self.request("/healthz", peer: IPAddress("::ffff:10.9.8.7")), snapshot: snapshot).status
                == 200)
    }

    @Test func imagesThroughTheLookupAndNothingElse() throws {
        let snapshot = try Self.snapshot()
        let asked = LockedList()
        let site = HTTPSite(
            allow: CIDR.loopback,
            images: { location, id, fileExtension in
                asked.append("\(location)/\(id).\(fileExtension)")
                guard location == "home", id == "hallway" else { return nil }
                return fileExtension == "png" ? ("image/png", [0x89, 0x50, 0x4e, 0x47]) : ("image/jpeg", [0xff, 0xd8])
            })
        let png = site.respond(to: Self.request("/images/home/hallway.png"), snapshot: snapshot)
        #expect(png.status == 200)
        #expect(png.header("Content-Type") == "image/png")
        #expect(png.body == [0x89, 0x50, 0x4e, 0x47])
        #expect(site.respond(to: Self.request("/images/home/hallway.jpg"), snapshot: snapshot).body == [0xff, 0xd8])
        #expect(site.respond(to: Self.request("/images/home/other.png"), snapshot: snapshot).status == 404)
        // Paths as libmicrohttpd hands them over (percent-decoded): none reaches the lookup.
        let refused = [
            "/images/../x", "/images/home/../hallway.png", "/images/../home/hallway.png", "/images/home/..png",
            "/images/home/hallway.jpeg", "/images/home/hallway.PNG", "/images/Home/hallway.png",
            "/images/home/hallway.png/", "/images//hallway.png", "/images/home/hallway", "/images/home/.png",
            "/images/home/sub/hallway.png", "/images/home/hall way.png", "/images/home/hallway.png\0.txt",
            "//images/home/hallway.png", "/images/home\\hallway.png", "/etc/passwd", "/images",
        ]
        asked.clear()
        for path in refused {
            #expect(site.respond(to: Self.request(path), snapshot: snapshot).status == 404, "\(path)")
        }
        #expect(asked.items.isEmpty, "\(asked.items)")
        // Without a lookup every image is 404.
        #expect(Self.site.respond(to: Self.request("/images/home/hallway.png"), snapshot: snapshot).status == 404)
    }

    @Test func pagesAreServedFromTheSameSnapshot() throws {
        let snapshot = try Self.snapshot()
        let site = HTTPSite(
            allow: CIDR.loopback,
            pages: [
                "/": { snapshot, _ in
                    HTTPServerResponse(
                        status: 200, contentType: "text/html", text: "<p>\(snapshot.locations[0].name)</p>")
                }
            ])
        let page = site.respond(to: Self.request("/"), snapshot: snapshot)
        #expect(page.status == 200)
        #expect(String(decoding: page.body, as: UTF8.self) == "<p>Home</p>")
        #expect(page.header("X-Content-Type-Options") == "nosniff")
        #expect(site.respond(to: Self.request("/", method: "POST"), snapshot: snapshot).status == 405)
        #expect(site.respond(to: Self.request("/api/state.json"), snapshot: snapshot).status == 404)
        #expect(Self.site.respond(to: Self.request("/"), snapshot: snapshot).status == 404)
    }

    // MARK: metrics

    @Test func metricsText() throws {
        let text = PrometheusText.metrics(of: try Self.snapshot(climateFails: true))
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.contains("breeze_mqtt_connected 1"))
        #expect(lines.contains("breeze_published_topics 42"))
        #expect(lines.contains(#"breeze_fetches_total{source="google_pollen"} 1"#))
        #expect(lines.contains(#"breeze_fetches_total{source="open_meteo_climate"} 1"#))
        #expect(lines.contains(#"breeze_fetch_failures_total{source="open_meteo_climate"} 1"#))
        // Configured but not fetched yet: listed with 0.
        #expect(lines.contains(#"breeze_fetches_total{source="open_meteo_stripes"} 0"#))
        #expect(lines.contains(#"breeze_api_calls_today{location="home",api="google"} 1"#))
        #expect(
            lines.contains(#"breeze_last_success_timestamp_seconds{location="home",source="pollen"} \#(T.t0 + 7)"#))
        #expect(lines.contains(#"breeze_source_stale{location="home",source="climate"} 1"#))
        // Every family has its HELP and TYPE lines right before its samples.
        for family in ["breeze_fetches_total", "breeze_source_stale", "breeze_mqtt_connected"] {
            let help = try #require(lines.firstIndex { $0.hasPrefix("# HELP \(family) ") })
            #expect(lines[help + 1] == "# TYPE \(family) \(family.hasSuffix("_total") ? "counter" : "gauge")")
        }
        #expect(text.hasSuffix("\n"))
    }

    @Test func labelValuesAreEscaped() {
        #expect(PrometheusText.escapeLabel(#"a"b\c"# + "\nd") == #"a\"b\\c\nd"#)
        #expect(PrometheusText.escapeHelp(#"a"b\c"# + "\n") == #"a"b\\c\n"#)
    }
}

/// Paths the image lookup was asked for (it runs on the server's thread in production).
final class LockedList: @unchecked Sendable {
    // Guarded by `lock`; the tests call the site from one thread, the lock keeps it honest.
    private let lock = NSLock()
    private var values: [String] = []
    func append(_ value: String) { lock.withLock { values.append(value) } }
    func clear() { lock.withLock { values.removeAll() } }
    var items: [String] { lock.withLock { values } }
}
