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

#ifndef BREEZE_CJPEG_SHIM_H
#define BREEZE_CJPEG_SHIM_H
/* libjpeg-turbo (jpeg62 API). libjpeg reports errors by calling error_exit, which must not
   return: these wrappers longjmp back out of it, something Swift cannot do, and hand Swift a
   status and the library's own message instead. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <jpeglib.h>

struct cjpeg_error_manager {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
};

static inline void cjpeg_error_exit(j_common_ptr info) {
    struct cjpeg_error_manager *manager = (struct cjpeg_error_manager *)info->err;
    (*info->err->format_message)(info, manager->message);
    longjmp(manager->jump, 1);
}

/* Keeps warnings (corrupt-data hints) out of stderr: the helper's stderr is its error channel. */
static inline void cjpeg_emit_message(j_common_ptr info, int level) { (void)info; (void)level; }

static inline void cjpeg_copy_message(char *_Nonnull destination, size_t capacity, const char *_Nonnull source) {
    if (capacity == 0) return;
    strncpy(destination, source, capacity - 1);
    destination[capacity - 1] = '\0';
}

/* Compresses packed RGB rows (width × 3 bytes each) to a baseline JPEG of `quality`, without
   chroma subsampling (4:4:4: small red/yellow text on e-ink stays sharp). On success returns 0
   and a malloc'ed buffer in *out (the caller frees it); on failure returns -1 and the library's
   message in `message`. */
static inline int cjpeg_encode_rgb(const unsigned char *_Nonnull rgb, unsigned int width, unsigned int height,
                                   int quality, unsigned char *_Nullable *_Nonnull out,
                                   unsigned long *_Nonnull out_size, char *_Nonnull message, size_t message_size) {
    struct jpeg_compress_struct cinfo;
    struct cjpeg_error_manager error;
    memset(&cinfo, 0, sizeof cinfo);
    *out = NULL;
    *out_size = 0;
    cinfo.err = jpeg_std_error(&error.pub);
    error.pub.error_exit = cjpeg_error_exit;
    error.pub.emit_message = cjpeg_emit_message;
    error.message[0] = '\0';
    if (setjmp(error.jump)) {
        cjpeg_copy_message(message, message_size, error.message);
        jpeg_destroy_compress(&cinfo);
        free(*out);
        *out = NULL;
        *out_size = 0;
        return -1;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, out, out_size);
    cinfo.image_width = width;
    cinfo.image_height = height;
    cinfo.input_components = 3;
    cinfo.in_color_space = JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    for (int c = 0; c < cinfo.num_components; c++) {
        cinfo.comp_info[c].h_samp_factor = 1;
        cinfo.comp_info[c].v_samp_factor = 1;
    }
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(rgb + (size_t)cinfo.next_scanline * width * 3);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    return 0;
}

/* What a decoded JPEG is: its size, components, whether it is progressive. */
struct cjpeg_info {
    unsigned int width;
    unsigned int height;
    int components;
    int progressive;
};

/* Decodes a whole JPEG into packed RGB (`rgb` gets width × height × 3 bytes, malloc'ed, the
   caller frees it); -1 and the library's message on failure. The tests read images back with it. */
static inline int cjpeg_decode_rgb(const unsigned char *_Nonnull data, unsigned long size,
                                   struct cjpeg_info *_Nonnull info, unsigned char *_Nullable *_Nonnull rgb,
                                   char *_Nonnull message, size_t message_size) {
    struct jpeg_decompress_struct cinfo;
    struct cjpeg_error_manager error;
    memset(&cinfo, 0, sizeof cinfo);
    *rgb = NULL;
    cinfo.err = jpeg_std_error(&error.pub);
    error.pub.error_exit = cjpeg_error_exit;
    error.pub.emit_message = cjpeg_emit_message;
    error.message[0] = '\0';
    if (setjmp(error.jump)) {
        cjpeg_copy_message(message, message_size, error.message);
        jpeg_destroy_decompress(&cinfo);
        free(*rgb);
        *rgb = NULL;
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, size);
    jpeg_read_header(&cinfo, TRUE);
    cinfo.out_color_space = JCS_RGB;
    jpeg_start_decompress(&cinfo);
    info->width = cinfo.output_width;
    info->height = cinfo.output_height;
    info->components = cinfo.num_components;
    info->progressive = jpeg_has_multiple_scans(&cinfo) ? 1 : 0;
    *rgb = (unsigned char *)malloc((size_t)cinfo.output_width * cinfo.output_height * 3);
    if (*rgb == NULL) {
        cjpeg_copy_message(message, message_size, "out of memory");
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = (JSAMPROW)(*rgb + (size_t)cinfo.output_scanline * cinfo.output_width * 3);
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    return 0;
}
#endif
