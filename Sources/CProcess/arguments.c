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
// See cprocess.h. glibc passes (argc, argv, envp) to the functions in .init_array of the
// executable (csu/libc-start.c, call_init); the System V ABI does not promise it, so a C library
// that passes nothing leaves the count at -1 and the caller fails closed.
#include "cprocess.h"

#include <stddef.h>

static int saved_count = -1;
static char **saved_vector;

__attribute__((constructor)) static void cproc_keep_arguments(int argc, char **argv, char **envp) {
    (void)envp;
    if (argc < 0 || argv == NULL) return;
    // argv[argc] is NULL by the exec contract; a vector that says otherwise was not handed over.
    if (argv[argc] != NULL) return;
    saved_vector = argv;
    saved_count = argc;
}

int cproc_argument_count(void) { return saved_count; }

const char *cproc_argument(int index) {
    if (index < 0 || index >= saved_count) return NULL;
    return saved_vector[index];
}
