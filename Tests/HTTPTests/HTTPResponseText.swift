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

import BreezeHTTP

extension HTTPResponse {
    /// The body as UTF-8 text (invalid sequences repaired), for expectations on small bodies.
    var text: String { String(decoding: body, as: UTF8.self) }
}
