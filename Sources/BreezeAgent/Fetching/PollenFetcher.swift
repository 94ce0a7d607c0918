public import BreezeCore
import BreezeHTTP

/// What one pollen fetch for one location came to.
public enum PollenFetchResult: Sendable {
    /// Usable data, with the body so it can be stored and reused after a restart.
    case report(PollenReport, body: [UInt8], fetchedAt: Int64)
    /// The source has no pollen here: clear the pollen topics (SPEC §1 conditional display).
    case unsupported(source: PollenSource, message: String)
    /// Google refused the key (400/403): report once, do not retry in a loop.
    case keyRejected(message: String)
    /// Keep the last good data, mark it stale and retry with backoff.
    case failed(source: PollenSource, message: String, retryAfter: Int64?)
}

/// Fetches pollen for one location from the source the config picks (SPEC §1, §1b) through the
/// pure decoders. The API key travels in the `X-Goog-Api-Key` header only, so it never shows in
/// URLs or curl's error messages.
public struct PollenFetcher: Sendable {
    public var http: any HTTPFetching
    public var endpoints: Endpoints
    public var settings: PollenSettings

    public init(http: any HTTPFetching, endpoints: Endpoints, settings: PollenSettings) {
        self.http = http
        self.endpoints = endpoints
        self.settings = settings
    }

    /// The source for a location: Google with a key (unless `open-meteo` is chosen), else
    /// Open-Meteo; `googleRejected` (the key was refused earlier, `auto` only) forces Open-Meteo.
    public func source(googleRejected: Bool) -> PollenSource {
        switch settings.source {
        case .google: return .google
        case .openMeteo: return .openMeteo
        case .auto: return settings.apiKey != nil && !googleRejected ? .google : .openMeteo
        }
    }

    public func fetch(_ location: LocationConfig, source: PollenSource, now: Int64) async -> PollenFetchResult {
        let url: String
        let query: [QueryParameter]
        var headers: [(name: String, value: String)] = []
        switch source {
        case .google:
            url = endpoints.pollen + "/forecast:lookup"
            query = GooglePollen.query(
                latitude: location.latitude, longitude: location.longitude, days: settings.days,
                language: settings.language)
            if let key = settings.apiKey?.value { headers.append(("X-Goog-Api-Key", key)) }
        case .openMeteo:
            url = endpoints.airQuality + "/air-quality"
            query = OpenMeteoPollen.query(
                latitude: location.latitude, longitude: location.longitude, timezone: location.timezone)
        }
        let response: FetchedResponse
        do {
            response = try await http.get(url, query: query, headers: headers)
        } catch {
            return .failed(source: source, message: error.description, retryAfter: nil)
        }
        return Self.interpret(response, source: source, fetchedAt: now)
    }

    /// Turns an HTTP answer into a result; also used for stored bodies at start.
    public static func interpret(_ response: FetchedResponse, source: PollenSource, fetchedAt: Int64)
        -> PollenFetchResult
    {
        // A 200 whose body is Google's error envelope (a proxy or a front end answering with the
        // wrong status) decodes as a response without `dailyInfo`, which the core reads as "no
        // pollen here" and would clear the topics: it is a failure to retry instead.
        if source == .google, response.status == 200, let error = GoogleAPIError.decode(response.body) {
            let message = error.message
            return .failed(
                source: source, message: "HTTP 200 with an error body\(message.isEmpty ? "" : ": " + message)",
                retryAfter: response.retryAfterSeconds.map(Int64.init))
        }
        let outcome: PollenOutcome
        switch source {
        case .google: outcome = GooglePollen.interpret(httpStatus: response.status, body: response.body)
        case .openMeteo: outcome = OpenMeteoPollen.interpret(httpStatus: response.status, body: response.body)
        }
        switch outcome {
        case .report(let report): return .report(report, body: response.body, fetchedAt: fetchedAt)
        case .unsupportedLocation(let message): return .unsupported(source: source, message: message)
        case .keyRejected(let message): return .keyRejected(message: message)
        case .failed(let message):
            return .failed(
                source: source, message: message, retryAfter: response.retryAfterSeconds.map(Int64.init))
        }
    }
}
