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
import Testing

/// Each source's rules (``SourceRules``): a failed fetch of any source takes the one failure
/// path, and stored responses come back to the state as an event.
@Suite("Source rules: one failure path, stored responses as an event")
struct SourceRulesTests {
    typealias T = DaemonStateTests

    @Test(arguments: [SourceKind.pollen, .climate, .stripes, .air])
    func aFailureIsLoggedCountedAndRetriedLater(kind: SourceKind) throws {
        var state = T.machine(try T.config("air: {enabled: true}"))
        _ = state.start(at: T.at(T.t0))
        let key = FetchKey(location: 0, kind: kind)
        let now = T.t0 + 10
        let actions = state.apply(key, .failure(kind, message: "boom"), now: DaemonInstant(unixSeconds: now))
        let warnings = T.logs(actions, .warning)
        #expect(warnings.count == 1)
        let line = try #require(warnings.first)
        #expect(line.hasPrefix("\(kind.rawValue)[home]: fetch"))
        #expect(line.contains(" failed: boom; retry in "))
        #expect(state.schedule(key).nextDue.unixSeconds > now)
        #expect(state.calls.outcomes.statuses.map(\.fetchesFailed).reduce(0, +) == 1)
    }

    @Test func storedResponsesAreNamedByTheirRulesAndRestoredThroughHandle() throws {
        var state = T.machine(try T.config("air: {enabled: true}"))
        #expect(state.storedResponseNames(0).map(\.kind) == [.pollen, .climate, .air, .stripes])
        #expect(state.storedResponseNames(0).first { $0.kind == .air }?.name == "air")
        let actions = state.handle(
            .restored(
                location: 0,
                [
                    RestoredResponse(
                        kind: .air, name: "air",
                        response: .init(fetchedAt: DaemonInstant(unixSeconds: T.t0 - 60), body: "{"))
                ]),
            at: T.at(T.t0))
        #expect(T.logs(actions, .warning) == ["air[home]: stored response is not usable; ignoring it"])
        #expect(!state.hasData(FetchKey(location: 0, kind: .air)))
    }
}
