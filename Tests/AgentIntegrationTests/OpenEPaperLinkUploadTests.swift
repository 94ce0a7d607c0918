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
import BreezeCore
import BreezeHTTP
import BreezeTestSupport
import Foundation
import Testing

/// The OpenEPaperLink upload itself (SPEC §9.2) through real libcurl against the loopback
/// stand-in AP: the multipart body's order and bytes, and the AP's answers as the state machine
/// sees them. The retry decisions are ImagePipelineTests'; the agent end to end is
/// EndToEndImageTests'.
@Suite("OpenEPaperLink: multipart upload to a stand-in AP")
struct OpenEPaperLinkUploadTests {
    static let mac = "0000021CBA123456"
    static let jpeg: [UInt8] =
        [0xff, 0xd8, 0xff, 0xe0] + Array(0...255).map(UInt8.init) + [0x0d, 0x0a, 0x2d, 0x2d] + [0xff, 0xd9]

    @Test func sendsMacThenDitherThenTheFileAndTheAPSavesIt() async throws {
        let ap = try OpenEPaperLinkAPStandIn(knownTags: [Self.mac])
        defer { ap.stop() }
        let client = HTTPClient(version: "test")
        let outcome = await Agent.upload(
            OpenEPaperLinkUpload(url: ap.baseURL + "/imgupload", mac: Self.mac, filename: "hall.jpg", jpeg: Self.jpeg),
            with: client)
        #expect(outcome == .status(200))
        let upload = try #require(ap.uploads.first)
        #expect(upload.order == ["mac", "dither", "file"])
        #expect(upload.mac == Self.mac)
        #expect(upload.dither == 0)
        #expect(upload.filename == "hall.jpg")
        #expect(upload.contentType == "image/jpeg")
        #expect(upload.file == Self.jpeg)
        // No Expect: 100-continue (the AP does not answer it).
        #expect(ap.server.requests.first?.header("Expect") == nil)
    }

    @Test func busyThenSavedAndUnknownTagRejected() async throws {
        let ap = try OpenEPaperLinkAPStandIn(knownTags: [Self.mac], busyAnswers: 1)
        defer { ap.stop() }
        let client = HTTPClient(version: "test")
        let upload = OpenEPaperLinkUpload(
            url: ap.baseURL + "/imgupload", mac: Self.mac, filename: "hall.jpg", jpeg: Self.jpeg)
        #expect(await Agent.upload(upload, with: client) == .status(409))
        #expect(await Agent.upload(upload, with: client) == .status(200))
        let stranger = OpenEPaperLinkUpload(
            url: ap.baseURL + "/imgupload", mac: "0000021CBA000000", filename: "hall.jpg", jpeg: Self.jpeg)
        #expect(await Agent.upload(stranger, with: client) == .status(400))
        #expect(ap.answers == [409, 200, 400])
        #expect(ap.uploads.count == 1)
    }

    /// The stand-in enforces the firmware's order: a body with the file before `mac` is refused,
    /// so the tests above could fail.
    @Test func theStandInRefusesAFileBeforeMac() async throws {
        let ap = try OpenEPaperLinkAPStandIn(knownTags: [Self.mac])
        defer { ap.stop() }
        var request = HTTPRequest(url: ap.baseURL + "/imgupload")
        request.multipart = [
            MultipartPart(name: "file", data: Self.jpeg, filename: "hall.jpg", contentType: "image/jpeg"),
            MultipartPart(name: "mac", data: Array(Self.mac.utf8)),
        ]
        let response = try await HTTPClient(version: "test").postMultipart(request)
        #expect(response.status == 400)
        #expect(String(decoding: response.body, as: UTF8.self) == "parameters incomplete")
        #expect(ap.uploads.isEmpty)
    }

    @Test func aDeadAccessPointIsANetworkFailure() async throws {
        let port = try FreePort.loopback()
        let outcome = await Agent.upload(
            OpenEPaperLinkUpload(
                url: "http://127.0.0.1:\(port)/imgupload", mac: Self.mac, filename: "hall.jpg", jpeg: Self.jpeg),
            with: HTTPClient(version: "test"))
        guard case .failed(let message) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(message.lowercased().contains("connect"), "\(message)")
    }
}
