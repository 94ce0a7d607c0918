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

internal import CYAML

/// Loads YAML text through libyaml's event parser into a `YAMLNode` tree.
///
/// Deliberately narrower than YAML itself, because the only input is a configuration file:
/// - one document per file (a second `---` is an error: it is almost always a paste mistake);
/// - anchors and aliases are rejected (they buy nothing in a small config and an alias bomb
///   would expand without bound);
/// - duplicate scalar keys in a mapping are rejected with both line numbers (libyaml itself
///   accepts them and the later one would silently win);
/// - collections nest at most ``maximumDepth`` deep.
public enum YAML {
    /// Deepest nesting of sequences and mappings accepted; the configuration needs four. Found
    /// by fuzzing: 60 000 nested `[` overflowed the stack when the recursive `YAMLNode` tree was
    /// released, and left unclosed kept libyaml busy for half a minute (it rescans its stack of
    /// flow levels per token). Stopping at the first collection past the limit avoids both.
    public static let maximumDepth = 64

    /// The document's root node, or nil when the text holds no document (empty, or comments only).
    public static func load(_ text: String, file: String) throws(YAMLError) -> YAMLNode? {
        let bytes = Array(text.utf8)
        let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
        defer { parser.deallocate() }
        guard yaml_parser_initialize(parser) == 1 else {
            throw YAMLError(
                file: file, line: 1, column: 1, message: "libyaml could not initialise a parser (out of memory)")
        }
        defer { yaml_parser_delete(parser) }
        return try bytes.withUnsafeBufferPointer { (buffer) throws(YAMLError) -> YAMLNode? in
            // libyaml keeps the pointer, so the whole parse happens inside this closure.
            yaml_parser_set_input_string(parser, buffer.baseAddress, buffer.count)
            var builder = TreeBuilder(file: file)
            var event = yaml_event_t()
            while true {
                guard yaml_parser_parse(parser, &event) == 1 else {
                    throw parserError(parser.pointee, file: file)
                }
                defer { yaml_event_delete(&event) }
                if try builder.consume(event) { break }
            }
            return builder.root
        }
    }

    /// libyaml's own problem and context text with the mark it points at (0-based there).
    private static func parserError(_ parser: yaml_parser_t, file: String) -> YAMLError {
        let problem = parser.problem.map { String(cString: $0) } ?? "unknown libyaml error \(parser.error.rawValue)"
        var message = problem
        if let context = parser.context.map({ String(cString: $0) }) {
            message += " (\(context) at line \(parser.context_mark.line + 1))"
        }
        return YAMLError(
            file: file, line: Int(parser.problem_mark.line) + 1, column: Int(parser.problem_mark.column) + 1,
            message: message)
    }
}

/// Turns the event stream into a tree with an explicit stack (no recursion, so nesting depth
/// cannot overflow the thread's stack).
private struct TreeBuilder {
    private enum Frame {
        case sequence(items: [YAMLNode], line: Int, column: Int, tag: String?)
        case mapping(pairs: [YAMLPair], pendingKey: YAMLNode?, line: Int, column: Int, tag: String?)
    }

    let file: String
    private(set) var root: YAMLNode?
    private var stack: [Frame] = []
    private var documents = 0

    init(file: String) { self.file = file }

    /// Feeds one event; true once the stream has ended.
    mutating func consume(_ event: yaml_event_t) throws(YAMLError) -> Bool {
        let line = Int(event.start_mark.line) + 1
        let column = Int(event.start_mark.column) + 1
        switch event.type {
        case YAML_STREAM_END_EVENT:
            return true
        case YAML_DOCUMENT_START_EVENT:
            documents += 1
            if documents > 1 {
                throw YAMLError(
                    file: file, line: line, column: column,
                    message: "only one document is allowed in this file (found a second one here)")
            }
        case YAML_ALIAS_EVENT:
            throw YAMLError(
                file: file, line: line, column: column, message: "aliases (*name) are not supported in this file")
        case YAML_SCALAR_EVENT:
            let data = event.data.scalar
            try rejectAnchor(data.anchor, line: line, column: column)
            let text =
                data.value.map {
                    String(decoding: UnsafeBufferPointer(start: $0, count: data.length), as: UTF8.self)
                } ?? ""
            let style: YAMLNode.ScalarStyle =
                switch data.style {
                case YAML_SINGLE_QUOTED_SCALAR_STYLE: .singleQuoted
                case YAML_DOUBLE_QUOTED_SCALAR_STYLE: .doubleQuoted
                case YAML_LITERAL_SCALAR_STYLE: .literal
                case YAML_FOLDED_SCALAR_STYLE: .folded
                default: .plain
                }
            try attach(
                YAMLNode(kind: .scalar(text, style: style), line: line, column: column, tag: string(data.tag)))
        case YAML_SEQUENCE_START_EVENT:
            try rejectAnchor(event.data.sequence_start.anchor, line: line, column: column)
            try checkDepth(line: line, column: column)
            stack.append(.sequence(items: [], line: line, column: column, tag: string(event.data.sequence_start.tag)))
        case YAML_MAPPING_START_EVENT:
            try rejectAnchor(event.data.mapping_start.anchor, line: line, column: column)
            try checkDepth(line: line, column: column)
            stack.append(
                .mapping(
                    pairs: [], pendingKey: nil, line: line, column: column,
                    tag: string(event.data.mapping_start.tag)))
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            guard let frame = stack.popLast() else { break }
            switch frame {
            case .sequence(let items, let l, let c, let tag):
                try attach(YAMLNode(kind: .sequence(items), line: l, column: c, tag: tag))
            case .mapping(let pairs, _, let l, let c, let tag):
                try checkDuplicateKeys(pairs)
                try attach(YAMLNode(kind: .mapping(pairs), line: l, column: c, tag: tag))
            }
        default:
            break  // stream start, document end: nothing to build
        }
        return false
    }

    private mutating func attach(_ node: YAMLNode) throws(YAMLError) {
        guard let top = stack.popLast() else {
            root = node
            return
        }
        switch top {
        case .sequence(var items, let l, let c, let tag):
            items.append(node)
            stack.append(.sequence(items: items, line: l, column: c, tag: tag))
        case .mapping(var pairs, let pendingKey, let l, let c, let tag):
            if let key = pendingKey {
                pairs.append(YAMLPair(key: key, value: node))
                stack.append(.mapping(pairs: pairs, pendingKey: nil, line: l, column: c, tag: tag))
            } else {
                stack.append(.mapping(pairs: pairs, pendingKey: node, line: l, column: c, tag: tag))
            }
        }
    }

    private func checkDuplicateKeys(_ pairs: [YAMLPair]) throws(YAMLError) {
        var firstLine: [String: Int] = [:]
        for pair in pairs {
            guard let key = pair.key.scalarText else { continue }
            if let earlier = firstLine[key] {
                throw YAMLError(
                    file: file, line: pair.key.line, column: pair.key.column,
                    message: "duplicate key \"\(key)\" (first given at line \(earlier))")
            }
            firstLine[key] = pair.key.line
        }
    }

    /// Called before a collection is opened: `stack` holds the collections it sits in.
    private func checkDepth(line: Int, column: Int) throws(YAMLError) {
        guard stack.count >= YAML.maximumDepth else { return }
        throw YAMLError(
            file: file, line: line, column: column,
            message: "collections are nested more than \(YAML.maximumDepth) levels deep")
    }

    private func rejectAnchor(_ anchor: UnsafeMutablePointer<yaml_char_t>?, line: Int, column: Int) throws(YAMLError) {
        guard let name = string(anchor) else { return }
        throw YAMLError(
            file: file, line: line, column: column, message: "anchors (&\(name)) are not supported in this file")
    }

    private func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        pointer.map { String(cString: $0) }
    }
}
