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

/// Exit codes from docs/reference.md, Configuration (sysexits.h values): the state's `stop` carries one, the CLI the others.
package enum ExitCode {
    package static let success: Int32 = 0
    package static let usage: Int32 = 64
    package static let unavailable: Int32 = 69
    package static let configuration: Int32 = 78
}
