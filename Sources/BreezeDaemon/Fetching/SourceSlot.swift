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

/// A source's condition that repeats on every try and is logged once until it changes.
package enum SourceNotice: Sendable, Equatable {
    /// `pollen.max_calls_per_day` reached for the local day.
    case dailyCap
    /// The source has no data here (pollen outside Open-Meteo's area, or not covered by Google).
    case unsupported
    /// The DWD region the location reads was logged (once a run, not at every try).
    case regionNamed
}

/// What any source's data says about itself, whatever its type.
package protocol SourceData: Sendable {
    /// When the data shown was fetched; nil when it says the source has nothing here.
    var lastSuccess: DaemonInstant? { get }
}

/// One source of one location (docs/operations.md, Faults): the last good data, whether it is stale (the last
/// fetch failed, the data is from before it), and the condition last logged. Its schedule is
/// the ``FetchPlanner``'s, in a slot of the same shape (``PerSource``).
package struct SourceSlot<Data: SourceData>: Sendable {
    var data: Data?
    var stale = false
    var notice: SourceNotice?

    /// New data from a fetch or the state directory: not stale. The notice stays (a source that
    /// says again it has nothing here is not logged again).
    mutating func received(_ data: Data) {
        self.data = data
        stale = false
    }

    /// A failed fetch: what is shown, if anything, is now stale.
    mutating func failed() { stale = data != nil }

    /// The slot without its data.
    var status: SourceStatus { SourceStatus(hasData: data != nil, lastSuccess: data?.lastSuccess, stale: stale) }
}

/// What every source's slot says whatever its data's type (``SourceSlots/status(_:)``).
package struct SourceStatus: Sendable, Equatable {
    var hasData: Bool
    /// When the data was fetched; nil without data, or when the data says the source has none here.
    var lastSuccess: DaemonInstant?
    var stale: Bool
}

extension StripesData: SourceData {
    package var lastSuccess: DaemonInstant? { fetchedAt }
}
