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

/// The agent's version: the same text as the repo's `VERSION` file (a test keeps them equal),
/// sent in the User-Agent, Home Assistant's `sw_version` and `--version`.
public enum BreezeVersion {
    public static let string = "0.1.0"
}
