/* SPDX-License-Identifier: MIT */
/*
 * common.h - included first by every .c file of skit (library, util, CLI).
 *
 * It fixes the feature macros, pulls in the standard headers every module
 * uses, the allocator wrappers, and banned.h, which turns unsafe libc calls
 * into compile errors.
 */
#ifndef SKIT_INTERNAL_COMMON_H
#define SKIT_INTERNAL_COMMON_H

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skit/common.h"
#include "skit/errors.h"
#include "util/alloc.h"
#include "util/banned.h"

#define SKIT_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#if defined(__GNUC__)
# define SKIT_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
# define SKIT_PRINTF(f, a)
#endif

#endif
