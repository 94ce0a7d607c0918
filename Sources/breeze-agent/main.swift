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

// Not CommandLine.arguments: without /proc it loses the arguments (ProcessArguments), and a
// command that cannot be read must never become the daemon.
guard let arguments = ProcessArguments.afterProgramName() else {
    let message = ProcessArguments.unreadableMessage + "\n"
    _ = message.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    exit(AgentMain.usageExitCode)
}
let code = await AgentMain.main(arguments: arguments, environment: Environment.current)
exit(code)
