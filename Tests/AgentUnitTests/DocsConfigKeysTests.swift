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
import Foundation
import Testing

/// Every configuration key the documentation names is one the parser knows.
///
/// The keys come from docs/reference.md's "Configuration" section (the first column of its
/// tables, and every dotted key in its text) and from the dotted keys written in README.md and
/// docs/*.md. Each is set, with an empty value, in a small configuration that is loaded with
/// the real `ConfigLoader`: an "unknown key" error fails the test. An empty value may be
/// refused for other reasons (a required value, a color that must be quoted); only the name is
/// checked here. So that the check cannot pass by never reaching the key (a mistyped path
/// shape, such as `locations.timezone` for `locations[].timezone`), the same configuration
/// with the key's last name replaced by `zz_not_a_key` must be refused as an unknown key.
@Suite("Configuration keys named in the docs")
struct DocsConfigKeysTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func everyKeyOfTheReferenceIsKnownToTheParser() throws {
        let section = try Self.referenceSection()
        try #require(!section.isEmpty, "docs/reference.md has no \"## Configuration\" section")
        var keys = Self.tableKeys(section)
        // The tables are the reference: finding few keys means the extraction broke, not the docs.
        #expect(keys.count >= 60, "only \(keys.count) keys found in docs/reference.md's tables")
        let sections = Set(keys.map(\.key.segments[0].name))
        for (line, text) in section where !text.hasPrefix("|") {
            for key in DocsText.dottedKeys(in: text, sections: sections) { keys.append((key, line)) }
        }
        for (key, line) in keys {
            if let problem = Self.problem(with: key) { Issue.record("docs/reference.md:\(line): \(problem)") }
        }
    }

    @Test func everyDottedKeyInTheDocsIsKnownToTheParser() throws {
        let sections = Set(Self.tableKeys(try Self.referenceSection()).map(\.key.segments[0].name))
        let docs = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        var checked = 0
        var seen: [DocsKey: String] = [:]
        for file in ["README.md"] + docs {
            for (line, text) in DocsText.prose(try Self.read(file)) {
                for key in DocsText.dottedKeys(in: text, sections: sections) {
                    checked += 1
                    let problem = seen[key] ?? Self.problem(with: key) ?? ""
                    seen[key] = problem
                    if !problem.isEmpty { Issue.record("\(file):\(line): \(problem)") }
                }
            }
        }
        #expect(checked >= 50, "only \(checked) dotted keys found in README.md and docs/*.md")
    }

    // MARK: - The reference's tables

    static func referenceSection() throws -> [(line: Int, text: String)] {
        DocsText.section(named: "Configuration", in: try read("docs/reference.md"))
    }

    /// The keys in the first column of the section's table rows; a code span there that is
    /// not a key is an issue.
    static func tableKeys(_ section: [(line: Int, text: String)]) -> [(key: DocsKey, line: Int)] {
        var keys: [(key: DocsKey, line: Int)] = []
        for (line, text) in section where text.hasPrefix("|") {
            let firstCell = text.split(separator: "|", omittingEmptySubsequences: false).dropFirst().first ?? ""
            for span in DocsText.codeSpans(String(firstCell)) {
                guard let key = DocsKey(span) else {
                    Issue.record("docs/reference.md:\(line): `\(span)` in a key column is not a key like climate.unit")
                    continue
                }
                keys.append((key, line))
            }
        }
        return keys
    }

    // MARK: - Loading a key

    /// Why the parser does not take `key`, or nil when it does.
    static func problem(with key: DocsKey) -> String? {
        if let error = loadError(yaml(for: key)), error.message.hasPrefix("unknown key") {
            return "`\(key)`: the configuration parser does not know it (\(error))"
        }
        var control = key
        control.segments[control.segments.count - 1].name = "zz_not_a_key"
        let refusal = loadError(yaml(for: control))
        guard let refusal, refusal.message.hasPrefix("unknown key \"zz_not_a_key\"") else {
            return
                "`\(key)`: a key in its place is not refused as unknown (\(refusal.map(String.init(describing:)) ?? "it loads")), so the check cannot reach it: is the path's shape right (a list written as name[])?"
        }
        return nil
    }

    static func loadError(_ yaml: String) -> ConfigError? {
        do {
            _ = try ConfigLoader.load(
                text: yaml, file: "docs-key.yaml", environment: [:], currentYear: 2026, hostname: "hub")
            return nil
        } catch {
            return error
        }
    }

    /// One valid location, so that everything before the key's section parses.
    static let locationFields = [
        ("id", "home"), ("latitude", "52.52"), ("longitude", "13.405"), ("timezone", "Europe/Berlin"),
    ]

    /// The smallest configuration that sets `key` to an empty value.
    static func yaml(for key: DocsKey) -> String {
        let segments = key.segments
        if segments[0].name == "locations" {
            if segments.count == 1 { return locations(setting: nil) }
            if segments.count == 2, segments[0].isList { return locations(setting: segments[1].name) }
        }
        return locations(setting: nil) + nested(segments[...], indent: 0)
    }

    /// `locations:` with one entry; `key` (empty) in place of its own value when given.
    static func locations(setting key: String?) -> String {
        var lines = ["locations:", "  -"]
        for (name, value) in locationFields where name != key { lines.append("    \(name): \(value)") }
        if let key { lines.append("    \(key): ~") }
        return lines.joined(separator: "\n") + "\n"
    }

    static func nested(_ segments: ArraySlice<DocsKey.Segment>, indent: Int) -> String {
        guard let first = segments.first else { return "" }
        let pad = String(repeating: " ", count: indent)
        if segments.count == 1 { return "\(pad)\(first.name): ~\n" }
        if first.isList {
            return "\(pad)\(first.name):\n\(pad)  -\n" + nested(segments.dropFirst(), indent: indent + 4)
        }
        return "\(pad)\(first.name):\n" + nested(segments.dropFirst(), indent: indent + 2)
    }

    static func read(_ relative: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8)
    }
}

/// A configuration key as the docs write it: `climate.unit`, `locations[].timezone`, `state_dir`.
struct DocsKey: Hashable, Sendable, CustomStringConvertible {
    struct Segment: Hashable, Sendable {
        var name: String
        /// Written `name[]`: a list whose entries hold the rest of the path.
        var isList: Bool
    }

    var segments: [Segment]

    /// Nil unless `text` is dot-separated names of `a-z 0-9 _` (each starting with a letter),
    /// each optionally followed by `[]`.
    init?(_ text: String) {
        var segments: [Segment] = []
        for part in text.split(separator: ".", omittingEmptySubsequences: false) {
            var name = part
            let isList = name.hasSuffix("[]")
            if isList { name = name.dropLast(2) }
            guard let first = name.first, first >= "a", first <= "z",
                name.allSatisfy({ ($0 >= "a" && $0 <= "z") || ($0 >= "0" && $0 <= "9") || $0 == "_" })
            else { return nil }
            segments.append(Segment(name: String(name), isList: isList))
        }
        self.segments = segments
    }

    var description: String { segments.map { $0.name + ($0.isList ? "[]" : "") }.joined(separator: ".") }
}

/// Just enough Markdown for finding keys: fenced code is left out, code spans are read.
enum DocsText {
    /// Endings that make `images.md` a file name, not the key `images.md`.
    static let fileEndings: Set<String> = [
        "md", "yaml", "yml", "json", "swift", "py", "sh", "txt", "png", "jpg", "conf", "service", "deb", "tar",
        "gz", "asc", "gpg", "html", "log",
    ]

    /// The lines outside fenced code blocks, with their 1-based numbers.
    static func prose(_ text: String) -> [(line: Int, text: String)] {
        var result: [(line: Int, text: String)] = []
        var fenced = false
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                fenced.toggle()
                continue
            }
            if !fenced { result.append((index + 1, String(line))) }
        }
        return result
    }

    /// The prose lines of the `## <name>` section (to the next `## ` heading).
    static func section(named name: String, in text: String) -> [(line: Int, text: String)] {
        var result: [(line: Int, text: String)] = []
        var inside = false
        for (line, content) in prose(text) {
            if content.hasPrefix("## ") {
                inside = content.dropFirst(3).trimmingCharacters(in: .whitespaces) == name
                continue
            }
            if inside { result.append((line, content)) }
        }
        return result
    }

    /// The texts between single backticks.
    static func codeSpans(_ line: String) -> [String] {
        let parts = line.split(separator: "`", omittingEmptySubsequences: false)
        return stride(from: 1, to: parts.count - 1, by: 2).map { String(parts[$0]) }
    }

    /// Home Assistant actions that read like keys of the `homeassistant` section.
    static let homeAssistantActions: Set<String> = [
        "homeassistant.turn_on", "homeassistant.turn_off", "homeassistant.toggle", "homeassistant.update_entity",
        "homeassistant.reload_core_config", "homeassistant.restart", "homeassistant.stop",
        "homeassistant.check_config", "homeassistant.reload_all", "homeassistant.set_location",
    ]

    /// Code spans that read as keys of more than one level under one of `sections`
    /// (`pollen.interval`, not `pollen` alone, not `docs/http.md`, not `homeassistant.turn_off`).
    static func dottedKeys(in line: String, sections: Set<String>) -> [DocsKey] {
        codeSpans(line).compactMap { span in
            guard let key = DocsKey(span), key.segments.count > 1 || key.segments[0].isList,
                sections.contains(key.segments[0].name),
                !fileEndings.contains(key.segments[key.segments.count - 1].name),
                !homeAssistantActions.contains(span)
            else { return nil }
            return key
        }
    }
}
