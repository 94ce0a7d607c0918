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
package import BreezeCore

/// `--demo` never drives a real device with sample data (issue 39): with a real configuration
/// its `outputs:` name the user's WLED, Awtrix and Tasmota topics and OpenEPaperLink access
/// points. In demo mode the state passes its own actions through ``filter(_:layout:)`` before
/// it returns them (``DaemonState/handle(_:at:)``): what the agent publishes under its own
/// (demo) prefix goes to the broker as usual; a publish anywhere else — a device's command
/// topic —, a device's retained scope (an Awtrix clock's apps) and an image upload become one
/// log line each saying what would have been sent, and the state takes an upload as accepted
/// so the image pipeline carries on as it would. The loop performs what it is given.
package enum DemoGuard {
    /// `actions` with every publish outside `layout`'s `<p>/` and every upload replaced by a log
    /// line; `uploads` are the indexes of the uploads to report as accepted (HTTP 200).
    package static func filter(_ actions: [DaemonAction], layout: TopicLayout) -> (
        actions: [DaemonAction], uploads: [Int]
    ) {
        var kept: [DaemonAction] = []
        var uploads: [Int] = []
        for action in actions {
            switch action {
            case .publish(let message) where !layout.isUnderPrefix(message.topic):
                kept.append(
                    .log(
                        .info,
                        "demo: would send to \(quotedForLog(message.topic)) (qos \(message.qos)\(message.retain ? ", retained" : "")): \(doubleQuoted(message.payload, maxScalars: 512))"
                    ))
            case .setScope(let scope) where !layout.isUnderPrefix(scope.prefix):
                // A device's retained topics (an Awtrix clock's apps and indicator): left alone.
                if let tree = scope.tree, !tree.isEmpty {
                    kept.append(
                        .log(
                            .info,
                            "demo: would keep \(tree.count) retained topic(s) under \(quotedForLog(scope.prefix)) (a device's)"
                        ))
                }
            case .upload(let index, let upload):
                kept.append(
                    .log(
                        .info,
                        "demo: would upload \(upload.filename) (\(upload.jpeg.count) bytes) to the OpenEPaperLink access point for tag \(upload.mac)"
                    ))
                uploads.append(index)
            default:
                kept.append(action)
            }
        }
        return (kept, uploads)
    }
}
