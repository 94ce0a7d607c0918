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
import Foundation
import Testing

private let t0 = DaemonStateTests.t0

/// Issue 27 findings 6 and 7 in the images' machine: a render that keeps failing shows in
/// `<p>/diagnostics` (SPEC §16 "Names"), and an access point's userinfo never reaches a log line
/// (SPEC §16 "Secrets everywhere").
@Suite("DaemonState: failing images and masked access points")
struct ImageFailureTests {
    typealias D = DaemonStateTests
    typealias S = ImagePipelineTests

    @Test("a failing render shows in diagnostics with its message; a good one clears it")
    func failingRenderInDiagnostics() throws {
        var (state, _) = S.rendering(try S.config(tag: false))
        _ = state.handle(.rendered(S.key, .failed("content.locationName: 300 bytes, at most 256")), at: D.at(t0 + 8))
        let json = state.diagnosticsJSON(at: D.at(t0 + 9))
        #expect(
            json.contains(
                #""images_failing":{"home/hall":{"failures":1,"error":"render failed: content.locationName: 300 bytes, at most 256"}}"#
            ),
            "\(json)")
        // Rendered again after the backoff: the entry goes.
        let retry = try #require(S.renders(state.handle(.tick, at: D.at(t0 + 8 + 60))).first)
        #expect(retry.kind == .pollen)
        _ = state.handle(.rendered(S.key, .image(S.jpeg)), at: D.at(t0 + 70))
        #expect(!state.diagnosticsJSON(at: D.at(t0 + 71)).contains("images_failing"))
    }

    @Test("the access point's userinfo is masked in every upload log line")
    func accessPointUserinfoNotLogged() throws {
        let config = try D.config(
            """
            images:
              - {id: hall, kind: pollen, width: 296, height: 128, palette: bwr, format: jpeg}
            outputs:
              - {type: openepaperlink, ap: "http://admin:ap-secret-7@127.0.0.1:9", mac: 0000021CBA123456, image: hall}
            """)
        var (state, _) = S.rendering(config)
        var lines: [String] = []
        let done = state.handle(.rendered(S.key, .image(S.jpeg)), at: D.at(t0 + 8))
        // The request itself still carries the credentials (curl sends them as Basic auth).
        #expect(S.uploads(done).first?.url == "http://admin:ap-secret-7@127.0.0.1:9/imgupload")
        for (offset, outcome) in [UploadOutcome.status(409), .failed("Couldn't connect"), .status(400)].enumerated() {
            let actions = state.handle(.uploaded(0, outcome), at: D.at(t0 + 9 + Int64(offset) * 4000))
            lines += [LogLevel.info, .warning, .error].flatMap { D.logs(actions, $0) }.filter {
                $0.contains("openepaperlink")
            }
        }
        #expect(lines.count == 3, "\(lines)")
        for line in lines {
            #expect(!line.contains("ap-secret-7") && !line.contains("admin"), "\(line)")
            #expect(line.contains("http://********@127.0.0.1:9"), "\(line)")
        }
    }
}
