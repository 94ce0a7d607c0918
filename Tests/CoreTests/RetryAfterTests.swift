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
import Foundation
import Testing

@Suite("Retry-After parsing")
struct RetryAfterTests {
    /// 2015-10-21 07:28:00 UTC (`date -u -d @1445412480`).
    static let example = 1_445_412_480

    @Test("delay-seconds", arguments: [("0", 0), ("120", 120), ("  45 ", 45), ("86400", 86_400)])
    func seconds(value: String, expected: Int) {
        #expect(RetryAfter.parse(value) == .seconds(Int64(expected)))
        #expect(RetryAfter.parse(value)?.delay(at: 1_000) == Int64(expected))
    }

    @Test(
        "the three HTTP-date forms give the same instant",
        arguments: ["Wed, 21 Oct 2015 07:28:00 GMT", "Wednesday, 21-Oct-15 07:28:00 GMT", "Wed Oct 21 07:28:00 2015"]
    )
    func httpDate(value: String) {
        #expect(RetryAfter.parseHTTPDate(value) == Self.example)
        #expect(RetryAfter.parse(value) == .date(Int64(Self.example)))
        #expect(RetryAfter.parse(value)?.delay(at: Int64(Self.example - 90)) == 90)
    }

    @Test("the header values HTTPClientTests receives over the wire")
    func wireValues() {
        #expect(RetryAfter.parse("120") == .seconds(120))
        #expect(RetryAfter.parse("Wed, 21 Oct 2015 07:28:00 GMT")?.delay(at: 1_445_412_480 - 600) == 600)
    }

    @Test("a date already past means retry now")
    func pastDate() {
        #expect(RetryAfter.parse("Wed, 21 Oct 2015 07:28:00 GMT")?.delay(at: Int64(Self.example + 3600)) == 0)
    }

    @Test(
        "garbage is rejected",
        arguments: [
            "", "soon", "-5", "1.5", "Wed, 32 Oct 2015 07:28:00 GMT", "Wed, 21 Foo 2015 07:28:00 GMT",
            "Wed, 21 Oct 2015 25:28:00 GMT", "Wed, 21 Oct 2015 07:28:00 CET", "Wed, 21 Oct 2015",
        ]
    )
    func garbage(value: String) {
        #expect(RetryAfter.parse(value) == nil)
    }

    /// Foundation's `DateFormatter` (ICU) is the oracle for the calendar arithmetic, across leap
    /// days, century rules and month ends.
    @Test("IMF-fixdate agrees with Foundation across many instants")
    func agreesWithFoundation() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        var epoch = 0
        var checked = 0
        // Steps of a prime number of seconds walk through every month, hour and leap year to 2100.
        while epoch < 4_102_444_800 {
            let text = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(epoch)))
            #expect(RetryAfter.parseHTTPDate(text) == epoch, "\(text)")
            epoch += 1_299_827
            checked += 1
        }
        for leap in ["Thu, 29 Feb 2024 12:00:00 GMT", "Tue, 29 Feb 2000 00:00:00 GMT", "Fri, 01 Mar 2100 23:59:59 GMT"]
        {
            let expected = formatter.date(from: leap).map { Int($0.timeIntervalSince1970) }
            #expect(RetryAfter.parseHTTPDate(leap) == expected, "\(leap)")
        }
        #expect(checked > 3000)
    }
}
