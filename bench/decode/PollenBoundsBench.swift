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

/// The cost of one key-free pollen body, decoded once (issue 50, finding 2; bench/pollen_bounds.py
/// writes the bodies and runs this once per body, so the process's peak is that body's).
///
/// Compiled by scripts/bench.sh with the BreezeCore sources into one optimized executable, as
/// DecodeBench.swift is. Prints one line: the outcome (`report`, `unsupported` or `failed: …`),
/// the decode's wall time, the peak RSS before and after it (VmHWM, KiB).
@main
enum PollenBoundsBench {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count == 2, let file = fopen(arguments[1], "rb") else {
            complain("usage: pollen-bounds-bench <open-meteo-air-quality.json>")
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

        let before = peakKiB()
        let clock = ContinuousClock()
        let start = clock.now
        let outcome = OpenMeteoPollen.interpret(httpStatus: 200, body: body)
        let elapsed = clock.now - start
        let after = peakKiB()
        let milliseconds =
            Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15
        let what: String
        switch outcome {
        case .report(let report): what = "report of \(report.days.count) days"
        case .unsupportedLocation: what = "unsupported"
        case .keyRejected(let message), .failed(let message): what = "failed: \(message)"
        }
        print("\(Int(milliseconds.rounded())) ms, peak RSS \(after) KiB (\(before) KiB before the decode); \(what)")
    }

    /// VmHWM from /proc/self/status: the peak of this program's own memory. (getrusage's
    /// ru_maxrss would do, but Linux keeps it across execve, so a child of a large Python
    /// process starts at the parent's peak.)
    static func peakKiB() -> Int {
        guard let status = fopen("/proc/self/status", "r") else { return -1 }
        defer { fclose(status) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), status) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix("VmHWM:") {
                return Int(text.dropFirst(6).filter { $0.isNumber }) ?? -1
            }
        }
        return -1
    }

    static func complain(_ text: String) {
        var bytes = Array((text + "\n").utf8)
        _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    }
}
