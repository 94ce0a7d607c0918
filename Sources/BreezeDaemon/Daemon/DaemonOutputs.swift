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

/// What the daemon's state feeds (``DaemonState/outputs``), one value: each is a view of the
/// same locations, and none of them decides when a source is fetched (docs/architecture.md,
/// "Adding an output").
package struct DaemonOutputs {
    /// The retained sinks, the context they build in, and each location's topic budget.
    var scopes: ScopeBuilder
    /// The WLED and Tasmota outputs: availability and what each was sent (docs/displays.md).
    var devices: DeviceCommandState
    /// The rendered images and their OpenEPaperLink tags (docs/images.md).
    package var images: ImagePipeline
}
