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

import BreezeCore
import CMosquitto

extension PublishRefusal {
    /// A broker's reason code, read through libmosquitto's table.
    init(brokerCode code: Int, reasonString: String?) {
        var text = String(cString: mosquitto_reason_string(Int32(code)))
        if let reasonString, !reasonString.isEmpty { text += ": \(reasonString)" }
        self.init(code: code, reason: text, local: false)
    }

}
