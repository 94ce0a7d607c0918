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

public import BreezeConfig
public import BreezeCore
import BreezeHTTP

/// What one air-quality fetch for one location came to (SPEC §10.1).
public struct AirFetchResult: Sendable {
    public var outcome: AirOutcome
    /// The response body behind a `.report`, stored so a restart reuses it; empty otherwise.
    public var body: [UInt8]
    public var fetchedAt: Int64
    /// The server's `Retry-After`, for a `.failed` outcome.
    public var retryAfter: Int64?

    public init(outcome: AirOutcome, body: [UInt8] = [], fetchedAt: Int64, retryAfter: Int64? = nil) {
        self.outcome = outcome
        self.body = body
        self.fetchedAt = fetchedAt
        self.retryAfter = retryAfter
    }
}

/// Fetches today's hourly air quality for one location from Open-Meteo (key-free, worldwide)
/// through the pure decoder.
public struct AirFetcher: Sendable {
    public var http: any HTTPFetching
    public var endpoints: Endpoints

    public init(http: any HTTPFetching, endpoints: Endpoints) {
        self.http = http
        self.endpoints = endpoints
    }

    public func fetch(_ location: LocationConfig, now: Int64) async -> AirFetchResult {
        let query = AirQualityRequest.query(
            latitude: location.latitude, longitude: location.longitude, timezone: location.timezone)
        let response: FetchedResponse
        do {
            response = try await http.get(endpoints.airQuality + AirQualityRequest.path, query: query, headers: [])
        } catch {
            return AirFetchResult(outcome: .failed(message: error.description), fetchedAt: now)
        }
        return Self.interpret(response, fetchedAt: now)
    }

    /// Turns an HTTP answer into a result; also used for the stored body at start.
    public static func interpret(_ response: FetchedResponse, fetchedAt: Int64) -> AirFetchResult {
        let outcome = AirQualityDecoder.interpret(httpStatus: response.status, body: response.body)
        let isReport: Bool
        if case .report = outcome { isReport = true } else { isReport = false }
        return AirFetchResult(
            outcome: outcome, body: isReport ? response.body : [], fetchedAt: fetchedAt,
            retryAfter: response.retryAfterSeconds.map(Int64.init))
    }
}
