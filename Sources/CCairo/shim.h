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

#ifndef BREEZE_CCAIRO_SHIM_H
#define BREEZE_CCAIRO_SHIM_H
/* Cairo's image surfaces, toy font API (fontconfig finds DejaVu) and PNG streams. Only the
   render helper links this; the agent never does (Cairo pulls X11 client libraries). */
#include <cairo.h>
#endif
