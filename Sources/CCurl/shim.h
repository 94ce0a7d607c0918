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

#ifndef BREEZE_CCURL_SHIM_H
#define BREEZE_CCURL_SHIM_H
#include <curl/curl.h>

/* curl_easy_setopt / curl_easy_getinfo are variadic and so unavailable from Swift:
   typed wrappers, one per argument kind. Every pointer says whether it may be NULL: the handle
   and getinfo's out-parameter never are; an option value may be (NULL resets the option). */
static inline CURLcode ccurl_setopt_long(CURL *_Nonnull h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_string(CURL *_Nonnull h, CURLoption o, const char *_Nullable v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_pointer(CURL *_Nonnull h, CURLoption o, void *_Nullable v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_slist(CURL *_Nonnull h, CURLoption o, struct curl_slist *_Nullable v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_offset(CURL *_Nonnull h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
typedef size_t (*ccurl_data_callback)(char *_Nullable ptr, size_t size, size_t nmemb, void *_Nullable userdata);
static inline CURLcode ccurl_setopt_data_callback(CURL *_Nonnull h, CURLoption o, ccurl_data_callback _Nullable cb) { return curl_easy_setopt(h, o, cb); }
static inline CURLcode ccurl_getinfo_long(CURL *_Nonnull h, CURLINFO i, long *_Nonnull v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode ccurl_getinfo_offset(CURL *_Nonnull h, CURLINFO i, curl_off_t *_Nonnull v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode ccurl_getinfo_double(CURL *_Nonnull h, CURLINFO i, double *_Nonnull v) { return curl_easy_getinfo(h, i, v); }
/* Progress callback (CURLOPT_XFERINFOFUNCTION): returning non-zero aborts the transfer, which is
   how a cancelled Swift task stops a blocking curl_easy_perform. */
typedef int (*ccurl_xferinfo_callback)(void *_Nullable clientp, curl_off_t dltotal, curl_off_t dlnow,
                                       curl_off_t ultotal, curl_off_t ulnow);
static inline CURLcode ccurl_setopt_xferinfo_callback(CURL *_Nonnull h, CURLoption o, ccurl_xferinfo_callback _Nullable cb) { return curl_easy_setopt(h, o, cb); }
/* curl_multi_setopt is variadic too; CURLMsg's result sits in a union. */
static inline CURLMcode ccurl_multi_setopt_long(CURLM *_Nonnull m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }
static inline CURLcode ccurl_msg_result(const CURLMsg *_Nonnull msg) { return msg->data.result; }
/* CURL_GLOBAL_DEFAULT is a macro expression Swift does not import. */
static inline CURLcode ccurl_global_init_default(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }
#endif
