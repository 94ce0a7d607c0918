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
// What the process knows about itself that the Swift runtime or FoundationEssentials do not give
// reliably: its command line without /proc (arguments.c). Functions carry the prefix cproc_.
#ifndef CPROCESS_H
#define CPROCESS_H

#ifdef __cplusplus
extern "C" {
#endif

/// The argument count an ELF constructor saw (glibc calls constructors with argc, argv, envp);
/// -1 when it never ran (a C library that passes nothing): the caller must then refuse to
/// guess. The Swift runtime reads CommandLine.arguments from /proc/self/cmdline instead, which a
/// chroot or a minimal sandbox does not have.
int cproc_argument_count(void);

/// Argument `index` (0 is the program name), NULL outside 0..<cproc_argument_count(). The
/// strings are the process's own argv: valid for the life of the process.
const char *cproc_argument(int index);

#ifdef __cplusplus
}
#endif

#endif
