public import BreezeCore

/// An HTTP answer as the sources need it: status, body and the server's `Retry-After`.
public struct FetchedResponse: Sendable, Equatable {
    public var status: Int
    public var body: [UInt8]
    /// Seconds to wait before the next try, from `Retry-After` (seconds or an HTTP date).
    public var retryAfterSeconds: Int?

    public init(status: Int, body: [UInt8], retryAfterSeconds: Int? = nil) {
        self.status = status
        self.body = body
        self.retryAfterSeconds = retryAfterSeconds
    }

    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// A transport failure before any HTTP status (refused, DNS, timeout, size cap, TLS).
public struct FetchFailure: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The sources' view of HTTP: libcurl in production and tests, bundled samples with `--demo`.
public protocol HTTPFetching: Sendable {
    /// GET `url` with the query items (escaped by the implementation) and extra headers.
    func get(
        _ url: String, query: [QueryParameter], headers: [(name: String, value: String)]
    ) async throws(FetchFailure) -> FetchedResponse
}
