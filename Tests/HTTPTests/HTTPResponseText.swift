import BreezeHTTP

extension HTTPResponse {
    /// The body as UTF-8 text (invalid sequences repaired), for expectations on small bodies.
    var text: String { String(decoding: body, as: UTF8.self) }
}
