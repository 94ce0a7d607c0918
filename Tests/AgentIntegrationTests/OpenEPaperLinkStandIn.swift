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

import BreezeTestSupport
import Foundation
import Synchronization

/// A loopback stand-in for an OpenEPaperLink access point's `POST /imgupload`, written from the
/// firmware's handler (OpenEPaperLink ESP32_AP-Flasher/src/web.cpp, `doImageUpload`): the AP
/// reads the form fields that arrived *before* the file part when that part starts, so
///
/// - while the AP is not running (here: the first `busyAnswers` uploads for a tag) it answers
///   409 "Come back later";
/// - a body whose `mac` field does not come before the `file` part is 400 "parameters incomplete";
/// - a `mac` that is not a known tag is 400 "mac not found";
/// - otherwise 200 "Ok, saved", and the upload is recorded (`dither` defaults to 1 when absent).
final class OpenEPaperLinkAPStandIn: Sendable {
    struct Part: Sendable, Equatable {
        var name: String
        var filename: String?
        var contentType: String?
        var data: [UInt8]
    }

    struct Upload: Sendable {
        /// The part names in body order.
        var order: [String]
        var mac: String
        var dither: Int
        var filename: String?
        var contentType: String?
        var file: [UInt8]
    }

    struct State {
        /// 409s still to answer, per tag MAC (upper case).
        var busy: [String: Int]
        var answers: [(mac: String?, status: Int)] = []
        var uploads: [Upload] = []
    }

    /// The state the server's handler thread and the test share.
    final class Shared: Sendable {
        let state: Mutex<State>
        init(_ state: State) { self.state = Mutex(state) }
    }

    let server: LoopbackHTTPServer
    let knownTags: Set<String>
    private let shared: Shared

    init(knownTags: Set<String>, busyAnswers: Int = 0) throws {
        var busy: [String: Int] = [:]
        for tag in knownTags { busy[tag] = busyAnswers }
        let state = Shared(State(busy: busy))
        self.shared = state
        self.knownTags = knownTags
        self.server = LoopbackHTTPServer()
        server.setHandler { [knownTags] request in
            let (status, text, mac) = Self.answer(request, knownTags: knownTags, state: state)
            state.state.withLock { $0.answers.append((mac, status)) }
            return .respond(status: status, headers: [("Content-Type", "text/plain")], text: text)
        }
        try server.start()
    }

    var baseURL: String { server.baseURL }
    /// Every status answered, in order.
    var answers: [Int] { shared.state.withLock { $0.answers.map(\.status) } }
    /// The statuses answered to uploads naming `mac`, in order.
    func answers(mac: String) -> [Int] {
        shared.state.withLock { $0.answers.filter { $0.mac?.uppercased() == mac }.map(\.status) }
    }
    /// The uploads answered 200.
    var uploads: [Upload] { shared.state.withLock { $0.uploads } }

    func stop() { server.stop() }

    private static func answer(
        _ request: LoopbackHTTPServer.Request, knownTags: Set<String>, state shared: Shared
    ) -> (Int, String, String?) {
        guard request.method == "POST", request.path == "/imgupload" else { return (404, "Not found", nil) }
        guard let type = request.header("Content-Type"), type.hasPrefix("multipart/form-data"),
            let boundary = type.components(separatedBy: "boundary=").last, !boundary.isEmpty,
            let parts = parse(request.body, boundary: boundary)
        else { return (400, "not a multipart/form-data body", nil) }
        let named = parts.first { $0.name == "mac" }.map { String(decoding: $0.data, as: UTF8.self) }
        // The firmware's checks, at the start of the file part.
        let busy = shared.state.withLock { state -> Bool in
            guard let mac = named?.uppercased(), let left = state.busy[mac], left > 0 else { return false }
            state.busy[mac] = left - 1
            return true
        }
        if busy { return (409, "Come back later", named) }
        guard let fileIndex = parts.firstIndex(where: { $0.filename != nil }) else {
            return (400, "no file part", named)
        }
        guard let macPart = parts[..<fileIndex].first(where: { $0.name == "mac" }) else {
            return (400, "parameters incomplete", named)
        }
        let mac = String(decoding: macPart.data, as: UTF8.self)
        guard knownTags.contains(mac.uppercased()) else { return (400, "mac not found", mac) }
        let dither = parts.first { $0.name == "dither" }.flatMap { Int(String(decoding: $0.data, as: UTF8.self)) } ?? 1
        let file = parts[fileIndex]
        let upload = Upload(
            order: parts.map(\.name), mac: mac, dither: dither, filename: file.filename,
            contentType: file.contentType, file: file.data)
        shared.state.withLock { $0.uploads.append(upload) }
        return (200, "Ok, saved", mac)
    }

    /// The parts of a `multipart/form-data` body (RFC 7578), in order; nil when malformed.
    static func parse(_ body: [UInt8], boundary: String) -> [Part]? {
        let delimiter = Array(("--" + boundary).utf8)
        let separator = Array("\r\n".utf8)
        var parts: [Part] = []
        guard body.starts(with: delimiter) else { return nil }
        var rest = body[delimiter.count...]
        while true {
            if rest.starts(with: Array("--".utf8)) { return parts }  // the closing delimiter
            guard rest.starts(with: separator) else { return nil }
            rest = rest.dropFirst(2)
            guard let headEnd = rest.firstRange(of: Array("\r\n\r\n".utf8)) else { return nil }
            let head = String(decoding: rest[..<headEnd.lowerBound], as: UTF8.self)
            rest = rest[headEnd.upperBound...]
            guard let next = rest.firstRange(of: separator + delimiter) else { return nil }
            let data = Array(rest[..<next.lowerBound])
            rest = rest[next.upperBound...]
            var part = Part(name: "", data: data)
            for line in head.components(separatedBy: "\r\n") {
                let lower = line.lowercased()
                if lower.hasPrefix("content-disposition:") {
                    part.name = value(of: "name", in: line) ?? ""
                    part.filename = value(of: "filename", in: line)
                } else if lower.hasPrefix("content-type:") {
                    part.contentType = line.dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces)
                }
            }
            parts.append(part)
        }
    }

    /// `name="mac"` → `mac` from a Content-Disposition line.
    private static func value(of parameter: String, in line: String) -> String? {
        for item in line.components(separatedBy: ";") {
            let trimmed = item.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix(parameter + "=\"") else { continue }
            return String(trimmed.dropFirst(parameter.count + 2).dropLast())
        }
        return nil
    }
}
