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
// See cprocess.h: the add-on's drop from root (docs/home-assistant.md, "Privileges").
#define _GNU_SOURCE
#include "cprocess.h"

#include <errno.h>
#include <ftw.h>
#include <grp.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/close_range.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

int cproc_forget_variable(const char *name) {
    size_t length = strlen(name);
    int overwritten = 0;
    for (char **entry = environ; entry != NULL && *entry != NULL; entry++) {
        if (strncmp(*entry, name, length) == 0 && (*entry)[length] == '=') {
            char *value = *entry + length + 1;
            explicit_bzero(value, strlen(value));
            overwritten += 1;
        }
    }
    unsetenv(name);
    return overwritten;
}

// nftw has no context argument: the walk's settings live here for its duration (the add-on
// calls this once, on one thread, before the agent starts any other).
static uid_t walk_uid;
static gid_t walk_gid;
static const char *walk_keep;
static int walk_error;

static int chown_one(const char *path, const struct stat *info, int type, struct FTW *position) {
    (void)info;
    (void)type;
    (void)position;
    if (walk_keep != NULL && strcmp(path, walk_keep) == 0) return 0;
    if (lchown(path, walk_uid, walk_gid) != 0 && walk_error == 0) walk_error = errno;
    return 0;
}

int cproc_chown_tree(const char *directory, uid_t uid, gid_t gid, const char *keep) {
    walk_uid = uid;
    walk_gid = gid;
    walk_keep = keep;
    walk_error = 0;
    if (nftw(directory, chown_one, 16, FTW_PHYS | FTW_MOUNT) != 0 && walk_error == 0) walk_error = errno;
    return walk_error;
}

int cproc_set_no_new_privs(void) {
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 ? 0 : errno;
}

// Every descriptor from 3 on is closed by the exec: the new image starts with stdio only.
static void close_on_exec_from_3(void) {
    if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
        // Kernels before 5.11: mark them one by one.
        long last = sysconf(_SC_OPEN_MAX);
        for (int fd = 3; fd < (last > 0 && last < 65536 ? last : 65536); fd++) {
            int flags = fcntl(fd, F_GETFD);
            if (flags >= 0) fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
        }
    }
}

// `keep` (a descriptor, or -1) stays open across the exec.
static void keep_open(int keep) {
    if (keep < 0) return;
    int flags = fcntl(keep, F_GETFD);
    if (flags >= 0) fcntl(keep, F_SETFD, flags & ~FD_CLOEXEC);
}

int cproc_exec(const char *path, int keep, char *const argv[], char *const envp[]) {
    close_on_exec_from_3();
    keep_open(keep);
    execve(path, argv, envp);
    return errno;
}

int cproc_open_path(const char *path) {
    int fd = open(path, O_PATH);
    return fd < 0 ? -errno : fd;
}

int cproc_open_executable(const char *fallback) {
    int fd = open("/proc/self/exe", O_PATH | O_CLOEXEC);
    if (fd < 0 && fallback != NULL) fd = open(fallback, O_PATH | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

int cproc_exec_fd(int fd, int keep, char *const argv[], char *const envp[]) {
    close_on_exec_from_3();
    keep_open(keep);
    // The binary's own descriptor stays open across the exec: where the kernel hands the binary
    // to an interpreter (binfmt_misc: qemu-user running an image of another architecture) the
    // interpreter opens it as /proc/self/fd/<fd> after the exec, and the kernel refuses the exec
    // (ENOENT) when that descriptor would be closed. The new image inherits one O_PATH
    // descriptor of its own binary.
    int flags = fcntl(fd, F_GETFD);
    if (flags >= 0) fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC);
    syscall(SYS_execveat, fd, "", argv, envp, AT_EMPTY_PATH);
    if (errno != ENOSYS) return errno;
    // No execveat (qemu-user 7.2, Debian 12's, does not implement it): the same file through
    // its /proc link, which needs no search permission on the folders above it either.
    char path[40];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    execve(path, argv, envp);
    return errno;
}

int cproc_drop_privileges(uid_t uid, gid_t gid, const char **step) {
#define FAIL(name)       \
    do {                 \
        *step = (name);  \
        return errno;    \
    } while (0)
    // The bounding set first: dropping from it needs CAP_SETPCAP, gone after the uid change.
    for (int cap = 0; cap <= 63; cap++) {
        if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) < 0) break;  // past the kernel's last capability
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) FAIL("PR_CAPBSET_DROP");
    }
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
        FAIL("PR_CAP_AMBIENT_CLEAR_ALL");
    if (setgroups(0, NULL) != 0) FAIL("setgroups");
    if (setresgid(gid, gid, gid) != 0) FAIL("setresgid");
    // Without SECBIT_KEEP_CAPS (never set here) the change from uid 0 clears the permitted,
    // effective and ambient sets.
    if (setresuid(uid, uid, uid) != 0) FAIL("setresuid");
    // The inheritable set survives a uid change: emptied with capset (glibc has no wrapper).
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
    memset(data, 0, sizeof data);
    if (syscall(SYS_capset, &header, data) != 0) FAIL("capset");
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) FAIL("PR_SET_NO_NEW_PRIVS");
    // A way back would mean the drop did not happen.
    if (setresuid(0, 0, 0) == 0) {
        errno = EPERM;
        FAIL("setresuid(0) succeeded after the drop");
    }
    return 0;
#undef FAIL
}
