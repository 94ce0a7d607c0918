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

// Why test/sanitizers/tsan.supp exists: ThreadSanitizer does not see Synchronization.Mutex
// on Linux (Swift 6.3.1 locks it with raw futex syscalls, which TSan does not intercept), so
// code that only touches state inside `withLock` is reported as a "Swift access race".
//
//   swiftc -sanitize=thread -g test/sanitizers/mutex-tsan-repro.swift -o /tmp/repro && /tmp/repro
//
// prints "WARNING: ThreadSanitizer: Swift access race" although every access holds the lock.
import Synchronization
import Dispatch
final class Box: Sendable { let m = Mutex<[Int]>([]) }
let box = Box()
for _ in 0..<20 {
DispatchQueue.concurrentPerform(iterations: 8) { i in
    for j in 0..<2000 { box.m.withLock { $0.append(i * j); if $0.count > 100 { $0.removeAll() } } }
}
}
print(box.m.withLock { $0.count })
