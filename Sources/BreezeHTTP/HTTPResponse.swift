public import FoundationEssentials

/// A completed exchange: any status (4xx/5xx are responses, not errors), the final response's
/// headers in wire order, and the body already decoded from gzip.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [HTTPHeader]
    public var body: [UInt8]

    public init(status: Int, headers: [HTTPHeader], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of the header `name`, compared case-insensitively (RFC 9110 §5.1).
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }

    /// How long the server asked us to wait (`Retry-After`, seconds or an HTTP-date), measured
    /// from `now`; `nil` when absent or unparseable, zero when the date is already past.
    public func retryAfter(now: Date) -> Duration? {
        header("Retry-After").flatMap { RetryAfter.parse($0, now: now) }
    }

    /// The body as UTF-8 text (invalid sequences repaired), for logs and error reports.
    public var text: String { String(decoding: body, as: UTF8.self) }
}
