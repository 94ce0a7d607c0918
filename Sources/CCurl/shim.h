#ifndef BREEZE_CCURL_SHIM_H
#define BREEZE_CCURL_SHIM_H
#include <curl/curl.h>

/* curl_easy_setopt / curl_easy_getinfo are variadic and so unavailable from Swift:
   typed wrappers, one per argument kind. */
static inline CURLcode ccurl_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_offset(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
typedef size_t (*ccurl_data_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);
static inline CURLcode ccurl_setopt_data_callback(CURL *h, CURLoption o, ccurl_data_callback cb) { return curl_easy_setopt(h, o, cb); }
static inline CURLcode ccurl_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode ccurl_getinfo_offset(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode ccurl_getinfo_double(CURL *h, CURLINFO i, double *v) { return curl_easy_getinfo(h, i, v); }
/* Progress callback (CURLOPT_XFERINFOFUNCTION): returning non-zero aborts the transfer, which is
   how a cancelled Swift task stops a blocking curl_easy_perform. */
typedef int (*ccurl_xferinfo_callback)(void *clientp, curl_off_t dltotal, curl_off_t dlnow,
                                       curl_off_t ultotal, curl_off_t ulnow);
static inline CURLcode ccurl_setopt_xferinfo_callback(CURL *h, CURLoption o, ccurl_xferinfo_callback cb) { return curl_easy_setopt(h, o, cb); }
/* CURL_GLOBAL_DEFAULT is a macro expression Swift does not import. */
static inline CURLcode ccurl_global_init_default(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }
#endif
