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
import BreezeHTTP
import BreezeTestSupport
import Foundation
import Testing

@Suite("Query escaping")
struct QueryEncodingTests {
    @Test(
        "reserved and non-ASCII characters are percent-encoded",
        arguments: [
            ("a b", "a%20b"),
            ("x&y=z", "x%26y%3Dz"),
            ("1+1", "1%2B1"),
            ("a/b?c#d", "a%2Fb%3Fc%23d"),
            ("Zürich", "Z%C3%BCrich"),
            ("東京", "%E6%9D%B1%E4%BA%AC"),
            ("100%", "100%25"),
            ("birch_pollen,grass_pollen", "birch_pollen,grass_pollen"),
            ("AZaz09-._~", "AZaz09-._~"),
        ]
    )
    func encodes(input: String, expected: String) {
        #expect(QueryParameter.percentEncode(input) == expected)
    }

    /// Foundation's encoder, given the same allowed set, is an independent oracle.
    @Test("matches Foundation's encoder for the unreserved set plus comma")
    func matchesFoundation() throws {
        var allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        allowed.insert(charactersIn: "-._~,")
        let samples = [
            "", "plain", "a b+c&d=e/f", "ümlaut ß", "emoji 🌼🌳", "tab\tnew\nline", "\"quoted\" 'single'", "[]{}|\\^`<>",
        ]
        for sample in samples {
            let oracle = try #require(sample.addingPercentEncoding(withAllowedCharacters: allowed))
            #expect(QueryParameter.percentEncode(sample) == oracle, "\(sample)")
        }
    }

    @Test("query items are appended with ? or & as the base needs")
    func joinsBase() {
        let items: [(name: String, value: String)] = [("latitude", "52.52"), ("hourly", "alder_pollen,birch_pollen")]
        #expect(
            HTTPClient.urlWithQuery("https://h/v1/air-quality", items)
                == "https://h/v1/air-quality?latitude=52.52&hourly=alder_pollen,birch_pollen"
        )
        #expect(HTTPClient.urlWithQuery("https://h/p?a=1", [("b", "2")]) == "https://h/p?a=1&b=2")
        #expect(HTTPClient.urlWithQuery("https://h/p?", [("b", "2")]) == "https://h/p?b=2")
        #expect(HTTPClient.urlWithQuery("https://h/p?a=1&", [("b", "2")]) == "https://h/p?a=1&b=2")
        #expect(HTTPClient.urlWithQuery("https://h/p", []) == "https://h/p")
        #expect(HTTPClient.urlWithQuery("https://h/p", [("k y", "v=1")]) == "https://h/p?k%20y=v%3D1")
    }

    @Test("encoding round-trips through a percent-decoder")
    func roundTrips() {
        for sample in ["a b&c=d+e/f", "Zürich, ZH", "%41", "東京/大阪", "+-*/="] {
            #expect(LoopbackHTTPServer.percentDecode(QueryParameter.percentEncode(sample)) == sample)
        }
    }

    @Test("User-Agent names the agent and its version")
    func userAgent() {
        #expect(HTTPClient.userAgent(version: "0.3.1") == "breeze-agent/0.3.1 (+https://github.com/breeze-agent)")
        #expect(HTTPClient(version: "2.0.0").userAgent == "breeze-agent/2.0.0 (+https://github.com/breeze-agent)")
    }
}
