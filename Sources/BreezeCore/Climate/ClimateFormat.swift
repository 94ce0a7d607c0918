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

/// Temperature and change texts written by hand: the Foundation formatters drag ICU in (STYLE.md).
///
/// Every conversion is done on exact integers: a value in tenths of the display unit is the
/// rational `numerator / denominator` (°F: `(9c + 1600) / 5` for a temperature, `9Δ / 5` for a
/// change; °C: `c / 1`). It is rounded to one decimal half-to-even on the exact value, which is
/// what glibc's `printf("%.1f")` does for ties it can represent exactly; with inputs in tenths of
/// °C the °F value is a multiple of 0.02 and never sits on a tie anyway.
public enum ClimateFormat {
    /// The number for topics and JSON `value`: `53.8`, `-4.0` (never `-0.0`).
    public static func temperatureValue(tenthsCelsius c: Int, unit: TemperatureUnit) -> String {
        let (n, d) = temperatureRational(c, unit)
        return FixedPoint.format(roundHalfEven(n, d), scale: 1)
    }

    /// `53.8°F`, `12.1°C`, formatted as `printf("%.1f")` would — so a value just below zero that
    /// rounds to zero prints `-0.0°F`, as the app shows it (−17.8 °C is −0.04 °F).
    public static func temperatureText(tenthsCelsius c: Int, unit: TemperatureUnit) -> String {
        let (n, d) = temperatureRational(c, unit)
        return printfOneDecimal(n, d) + unit.symbol
    }

    /// The change number for topics and JSON `value`: `2.3`, `-0.4` (never `-0.0`).
    public static func changeValue(tenthsCelsius delta: Int, unit: TemperatureUnit) -> String {
        let (n, d) = changeRational(delta, unit)
        return FixedPoint.format(roundHalfEven(n, d), scale: 1)
    }

    /// `+2.3°F`, `-0.4°C`; a change that prints as zero is `+0.0`.
    public static func changeText(tenthsCelsius delta: Int, unit: TemperatureUnit) -> String {
        let (n, d) = changeRational(delta, unit)
        return signedOneDecimal(n, d) + unit.symbol
    }

    static func temperatureRational(_ c: Int, _ unit: TemperatureUnit) -> (Int, Int) {
        unit == .celsius ? (c, 1) : (9 * c + 1600, 5)
    }

    static func changeRational(_ delta: Int, _ unit: TemperatureUnit) -> (Int, Int) {
        unit == .celsius ? (delta, 1) : (9 * delta, 5)
    }

    /// `n / d` (in tenths) rounded to an integer, ties to even; `d > 0`.
    static func roundHalfEven(_ n: Int, _ d: Int) -> Int {
        precondition(d > 0, "denominator must be positive")
        var q = n / d
        var r = n % d
        if r < 0 {  // floor division
            q -= 1
            r += d
        }
        if 2 * r > d || (2 * r == d && q & 1 == 1) { q += 1 }
        return q
    }

    /// `printf("%.1f")` of the value `n / d` tenths: keeps the sign of a negative value rounding to zero.
    static func printfOneDecimal(_ n: Int, _ d: Int) -> String {
        let r = roundHalfEven(n, d)
        return (r == 0 && n < 0 ? "-" : "") + FixedPoint.format(r, scale: 1)
    }

    /// One decimal with an explicit sign: `+` for anything that prints as zero or more.
    static func signedOneDecimal(_ n: Int, _ d: Int) -> String {
        let r = roundHalfEven(n, d)
        return (r >= 0 ? "+" : "") + FixedPoint.format(r, scale: 1)
    }
}
