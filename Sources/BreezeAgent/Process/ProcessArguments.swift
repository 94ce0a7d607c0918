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

import BreezeDaemon
import CProcess

/// The command line as the kernel handed it to this process, kept by an ELF constructor
/// (Sources/CProcess). `CommandLine.arguments` is not used: the Swift runtime reads it from
/// `/proc/self/cmdline`, and where `/proc` is missing (a chroot such as an image builder's or a
/// maintainer-script runner's, a minimal sandbox) it comes back without the arguments, so
/// `check-config --config /x` ran the daemon with the default config.
package enum ProcessArguments {
    /// The arguments after the program name, or nil when they could not be read (the
    /// constructor never ran, or the process was started with an empty argv). The caller fails
    /// closed on nil: it never guesses that no arguments means `run`.
    package static func afterProgramName() -> [String]? {
        let count = cproc_argument_count()
        guard count >= 1 else { return nil }
        var result: [String] = []
        result.reserveCapacity(Int(count) - 1)
        for index in 1..<count {
            guard let value = cproc_argument(index) else { return nil }
            result.append(String(cString: value))
        }
        return result
    }

    /// What the program prints when ``afterProgramName()`` is nil, before it exits with
    /// ``AgentMain/usageExitCode``.
    package static let unreadableMessage =
        "breeze-agent: cannot read the command line (the C library did not hand it over); refusing to guess a command"
}
