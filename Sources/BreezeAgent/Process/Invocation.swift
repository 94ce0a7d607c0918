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
import BreezeDaemon

/// The parsed command line (SPEC §4).
struct Invocation: Sendable, Equatable {
    enum Command: String, Sendable, CaseIterable {
        case run, once, print
        case checkConfig = "check-config"
        /// The Home Assistant add-on's entrypoint (SPEC §15, docs/home-assistant.md).
        case addon
    }

    var command: Command = .run
    var configPath: String?
    var demo = false
    var help = false
    var version = false

    init() {}

    /// A command line that cannot be understood; the message names what is wrong (exit 64).
    struct UsageError: Error, Sendable, CustomStringConvertible, Equatable {
        var description: String
    }

    /// Parses the arguments after the program name.
    static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        var result = Invocation()
        var commandSeen = false
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--help", "-h": result.help = true
            case "--version", "-V": result.version = true
            case "--demo": result.demo = true
            case "--config", "-c":
                index += 1
                guard index < arguments.count, !arguments[index].isEmpty else {
                    throw UsageError(description: "\(argument) needs a path")
                }
                result.configPath = arguments[index]
            case _ where argument.hasPrefix("--config="):
                let path = String(argument.dropFirst("--config=".count))
                guard !path.isEmpty else { throw UsageError(description: "--config needs a path") }
                result.configPath = path
            case _ where argument.hasPrefix("-"):
                throw UsageError(description: "unknown option \(argument) (see --help)")
            default:
                guard !commandSeen else {
                    throw UsageError(description: "unexpected argument \(argument) (see --help)")
                }
                guard let command = Command(rawValue: argument) else {
                    let names = Command.allCases.map(\.rawValue).joined(separator: ", ")
                    throw UsageError(description: "unknown command \(argument); expected one of \(names)")
                }
                result.command = command
                commandSeen = true
            }
            index += 1
        }
        return result
    }

    static let helpText = """
        breeze-agent — pollen levels and a local climate trend as retained MQTT topics

        Usage: breeze-agent [command] [--config PATH] [--demo]

        Commands:
          run            run as a daemon (the default)
          once           fetch everything now, publish, wait for the broker's acks, exit
          print          fetch and print the topic tree (topic<TAB>payload); no broker
          check-config   validate the config and print it with secrets masked
          addon          the Home Assistant add-on's entrypoint: read /data/options.json and
                         the Supervisor, write /data/breeze-agent.yaml, run (docs/home-assistant.md)

        Options:
          --config PATH  config file (default: $BREEZE_CONFIG, else /etc/breeze-agent/config.yaml)
          --demo         use bundled sample responses instead of the network; publish under
                         the prefix breeze-demo without Home Assistant discovery
          --help         this text
          --version      the version

        Exit codes: 0 ok, 64 usage, 69 broker or source unavailable (once), 78 configuration error.
        Docs: README.md and docs/ (topics, Home Assistant, displays, operations).
        """
}
