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

import BreezeCore
import BreezeYAML

/// Reads one YAML mapping of the config with typed accessors that produce `ConfigError`s
/// naming the file, line and dotted key path. Unknown keys are refused up front, with a
/// did-you-mean suggestion, because a misspelt key would otherwise silently fall back to
/// its default.
struct MappingReader {
    let file: String
    /// Dotted path of this mapping ("" for the root).
    let path: String
    /// Where to point errors about missing keys.
    let line: Int
    private let entries: [String: YAMLPair]

    /// `node` nil or null reads as an empty mapping (so `mqtt:` with nothing under it means defaults).
    init(_ node: YAMLNode?, path: String, keys: [String], file: String) throws(ConfigError) {
        self.file = file
        self.path = path
        self.line = node?.line ?? 1
        guard let node, !node.isNull else {
            entries = [:]
            return
        }
        guard case .mapping(let pairs) = node.kind else {
            throw ConfigError(
                file: file, line: node.line, keyPath: path.isEmpty ? "(top level)" : path,
                message: "expected a mapping of keys, got \(Self.describe(node))")
        }
        var entries: [String: YAMLPair] = [:]
        for pair in pairs {
            guard let key = pair.key.scalarText else {
                throw ConfigError(
                    file: file, line: pair.key.line, keyPath: path.isEmpty ? "(top level)" : path,
                    message: "keys must be plain names, got \(pair.key.typeDescription)")
            }
            guard keys.contains(key) else {
                var message = "unknown key \"\(key)\""
                if let suggestion = Self.closest(to: key, in: keys) { message += "; did you mean \"\(suggestion)\"?" }
                message += " (known keys: \(keys.joined(separator: ", ")))"
                throw ConfigError(file: file, line: pair.key.line, keyPath: Self.join(path, key), message: message)
            }
            entries[key] = pair
        }
        self.entries = entries
    }

    func keyPath(_ key: String) -> String { Self.join(path, key) }

    /// True when the key is written, even with an empty value.
    func isPresent(_ key: String) -> Bool { entries[key] != nil }

    /// Line of the key when present, else of the mapping.
    func line(of key: String) -> Int { entries[key]?.key.line ?? line }

    /// The value node, nil when absent or null.
    func node(_ key: String) -> YAMLNode? {
        guard let value = entries[key]?.value, !value.isNull else { return nil }
        return value
    }

    /// The raw value node even when null (for keys where presence matters, like `tls`).
    func rawNode(_ key: String) -> YAMLNode? { entries[key]?.value }

    func fail(_ key: String, _ message: String, at node: YAMLNode? = nil) -> ConfigError {
        ConfigError(file: file, line: node?.line ?? line(of: key), keyPath: keyPath(key), message: message)
    }

    func missing(_ key: String, expected: String) -> ConfigError {
        ConfigError(file: file, line: line, keyPath: keyPath(key), message: "required: \(expected)")
    }

    /// Any scalar as text (YAML `name: 123` is the text "123"); collections are refused.
    func string(_ key: String, expected: String = "a string") throws(ConfigError) -> String? {
        guard let value = node(key) else { return nil }
        guard let text = value.scalarText else {
            throw fail(key, "expected \(expected), got \(Self.describe(value))", at: value)
        }
        return text
    }

    /// A non-empty string without control characters.
    func text(_ key: String, expected: String = "a non-empty string") throws(ConfigError) -> String? {
        guard let text = try string(key, expected: expected) else { return nil }
        guard !text.isEmpty, !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else {
            throw fail(key, "expected \(expected), got \(doubleQuoted(text))", at: node(key))
        }
        return text
    }

    /// A display name the render helper draws (a location's, a profile's): ``text(_:expected:)``
    /// and at most ``ImageBounds/maximumTextBytes`` UTF-8 bytes, the helper's own limit (docs/operations.md, Limits
    /// "Names": a longer one stopped every image of the location, silently).
    func name(_ key: String) throws(ConfigError) -> String? {
        guard let name = try text(key) else { return nil }
        guard name.utf8.count <= ImageBounds.maximumTextBytes else {
            throw fail(
                key,
                "a name of \(name.utf8.count) bytes, at most \(ImageBounds.maximumTextBytes) (the render helper's limit for what it draws)"
            )
        }
        return name
    }

    func int(_ key: String, in range: ClosedRange<Int>) throws(ConfigError) -> Int? {
        guard let value = node(key) else { return nil }
        let expected = "an integer \(range.lowerBound)–\(range.upperBound)"
        guard case .scalar(let text, .plain) = value.kind, let number = Self.parseInt(text), range.contains(number)
        else { throw fail(key, "expected \(expected), got \(Self.describe(value))", at: value) }
        return number
    }

    func double(_ key: String, in range: ClosedRange<Double>, expected: String) throws(ConfigError) -> Double? {
        guard let value = node(key) else { return nil }
        guard case .scalar(let text, .plain) = value.kind, let number = Double(text), number.isFinite,
            range.contains(number)
        else { throw fail(key, "expected \(expected), got \(Self.describe(value))", at: value) }
        return number
    }

    func bool(_ key: String) throws(ConfigError) -> Bool? {
        guard let value = node(key) else { return nil }
        if case .scalar(let text, .plain) = value.kind {
            switch text.lowercased() {
            case "true", "yes", "on": return true
            case "false", "no", "off": return false
            default: break
            }
        }
        throw fail(key, "expected true or false, got \(Self.describe(value))", at: value)
    }

    /// One of a fixed set of words.
    func choice(_ key: String, _ options: [String]) throws(ConfigError) -> String? {
        guard let value = node(key) else { return nil }
        guard let text = value.scalarText, options.contains(text) else {
            let list = options.map { "\"\($0)\"" }.joined(separator: ", ")
            throw fail(key, "expected one of \(list), got \(Self.describe(value))", at: value)
        }
        return text
    }

    /// The longest duration any key accepts (docs/operations.md, Limits): schedules then never come near the
    /// limits of `Int64` seconds, and a typo such as `6000d` is an error, not a silent no-op.
    static let longestDuration: Duration = .seconds(30 * 86_400)
    /// The longest cooldown (docs/operations.md, Limits): a refresh command is never refused for more than a day.
    static let longestCooldown: Duration = .seconds(86_400)

    /// `90s`, `15m`, `6h`, `1d`, at least `minimum` and at most `maximum` (30 days unless a
    /// key is bounded tighter, like the cooldowns at 1 day).
    func duration(
        _ key: String, atLeast minimum: Duration, minimumText: String, atMost maximum: Duration = longestDuration
    ) throws(ConfigError) -> Duration? {
        guard let value = node(key) else { return nil }
        let expected =
            "a duration like 90s, 15m, 6h or 1d (at least \(minimumText), at most \(durationText(maximum)))"
        guard let text = value.scalarText, let duration = Self.parseDuration(text), duration >= minimum,
            duration <= maximum
        else {
            throw fail(key, "expected \(expected), got \(Self.describe(value))", at: value)
        }
        return duration
    }

    // MARK: - Pure helpers

    static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// Decimal integer with an optional sign, no spaces, no YAML 1.1 octal/hex surprises.
    static func parseInt(_ text: String) -> Int? {
        var digits = Substring(text)
        if digits.first == "+" || digits.first == "-" { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }

    /// A whole number followed by exactly one unit: s, m, h or d.
    static func parseDuration(_ text: String) -> Duration? {
        guard let unit = text.last, text.count >= 2 else { return nil }
        let number = String(text.dropLast())
        guard number.allSatisfy({ $0.isASCII && $0.isNumber }), let count = Int(number) else { return nil }
        let seconds: Int
        switch unit {
        case "s": seconds = 1
        case "m": seconds = 60
        case "h": seconds = 3600
        case "d": seconds = 86_400
        default: return nil
        }
        let (total, overflow) = count.multipliedReportingOverflow(by: seconds)
        return overflow ? nil : .seconds(total)
    }

    /// The value as it appears in an error: quoted text for scalars (with a note when YAML
    /// quoting made it a string), the type for collections.
    static func describe(_ node: YAMLNode) -> String {
        switch node.kind {
        case .scalar(let text, .plain): node.isNull ? "nothing" : doubleQuoted(text)
        case .scalar(let text, _): "the quoted string \(doubleQuoted(text))"
        default: node.typeDescription
        }
    }

    /// The known key closest to a misspelt one, when it is close enough to be a typo.
    static func closest(to key: String, in keys: [String]) -> String? {
        let scored = keys.map { (key: $0, distance: editDistance(key.lowercased(), $0)) }
        guard let best = scored.min(by: { $0.distance < $1.distance }) else { return nil }
        let allowed = max(1, min(3, best.key.count / 3))
        return best.distance <= allowed ? best.key : nil
    }

    /// Edit distance over characters where a swap of two neighbours counts as one edit
    /// (optimal string alignment), so `hots` is one typo away from `host`.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }
}
