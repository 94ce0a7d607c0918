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
// The one place that knows libmicrohttpd's API. The header is used for its types and
// constants only: every function is reached through a pointer filled by dlsym(), so the
// binary carries no reference to the library (ldd shows neither it nor GnuTLS).
#define _GNU_SOURCE
#include "cmicrohttpd.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <microhttpd.h>

/// The functions used, resolved once. `__typeof__` keeps each pointer's type exactly the
/// header's prototype (MHD_start_daemon is variadic; calling it through such a pointer is
/// the same call).
static struct {
    __typeof__(MHD_start_daemon) *start_daemon;
    __typeof__(MHD_stop_daemon) *stop_daemon;
    __typeof__(MHD_get_daemon_info) *get_daemon_info;
    __typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
    __typeof__(MHD_add_response_header) *add_response_header;
    __typeof__(MHD_queue_response) *queue_response;
    __typeof__(MHD_destroy_response) *destroy_response;
    __typeof__(MHD_get_connection_values) *get_connection_values;
    __typeof__(MHD_get_connection_info) *get_connection_info;
    __typeof__(MHD_lookup_connection_value) *lookup_connection_value;
} mhd;

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static int loaded = 0;

static void set_error(char *error, size_t error_size, const char *format, ...) {
    if (error == NULL || error_size == 0) return;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(error, error_size, format, arguments);
    va_end(arguments);
}

int cmhd_load(const char *library, char *error, size_t error_size) {
    const char *name = library != NULL ? library : "libmicrohttpd.so.12";
    pthread_mutex_lock(&load_lock);
    // Opened even when loaded before, so that a name that cannot be loaded is always
    // reported (dlopen of a library already mapped only counts a reference).
    void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        set_error(error, error_size, "%s", reason != NULL ? reason : name);
        pthread_mutex_unlock(&load_lock);
        return -1;
    }
    if (loaded) {
        dlclose(handle);
        pthread_mutex_unlock(&load_lock);
        return 0;
    }
#define RESOLVE(field, symbol)                                                               \
    do {                                                                                     \
        dlerror();                                                                           \
        void *address = dlsym(handle, #symbol);                                              \
        if (address == NULL) {                                                               \
            const char *reason = dlerror();                                                  \
            set_error(error, error_size, "%s: %s", name, reason != NULL ? reason : #symbol); \
            dlclose(handle);                                                                 \
            pthread_mutex_unlock(&load_lock);                                                \
            return -1;                                                                       \
        }                                                                                    \
        memcpy(&mhd.field, &address, sizeof(address));                                       \
    } while (0)
    RESOLVE(start_daemon, MHD_start_daemon);
    RESOLVE(stop_daemon, MHD_stop_daemon);
    RESOLVE(get_daemon_info, MHD_get_daemon_info);
    RESOLVE(create_response_from_buffer, MHD_create_response_from_buffer);
    RESOLVE(add_response_header, MHD_add_response_header);
    RESOLVE(queue_response, MHD_queue_response);
    RESOLVE(destroy_response, MHD_destroy_response);
    RESOLVE(get_connection_values, MHD_get_connection_values);
    RESOLVE(get_connection_info, MHD_get_connection_info);
    RESOLVE(lookup_connection_value, MHD_lookup_connection_value);
#undef RESOLVE
    loaded = 1;
    pthread_mutex_unlock(&load_lock);
    return 0;
}

/// A connection whose request head has not arrived yet, with the time it must have by.
typedef struct pending {
    struct pending *previous;
    struct pending *next;
    int fd;
    int listed;
    struct timespec deadline;
} pending;

/// What the daemon's callbacks get as their context.
typedef struct server {
    struct MHD_Daemon *daemon;
    cmhd_accept accept;
    cmhd_handler handler;
    void *handler_context;
    cmhd_logger logger;
    void *logger_context;
    /// The request-head deadline (docs/operations.md, Limits): connections still reading their head, in the
    /// order they were accepted (so by deadline), and the thread that cuts off the overdue.
    unsigned int head_seconds;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pending *first;
    pending *last;
    int stopping;
    int watchdog_running;
    pthread_t watchdog;
} server;

/// The peer's address family (4 or 6, 0 when neither) and its bytes; its text when `text` is
/// not NULL.
static int peer_of(const struct sockaddr *address, uint8_t bytes[16], char *text, size_t text_size) {
    if (address == NULL) return 0;
    if (address->sa_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)address;
        memcpy(bytes, &v4->sin_addr, 4);
        if (text != NULL) inet_ntop(AF_INET, &v4->sin_addr, text, (socklen_t)text_size);
        return 4;
    }
    if (address->sa_family == AF_INET6) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)address;
        memcpy(bytes, &v6->sin6_addr, 16);
        if (text != NULL) inet_ntop(AF_INET6, &v6->sin6_addr, text, (socklen_t)text_size);
        return 6;
    }
    return 0;
}

/// libmicrohttpd's accept policy: asked before a byte of the connection is read.
static enum MHD_Result on_accept(void *context, const struct sockaddr *address, socklen_t length) {
    server *s = context;
    if (s->accept == NULL) return MHD_YES;
    uint8_t bytes[16] = {0};
    int family = length > 0 ? peer_of(address, bytes, NULL, 0) : 0;
    return s->accept(s->handler_context, family, bytes) ? MHD_YES : MHD_NO;
}

static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/// What on_uri learns from the request target as sent: the request's context in on_request,
/// freed in on_completed.
typedef struct target {
    /// CMHD_QUERY_TOO_MANY, CMHD_QUERY_NUL or 0.
    int query_problem;
    /// The decoded path (see cmhd_request.path).
    char path[];
} target;

/// The query's arguments as libmicrohttpd splits them (at every `&`), and whether one holds an
/// encoded NUL (`%00`), which libmicrohttpd's decoding would cut the value at.
static int query_problem(const char *query) {
    size_t count = 1;
    for (const char *c = query; *c != 0; c++) {
        if (*c == '&') count += 1;
        if (*c == '%' && c[1] == '0' && c[2] == '0') return CMHD_QUERY_NUL;
    }
    return count > CMHD_MAX_QUERY_ARGUMENTS ? CMHD_QUERY_TOO_MANY : 0;
}

/// Called with the request target as sent, before libmicrohttpd decodes it: the path (up to
/// `?`) decoded here, `%2F` and `%00` kept as written (see cmhd_request.path).
///
/// A query libmicrohttpd must not parse (too many arguments: each takes room in the
/// connection's 16 KiB memory pool, and a pool run dry closes the connection with no answer;
/// an encoded NUL) is emptied here: libmicrohttpd has found the `?` before this call and parses
/// the text after it afterwards (connection.c, parse_initial_message_line, "log callback
/// before we modify URI *or* args"), so a NUL written after the `?` leaves it nothing to parse.
/// The text is libmicrohttpd's own read buffer (the header's `const` notwithstanding), writable
/// for the whole request. on_request then answers 414 or 404.
static void *on_uri(void *context, const char *uri, struct MHD_Connection *connection) {
    (void)context;
    (void)connection;
    size_t length = strcspn(uri, "?");
    int problem = uri[length] == '?' ? query_problem(uri + length + 1) : 0;
    if (problem != 0) ((char *)uri)[length + 1] = 0;
    target *t = malloc(sizeof *t + length + 1);
    if (t == NULL) return NULL;
    t->query_problem = problem;
    char *path = t->path;
    static const char digits[] = "0123456789ABCDEF";
    size_t out = 0;
    for (size_t index = 0; index < length; index++) {
        int high = -1;
        int low = -1;
        if (uri[index] == '%' && index + 2 < length) {
            high = hex_value(uri[index + 1]);
            low = hex_value(uri[index + 2]);
        }
        if (high < 0 || low < 0) {
            path[out++] = uri[index];
            continue;
        }
        int value = high * 16 + low;
        if (value == 0 || value == '/') {
            path[out++] = '%';
            path[out++] = digits[high];
            path[out++] = digits[low];
        } else {
            path[out++] = (char)value;
        }
        index += 2;
    }
    path[out] = 0;
    return t;
}

static void on_completed(void *context, struct MHD_Connection *connection, void **request_context,
                         enum MHD_RequestTerminationCode code) {
    (void)context;
    (void)connection;
    (void)code;
    if (request_context == NULL) return;
    free(*request_context);
    *request_context = NULL;
}

static void unlist(server *s, pending *p) {
    if (!p->listed) return;
    if (p->previous != NULL) p->previous->next = p->next; else s->first = p->next;
    if (p->next != NULL) p->next->previous = p->previous; else s->last = p->previous;
    p->previous = p->next = NULL;
    p->listed = 0;
}

/// Connections start with the head deadline and leave the list when their head arrived
/// (on_request) or they closed. libmicrohttpd calls CLOSED before it closes the socket, and
/// the watchdog shuts a socket down only while it is listed, under the same lock: it never
/// touches a descriptor number already reused.
static void on_connection(void *context, struct MHD_Connection *connection, void **socket_context,
                          enum MHD_ConnectionNotificationCode code) {
    server *s = context;
    if (s->head_seconds == 0 || socket_context == NULL) return;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *info =
            mhd.get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (info == NULL) return;
        pending *p = calloc(1, sizeof *p);
        if (p == NULL) {
            shutdown(info->connect_fd, SHUT_RDWR);  // out of memory: no deadline, no connection
            return;
        }
        p->fd = info->connect_fd;
        clock_gettime(CLOCK_MONOTONIC, &p->deadline);
        p->deadline.tv_sec += s->head_seconds;
        pthread_mutex_lock(&s->lock);
        p->previous = s->last;
        if (s->last != NULL) s->last->next = p; else s->first = p;
        s->last = p;
        p->listed = 1;
        if (s->first == p) pthread_cond_signal(&s->wake);
        pthread_mutex_unlock(&s->lock);
        *socket_context = p;
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        pending *p = *socket_context;
        if (p == NULL) return;
        pthread_mutex_lock(&s->lock);
        unlist(s, p);
        pthread_mutex_unlock(&s->lock);
        free(p);
        *socket_context = NULL;
    }
}

/// The head of `connection` arrived: its deadline no longer applies.
static void head_arrived(server *s, struct MHD_Connection *connection) {
    if (s->head_seconds == 0) return;
    const union MHD_ConnectionInfo *info =
        mhd.get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    if (info == NULL || info->socket_context == NULL) return;
    pthread_mutex_lock(&s->lock);
    unlist(s, info->socket_context);
    pthread_mutex_unlock(&s->lock);
}

static int is_before(const struct timespec *a, const struct timespec *b) {
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/// Sleeps until the first deadline (or until a connection is listed in an empty list) and
/// shuts down each connection past its deadline: libmicrohttpd's thread then reads the end
/// of the stream and closes it. Idle while no connection is reading its head.
static void *watchdog_main(void *context) {
    server *s = context;
    pthread_mutex_lock(&s->lock);
    while (!s->stopping) {
        pending *p = s->first;
        if (p == NULL) {
            pthread_cond_wait(&s->wake, &s->lock);
            continue;
        }
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (is_before(&now, &p->deadline)) {
            // A copy: while this waits, the connection may close and its entry be freed.
            struct timespec deadline = p->deadline;
            pthread_cond_timedwait(&s->wake, &s->lock, &deadline);
            continue;
        }
        unlist(s, p);
        shutdown(p->fd, SHUT_RDWR);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

static void stop_watchdog(server *s) {
    if (s->watchdog_running) {
        pthread_mutex_lock(&s->lock);
        s->stopping = 1;
        pthread_cond_signal(&s->wake);
        pthread_mutex_unlock(&s->lock);
        pthread_join(s->watchdog, NULL);
        s->watchdog_running = 0;
    }
    pthread_cond_destroy(&s->wake);
    pthread_mutex_destroy(&s->lock);
}

static void log_line(void *context, const char *format, va_list arguments) {
    server *s = context;
    if (s->logger == NULL) return;
    char line[512];
    vsnprintf(line, sizeof line, format, arguments);
    size_t length = strlen(line);
    while (length > 0 && (line[length - 1] == '\n' || line[length - 1] == '\r')) line[--length] = 0;
    s->logger(s->logger_context, line);
}

/// The query arguments, collected in two passes (count, then fill).
typedef struct arguments {
    size_t count;
    size_t capacity;
    const char **keys;
    const char **values;
} arguments;

static enum MHD_Result collect_argument(void *context, enum MHD_ValueKind kind, const char *key,
                                        const char *value) {
    (void)kind;
    arguments *a = context;
    if (a->keys != NULL && a->count < a->capacity) {
        a->keys[a->count] = key;
        a->values[a->count] = value;
    }
    a->count += 1;
    return MHD_YES;
}

static enum MHD_Result on_request(void *context, struct MHD_Connection *connection, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **connection_context) {
    (void)url;  // decoded by libmicrohttpd, `%2F` and `%00` included: on_uri's path is used
    (void)upload_data;
    (void)upload_data_size;
    server *s = context;
    head_arrived(s, connection);
    // on_uri's copy of the path; NULL only when it could not allocate one.
    const target *t = connection_context != NULL ? *connection_context : NULL;
    if (t == NULL) return MHD_NO;

    cmhd_request request;
    memset(&request, 0, sizeof request);
    request.method = method;
    request.path = t->path;
    request.query_problem = t->query_problem;
    request.host = mhd.lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
    request.http11 = version != NULL && strcmp(version, MHD_HTTP_VERSION_1_1) == 0;
    request.connection = connection;

    char peer[INET6_ADDRSTRLEN] = "";
    const union MHD_ConnectionInfo *info =
        mhd.get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info != NULL) request.peer_family = peer_of(info->client_addr, request.peer_bytes, peer, sizeof peer);
    request.peer = peer;

    arguments collected = {0, 0, NULL, NULL};
    mhd.get_connection_values(connection, MHD_GET_ARGUMENT_KIND, collect_argument, &collected);
    const char **keys = NULL;
    const char **values = NULL;
    if (collected.count > 0) {
        keys = calloc(collected.count, sizeof *keys);
        values = calloc(collected.count, sizeof *values);
        if (keys == NULL || values == NULL) {
            free(keys);
            free(values);
            return MHD_NO;  // out of memory: the connection is closed
        }
        arguments fill = {0, collected.count, keys, values};
        mhd.get_connection_values(connection, MHD_GET_ARGUMENT_KIND, collect_argument, &fill);
        request.query_count = fill.count < collected.count ? fill.count : collected.count;
    }
    request.query_keys = keys;
    request.query_values = values;

    int queued = s->handler(s->handler_context, &request);
    free(keys);
    free(values);
    return queued ? MHD_YES : MHD_NO;
}

void *cmhd_start(const char *address, uint16_t port, cmhd_limits limits, cmhd_accept accept,
                 cmhd_handler handler, void *handler_context, cmhd_logger logger,
                 void *logger_context, char *error, size_t error_size) {
    if (!loaded) {
        set_error(error, error_size, "libmicrohttpd is not loaded");
        return NULL;
    }
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    const struct sockaddr *socket_address;
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
    memset(&v4, 0, sizeof v4);
    memset(&v6, 0, sizeof v6);
    if (inet_pton(AF_INET, address, &v4.sin_addr) == 1) {
        v4.sin_family = AF_INET;
        v4.sin_port = htons(port);
        socket_address = (const struct sockaddr *)&v4;
    } else if (inet_pton(AF_INET6, address, &v6.sin6_addr) == 1) {
        v6.sin6_family = AF_INET6;
        v6.sin6_port = htons(port);
        socket_address = (const struct sockaddr *)&v6;
        flags |= MHD_USE_DUAL_STACK;
    } else {
        set_error(error, error_size, "not an IPv4 or IPv6 address: %s", address);
        return NULL;
    }

    server *s = calloc(1, sizeof *s);
    if (s == NULL) {
        set_error(error, error_size, "out of memory");
        return NULL;
    }
    s->accept = accept;
    s->handler = handler;
    s->handler_context = handler_context;
    s->logger = logger;
    s->logger_context = logger_context;
    s->head_seconds = limits.request_head_seconds;
    pthread_mutex_init(&s->lock, NULL);
    pthread_condattr_t clock_monotonic;
    pthread_condattr_init(&clock_monotonic);
    pthread_condattr_setclock(&clock_monotonic, CLOCK_MONOTONIC);
    pthread_cond_init(&s->wake, &clock_monotonic);
    pthread_condattr_destroy(&clock_monotonic);
    if (s->head_seconds > 0) {
        if (pthread_create(&s->watchdog, NULL, watchdog_main, s) != 0) {
            set_error(error, error_size, "cannot start the request-head watchdog thread");
            stop_watchdog(s);
            free(s);
            return NULL;
        }
        s->watchdog_running = 1;
    }

    s->daemon = mhd.start_daemon(
        flags, port, on_accept, s, on_request, s,
        MHD_OPTION_SOCK_ADDR, socket_address,
        MHD_OPTION_CONNECTION_LIMIT, limits.connection_limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, limits.per_address_limit,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, limits.connection_memory_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, limits.connection_timeout_seconds,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, limits.listen_backlog,
        MHD_OPTION_URI_LOG_CALLBACK, on_uri, s,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
        MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
        MHD_OPTION_EXTERNAL_LOGGER, log_line, s,
        MHD_OPTION_END);
    if (s->daemon == NULL) {
        // libmicrohttpd has logged the cause (bind failed: Address already in use, …) through
        // log_line; errno is not reliable after it.
        set_error(error, error_size, "libmicrohttpd could not start a server on %s port %u", address,
                  (unsigned int)port);
        stop_watchdog(s);
        free(s);
        return NULL;
    }
    return s;
}

uint16_t cmhd_port(void *handle) {
    server *s = handle;
    if (s == NULL || s->daemon == NULL) return 0;
    const union MHD_DaemonInfo *info = mhd.get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info != NULL ? info->port : 0;
}

void cmhd_stop(void *handle) {
    server *s = handle;
    if (s == NULL) return;
    // libmicrohttpd first: closing its connections takes them off the watchdog's list.
    mhd.stop_daemon(s->daemon);
    stop_watchdog(s);
    free(s);
}

int cmhd_respond(void *connection, unsigned int status, const char *const *header_names,
                 const char *const *header_values, size_t header_count, const void *body,
                 size_t body_length) {
    struct MHD_Response *response =
        mhd.create_response_from_buffer(body_length, (void *)body, MHD_RESPMEM_MUST_COPY);
    if (response == NULL) return 0;
    for (size_t index = 0; index < header_count; index++) {
        if (mhd.add_response_header(response, header_names[index], header_values[index]) != MHD_YES) {
            mhd.destroy_response(response);
            return 0;
        }
    }
    enum MHD_Result queued = mhd.queue_response(connection, status, response);
    mhd.destroy_response(response);
    return queued == MHD_YES;
}
