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

// libFuzzer target: configuration YAML through libyaml, the tree builder and the validating
// loader, then the effective-config rendering. Built by fuzz/run.sh; not part of the package.
import BreezeConfig

/// A fixed environment so the outcome depends on the input only (TZ names the system zone
/// when a location has no `timezone`).
private let environment = ["TZ": "Europe/Berlin"]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: data == nil ? 0 : size), as: UTF8.self)
    do {
        let config = try ConfigLoader.load(
            text: text, file: "fuzz.yaml", environment: environment, currentYear: 2026, hostname: "fuzz")
        precondition(!config.locations.isEmpty, "a loaded configuration has a location")
        _ = renderEffective(config)
    } catch {
        _ = error.description
    }
    return 0
}
