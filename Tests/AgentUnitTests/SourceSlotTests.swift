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
import Testing

/// One source's slot of a location: data, stale, notice, the same for every source whatever
/// its data's type (SPEC §5: a failure keeps the last good data and marks it stale).
@Suite("SourceSlot: a source's data, stale flag and notice")
struct SourceSlotTests {
    static let air = LocationRuntime.AirData(report: AirReport(hours: []), fetchedAt: 1_000)

    @Test func aFailureMarksOnlyDataThatIsThereStale() {
        var slot = SourceSlot<LocationRuntime.AirData>()
        slot.failed()
        #expect(slot.status == SourceStatus(hasData: false, lastSuccess: nil, stale: false))
        slot.received(Self.air)
        #expect(slot.status == SourceStatus(hasData: true, lastSuccess: 1_000, stale: false))
        slot.failed()
        #expect(slot.status == SourceStatus(hasData: true, lastSuccess: 1_000, stale: true))
        // New data is not stale.
        slot.received(.init(report: AirReport(hours: []), fetchedAt: 2_000))
        #expect(slot.status == SourceStatus(hasData: true, lastSuccess: 2_000, stale: false))
    }

    @Test func newDataKeepsTheNoticeSoARepeatedConditionIsLoggedOnce() {
        var slot = SourceSlot<LocationRuntime.PollenData>()
        slot.notice = .unsupported
        slot.received(.unsupported(message: "no pollen here"))
        #expect(slot.notice == .unsupported)
        // "Nothing here" is data without a time: the status page shows it as unavailable.
        #expect(slot.status == SourceStatus(hasData: true, lastSuccess: nil, stale: false))
        slot.received(.report(PollenReport(source: .openMeteo, days: []), fetchedAt: 3_000))
        #expect(slot.status.lastSuccess == 3_000)
    }

    @Test func theSlotsAnswerPerSourceKind() {
        var slots = SourceSlots()
        slots.air.received(Self.air)
        slots.air.failed()
        slots.pollen.received(.unsupported(message: "none"))
        #expect(slots.status(.air) == SourceStatus(hasData: true, lastSuccess: 1_000, stale: true))
        #expect(slots.status(.pollen) == SourceStatus(hasData: true, lastSuccess: nil, stale: false))
        for kind in [SourceKind.climate, .stripes] {
            #expect(slots.status(kind) == SourceStatus(hasData: false, lastSuccess: nil, stale: false), "\(kind)")
        }
        #expect(slots.stale == PerSource(pollen: false, climate: false, stripes: false, air: true, dwd: false))
    }

    /// The watchdog's failure is one shape whatever the source: its kind, the message, no
    /// `Retry-After`; how it is named (pollen: by its source) is the rules' word.
    @Test func aStuckFetchFailsAsItsOwnKind() {
        for kind in SourceKind.allCases {
            let outcome = FetchOutcome.failure(kind, message: "stuck")
            #expect(outcome.kind == kind)
            guard case .failure("stuck", nil) = outcome.result else {
                Issue.record("\(kind) failed as \(outcome)")
                continue
            }
        }
    }
}
