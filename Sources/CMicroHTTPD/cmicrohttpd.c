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
#undef RESOLVE
    loaded = 1;
    pthread_mutex_unlock(&load_lock);
    return 0;
}

/// What the daemon's callbacks get as their context.
typedef struct server {
    struct MHD_Daemon *daemon;
    cmhd_handler handler;
    void *handler_context;
    cmhd_logger logger;
    void *logger_context;
} server;

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
    (void)version;
    (void)upload_data;
    (void)upload_data_size;
    (void)connection_context;
    server *s = context;

    cmhd_request request;
    memset(&request, 0, sizeof request);
    request.method = method;
    request.path = url;
    request.connection = connection;

    char peer[INET6_ADDRSTRLEN] = "";
    const union MHD_ConnectionInfo *info =
        mhd.get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info != NULL && info->client_addr != NULL) {
        const struct sockaddr *address = info->client_addr;
        if (address->sa_family == AF_INET) {
            const struct sockaddr_in *v4 = (const struct sockaddr_in *)address;
            request.peer_family = 4;
            memcpy(request.peer_bytes, &v4->sin_addr, 4);
            inet_ntop(AF_INET, &v4->sin_addr, peer, sizeof peer);
        } else if (address->sa_family == AF_INET6) {
            const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)address;
            request.peer_family = 6;
            memcpy(request.peer_bytes, &v6->sin6_addr, 16);
            inet_ntop(AF_INET6, &v6->sin6_addr, peer, sizeof peer);
        }
    }
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

void *cmhd_start(const char *address, uint16_t port, cmhd_limits limits, cmhd_handler handler,
                 void *handler_context, cmhd_logger logger, void *logger_context, char *error,
                 size_t error_size) {
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
    s->handler = handler;
    s->handler_context = handler_context;
    s->logger = logger;
    s->logger_context = logger_context;

    s->daemon = mhd.start_daemon(
        flags, port, NULL, NULL, on_request, s,
        MHD_OPTION_SOCK_ADDR, socket_address,
        MHD_OPTION_CONNECTION_LIMIT, limits.connection_limit,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, limits.connection_memory_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, limits.connection_timeout_seconds,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, limits.listen_backlog,
        MHD_OPTION_EXTERNAL_LOGGER, log_line, s,
        MHD_OPTION_END);
    if (s->daemon == NULL) {
        // libmicrohttpd has logged the cause (bind failed: Address already in use, …) through
        // log_line; errno is not reliable after it.
        set_error(error, error_size, "libmicrohttpd could not start a server on %s port %u", address,
                  (unsigned int)port);
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
    mhd.stop_daemon(s->daemon);
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
