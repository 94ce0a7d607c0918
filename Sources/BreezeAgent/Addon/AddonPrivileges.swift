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

import BreezeDaemon
import CProcess

#if canImport(Glibc)
    import Glibc
#endif

/// What the add-on gives up once it no longer needs it (docs/home-assistant.md, "Privileges"):
/// the Supervisor's token once the Supervisor has answered, and root once
/// `/data/breeze-agent.yaml` is written. The Supervisor starts every add-on as the image's user
/// with the container runtime's default capabilities and no seccomp change of ours; the image
/// must start as root only to read `/data/options.json` (the Supervisor writes it 0600 as root).
enum AddonPrivileges {
    /// The variables that carry the Supervisor's token or address (HASSIO_TOKEN is its old name).
    static let supervisorVariables = ["SUPERVISOR_TOKEN", "HASSIO_TOKEN", "BREEZE_SUPERVISOR_URL"]

    /// The user the agent runs as in the add-on: the image's system user (docs/installing.md).
    static let user = "breeze-agent"

    /// Removes the Supervisor's token and address from the process: overwritten where the kernel
    /// keeps the starting environment (what `/proc/<pid>/environ` shows), then unset, so neither
    /// the agent nor anything it starts can read them.
    static func forgetSupervisor() {
        for name in supervisorVariables { _ = cproc_forget_variable(name) }
    }

    /// The outcome of ``drop(dataDirectory:keep:)``, for one log line.
    enum Outcome: Equatable {
        /// Now `user` with `uid`/`gid`, no capabilities, no_new_privs.
        case dropped(uid: UInt32, gid: UInt32)
        /// Not root to begin with: no_new_privs set, nothing else to drop.
        case notRoot(uid: UInt32)
        /// Root without a `breeze-agent` entry in /etc/passwd: stays root (no_new_privs set).
        case noSuchUser
        /// A step failed: the process must not go on (exit 78).
        case failed(String)
    }

    /// Gives the data folder to `breeze-agent` (except `keep`, options.json, which the
    /// Supervisor rewrites as root at every start), then becomes that user for good.
    static func drop(dataDirectory: String, keep: String) -> Outcome {
        guard geteuid() == 0 else {
            let code = cproc_set_no_new_privs()
            return code == 0 ? .notRoot(uid: geteuid()) : .failed("PR_SET_NO_NEW_PRIVS: \(errnoText(code))")
        }
        guard let entry = getpwnam(user) else {
            let code = cproc_set_no_new_privs()
            return code == 0 ? .noSuchUser : .failed("PR_SET_NO_NEW_PRIVS: \(errnoText(code))")
        }
        let uid = entry.pointee.pw_uid
        let gid = entry.pointee.pw_gid
        let chowned = cproc_chown_tree(dataDirectory, uid, gid, keep)
        guard chowned == 0 else { return .failed("cannot give \(dataDirectory) to \(user): \(errnoText(chowned))") }
        var step: UnsafePointer<CChar>?
        let code = cproc_drop_privileges(uid, gid, &step)
        guard code == 0 else {
            return .failed("\(step.map { String(cString: $0) } ?? "drop"): \(errnoText(code))")
        }
        return .dropped(uid: uid, gid: gid)
    }

    /// Replaces this process with `executable run --config <configPath>` and `environment`
    /// (the Supervisor's variables already out of it): the only way to have every thread of
    /// the agent dropped (capabilities and no_new_privs belong to each thread, and this process
    /// already runs several), and the new image never held the token in its memory. Returns
    /// only on failure, with the reason.
    ///
    /// The executable is the one ``openExecutable(fallback:)`` opened while still root: after the
    /// drop the user may not be allowed to reach its path (a checkout under a 0700 folder), and
    /// the file at that path may have been replaced meanwhile.
    static func execAgent(
        executable: Executable, command: Invocation.Command = .run, configPath: String,
        environment: [String: String]
    ) -> String {
        let words = ["breeze-agent", command.rawValue, "--config", configPath]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        var environment = environment
        if executable.helperDescriptor >= 0 {
            environment[RenderRunner.inheritedHelperVariable] = String(executable.helperDescriptor)
        }
        let envp: [UnsafeMutablePointer<CChar>?] =
            environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        let keep = executable.helperDescriptor
        let code =
            executable.descriptor >= 0
            ? cproc_exec_fd(executable.descriptor, keep, argv, envp) : cproc_exec(executable.path, keep, argv, envp)
        return "cannot start \(executable.path) \(command.rawValue): \(errnoText(code))"
    }

    /// This process's executable, opened for a re-execution (or only its path when it could
    /// not be opened: then the exec goes by path, as before), and the render helper found next
    /// to it or installed, opened the same way and inherited by the new image (-1: none): the
    /// agent, no longer root, may not reach either by path.
    struct Executable {
        var path: String
        var descriptor: Int32
        var helperDescriptor: Int32 = -1
    }

    /// Opens the running binary and the render helper
    /// (``execAgent(executable:command:configPath:environment:)``).
    static func openExecutable(fallback path: String) -> Executable {
        var executable = Executable(path: path, descriptor: max(-1, cproc_open_executable(path)))
        if let helper = RenderRunner.locate() { executable.helperDescriptor = max(-1, cproc_open_path(helper)) }
        return executable
    }

    private static func errnoText(_ code: Int32) -> String { String(cString: strerror(code)) }
}
