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
import Foundation
import Testing

/// The dashboard and the blueprints in every language (issue 51): `ha/<…>/<lang>/<file>` is the
/// English `ha/<…>/<file>` with only the words people read translated. Every key, entity id,
/// selector, trigger, template and state is the English file's, so a change to the English file
/// that a language misses fails here, naming the file and the path.
@Suite("ha/: dashboard and blueprints in every language")
struct HATranslationsTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let files = [
        "ha/dashboards/breeze.yaml", "ha/blueprints/automation/breeze_agent/pollen_alert.yaml",
        "ha/blueprints/automation/breeze_agent/air_out.yaml",
    ]
    /// The keys whose scalar values are words people read.
    static let translatable: Set<String> = ["name", "title", "heading", "description", "message"]

    static func load(_ path: String) throws -> YAMLNode {
        let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        return try #require(try YAML.load(text, file: path))
    }

    /// `ha/dashboards/de/breeze.yaml` for `ha/dashboards/breeze.yaml`.
    static func translated(_ english: String, _ language: Language) -> String {
        let url = URL(fileURLWithPath: english)
        return url.deletingLastPathComponent().appendingPathComponent(language.rawValue)
            .appendingPathComponent(url.lastPathComponent).relativePath
    }

    /// The `{{ … }}` and `{% … %}` of a template, in order: a translation keeps them all.
    static func jinja(_ text: String) -> [String] {
        text.matches(of: /\{\{.*?\}\}|\{%.*?%\}/).map { String($0.output) }
    }

    struct Difference: CustomStringConvertible {
        var path: String
        var what: String
        var description: String { "\(path): \(what)" }
    }

    /// Walks both trees in step: the same shape, keys, tags and scalars, except the scalars of
    /// ``translatable`` keys (and a text input's `default`, and `source_url`), which may differ
    /// but keep their templates.
    static func compare(
        _ english: YAMLNode, _ other: YAMLNode, path: String, key: String?, parent: [YAMLPair],
        into differences: inout [Difference], translatedCount: inout Int
    ) {
        guard english.tag == other.tag else {
            differences.append(.init(path: path, what: "tag \(english.tag ?? "none") ≠ \(other.tag ?? "none")"))
            return
        }
        switch (english.kind, other.kind) {
        case (.scalar(let a, _), .scalar(let b, _)):
            let isTextDefault =
                key == "default"
                && parent.contains { pair in
                    pair.key.scalarText == "selector"
                        && {
                            if case .mapping(let selector) = pair.value.kind {
                                return selector.contains { $0.key.scalarText == "text" }
                            }
                            return false
                        }()
                }
            if let key, translatable.contains(key) || isTextDefault {
                if jinja(a) != jinja(b) {
                    differences.append(.init(path: path, what: "templates \(jinja(a)) ≠ \(jinja(b))"))
                }
                if a != b { translatedCount += 1 }
            } else if key == "source_url" {
                if !b.hasPrefix("https://github.com/breeze-agent/breeze-agent/blob/main/ha/") {
                    differences.append(.init(path: path, what: "source_url \(b)"))
                }
            } else if a != b {
                differences.append(.init(path: path, what: "\"\(a)\" ≠ \"\(b)\""))
            }
        case (.sequence(let a), .sequence(let b)):
            guard a.count == b.count else {
                differences.append(.init(path: path, what: "\(a.count) items ≠ \(b.count)"))
                return
            }
            for index in a.indices {
                compare(
                    a[index], b[index], path: "\(path)[\(index)]", key: nil, parent: [], into: &differences,
                    translatedCount: &translatedCount)
            }
        case (.mapping(let a), .mapping(let b)):
            let keysA = a.map { $0.key.scalarText ?? "?" }
            let keysB = b.map { $0.key.scalarText ?? "?" }
            guard keysA == keysB else {
                differences.append(.init(path: path, what: "keys \(keysA) ≠ \(keysB)"))
                return
            }
            for index in a.indices {
                compare(
                    a[index].value, b[index].value, path: path + "." + keysA[index], key: keysA[index], parent: a,
                    into: &differences, translatedCount: &translatedCount)
            }
        default:
            differences.append(.init(path: path, what: "\(english.typeDescription) ≠ \(other.typeDescription)"))
        }
    }

    @Test(arguments: Language.allCases.filter { $0 != .en })
    func everyFileInStepWithEnglish(_ language: Language) throws {
        for file in Self.files {
            let english = try Self.load(file)
            let path = Self.translated(file, language)
            let other = try Self.load(path)
            var differences: [Difference] = []
            var translated = 0
            Self.compare(
                english, other, path: "", key: nil, parent: [], into: &differences, translatedCount: &translated)
            #expect(differences.isEmpty, "\(path): \(differences.map(\.description).joined(separator: "; "))")
            // Most words are the language's own (a few, such as "Pollen", may be spelt alike).
            #expect(translated >= 8, "\(path): only \(translated) texts differ from English")
        }
    }

    /// The states a blueprint compares and offers stay Home Assistant's English ones.
    @Test(arguments: Language.allCases)
    func blueprintsKeepTheStates(_ language: Language) throws {
        let path =
            language == .en
            ? "ha/blueprints/automation/breeze_agent/pollen_alert.yaml"
            : Self.translated("ha/blueprints/automation/breeze_agent/pollen_alert.yaml", language)
        let text = try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
        #expect(text.contains("    - No pollen\n    - Low\n    - Moderate\n    - High\n    - Very High\n"))
        #expect(text.contains("      default: High\n"))
    }

    @Test func everyLanguageHasItsFiles() {
        for language in Language.allCases where language != .en {
            for file in Self.files {
                let path = Self.translated(file, language)
                #expect(FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(path).path), "\(path)")
            }
        }
    }
}
