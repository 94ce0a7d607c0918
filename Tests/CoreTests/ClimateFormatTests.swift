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

import Foundation
import Testing

@testable import BreezeCore

@Suite struct ClimateFormatTests {
    @Test func temperatureTexts() {
        #expect(ClimateFormat.temperatureText(tenthsCelsius: 121, unit: .fahrenheit) == "53.8°F")
        #expect(ClimateFormat.temperatureText(tenthsCelsius: 121, unit: .celsius) == "12.1°C")
        #expect(ClimateFormat.temperatureText(tenthsCelsius: 0, unit: .fahrenheit) == "32.0°F")
        #expect(ClimateFormat.temperatureText(tenthsCelsius: 0, unit: .celsius) == "0.0°C")
        #expect(ClimateFormat.temperatureText(tenthsCelsius: -4, unit: .celsius) == "-0.4°C")
        #expect(ClimateFormat.temperatureText(tenthsCelsius: -400, unit: .fahrenheit) == "-40.0°F")
        // −17.8 °C is −0.04 °F: printf("%.1f") keeps the sign.
        #expect(ClimateFormat.temperatureText(tenthsCelsius: -178, unit: .fahrenheit) == "-0.0°F")
        #expect(ClimateFormat.temperatureValue(tenthsCelsius: -178, unit: .fahrenheit) == "0.0")
        #expect(ClimateFormat.temperatureText(tenthsCelsius: -180, unit: .fahrenheit) == "-0.4°F")
        #expect(ClimateFormat.temperatureValue(tenthsCelsius: 196, unit: .fahrenheit) == "67.3")
    }

    @Test func changeTexts() {
        #expect(ClimateFormat.changeText(tenthsCelsius: 13, unit: .fahrenheit) == "+2.3°F")
        #expect(ClimateFormat.changeText(tenthsCelsius: -4, unit: .celsius) == "-0.4°C")
        #expect(ClimateFormat.changeText(tenthsCelsius: 0, unit: .celsius) == "+0.0°C")
        #expect(ClimateFormat.changeText(tenthsCelsius: 0, unit: .fahrenheit) == "+0.0°F")
        #expect(ClimateFormat.changeText(tenthsCelsius: -1, unit: .fahrenheit) == "-0.2°F")
        #expect(ClimateFormat.changeText(tenthsCelsius: 1, unit: .fahrenheit) == "+0.2°F")
        #expect(ClimateFormat.changeValue(tenthsCelsius: 13, unit: .fahrenheit) == "2.3")
        #expect(ClimateFormat.changeValue(tenthsCelsius: -4, unit: .celsius) == "-0.4")
        #expect(ClimateFormat.changeValue(tenthsCelsius: -27, unit: .fahrenheit) == "-4.9")
    }

    @Test func valuesThatPrintAsZeroGetAPlus() {
        // −0.02 (−0.2 tenths) prints as zero: +0.0, never −0.0.
        #expect(ClimateFormat.signedOneDecimal(-1, 5) == "+0.0")
        #expect(ClimateFormat.signedOneDecimal(-2, 5) == "+0.0")
        #expect(ClimateFormat.signedOneDecimal(-3, 5) == "-0.1")
        #expect(ClimateFormat.printfOneDecimal(-1, 5) == "-0.0")
        #expect(ClimateFormat.printfOneDecimal(0, 5) == "0.0")
    }

    @Test func roundingIsHalfToEvenOnTheExactValue() {
        // printf("%.1f") on exactly representable ties: 0.25 → 0.2, 0.75 → 0.8, −0.25 → −0.2.
        #expect(ClimateFormat.printfOneDecimal(5, 2) == "0.2")
        #expect(ClimateFormat.printfOneDecimal(15, 2) == "0.8")
        #expect(ClimateFormat.printfOneDecimal(-5, 2) == "-0.2")
        #expect(ClimateFormat.printfOneDecimal(-1, 2) == "-0.0")
        #expect(ClimateFormat.roundHalfEven(25, 10) == 2)
        #expect(ClimateFormat.roundHalfEven(35, 10) == 4)
        #expect(ClimateFormat.roundHalfEven(-25, 10) == -2)
        #expect(ClimateFormat.roundHalfEven(-35, 10) == -4)
        #expect(ClimateFormat.roundHalfEven(-26, 10) == -3)
        #expect(ClimateFormat.roundHalfEven(-24, 10) == -2)
        #expect(ClimateFormat.roundHalfEven(7, 1) == 7)
        for value in [0.25, 0.75, 1.25, -0.25, -0.75, 2.5, -2.5] {
            let n = Int(value * 4)
            #expect(ClimateFormat.printfOneDecimal(n * 10, 4) == String(format: "%.1f", value), "\(value)")
        }
    }

    /// C's printf is the oracle: every temperature from −60.0 to 60.0 °C in both units.
    @Test func temperatureTextsMatchPrintf() {
        for c in -600...600 {
            let celsius = Double(c) / 10
            #expect(
                ClimateFormat.temperatureText(tenthsCelsius: c, unit: .celsius) == String(format: "%.1f°C", celsius))
            #expect(
                ClimateFormat.temperatureText(tenthsCelsius: c, unit: .fahrenheit)
                    == String(format: "%.1f°F", celsius * 9 / 5 + 32), "\(c)")
        }
    }

    @Test func changeTextsMatchPrintf() {
        for d in -300...300 {
            let celsius = Double(d) / 10
            #expect(ClimateFormat.changeText(tenthsCelsius: d, unit: .celsius) == String(format: "%+.1f°C", celsius))
            #expect(
                ClimateFormat.changeText(tenthsCelsius: d, unit: .fahrenheit)
                    == String(format: "%+.1f°F", celsius * 9 / 5),
                "\(d)")
        }
    }

    @Test func rfc3339() {
        #expect(UTCTimestamp.rfc3339(unixSeconds: 1_796_007_983) == "2026-11-30T03:06:23Z")
    }
}
