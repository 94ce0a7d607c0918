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

// libFuzzer target: Open-Meteo archive bodies (temperature_2m_mean) → tallies → stripes → topics.
// Built by fuzz/run.sh against BreezeCore; not part of the Swift package.
import BreezeCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStripes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let body = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let observations: [ClimateObservation]
    do {
        observations = try StripesDecoder.decode(body)
    } catch {
        _ = error.description
        return 0
    }
    guard let first = observations.first?.date.year, let last = observations.last?.date.year else { return 0 }
    let tallies = WarmingStripes.tallies(observations, years: first...last)
    do {
        let series = try WarmingStripes.compute(tallies: tallies, firstYear: first, lastYear: last)
        precondition(series.years.allSatisfy { (0...7).contains($0.bin) }, "bins stay on the ramp")
        let tree = StripesTopics.tree(topics: TopicLayout(prefix: "breeze").location("home"), series: series)
        precondition(tree.count == 2, "stripes always yield the JSON and the colors")
    } catch {
        _ = error.description
    }
    return 0
}
