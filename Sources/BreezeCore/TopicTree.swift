/// What the agent wants on the broker: topic → payload, in a stable order.
///
/// The core produces a tree from decoded data and a clock; the runtime diffs it against what
/// was published before (see ``TopicTree/changes(from:)``) and publishes only the difference.
public struct TopicTree: Sendable, Equatable {
    public private(set) var topics: [String] = []
    public private(set) var payloads: [String: String] = [:]

    public init() {}

    /// Sets a topic's payload; a topic set twice keeps its first position.
    public mutating func set(_ topic: String, _ payload: String) {
        if payloads.updateValue(payload, forKey: topic) == nil { topics.append(topic) }
    }

    /// Sets a topic to a JSON document.
    public mutating func set(_ topic: String, json: JSONValue) { set(topic, json.serialized) }

    /// Appends every topic of `other` (later values win).
    public mutating func merge(_ other: TopicTree) {
        for topic in other.topics { set(topic, other.payloads[topic]!) }
    }

    public subscript(topic: String) -> String? { payloads[topic] }

    public var isEmpty: Bool { topics.isEmpty }
    public var count: Int { topics.count }

    /// The publishes that turn `previous` into `self`: changed or new topics with their payload,
    /// then topics that no longer apply with an empty payload (an empty retained message
    /// deletes the retained value on the broker).
    public func changes(from previous: [String: String]) -> [(topic: String, payload: String)] {
        var out: [(topic: String, payload: String)] = []
        for topic in topics where previous[topic] != payloads[topic] {
            out.append((topic, payloads[topic]!))
        }
        for topic in previous.keys.sorted() where payloads[topic] == nil && !(previous[topic]!.isEmpty) {
            out.append((topic, ""))
        }
        return out
    }
}
