/// One query parameter of an API request, in the order it is sent. The core builds requests as
/// values (pollen, air quality, climate); the HTTP layer percent-encodes them.
public struct QueryParameter: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}
