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
import BreezeServe

/// Looks up a rendered image for `GET /images/<location>/<id>.<fileExtension>` (docs/images.md):
/// `fileExtension` is `png` or `jpg`; nil answers 404. Runs on the HTTP server's thread for
/// every such request: it must answer from memory at once (a lock around the last rendering),
/// never wait for the daemon or a renderer.
typealias ImageLookup =
    @Sendable (_ location: String, _ id: String, _ fileExtension: String) -> (
        contentType: String, bytes: [UInt8]
    )?

/// Answers a page (`/`, `/api/state.json`, docs/http.md) from the same snapshot the other
/// endpoints read. Runs on the HTTP server's thread; the peer check and the method check
/// (GET/HEAD) are done before it is called.
typealias PageProvider = @Sendable (ServeSnapshot, HTTPServerRequest) -> HTTPServerResponse

/// The agent's read-only web endpoints (docs/images.md; docs/http.md) as a pure function of a request and a
/// ``ServeSnapshot``: the server edge (``HTTPServer``) calls it, tests call it directly.
struct HTTPSite: Sendable {
    /// Peers allowed to ask: the server closes anyone else's connection when it accepts it
    /// (``admits(_:)``), and a request from outside still gets 403.
    let allow: [CIDR]
    /// `/images/<loc>/<id>.png|.jpg`; nil: no images (404).
    let images: ImageLookup?
    /// Extra pages by exact path (`/`, `/api/state.json`).
    let pages: [String: PageProvider]
    /// `http.hosts`: names a request's `Host` may carry besides IP literals and `localhost`.
    let hosts: [String]

    init(allow: [CIDR], images: ImageLookup? = nil, pages: [String: PageProvider] = [:], hosts: [String] = []) {
        self.allow = allow
        self.images = images
        self.pages = pages
        self.hosts = hosts
    }

    /// True for a request whose `Host` is an IP literal, `localhost` (or a name under it), one
    /// of ``hosts``, or absent (HTTP/1.0; libmicrohttpd refuses an HTTP/1.1 request without
    /// one). A DNS-rebinding page reaches the server under its own name, none of these: the
    /// server would otherwise serve it pollen data and location names (issue 39, item 8).
    func admitsHost(_ host: String?) -> Bool {
        guard let host, !hosts.contains(HTTPSettings.anyHost) else { return true }
        var name = Substring(host)
        if name.hasPrefix("[") {
            guard let close = name.firstIndex(of: "]") else { return false }
            return IPAddress(String(name[name.index(after: name.startIndex)..<close])) != nil
        }
        if let colon = name.lastIndex(of: ":"),
            name[name.index(after: colon)...].allSatisfy({ $0.isASCII && $0.isNumber })
        {
            name = name[..<colon]
        }
        if IPAddress(String(name)) != nil { return true }
        guard let lower = HTTPSettings.hostName(String(name)) else { return false }
        return lower == "localhost" || lower.hasSuffix(".localhost") || hosts.contains(lower)
    }

    /// Sent with every answer: nothing here is meant to be sniffed, framed or cached by a proxy.
    static let commonHeaders: [(name: String, value: String)] = [
        ("X-Content-Type-Options", "nosniff"), ("Cache-Control", "no-store"),
    ]

    /// True when `peer` is in `allow` (nil, an unknown peer: false).
    func admits(_ peer: IPAddress?) -> Bool {
        guard let peer else { return false }
        return allow.contains { $0.contains(peer) }
    }

    func respond(to request: HTTPServerRequest, snapshot: ServeSnapshot) -> HTTPServerResponse {
        var response = route(request, snapshot: snapshot)
        for header in Self.commonHeaders where response.header(header.name) == nil {
            response.headers.append(header)
        }
        return response
    }

    private func route(_ request: HTTPServerRequest, snapshot: ServeSnapshot) -> HTTPServerResponse {
        // The peer first: a peer outside `allow` learns nothing, not even which paths exist.
        guard admits(request.peer) else { return Self.text(403, "forbidden\n") }
        guard admitsHost(request.host) else {
            return Self.text(403, "forbidden: this server does not answer to that Host name (http.hosts)\n")
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return Self.text(
                405, "method not allowed: this server is read-only (GET, HEAD)\n", [("Allow", "GET, HEAD")])
        }
        switch request.path {
        case "/healthz":
            return Self.health(snapshot, strict: request.hasQuery("strict"))
        case "/metrics":
            return HTTPServerResponse(
                status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8",
                text: PrometheusText.metrics(of: snapshot))
        default:
            if let page = pages[request.path] { return page(snapshot, request) }
            if let (location, id, fileExtension) = Self.imagePath(request.path), let images,
                let image = images(location, id, fileExtension)
            {
                return HTTPServerResponse(
                    status: 200, headers: [("Content-Type", image.contentType)], body: image.bytes)
            }
            return Self.text(404, "not found\n")
        }
    }

    /// `/images/<loc>/<id>.png|.jpg` with both names of `[a-z0-9_-]` (what config ids allow);
    /// anything else — `..`, encoded slashes (they arrive as `%2F`), upper case, other
    /// extensions — is nil (404).
    static func imagePath(_ path: String) -> (location: String, id: String, fileExtension: String)? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0].isEmpty, parts[1] == "images", let dot = parts[3].lastIndex(of: ".") else {
            return nil
        }
        let location = parts[2]
        let id = parts[3][..<dot]
        let fileExtension = parts[3][parts[3].index(after: dot)...]
        let isName = { (text: Substring) in
            !text.isEmpty && text.utf8.count <= 64
                && text.utf8.allSatisfy {
                    ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5f || $0 == 0x2d
                }
        }
        guard isName(location), isName(id), fileExtension == "png" || fileExtension == "jpg" else { return nil }
        return (String(location), String(id), String(fileExtension))
    }

    /// `/healthz` (docs/images.md): 200 while MQTT is connected, 503 when it is not; with `strict`
    /// also 503 when any source is stale. The body says why, per location and source.
    static func health(_ snapshot: ServeSnapshot, strict: Bool) -> HTTPServerResponse {
        let status: String
        let healthy: Bool
        if !snapshot.mqttConnected {
            (status, healthy) = ("mqtt_disconnected", false)
        } else if snapshot.anyStale {
            (status, healthy) = ("stale", !strict)
        } else {
            (status, healthy) = ("ok", true)
        }
        let locations = snapshot.locations.map { location in
            JSONValue.object([
                JSONMember("id", .string(location.id)),
                JSONMember(
                    "sources",
                    .object(
                        location.sources.map { source in
                            JSONMember(
                                source.kind.rawValue,
                                .object([
                                    JSONMember("state", .string(source.state.rawValue)),
                                    JSONMember("stale", .bool(source.state == .stale)),
                                    JSONMember(
                                        "last_success",
                                        .optional(
                                            source.lastSuccess.map { UTCTimestamp.rfc3339(unixSeconds: $0.unixSeconds) }
                                        )),
                                    JSONMember("consecutive_failures", .integer(source.consecutiveFailures)),
                                ]))
                        })),
            ])
        }
        let body = JSONValue.object([
            JSONMember("status", .string(status)),
            JSONMember("mqtt_connected", .bool(snapshot.mqttConnected)),
            JSONMember("version", .string(snapshot.version)),
            JSONMember("uptime_seconds", .integer(snapshot.uptimeSeconds)),
            JSONMember("locations", .array(locations)),
        ])
        return HTTPServerResponse(
            status: healthy ? 200 : 503, contentType: "application/json", text: body.serialized + "\n")
    }

    static func text(_ status: Int, _ text: String, _ headers: [(name: String, value: String)] = [])
        -> HTTPServerResponse
    {
        HTTPServerResponse(status: status, contentType: "text/plain; charset=utf-8", text: text, headers: headers)
    }
}
