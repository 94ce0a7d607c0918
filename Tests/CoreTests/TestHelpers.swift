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

/// A date that must exist (test literals only).
func date(_ y: Int, _ m: Int, _ d: Int) -> CivilDate { CivilDate(year: y, month: m, day: d)! }

extension TopicTree {
    /// The publishes that turn `previous` into `self`: changed or new topics with their payload,
    /// then topics that no longer apply with an empty payload. The runtime's retained publisher
    /// does this per scope; the tests use it to read a tree against an earlier one.
    func changes(from previous: [String: String]) -> [(topic: String, payload: String)] {
        var out: [(topic: String, payload: String)] = []
        for topic in topics where previous[topic] != self[topic] {
            out.append((topic, self[topic]!))
        }
        for topic in previous.keys.sorted() where self[topic] == nil && !(previous[topic]!.isEmpty) {
            out.append((topic, ""))
        }
        return out
    }
}
