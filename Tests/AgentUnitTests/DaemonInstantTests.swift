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
import Testing

// The tests write instants and durations as the seconds they are (`nextDue == 22_600`). A sum of
// literals in `#expect(a == b + c)` is typed `Int` and compared through `AnyHashable` (always
// false): spell such a sum's type (`DaemonInstant(unixSeconds: b + c)`).
extension DaemonInstant: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) { self.init(unixSeconds: value) }
}

extension DaemonDuration: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) { self.init(seconds: value) }
}

/// The daemon's time arithmetic saturates at both ends instead of trapping: a duration from the
/// configuration may be as long as `Int64` allows (FetchScheduleSaturationTests), and an instant
/// may be "never" (`distantFuture`).
@Suite struct DaemonInstantTests {
    @Test func addingAndSubtractingInRange() {
        let t = DaemonInstant(unixSeconds: 1_781_517_600)
        #expect((t + .seconds(60)).unixSeconds == 1_781_517_660)
        #expect((t - .minutes(1)).unixSeconds == 1_781_517_540)
        #expect(t + .hours(1) - t == .seconds(3600))
        #expect(t - (t + .seconds(5)) == .seconds(-5))
        #expect(DaemonDuration.seconds(7) * 3 == .seconds(21))
        #expect("\(t + .seconds(1))" == "1781517601" && "\(DaemonDuration.seconds(10))" == "10")
    }

    @Test func theTopSaturates() {
        #expect(DaemonInstant.distantFuture + .seconds(1) == .distantFuture)
        #expect(DaemonInstant(unixSeconds: .max - 10) + .seconds(11) == .distantFuture)
        #expect(DaemonInstant(unixSeconds: 1_781_517_600) + .forever == .distantFuture)
        #expect(DaemonInstant(unixSeconds: 0) - .seconds(.min) == .distantFuture)
        #expect(DaemonInstant.distantFuture - DaemonInstant.distantPast == .forever)
        #expect(DaemonDuration.forever + .seconds(1) == .forever)
        #expect(DaemonDuration.forever * 2 == .forever && DaemonDuration.seconds(-2) * -(Int64.max) == .forever)
    }

    @Test func theBottomSaturates() {
        #expect(DaemonInstant.distantPast - .seconds(1) == .distantPast)
        #expect(DaemonInstant(unixSeconds: .min + 10) - .seconds(11) == .distantPast)
        #expect(DaemonInstant(unixSeconds: 0) + .seconds(.min) == .distantPast)
        #expect(DaemonInstant.distantPast - DaemonInstant.distantFuture == .seconds(.min))
        #expect(DaemonDuration.seconds(.min) - .seconds(1) == .seconds(.min))
        #expect(DaemonDuration.forever * -2 == .seconds(.min))
    }

    @Test func ordering() {
        #expect(DaemonInstant.distantPast < DaemonInstant(unixSeconds: 0))
        #expect(DaemonInstant(unixSeconds: 0) < .distantFuture)
        #expect(DaemonDuration.zero < .seconds(1) && DaemonDuration(.seconds(90)) == .minutes(1) + .seconds(30))
        #expect(DaemonDuration(.milliseconds(2500)) == .seconds(2))
    }
}
