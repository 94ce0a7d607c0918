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
// reliably: its command line without /proc (arguments.c), the one-way drop of root for the
// Home Assistant add-on (privileges.c), and a child's exit as a descriptor (child.c). Functions
// carry the prefix cproc_.
#ifndef CPROCESS_H
#define CPROCESS_H

#include <sys/types.h>

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

/// Overwrites the value of every `name=` entry of environ with NUL bytes where it lies (the
/// kernel's copy that /proc/<pid>/environ shows, for the variables the process started with),
/// then removes the variable. Returns how many entries were overwritten.
int cproc_forget_variable(const char *name);

/// Gives `uid`/`gid` every file and folder under `directory` (itself included, symbolic
/// links not followed, nor other file systems), except the path `keep` (may be NULL).
/// Returns 0, or the errno of the first failure.
int cproc_chown_tree(const char *directory, uid_t uid, gid_t gid, const char *keep);

/// Root to `uid`/`gid` for good: supplementary groups cleared, real, effective and saved ids
/// set, every capability set emptied (bounding, inheritable, ambient; permitted and effective
/// go with the uid change) and no_new_privs set. Returns 0, or the errno of the step that failed
/// with *step naming it.
int cproc_drop_privileges(uid_t uid, gid_t gid, const char **step);

/// Sets no_new_privs alone (a process that is not root: nothing else to drop). 0 or errno.
int cproc_set_no_new_privs(void);

/// Replaces the process with `path` (argv, envp NULL-terminated), every descriptor past stderr
/// closed at the exec. Capability sets and no_new_privs are per thread, and a Swift program
/// already runs several: only an exec from the thread that dropped them leaves a process whose
/// every thread is dropped. `keep` (or -1) is a descriptor left open for the new image.
/// Returns errno (it returns only on failure).
int cproc_exec(const char *path, int keep, char *const argv[], char *const envp[]);

/// Opens `path` with O_PATH and without close-on-exec, for a descriptor a re-executed image
/// inherits (passed as `keep` to cproc_exec/cproc_exec_fd). Returns the descriptor, or -errno.
int cproc_open_path(const char *path);

/// Opens this process's own executable for a later cproc_exec_fd (O_PATH, close-on-exec): the
/// running binary's inode through /proc/self/exe, else `fallback` (a path). The add-on opens it
/// while still root, so the re-execution after dropping root needs no search permission on the
/// folders above it, and a binary replaced meanwhile does not matter. Returns the descriptor, or
/// -errno.
int cproc_open_executable(const char *fallback);

/// As cproc_exec, but executes the file open on `fd` (execveat with AT_EMPTY_PATH; where execveat
/// is missing, as under qemu-user 7.2, execve of /proc/self/fd/<fd>). `fd` stays open in the new
/// image (an interpreter such as qemu-user opens the binary through it).
int cproc_exec_fd(int fd, int keep, char *const argv[], char *const envp[]);

/// pidfd_open(2) for a child not reaped yet: a close-on-exec descriptor that polls readable once
/// the child has exited, so a wait for it can block in poll(2) beside other descriptors (the
/// render helper's termination grace, child.c). -1 with errno set (ENOSYS: a kernel before 5.3,
/// or headers without the call). glibc's wrapper is not in the Swift Glibc module.
int cproc_pidfd_open(pid_t pid);

#ifdef __cplusplus
}
#endif

#endif
