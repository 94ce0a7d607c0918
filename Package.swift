// swift-tools-version:6.0
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
// breeze-agent: pollen and climate trend → retained MQTT topics for home hubs.
//
// Layout (data flows one way, see docs/architecture.md):
//   C<Lib>       system-library modules over libmosquitto, libcurl, libyaml (module.modulemap + shim.h)
//   Breeze<Lib>  thin Swift wrappers over them (the edges)
//   BreezeCore   the pure core: decode → domain → topic tree, no I/O
//   BreezeConfig the configuration: YAML → a validated AgentConfig, and what check-config prints
//   BreezeDaemon the daemon's decisions: the state machine, its children, each source's rules and
//                requests, the sinks and device payloads; pure (no Glibc, no MQTT/HTTP/render edge)
//   BreezeAgent  the runtime: the loop that performs the daemon's actions, the edges' wiring,
//                the publisher, the state files, the HTTP routes, the CLI
//   breeze-agent the thin executable
import PackageDescription

let package = Package(
    name: "breeze-agent",
    products: [
        .executable(name: "breeze-agent", targets: ["breeze-agent"]),
        // The image drawing helper the agent spawns (docs/images.md): Cairo and libjpeg live
        // only here, never in the agent's process.
        .executable(name: "breeze-agent-render", targets: ["breeze-agent-render"]),
    ],
    targets: [
        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        // The edges take their plain settings values from the core (MQTTProtocolVersion,
        // MQTTTLSOptions, SecretScrubber), which the configuration fills without linking them.
        .target(name: "BreezeMQTT", dependencies: ["CMosquitto", "BreezeCore"]),
        .target(name: "BreezeHTTP", dependencies: ["CCurl", "BreezeCore"]),
        .target(name: "BreezeYAML", dependencies: ["CYAML"]),
        // libmicrohttpd through dlopen (SPEC §9.2: the lean path never maps it): a C target
        // compiled against <microhttpd.h> for its types, not linked against the library.
        .target(name: "CMicroHTTPD"),
        .target(name: "BreezeServe", dependencies: ["CMicroHTTPD", "BreezeCore"]),
        // The process itself: its command line from an ELF constructor (glibc hands it argc/argv; the Swift runtime
        // reads /proc/self/cmdline, which a chroot or a minimal sandbox does not have) and the add-on's drop of root.
        .target(name: "CProcess"),
        .target(name: "BreezeCore"),
        // The configuration: parse and validate the YAML, the effective config `check-config`
        // prints, the file reads. No daemon, no MQTT client, no curl (fuzz/run.sh builds it alone).
        .target(name: "BreezeConfig", dependencies: ["BreezeCore", "BreezeYAML"]),
        // The daemon's machine: a target of its own, so the compiler keeps I/O out of it (it may
        // import only the core and the configuration; scripts/test.sh also refuses Glibc there).
        .target(name: "BreezeDaemon", dependencies: ["BreezeConfig", "BreezeCore"]),
        .target(
            name: "BreezeAgent",
            dependencies: [
                "BreezeDaemon", "BreezeConfig", "BreezeCore", "BreezeMQTT", "BreezeHTTP", "BreezeYAML", "BreezeServe",
                "CProcess",
            ]
        ),
        .executableTarget(
            name: "breeze-agent",
            dependencies: ["BreezeAgent"],
            // Release only, two cuts of the daemon's resident memory (bench/RESULTS.md, "One
            // location, lean"), both needing lld (gold, the default linker, has neither):
            // - pack the relative relocations (DT_RELR, glibc >= 2.36): the static Swift stdlib
            //   makes a PIE with ~40,000 of them; as RELA entries they are 950 KB the loader
            //   reads at every start, packed 8 KB;
            // - place the functions a location's daemon runs together (the order file is made by
            //   bench/symbol_order.py): scattered over the 10 MB .text they kept ~6.9 MB of it
            //   resident. A stale file only loses the saving (unknown names are skipped).
            linkerSettings: [
                .unsafeFlags(
                    [
                        "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                        "-Xlinker",
                        "--symbol-ordering-file=\(Context.packageDirectory)/scripts/link/breeze-agent.order",
                        "-Xlinker", "--no-warn-symbol-ordering",
                    ],
                    .when(configuration: .release)
                )
            ]
        ),

        // The render helper: reads one RenderRequest on stdin, writes a PNG or JPEG on stdout.
        .systemLibrary(
            name: "CCairo",
            pkgConfig: "cairo",
            providers: [.apt(["libcairo2-dev"])]
        ),
        .systemLibrary(
            name: "CJPEG",
            pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg62-turbo-dev"])]
        ),
        .target(name: "BreezeRender", dependencies: ["BreezeCore", "CCairo", "CJPEG"]),
        .executableTarget(name: "breeze-agent-render", dependencies: ["BreezeRender"]),

        // Test support: real parts only (a loopback HTTP server, a mosquitto process runner).
        // It lives under Tests/ because it may use Foundation (Process); it never ships.
        // It also holds the fake upstream APIs and the agent sandbox the agent's tests share.
        .target(name: "BreezeTestSupport", path: "Tests/BreezeTestSupport"),

        .testTarget(name: "CoreTests", dependencies: ["BreezeCore", "BreezeTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "YAMLTests", dependencies: ["BreezeYAML"]),
        .testTarget(name: "HTTPTests", dependencies: ["BreezeHTTP", "BreezeCore", "BreezeTestSupport"]),
        .testTarget(name: "MQTTTests", dependencies: ["BreezeMQTT", "BreezeCore", "BreezeTestSupport"]),
        // The runtime without a broker or the binary: config, schedules, state, publisher, zoneinfo.
        .testTarget(
            name: "AgentUnitTests",
            dependencies: [
                "BreezeAgent", "BreezeDaemon", "BreezeConfig", "BreezeCore", "BreezeMQTT", "BreezeServe",
                "BreezeTestSupport",
            ]),
        // The runtime against a real mosquitto and the built binary: end to end, faults, soak.
        .testTarget(
            name: "AgentIntegrationTests",
            dependencies: [
                "BreezeAgent", "BreezeDaemon", "BreezeConfig", "BreezeCore", "BreezeMQTT", "BreezeServe",
                "BreezeTestSupport",
            ]),
        // The render helper's drawing, palettes and encoders, and the built helper's protocol.
        .testTarget(
            name: "RenderTests", dependencies: ["BreezeRender", "BreezeCore", "CCairo", "CJPEG", "BreezeTestSupport"]),
    ]
)

/// One set of settings for every Swift target (the apple/swift-log pattern).
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
    .enableUpcomingFeature("InferIsolatedConformances"),
    .unsafeFlags(["-require-explicit-sendable"]),
    // Test-only code (the BREEZE_TEST_* environment hooks, test accessors) compiles only in
    // debug builds and in scripts/test-hooks-build.sh's release variant: never in what ships.
    .define("BREEZE_TEST_HOOKS", .when(configuration: .debug)),
]

let cTargets: Set<String> = ["CMicroHTTPD", "CProcess"]
for target in package.targets where target.type != .system && !cTargets.contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + swiftSettings
}
