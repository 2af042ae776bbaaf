/* SPDX-License-Identifier: MIT */
/*
 * error.h - filling in the caller-owned skit_error (library-internal).
 *
 * The core (src/lib/core/) holds the small pieces every subsystem shares:
 * errors (error.c), the config reader (config.c), the user config
 * (userconfig.c), digests (digest.c), look-alike names (confusable.c,
 * winnames.h) and bounded regular expressions (rx.c). It uses only util
 * and the public headers; any subsystem, the tests and the harnesses may
 * include its headers.
 */
#ifndef SKIT_LIB_ERROR_H
#define SKIT_LIB_ERROR_H

#include "skit/common.h"

/*
 * Fill `err` (if not NULL) with `code`, `line` and a printf-style message;
 * return `code` so callers can `return skit__error_set(...)`.
 */
int skit__error_set(skit_error *err, int code, unsigned int line,
                    const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 4, 5)))
#endif
        ;

/* Out of memory: needs no allocation. */
int skit__error_oom(skit_error *err);

/* Fill `err` with `code` and skit_strerror(code) unless already set. */
int skit__error_code(skit_error *err, int code);

#endif
