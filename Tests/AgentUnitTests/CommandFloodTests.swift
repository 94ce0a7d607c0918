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

/// Issue 27 finding 5 (SPEC §16 "Rate limits"): a flood of `unit/set` commands, of device
/// availability toggles or of retained commands costs a bounded number of publishes and log
/// lines, and the last word still wins. Driven with events and a fake clock.
@Suite("DaemonState: command and availability floods are rate limited")
struct CommandFloodTests {
    typealias D = DaemonStateTests

    static func stores(_ actions: [DaemonAction]) -> Int {
        actions.filter { if case .store(.unit) = $0 { true } else { false } }.count
    }

    @Test("402 unit/set commands in 5 s: applied once at once, the last word after 10 s")
    func unitSetFlood() throws {
        // Berlin: `climate.unit: auto` starts at °C, so the flood opens with F.
        var (state, _) = D.started(try D.config())
        let start = D.t0 + 8
        _ = state.handle(.fetched(D.climateKey, try D.climateOK(start)), at: D.at(start))
        var stores = 0
        var flushes = 0
        var lines = 0
        for i in 0..<402 {
            let now = start + Int64(i / 100)
            let actions = state.handle(D.message("breeze/home/climate/unit/set", i % 2 == 0 ? "F" : "C"), at: D.at(now))
            stores += Self.stores(actions)
            flushes += actions.filter { if case .flush = $0 { true } else { false } }.count
            lines += actions.filter { if case .log = $0 { true } else { false } }.count
        }
        #expect(stores == 1, "unit changes stored during the flood")
        #expect(flushes == 1, "flushes during the flood: \(flushes)")
        #expect(lines <= 2, "log lines during the flood: \(lines)")
        // The flood's last word (C, i = 401) is applied when the 10 s are up: the loop is woken for it.
        let wake = try #require(D.wake(state.handle(.tick, at: D.at(start + 5))))
        #expect(wake <= start + 10)
        let after = state.handle(.tick, at: D.at(start + 10))
        #expect(Self.stores(after) == 1)
        #expect(state.locations[0].unit == .celsius)
        #expect(
            D.logs(after, .info).contains { $0.contains("unit/set") && $0.contains("401") }, "\(D.logs(after, .info))")
    }

    @Test("1,000 availability toggles in 5 s: at most one command batch per device per 10 s")
    func availabilityFlapping() throws {
        var state = try DeviceCommandStateTests.connectedWithData()
        let start = D.t0 + 3
        var batches = 0
        var lines = 0
        for i in 0..<1000 {
            let now = start + Int64(i / 200)
            let actions = state.handle(
                D.message("wled/strip1/status", i % 2 == 0 ? "online" : "offline"), at: D.at(now))
            batches += DeviceCommandStateTests.sent(actions).count
            lines += actions.filter { if case .log = $0 { true } else { false } }.count
        }
        #expect(batches == 1, "command batches during the flood: \(batches)")
        #expect(lines <= 3, "log lines during the flood: \(lines)")
        // It ends offline (i = 999): nothing owed to a device that is away.
        #expect(DeviceCommandStateTests.sent(state.handle(.tick, at: D.at(start + 10))).isEmpty)
        // Back online inside the window after the last send: sent when the window ends.
        let back = state.handle(D.message("wled/strip1/status", "online"), at: D.at(start + 11))
        #expect(DeviceCommandStateTests.sent(back).count == 1, "a new window: sent at once")
        _ = state.handle(D.message("wled/strip1/status", "offline"), at: D.at(start + 12))
        let again = state.handle(D.message("wled/strip1/status", "online"), at: D.at(start + 13))
        #expect(DeviceCommandStateTests.sent(again).isEmpty)
        let wake = try #require(D.wake(state.handle(.tick, at: D.at(start + 14))))
        #expect(wake <= start + 21)
        #expect(DeviceCommandStateTests.sent(state.handle(.tick, at: D.at(start + 21))).count == 1)
    }

    @Test("4,000 retained commands: each cleared, one warning line per cooldown window")
    func retainedCommandFlood() throws {
        var (state, _) = D.started(try D.config())
        let start = D.t0 + 10
        var warnings: [String] = []
        var clears = 0
        for i in 0..<4000 {
            let actions = state.handle(
                D.message("breeze/home/refresh", "x", retain: true), at: D.at(start + Int64(i / 1000)))
            warnings += D.logs(actions, .warning)
            clears += D.published(actions).filter { $0.payload.isEmpty && $0.retain }.count
        }
        #expect(warnings.count == 1, "\(warnings.prefix(3))")
        #expect(clears == 4000)
        // After the window, the next one says how many were not logged.
        let cooldown = state.config.pollen.refreshCooldown.components.seconds
        let later = state.handle(
            D.message("breeze/home/refresh", "x", retain: true), at: D.at(start + cooldown + 1))
        #expect(D.logs(later, .warning).count == 1)
        #expect(D.logs(later, .warning).first?.contains("3999 more") == true, "\(D.logs(later, .warning))")
    }
}
