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
// libmicrohttpd, loaded on demand (docs/images.md: a config without `http` must not map
// libmicrohttpd or the GnuTLS it pulls in). Only this file's own types cross into Swift;
// <microhttpd.h> is included by the .c file alone, and the agent is never linked against
// the library: cmhd_load() dlopen()s it and resolves the handful of functions used.
#ifndef CMICROHTTPD_H
#define CMICROHTTPD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The most query arguments a request may have (docs/operations.md, Limits); more is answered
/// 414 without libmicrohttpd parsing any of them.
#define CMHD_MAX_QUERY_ARGUMENTS 64
#define CMHD_QUERY_TOO_MANY 1
#define CMHD_QUERY_NUL 2

/// One request as the handler sees it. Every pointer is valid during the handler call only.
typedef struct cmhd_request {
    const char *method;
    /// The path without the query, percent-decoded from the request line as sent, except that
    /// `%2F` (`/`) and `%00` (NUL) stay as written (upper case): a slash or NUL that arrived
    /// encoded never splits or ends the path (libmicrohttpd's own decoding does both).
    const char *path;
    /// The query arguments, decoded, in order: `?strict&a=1` is keys {"strict", "a"}, values
    /// {NULL, "1"} (NULL: the key came without `=`).
    const char *const *query_keys;
    const char *const *query_values;
    size_t query_count;
    /// 0, or why the query was not parsed (no arguments then): CMHD_QUERY_TOO_MANY (more than
    /// CMHD_MAX_QUERY_ARGUMENTS), CMHD_QUERY_NUL (an encoded NUL, `%00`, in it).
    int query_problem;
    /// The `Host` header as sent, NULL when there was none.
    const char *host;
    /// 1 for an HTTP/1.1 request (which must carry `Host`, RFC 9112 §3.2), else 0.
    int http11;
    /// The peer's address as text (`127.0.0.1`, `::1`), "" when unknown.
    const char *peer;
    /// The peer's address: family 4 or 6 (0 when unknown) and its 4 or 16 bytes.
    int peer_family;
    uint8_t peer_bytes[16];
    /// Opaque: pass to cmhd_respond().
    void *connection;
} cmhd_request;

/// Called on one of libmicrohttpd's threads for every request; it must answer with
/// cmhd_respond() before it returns (returns what cmhd_respond() returned).
typedef int (*cmhd_handler)(void *context, const cmhd_request *request);

/// Called with each line libmicrohttpd logs (already formatted).
typedef void (*cmhd_logger)(void *context, const char *line);

/// Called on libmicrohttpd's thread for every connection it accepts, before any byte is read:
/// the peer's address family (4 or 6) and its 4 or 16 bytes. Nonzero keeps the connection,
/// zero closes it at once.
typedef int (*cmhd_accept)(void *context, int family, const uint8_t *bytes);

/// Loads `library` (NULL: "libmicrohttpd.so.12") and resolves the functions used. Returns 0,
/// or -1 with a message in `error` (dlerror()'s text). Safe to call more than once; the first
/// success sticks (the library is never unloaded).
int cmhd_load(const char *library, char *error, size_t error_size);

/// The limits a server runs with (docs/operations.md, Limits).
typedef struct cmhd_limits {
    unsigned int connection_limit;
    /// Per connection: request line, headers and the answer's headers must fit in it.
    size_t connection_memory_limit;
    unsigned int connection_timeout_seconds;
    unsigned int listen_backlog;
    /// Connections at once from one peer address; 0: no limit of its own.
    unsigned int per_address_limit;
    /// The request line and headers must have arrived this long after the connection was
    /// accepted, however steadily they trickle in (an idle timeout restarts with each byte);
    /// the connection is closed otherwise. 0: no such deadline.
    unsigned int request_head_seconds;
} cmhd_limits;

/// Starts a server on `address` (an IPv4 or IPv6 literal) and `port` with an internal polling
/// thread (epoll), and with a `request_head_seconds` deadline a watchdog thread that cuts off
/// connections past it. `accept` (NULL: every peer) decides on each new connection; it and
/// `handler` get `handler_context`. Returns NULL with a message in `error` on failure.
/// cmhd_load() must have succeeded first.
void *cmhd_start(const char *address, uint16_t port, cmhd_limits limits, cmhd_accept accept,
                 cmhd_handler handler, void *handler_context, cmhd_logger logger,
                 void *logger_context, char *error, size_t error_size);

/// The port the server listens on (useful with port 0), 0 when unknown.
uint16_t cmhd_port(void *server);

/// Stops the server: closes the listening socket and every connection, joins its threads
/// (libmicrohttpd's and the watchdog).
/// No handler runs after it returns.
void cmhd_stop(void *server);

/// Answers the request with `status`, `header_count` headers and `body` (copied). Returns 1
/// when queued, 0 when libmicrohttpd refused (the connection is then closed).
int cmhd_respond(void *connection, unsigned int status, const char *const *header_names,
                 const char *const *header_values, size_t header_count, const void *body,
                 size_t body_length);

#ifdef __cplusplus
}
#endif

#endif
