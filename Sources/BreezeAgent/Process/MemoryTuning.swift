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

import BreezeConfig
import BreezeDaemon
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// glibc malloc settings for a daemon with a few busy threads (docs/operations.md, bench/RESULTS.md).
///
/// glibc gives every thread that contends for the heap an arena of its own (up to 8 per core)
/// and returns freed memory of those arenas to the kernel only in rare cases. The daemon's work
/// moves between the two cooperative-pool threads, libmosquitto's and curl's thread; with 1,000
/// locations a cycle left one arena at 200 MB with 0.3 MB in use. So: at most two arenas, and after each batch of fetches (the published set saved)
/// the free pages of every arena are handed back with `malloc_trim(0)`.
///
/// The mmap threshold is fixed at glibc's own starting value, 128 KiB: left dynamic, glibc raises
/// it to the size of every large block freed (up to 32 MiB), so after the first large response
/// body every later one, and every large string built from it, was cut out of the heap between
/// long-lived blocks, and the holes stayed (at 1,000 locations 36 MB more after two refresh
/// cycles). Fixed, blocks from 128 KiB up are mapped and unmapped whole. An operator's own
/// setting of either (`MALLOC_ARENA_MAX`, `MALLOC_MMAP_THRESHOLD_`, `GLIBC_TUNABLES`) wins.
///
/// `<malloc.h>` is not part of Swift's Glibc module: both functions are looked up by name (a
/// libc without them, such as musl, simply gets neither).
enum MemoryTuning {
    static let arenaMaximum: Int32 = 2
    static let mmapThreshold: Int32 = 128 * 1024
    /// `M_ARENA_MAX` and `M_MMAP_THRESHOLD` in glibc's `<malloc.h>`.
    static let mArenaMax: Int32 = -8
    static let mMmapThreshold: Int32 = -3

    private typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
    private typealias MallocTrim = @convention(c) (Int) -> Int32

    /// Once, before the daemon's threads start allocating.
    static func configure() {
        #if canImport(Glibc)
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
            let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
            // An operator's own setting wins, as an environment variable or a glibc tunable.
            let tunables = getenv("GLIBC_TUNABLES").map { String(cString: $0) } ?? ""
            if getenv("MALLOC_ARENA_MAX") == nil && !tunables.contains("glibc.malloc.arena_max") {
                _ = mallopt(mArenaMax, arenaMaximum)
            }
            if getenv("MALLOC_MMAP_THRESHOLD_") == nil && !tunables.contains("glibc.malloc.mmap_threshold") {
                _ = mallopt(mMmapThreshold, mmapThreshold)
            }
        #endif
    }

    static func releaseFreedMemory() {
        #if canImport(Glibc)
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
            _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
        #endif
    }
}
