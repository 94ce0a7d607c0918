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

/// The parsed command line (docs/reference.md, Configuration).
struct Invocation: Sendable, Equatable {
    enum Command: String, Sendable, CaseIterable {
        case run, once, print
        case checkConfig = "check-config"
        /// The Home Assistant add-on's entrypoint (docs/home-assistant.md).
        case addon
        /// Clears what the agent retained on the broker (docs/reference.md, "forget").
        case forget
    }

    var command: Command = .run
    var configPath: String?
    var demo = false
    /// `forget --location ID`: one location instead of all.
    var location: String?
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
        // An option's value: the next argument (`--config PATH`) or after `=` (`--config=PATH`).
        func value(of argument: String, _ name: String, needs what: String) throws(UsageError) -> String {
            let text: String
            if argument.hasPrefix(name + "=") {
                text = String(argument.dropFirst(name.count + 1))
            } else {
                index += 1
                text = index < arguments.count ? arguments[index] : ""
            }
            guard !text.isEmpty else { throw UsageError(description: "\(argument.prefix { $0 != "=" }) needs \(what)") }
            return text
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--help", "-h": result.help = true
            case "--version", "-V": result.version = true
            case "--demo": result.demo = true
            case "--config", "-c",
                _ where argument.hasPrefix("--config="):
                result.configPath = try value(of: argument, "--config", needs: "a path")
            case "--location",
                _ where argument.hasPrefix("--location="):
                result.location = try value(of: argument, "--location", needs: "a location id")
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
        if result.location != nil, result.command != .forget {
            throw UsageError(description: "--location goes with forget only (see --help)")
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
          forget         clear everything the agent retained on the broker for the configured
                         locations (Home Assistant devices first), print each topic; for removal

        Options:
          --config PATH  config file (default: $BREEZE_CONFIG, else /etc/breeze-agent/config.yaml)
          --demo         use bundled sample responses instead of the network; publish under
                         the prefix breeze-demo without Home Assistant discovery
          --location ID  forget: only this location
          --help         this text
          --version      the version

        Exit codes: 0 ok, 64 usage, 69 broker or source unavailable (once, forget), 78 configuration error.
        Docs: README.md and docs/ (topics, Home Assistant, displays, operations).
        """
}
