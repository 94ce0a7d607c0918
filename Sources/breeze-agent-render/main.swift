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

// breeze-agent-render: one JSON RenderRequest on stdin → the image's bytes on stdout, exit 0.
// A bad request: one line on stderr, exit 65 (EX_DATAERR); any other failure exit 70.
// The agent spawns it per render (docs/images.md), so Cairo and libjpeg stay out of its process.

import BreezeRender

#if canImport(Glibc)
    import Glibc
#endif

do throws(RenderFailure) {
    let input = try HelperIO.readStandardInput(limit: RenderRequestReader.maximumRequestBytes)
    let image = try Renderer.run(input: input)
    try HelperIO.write(image, to: 1)
    exit(0)
} catch {
    HelperIO.report(error)
    exit(error.exitStatus)
}
