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
import Synchronization

/// The running HTTP server of `run` (docs/images.md): libmicrohttpd's thread answers from the last
/// ``ServeSnapshot`` the daemon handed over; the daemon never waits for a request, a request
/// never waits for the daemon (only for the lock around one value copy).
final class AgentHTTPServer: Sendable {
    /// The bounds (docs/operations.md, Limits), with `http.max_per_ip` connections per address.
    static func limits(maxPerIP: Int) -> HTTPServerLimits {
        HTTPServerLimits(
            connections: 256, requestBytes: 16 * 1024, idleTimeoutSeconds: 10, listenBacklog: 128,
            connectionsPerAddress: maxPerIP, requestHeadSeconds: 5)
    }

    /// The snapshot the handler reads, shared by the daemon's task and the server's thread.
    private final class Cell: Sendable {
        let value = Mutex(ServeSnapshot.starting(version: BreezeVersion.string))
    }

    private let snapshot = Cell()
    private let server: HTTPServer
    private let log: Log

    var port: Int { server.port }

    init(settings: HTTPSettings, site: HTTPSite, log: Log) throws(HTTPServerError) {
        let snapshot = self.snapshot
        self.log = log
        self.server = try HTTPServer(
            address: settings.address.description, port: settings.port,
            limits: Self.limits(maxPerIP: settings.maxPerIP),
            // A peer outside `allow` is closed before a byte is read (docs/operations.md, Limits).
            accept: { site.admits($0) },
            logger: { log.debug("http: libmicrohttpd: \($0)") },
            handler: { request in
                site.respond(to: request, snapshot: snapshot.value.withLock { $0 })
            })
    }

    /// What the endpoints show from now on: a new generation, so answers built from the last
    /// one are built again (once) when next asked for. Then, at `log_level: debug`, the line
    /// `http: serving snapshot <generation>`: written after the hand-over, so a request made
    /// after the line is answered from this snapshot or a later one (the integration tests read
    /// the endpoints at this line instead of on a timer).
    func update(_ value: ServeSnapshot) {
        let generation = snapshot.value.withLock { current in
            var next = value
            let generation = (current.generation ?? 0) &+ 1
            next.generation = generation
            current = next
            return generation
        }
        log.debug("http: serving snapshot \(generation)")
    }

    func stop() { server.stop() }
}

extension Agent {
    /// The endpoints of this agent. The status page (docs/http.md) registers `/` and
    /// `/api/state.json` in `pages`; the image pipeline passes its lookup as `images`.
    func makeHTTPSite(_ settings: HTTPSettings) -> HTTPSite {
        let store = imageStore
        let images: ImageLookup = { location, id, fileExtension in
            // Only the configured format is served: `/images/home/hallway.jpg` is 404 for a PNG.
            guard let image = store.image(location: location, id: id), image.format.fileExtension == fileExtension
            else { return nil }
            return (image.format.contentType, image.bytes)
        }
        return HTTPSite(
            allow: settings.allow, images: images, pages: StatusEndpoints.pages(config: config, demo: state.demo),
            hosts: settings.hosts)
    }

    /// Starts the HTTP server when `http:` is configured (nil otherwise): loads libmicrohttpd
    /// only then. A failure is logged with what to do; the caller exits (69).
    func startHTTPServer() -> Result<AgentHTTPServer?, HTTPServerError> {
        guard let settings = config.http else { return .success(nil) }
        if let warning = settings.exposureWarning { log.warning(warning) }
        do {
            let server = try AgentHTTPServer(settings: settings, site: makeHTTPSite(settings), log: log)
            let allowed = settings.allow.map(\.description).joined(separator: ", ")
            log.info("http: serving on \(settings.listenText) (allow \(allowed))")
            return .success(server)
        } catch {
            switch error.kind {
            case .libraryMissing:
                log.error("http: \(error.description); or remove http: from the configuration")
            case .startFailed:
                log.error("http: cannot listen on \(settings.listenText): \(error.description)")
            }
            return .failure(error)
        }
    }

    /// Hands the endpoints the state after an event.
    func refreshHTTP(_ server: AgentHTTPServer?, publisher: RetainedPublisher) {
        guard let server else { return }
        server.update(state.serveSnapshot(at: time(), publishedTopics: publisher.publishedCount))
    }
}
