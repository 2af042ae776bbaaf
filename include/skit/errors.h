/* SPDX-License-Identifier: MIT */
#ifndef SKIT_ERRORS_H
#define SKIT_ERRORS_H

#include "skit/common.h"

/**
 * @file skit/errors.h
 * @brief Status codes. Fallible calls return 0 or one of these (negative).
 *
 * The table is append-only: codes keep their values across releases.
 */

SKIT_BEGIN_DECL

/* clang-format off */
#define SKIT_STATUS_MAP(X)                                                 \
	X(OK,        0,  "success")                                        \
	X(ERROR,    -1,  "unspecified error")                              \
	X(ENOMEM,   -2,  "out of memory")                                  \
	X(EINVALID, -3,  "invalid input")                                  \
	X(ENOTFOUND,-4,  "not found")                                      \
	X(ETOOBIG,  -5,  "input exceeds a size limit")                     \
	X(EIO,      -6,  "input/output error")                             \
	X(EEXISTS,  -7,  "already exists")                                 \
	X(EENCODING,-8,  "invalid UTF-8 or NUL byte")                      \
	X(EUNSAFE,  -9,  "refused: unsafe path or file type")              \
	X(EUSAGE,   -10, "invalid argument")                               \
	X(EPROVIDER,-11, "model provider error")                           \
	X(ETIMEOUT, -12, "timed out")                                      \
	X(ELIMIT,   -13, "run budget exhausted")                           \
	X(ECANCELED,-14, "canceled")                                       \
	X(EDENIED,  -15, "denied by policy")
/* clang-format on */

/** Status codes; SKIT_OK is 0, failures are negative. */
typedef enum {
#define SKIT__STATUS_ENUM(name, value, text) SKIT_##name = value,
	SKIT_STATUS_MAP(SKIT__STATUS_ENUM)
#undef SKIT__STATUS_ENUM
} skit_status;

/** A short English description of `status`. Static storage; never NULL. */
SKIT_EXTERN const char *skit_strerror(int status);

SKIT_END_DECL

#endif /* SKIT_ERRORS_H */
