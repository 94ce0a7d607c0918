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

// The thin executable: everything lives in BreezeAgent, which the tests import.
import BreezeAgent

#if canImport(Glibc)
    import Glibc
#endif

let code = await AgentMain.main(arguments: Array(CommandLine.arguments.dropFirst()), environment: Environment.current)
exit(code)
