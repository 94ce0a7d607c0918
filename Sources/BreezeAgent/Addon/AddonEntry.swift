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
import BreezeCore
import BreezeDaemon
import BreezeHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// `breeze-agent addon`, the Home Assistant add-on's entrypoint (docs/home-assistant.md, Add-on): reads the options,
/// asks the Supervisor until it answers, writes the effective configuration (0600) and runs the
/// agent in this process exactly as `run --config <that file>` would. The decisions are
/// ``AddonConfig``'s; this is the I/O around them.
///
/// Environment: `BREEZE_ADDON_DATA` (default `/data`: options.json is read there, the
/// configuration written there, and it is the `state_dir`), `BREEZE_ADDON_OPTIONS` (default
/// `<data>/options.json`), `BREEZE_SUPERVISOR_URL` (default `http://supervisor`),
/// `SUPERVISOR_TOKEN`.
enum AddonEntry {
    /// Retry delays while the Supervisor cannot be used: 1 s, doubling, at most 30 s, for ever
    /// (docs/operations.md): the add-on waits for the broker instead of exiting into a restart loop.
    static let firstRetryDelay: Duration = .seconds(1)
    static let maximumRetryDelay: Duration = .seconds(30)

    static func main(environment: [String: String]) async -> Int32 {
        let dataDir = nonEmpty(environment["BREEZE_ADDON_DATA"]) ?? "/data"
        let optionsPath = nonEmpty(environment["BREEZE_ADDON_OPTIONS"]) ?? dataDir + "/options.json"
        let configPath = dataDir + "/breeze-agent.yaml"

        let options: AddonConfig.Options
        do {
            options = try AddonConfig.parseOptions(try readOptions(optionsPath))
        } catch {
            printError("breeze-agent: \(error)")
            return ExitCode.configuration
        }

        let log = Log(level: LogLevel(rawValue: options.logLevel) ?? .info)
        let supervisor = nonEmpty(environment["BREEZE_SUPERVISOR_URL"]) ?? "http://supervisor"
        let token = environment["SUPERVISOR_TOKEN"] ?? environment["HASSIO_TOKEN"] ?? ""
        if token.isEmpty { log.warning("add-on: SUPERVISOR_TOKEN is not set; the Supervisor will refuse the requests") }
        let (broker, answeredHome) = await askSupervisor(
            supervisor, token: token, log: log, retry: retryDelays(environment))
        // The token is needed for nothing else: gone from the process before anything else runs.
        AddonPrivileges.forgetSupervisor()
        let timeZones = TimeZoneResolver()
        let (home, homeWarnings) = AddonConfig.usableHome(answeredHome) { (try? timeZones.load($0)) != nil }
        for warning in homeWarnings { log.warning(warning) }

        let plan: AddonConfig.Plan
        do {
            plan = try AddonConfig.plan(options: options, broker: broker, home: home, stateDir: dataDir)
        } catch {
            printError("breeze-agent: \(error)")
            return ExitCode.configuration
        }
        do {
            _ = try check(
                plan, file: configPath, currentYear: currentYear(), hostname: currentHostname(), timeZones: timeZones)
        } catch {
            printError("breeze-agent: \(error)")
            return ExitCode.configuration
        }
        do {
            try AtomicFile.write(Array(plan.text.utf8), to: configPath, mode: 0o600)
        } catch {
            printError("breeze-agent: cannot write \(configPath): \(error)")
            return ExitCode.configuration
        }
        log.info(
            "add-on: wrote \(configPath) (mode 0600): \(options.homeLocation ? "home location \(doubleQuoted(home.name ?? "Home")), " : "")"
                + "\(options.locationCount) more location(s), broker \(broker.host):\(broker.port)"
                + "\(broker.username.map { " as \($0)" } ?? "")\(broker.ssl ? " with TLS" : "")")
        // Opened while root: the re-execution below must not depend on the folders above the
        // binary being open to the service user, or on the file at its path staying the same.
        let executable = AddonPrivileges.openExecutable(
            fallback: RenderRunner.ownExecutable() ?? "/usr/bin/breeze-agent")
        switch AddonPrivileges.drop(dataDirectory: dataDir, keep: optionsPath) {
        case .dropped(let uid, let gid):
            log.info(
                "add-on: running as \(AddonPrivileges.user) (uid \(uid), gid \(gid)) with no capabilities and no_new_privs"
            )
        case .notRoot(let uid):
            log.info("add-on: started as uid \(uid), not root: no_new_privs set, nothing else to drop")
        case .noSuchUser:
            log.warning(
                "add-on: no user \(AddonPrivileges.user) in /etc/passwd: running as root (no_new_privs set); the add-on image has one"
            )
        case .failed(let reason):
            printError("breeze-agent: add-on: cannot drop root: \(reason)")
            return ExitCode.configuration
        }
        var agentEnvironment = environment
        agentEnvironment["BREEZE_CONFIG"] = nil
        for name in AddonPrivileges.supervisorVariables { agentEnvironment[name] = nil }
        // The agent starts afresh as `run --config <file>` in this process (the same pid, so
        // the Supervisor's signals reach it): a new image with this thread's dropped rights
        // for all its threads and no trace of the token.
        // With `forget` on, the same configuration clears the broker instead, and the add-on
        // stops when that is done (DOCS.md, "Removing").
        if options.forget { log.info("add-on: forget is on: clearing the broker, then stopping") }
        let reason = AddonPrivileges.execAgent(
            executable: executable, command: options.forget ? .forget : .run, configPath: configPath,
            environment: agentEnvironment)
        printError("breeze-agent: add-on: \(reason)")
        return ExitCode.configuration
    }

    /// The agent's own checks of the generated text (ranges, time zones, ids an output names),
    /// a failure named as the option the user wrote: `option locations[0].timezone: …`.
    static func check(
        _ plan: AddonConfig.Plan, file: String, currentYear: Int, hostname: String,
        timeZones: TimeZoneResolver = TimeZoneResolver()
    ) throws(AddonConfig.OptionError) -> AgentConfig {
        do {
            return try ConfigLoader.load(
                text: plan.text, file: file, environment: [:], currentYear: currentYear, hostname: hostname,
                timeZones: timeZones)
        } catch {
            throw AddonConfig.OptionError(plan.option(forKeyPath: error.keyPath), error.message)
        }
    }

    /// options.json's text; a missing file is no options (the Supervisor always writes one).
    private static func readOptions(_ path: String) throws(AddonConfig.OptionError) -> String {
        do {
            return String(decoding: try PosixFile.read(path), as: UTF8.self)
        } catch {
            if error.errno == ENOENT { return "" }
            throw AddonConfig.OptionError("(options.json)", "cannot read \(path): \(error.reason)")
        }
    }

    /// Asks for the broker and Home Assistant's configuration until both answers are usable,
    /// logging each new reason to wait once (not every attempt) and when it is over.
    static func askSupervisor(
        _ base: String, token: String, log: Log, retry: (first: Duration, maximum: Duration)
    ) async -> (AddonConfig.Broker, AddonConfig.Home) {
        let http = CurlFetcher(totalTimeout: .seconds(10), maxConcurrent: 1)
        let headers = [(name: "Authorization", value: "Bearer \(token)")]
        var lastWait: AddonConfig.Wait?
        var delay = retry.first
        // Stopping the add-on while it waits: nothing is connected or published yet, so exit 0 at
        // once. A plain handler (write and _exit are async-signal-safe), put back to the default
        // before the agent installs its own.
        for number in [SIGTERM, SIGINT] {
            signal(number) { _ in
                let message: StaticString = "add-on: stopping while waiting for the Supervisor\n"
                message.withUTF8Buffer { _ = write(2, $0.baseAddress, $0.count) }
                _exit(0)
            }
        }
        defer { for number in [SIGTERM, SIGINT] { signal(number, SIG_DFL) } }
        while true {
            let outcome: Result<(AddonConfig.Broker, AddonConfig.Home), AddonConfig.Wait>
            do {
                let mqtt = try await http.get(base + "/services/mqtt", query: [], headers: headers)
                switch AddonConfig.broker(status: mqtt.status, body: mqtt.body) {
                case .failure(let wait): outcome = .failure(wait)
                case .success(let broker):
                    let core = try await http.get(base + "/core/api/config", query: [], headers: headers)
                    outcome = AddonConfig.home(status: core.status, body: core.body).map { (broker, $0) }
                }
            } catch {
                outcome = .failure(
                    AddonConfig.Wait(key: "no-answer", message: "the Supervisor at \(base) does not answer (\(error))"))
            }
            switch outcome {
            case .success(let answers):
                if lastWait != nil { log.info("add-on: the Supervisor answers; starting") }
                return answers
            case .failure(let wait):
                if wait != lastWait {
                    log.warning("add-on: \(wait.message); trying again with backoff (at most every \(retry.maximum))")
                    lastWait = wait
                }
            }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, retry.maximum)
        }
    }

    /// The Supervisor retry's first and longest delay (a test build may shorten them,
    /// ``TestHooks/supervisorRetry(_:)``).
    static func retryDelays(_ environment: [String: String]) -> (first: Duration, maximum: Duration) {
        TestHooks.supervisorRetry(environment) ?? (firstRetryDelay, maximumRetryDelay)
    }

    private static func nonEmpty(_ value: String?) -> String? { value.flatMap { $0.isEmpty ? nil : $0 } }

    private static func currentYear() -> Int {
        CivilDate(daysSinceEpoch: Int(Timestamp.nowUnixSeconds() / 86_400)).year
    }
}
