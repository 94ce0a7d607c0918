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

import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// In-process decode throughput of one pollen response (`make bench`, issue 8).
///
/// Compiled by scripts/bench.sh together with the BreezeCore sources into one optimized
/// executable (`swiftc -O`), so no bench target is needed in Package.swift and the code measured
/// is the same code, at the same optimization level, as in the release binary. Prints one line
/// per round: `<responses per second> <µs per response>` for `GooglePollen.interpret` (JSON
/// decode plus the mapping to the domain report), the work a fetch does per location.
@main
enum DecodeBench {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count >= 2, let file = fopen(arguments[1], "rb") else {
            complain("usage: decode-bench <google-pollen.json> [rounds] [seconds per round]")
            exit(64)
        }
        var body: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = fread(&chunk, 1, chunk.count, file)
            if n <= 0 { break }
            body.append(contentsOf: chunk[0..<n])
        }
        fclose(file)
        let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 5 : 5
        let seconds = arguments.count > 3 ? Double(arguments[3]) ?? 1 : 1

        // A check that the body decodes at all: a throughput of failures would be meaningless.
        guard case .report(let report) = GooglePollen.interpret(httpStatus: 200, body: body) else {
            complain("decode-bench: the fixture does not decode to a report")
            exit(1)
        }
        var sink = report.days.count
        for _ in 0..<rounds {
            let clock = ContinuousClock()
            let start = clock.now
            var count = 0
            var elapsed = 0.0
            repeat {
                for _ in 0..<20 {
                    if case .report(let r) = GooglePollen.interpret(httpStatus: 200, body: body) {
                        sink &+= r.days.count
                    }
                }
                count += 20
                let d = clock.now - start
                elapsed = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
            } while elapsed < seconds
            let perSecond = Double(count) / elapsed
            print("\(Int(perSecond.rounded())) \(Int((elapsed / Double(count) * 1e6).rounded()))")
        }
        if sink == 42 { print("") }  // keeps the optimizer from dropping the work
    }

    static func complain(_ text: String) {
        var bytes = Array((text + "\n").utf8)
        _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    }
}
