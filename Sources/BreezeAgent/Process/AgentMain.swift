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
import BreezeMQTT

#if canImport(Glibc)
    import Glibc
#endif

/// The program: parses the command line, loads the configuration, wires the parts and runs the
/// chosen command. Returns the process exit code (docs/reference.md, Configuration).
package enum AgentMain {
    /// The exit code of a command line that cannot be understood or read (docs/reference.md, Configuration: 64).
    package static let usageExitCode = ExitCode.usage

    package static func main(arguments: [String], environment: [String: String]) async -> Int32 {
        // Before any thread allocates: arenas made earlier would stay (MemoryTuning).
        MemoryTuning.configure()
        let invocation: Invocation
        do {
            invocation = try Invocation.parse(arguments)
        } catch {
            printError("breeze-agent: \(error)")
            return ExitCode.usage
        }
        if invocation.help {
            writeStdout(Invocation.helpText + "\n")
            return ExitCode.success
        }
        if invocation.version {
            writeStdout("breeze-agent \(BreezeVersion.string)\n")
            return ExitCode.success
        }
        if invocation.command == .addon {
            guard invocation.configPath == nil, !invocation.demo else {
                printError("breeze-agent: addon takes no --config or --demo (it writes its own config; see --help)")
                return ExitCode.usage
            }
            return await AddonEntry.main(environment: environment)
        }

        let now = Timestamp.nowUnixSeconds()
        let currentYear = CivilDate(daysSinceEpoch: Int(now / 86_400)).year
        var config: AgentConfig
        do {
            config = try loadConfig(invocation, environment: environment, currentYear: currentYear)
        } catch {
            printError("breeze-agent: configuration error: \(error)")
            return ExitCode.configuration
        }
        if invocation.demo { applyDemo(&config) }
        TestHooks.apply(to: &config, environment: environment)

        let testWarnings = TestHooks.warnings(environment)
        let fileWarnings = config.secretFileWarnings()
        if invocation.command == .checkConfig {
            for warning in testWarnings + fileWarnings + config.notices { printError("warning: \(warning)") }
            writeStdout(renderEffective(config))
            writeStdout(renderOpenMeteoBudget(config))
            for warning in config.profileWarnings { printError("warning: \(warning)") }
            if let warning = config.http?.exposureWarning { printError("warning: \(warning)") }
            if !invocation.demo, !isWritableDirectoryOrCreatable(config.stateDir) {
                printError(
                    "warning: state_dir \(config.stateDir) is not writable: the agent would run without persistence")
            }
            return ExitCode.success
        }

        if invocation.command == .forget {
            for warning in fileWarnings + config.notices { printError("warning: \(warning)") }
            guard !invocation.demo else {
                printError("breeze-agent: forget takes no --demo (the demo publishes nothing retained)")
                return ExitCode.usage
            }
            let log = Log(level: .warning)
            log.redact(config.secretScrubber)
            do {
                var mqtt = mqttConfiguration(config, once: true)
                mqtt.clientID = config.mqtt.clientID + "-forget"
                let command = ForgetCommand(
                    config: config, store: StateStore(directory: config.stateDir, log: log),
                    broker: try MQTTClient(mqtt), say: { writeStdout($0 + "\n") }, complain: { printError($0) },
                    sleep: { try? await Task.sleep(for: $0) })
                return await command.run(location: invocation.location)
            } catch {
                printError("breeze-agent: configuration error: mqtt: \(error)")
                return ExitCode.configuration
            }
        }

        let log = Log(level: config.logLevel)
        log.redact(config.secretScrubber)
        for warning in testWarnings + fileWarnings + config.profileWarnings + config.notices { log.warning(warning) }
        let store = StateStore(directory: invocation.demo ? nil : config.stateDir, log: log)
        let http: any HTTPFetching =
            invocation.demo
            ? DemoResponder(today: { [zone = config.locations[0].zone] in
                zone.localDate(atUnixTime: Timestamp.nowUnixSeconds())
            })
            : CurlFetcher(
                caFile: TestHooks.caFile(environment), totalTimeout: TestHooks.httpTimeout(environment) ?? .seconds(30),
                maxConcurrent: config.httpMaxConcurrent)
        if invocation.demo {
            log.info(
                "demo: bundled sample data (not real measurements), prefix \(config.mqtt.topicPrefix), no discovery")
        }
        let agent = Agent(config: config, log: log, store: store, http: http, demo: invocation.demo)
        let code: Int32
        switch invocation.command {
        case .print:
            code = await agent.printTree()
        case .once, .run:
            do {
                let client = try MQTTClient(mqttConfiguration(config, once: invocation.command == .once))
                code = invocation.command == .once ? await agent.once(client: client) : await agent.run(client: client)
            } catch {
                printError("breeze-agent: configuration error: mqtt: \(error)")
                code = ExitCode.configuration
            }
        case .checkConfig, .addon, .forget:
            code = ExitCode.success
        }
        // The caller exits the process next: no HTTP thread may still be running then (the
        // fetchers' client, the OpenEPaperLink uploader), see ``HTTPClient/shutDown()``.
        await agent.uploader?.shutDown()
        await http.shutDown()
        return code
    }

    /// `--config`, else `$BREEZE_CONFIG`, else `/etc/breeze-agent/config.yaml`; `--demo` with
    /// no config file at all uses a built-in one (a local broker and one sample location).
    static func loadConfig(_ invocation: Invocation, environment: [String: String], currentYear: Int)
        throws(ConfigError) -> AgentConfig
    {
        let explicit = invocation.configPath ?? environment["BREEZE_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        let path = explicit ?? "/etc/breeze-agent/config.yaml"
        let hostname = currentHostname()
        if invocation.demo, explicit == nil, access(path, R_OK) != 0 {
            return try ConfigLoader.load(
                text: demoConfig, file: "(built-in demo config)", environment: environment, currentYear: currentYear,
                hostname: hostname)
        }
        return try ConfigLoader.load(
            path: path, environment: environment, currentYear: currentYear, hostname: hostname)
    }

    static let demoConfig = """
        mqtt:
          host: localhost
        locations:
          - id: demo
            name: Demo Garden
            latitude: 52.52
            longitude: 13.405
            timezone: Europe/Berlin
        climate:
          unit: fahrenheit
        air:
          enabled: true
        profiles:
          - id: anna
            name: Anna
            allergens: [birch, grass]
            alert_level: High
        images:
          - {id: tag, kind: summary, width: 296, height: 128, palette: bwr, format: jpeg}
          - {id: panel, kind: pollen, width: 400, height: 300, palette: bw}
          - {id: dashboard, kind: summary, width: 800, height: 480, palette: color}
        """

    /// `--demo`: the sample responses are Google-shaped (the richest tree), published under
    /// `breeze-demo` so a real Home Assistant or display never sees made-up pollen.
    static func applyDemo(_ config: inout AgentConfig) {
        config.mqtt.topicPrefix = "breeze-demo"
        config.mqtt.clientID += "-demo"
        config.homeAssistant.discovery = false
        config.pollen.source = .google
        // The demo's samples have no DWD document: Google's tree alone.
        config.pollen.dwd = false
        config.pollen.apiKey = Secret("breeze-demo-sample-data-no-key", origin: "--demo")
    }

    static func mqttConfiguration(_ config: AgentConfig, once: Bool) -> MQTTConfiguration {
        // A shard's will is its own `<p>/status/<index>` (docs/operations.md, Many locations).
        let status = config.topicLayout.status
        return MQTTConfiguration(
            host: config.mqtt.host, port: config.mqtt.port,
            // `once` must not take over the daemon's session (same client id = the broker drops one).
            clientID: once ? config.mqtt.clientID + "-once" : config.mqtt.clientID,
            keepalive: config.mqtt.keepalive, username: config.mqtt.username, password: config.mqtt.password?.value,
            tls: config.mqtt.tls, protocolVersion: config.mqtt.protocolVersion,
            will: once
                ? nil
                : MQTTMessage(
                    topic: status.name, string: Availability.offline, qos: max(1, config.mqtt.qos), retain: true),
            reconnectDelayMin: 1, reconnectDelayMax: 60,
            protocolFallback: !config.mqtt.protocolExplicit, maxPacketSize: config.mqtt.maxPacketSize,
            maxIncomingPayload: DaemonState.maximumIncomingPayload)
    }
}

func printError(_ text: String) {
    var bytes = Array((text + "\n").utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
}

func currentHostname() -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count) == 0 else { return "" }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// True when `path` is a writable directory, or does not exist under a writable parent.
func isWritableDirectoryOrCreatable(_ path: String) -> Bool {
    if access(path, W_OK) == 0 { return true }
    guard errno == ENOENT else { return false }
    var parent = path
    while let slash = parent.lastIndex(of: "/") {
        parent = String(parent[..<slash])
        let candidate = parent.isEmpty ? "/" : parent
        if access(candidate, F_OK) == 0 { return access(candidate, W_OK) == 0 }
    }
    return access(".", W_OK) == 0
}

/// The process environment as a dictionary (FoundationEssentials has no ProcessInfo).
package enum Environment {
    package static var current: [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return result
    }
}
