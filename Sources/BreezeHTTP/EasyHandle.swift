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

public import BreezeCore
internal import CCurl

/// `curl_global_init` is not thread-safe and must precede the first easy handle. A global `let`
/// is initialized lazily and exactly once (under the runtime's once-lock), which is what we need.
private let curlGlobalInitCode: CURLcode = ccurl_global_init_default()

/// Raw `CURLcode` values used outside the C layer.
enum CurlCodes {
    static let abortedByCallback = Int32(truncatingIfNeeded: CURLE_ABORTED_BY_CALLBACK.rawValue)
}

/// What one transfer accumulates; reached from curl's callbacks through `userdata`.
final class Transfer {
    let maxBodyBytes: Int
    var body: [UInt8] = []
    var headers: [HTTPHeader] = []
    var exceededCap = false

    init(maxBodyBytes: Int) {
        self.maxBodyBytes = maxBodyBytes
    }

    /// One raw header line as curl hands it over (CRLF included).
    func receiveHeaderLine(_ bytes: UnsafeBufferPointer<UInt8>) {
        var line = String(decoding: bytes, as: UTF8.self)
        while line.hasSuffix("\n") || line.hasSuffix("\r") || line.hasSuffix("\r\n") { line.removeLast() }
        if line.hasPrefix("HTTP/") {
            // A new status line: an interim (1xx) or earlier response's headers are not ours.
            headers.removeAll()
        } else if line.isEmpty {
            return
        } else if line.first == " " || line.first == "\t", !headers.isEmpty {
            // Obsolete line folding (RFC 9112 §5.2): the value continues.
            headers[headers.count - 1].value += " " + trimmed(line)
        } else if let colon = line.firstIndex(of: ":") {
            headers.append(HTTPHeader(trimmed(line[..<colon]), trimmed(line[line.index(after: colon)...])))
        }
    }

    private func trimmed(_ text: some StringProtocol) -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        return String(text.drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}

/// One curl easy handle and its error buffer. Not thread-safe: ``HTTPClient`` confines it to
/// its queue (behind a mutex).
/// One request's state while curl runs it: the body and headers arrive in `transfer` (reached
/// from curl's callbacks through the retained `userdata`), the header list lives until the end.
final class PreparedTransfer {
    let request: HTTPRequest
    let transfer: Transfer
    let userdata: Unmanaged<Transfer>
    var headerList: UnsafeMutablePointer<curl_slist>?
    /// The `multipart/form-data` body of a POST (``HTTPRequest/multipart``), freed with the rest.
    var mime: OpaquePointer?

    init(request: HTTPRequest, transfer: Transfer) {
        self.request = request
        self.transfer = transfer
        self.userdata = Unmanaged.passRetained(transfer)
    }

    private var released = false

    func releaseResources() {
        guard !released else { return }
        released = true
        curl_slist_free_all(headerList)
        headerList = nil
        curl_mime_free(mime)
        mime = nil
        userdata.release()
    }
}

/// One libcurl easy handle with the options every request shares; reused request after request
/// by ``MultiDriver`` (its thread is the only one that touches it).
final class EasyHandle {
    let raw: UnsafeMutableRawPointer
    /// `CURLOPT_ERRORBUFFER` is not copied by curl: it must live as long as the handle.
    private let errorBuffer: UnsafeMutablePointer<CChar>

    init(userAgent: String, caFile: String?) throws(CurlError) {
        guard curlGlobalInitCode == CURLE_OK else {
            throw CurlError(
                code: Int32(truncatingIfNeeded: curlGlobalInitCode.rawValue),
                kind: .other,
                message: "curl_global_init: " + String(cString: curl_easy_strerror(curlGlobalInitCode))
            )
        }
        guard let raw = curl_easy_init() else {
            throw CurlError(
                code: Int32(truncatingIfNeeded: CURLE_FAILED_INIT.rawValue),
                kind: .other,
                message: "curl_easy_init returned NULL"
            )
        }
        self.raw = raw
        self.errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        try configure(userAgent: userAgent, caFile: caFile)
    }

    deinit {
        curl_easy_cleanup(raw)
        errorBuffer.deallocate()
    }

    /// Options that hold for every request on this handle.
    private func configure(userAgent: String, caFile: String?) throws(CurlError) {
        try check(ccurl_setopt_pointer(raw, CURLOPT_ERRORBUFFER, errorBuffer))
        // No SIGALRM for DNS timeouts: signals and a multi-threaded process do not mix.
        try check(ccurl_setopt_long(raw, CURLOPT_NOSIGNAL, 1))
        try check(ccurl_setopt_string(raw, CURLOPT_USERAGENT, userAgent))
        // "" = every encoding this libcurl can decode (gzip, deflate, ...), decoded before the write callback.
        try check(ccurl_setopt_string(raw, CURLOPT_ACCEPT_ENCODING, ""))
        try check(ccurl_setopt_string(raw, CURLOPT_PROTOCOLS_STR, "http,https"))
        try check(ccurl_setopt_string(raw, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"))
        try check(ccurl_setopt_long(raw, CURLOPT_FOLLOWLOCATION, 0))
        try check(ccurl_setopt_long(raw, CURLOPT_SSL_VERIFYPEER, 1))
        try check(ccurl_setopt_long(raw, CURLOPT_SSL_VERIFYHOST, 2))
        if let caFile { try check(ccurl_setopt_string(raw, CURLOPT_CAINFO, caFile)) }

        try check(
            ccurl_setopt_data_callback(raw, CURLOPT_WRITEFUNCTION) { data, size, count, userdata in
                guard let userdata else { return 0 }
                let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
                let length = size * count
                guard transfer.body.count + length <= transfer.maxBodyBytes else {
                    // Returning less than `length` makes curl fail with CURLE_WRITE_ERROR.
                    transfer.exceededCap = true
                    return 0
                }
                if let data, length > 0 {
                    let bytes = UnsafeRawBufferPointer(start: data, count: length)
                    transfer.body.append(contentsOf: bytes)
                }
                return length
            }
        )
        try check(
            ccurl_setopt_data_callback(raw, CURLOPT_HEADERFUNCTION) { data, size, count, userdata in
                guard let userdata else { return 0 }
                let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
                let length = size * count
                if let data, length > 0 {
                    data.withMemoryRebound(to: UInt8.self, capacity: length) {
                        transfer.receiveHeaderLine(UnsafeBufferPointer(start: $0, count: length))
                    }
                }
                return length
            }
        )
    }

    /// Sets up `request` on this handle for the multi interface. The returned transfer owns the
    /// body, the headers and the header list until ``finish(_:code:cancelled:)``.
    func prepare(_ request: HTTPRequest) -> Result<PreparedTransfer, CurlError> {
        errorBuffer[0] = 0
        let transfer = Transfer(maxBodyBytes: request.maxBodyBytes)
        let prepared = PreparedTransfer(request: request, transfer: transfer)
        do throws(CurlError) {
            for header in request.headers {
                guard !(header.name + header.value).contains(where: { $0 == "\r" || $0 == "\n" }) else {
                    throw CurlError(
                        code: Int32(truncatingIfNeeded: CURLE_BAD_FUNCTION_ARGUMENT.rawValue),
                        kind: .other,
                        message: "header \(header.name) contains a line break"
                    )
                }
                guard let appended = curl_slist_append(prepared.headerList, "\(header.name): \(header.value)") else {
                    throw CurlError(
                        code: Int32(truncatingIfNeeded: CURLE_OUT_OF_MEMORY.rawValue),
                        kind: .other,
                        message: "curl_slist_append failed"
                    )
                }
                prepared.headerList = appended
            }
            if let parts = request.multipart {
                prepared.mime = try buildMime(parts)
                // No `Expect: 100-continue`: small device servers (an OpenEPaperLink AP) never answer it.
                guard let appended = curl_slist_append(prepared.headerList, "Expect:") else {
                    throw CurlError(
                        code: Int32(truncatingIfNeeded: CURLE_OUT_OF_MEMORY.rawValue), kind: .other,
                        message: "curl_slist_append failed")
                }
                prepared.headerList = appended
                try check(ccurl_setopt_pointer(raw, CURLOPT_MIMEPOST, UnsafeMutableRawPointer(prepared.mime)))
            } else {
                try check(ccurl_setopt_long(raw, CURLOPT_HTTPGET, 1))
            }
            try check(ccurl_setopt_string(raw, CURLOPT_URL, request.fullURL))
            try check(ccurl_setopt_slist(raw, CURLOPT_HTTPHEADER, prepared.headerList))
            try check(ccurl_setopt_long(raw, CURLOPT_CONNECTTIMEOUT_MS, milliseconds(request.connectTimeout)))
            try check(ccurl_setopt_long(raw, CURLOPT_TIMEOUT_MS, milliseconds(request.totalTimeout)))
            let opaque = prepared.userdata.toOpaque()
            try check(ccurl_setopt_pointer(raw, CURLOPT_WRITEDATA, opaque))
            try check(ccurl_setopt_pointer(raw, CURLOPT_HEADERDATA, opaque))
        } catch {
            release(prepared)
            return .failure(error.scrubbed(by: secrets(of: request)))
        }
        return .success(prepared)
    }

    /// The result of a transfer curl reported done with `code` (or that was removed: `cancelled`),
    /// and the handle ready for the next request.
    func finish(_ prepared: PreparedTransfer, code: CURLcode, cancelled: Bool = false) -> Result<
        HTTPResponse, CurlError
    > {
        defer { release(prepared) }
        let transfer = prepared.transfer
        if cancelled {
            return .failure(
                CurlError(code: CurlCodes.abortedByCallback, kind: .cancelled, message: "request cancelled"))
        }
        guard code == CURLE_OK else {
            return .failure(
                error(for: code, transfer: transfer, maxBodyBytes: prepared.request.maxBodyBytes)
                    .scrubbed(by: secrets(of: prepared.request)))
        }
        var status = 0
        let info = ccurl_getinfo_long(raw, CURLINFO_RESPONSE_CODE, &status)
        guard info == CURLE_OK else {
            return .failure(error(for: info, transfer: nil, maxBodyBytes: 0))
        }
        return .success(HTTPResponse(status: status, headers: transfer.headers, body: transfer.body))
    }

    /// Unhooks the header list and the userdata before freeing them, so the handle never holds a
    /// dangling pointer between requests.
    private func release(_ prepared: PreparedTransfer) {
        _ = ccurl_setopt_slist(raw, CURLOPT_HTTPHEADER, nil)
        if prepared.mime != nil { _ = ccurl_setopt_pointer(raw, CURLOPT_MIMEPOST, nil) }
        _ = ccurl_setopt_pointer(raw, CURLOPT_WRITEDATA, nil)
        _ = ccurl_setopt_pointer(raw, CURLOPT_HEADERDATA, nil)
        prepared.releaseResources()
    }

    /// A mime structure of `parts` in order (curl copies each part's data).
    private func buildMime(_ parts: [MultipartPart]) throws(CurlError) -> OpaquePointer {
        guard let mime = curl_mime_init(raw) else {
            throw CurlError(
                code: Int32(truncatingIfNeeded: CURLE_OUT_OF_MEMORY.rawValue), kind: .other,
                message: "curl_mime_init failed")
        }
        for part in parts {
            guard let handle = curl_mime_addpart(mime) else {
                curl_mime_free(mime)
                throw CurlError(
                    code: Int32(truncatingIfNeeded: CURLE_OUT_OF_MEMORY.rawValue), kind: .other,
                    message: "curl_mime_addpart failed")
            }
            var code = curl_mime_name(handle, part.name)
            if code == CURLE_OK {
                code = part.data.withUnsafeBufferPointer { buffer in
                    buffer.withMemoryRebound(to: CChar.self) { chars in
                        guard let base = chars.baseAddress else { return curl_mime_data(handle, "", 0) }
                        return curl_mime_data(handle, base, chars.count)
                    }
                }
            }
            if code == CURLE_OK, let filename = part.filename { code = curl_mime_filename(handle, filename) }
            if code == CURLE_OK, let type = part.contentType { code = curl_mime_type(handle, type) }
            guard code == CURLE_OK else {
                curl_mime_free(mime)
                throw error(for: code, transfer: nil, maxBodyBytes: 0)
            }
        }
        return mime
    }

    /// curl treats a timeout of 0 as "none": round up so a tiny duration still bounds the transfer.
    private func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let millis = Int(clamping: seconds).multipliedReportingOverflow(by: 1000)
        guard !millis.overflow else { return Int.max }
        return max(1, millis.partialValue + Int(attoseconds / 1_000_000_000_000_000))
    }

    private func check(_ code: CURLcode) throws(CurlError) {
        guard code == CURLE_OK else { throw error(for: code, transfer: nil, maxBodyBytes: 0) }
    }

    private func error(for code: CURLcode, transfer: Transfer?, maxBodyBytes: Int) -> CurlError {
        let raw = Int32(truncatingIfNeeded: code.rawValue)
        if let transfer, transfer.exceededCap {
            return CurlError(code: raw, kind: .tooLarge, message: "body exceeds \(maxBodyBytes) bytes")
        }
        let summary = String(cString: curl_easy_strerror(code))
        var detail = String(cString: errorBuffer)
        while detail.hasSuffix("\n") { detail.removeLast() }
        let message = detail.isEmpty || detail == summary ? summary : "\(summary): \(detail)"
        return CurlError(code: raw, kind: Self.kind(of: code), message: message)
    }

    private static func kind(of code: CURLcode) -> CurlError.Kind {
        switch code {
        case CURLE_OPERATION_TIMEDOUT: .timeout
        case CURLE_COULDNT_CONNECT: .couldNotConnect
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: .dnsFailure
        case CURLE_FILESIZE_EXCEEDED: .tooLarge
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
            CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ENGINE_NOTFOUND,
            CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_SHUTDOWN_FAILED,
            CURLE_USE_SSL_FAILED:
            .tls
        default: .other
        }
    }

    /// Values that must never reach an error message: every header value (API keys travel as
    /// headers) and key-like query parameters.
    private func secrets(of request: HTTPRequest) -> SecretScrubber {
        let keyNames: Set<String> = ["key", "apikey", "api_key", "token", "access_token"]
        return SecretScrubber(
            secrets: request.headers.map(\.value)
                + request.query.filter { keyNames.contains($0.name.lowercased()) }.map(\.value))
    }
}

extension CurlError {
    /// This error with every secret in its message masked.
    public func scrubbed(by scrubber: SecretScrubber) -> CurlError {
        var copy = self
        copy.message = scrubber.scrub(copy.message)
        return copy
    }
}
