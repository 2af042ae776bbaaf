/* SPDX-License-Identifier: MIT */
/*
 * rx.h - regular expressions with a bounded cost (library-internal).
 *
 * Every pattern skit compiles from untrusted text (the grep tool's, an
 * eval case's expected.output.regex) and its built-in secret patterns go
 * through this one engine: PCRE2, without JIT, with caps on the pattern's
 * length, its parenthesis nesting, the memory a compile or a match may
 * take, the backtracking steps of a match (match limit) and its depth.
 * A pattern that would take seconds or gigabytes with a backtracking
 * POSIX engine stops here with SKIT_ETOOBIG and a message saying which
 * limit it reached.
 *
 * Syntax: POSIX extended regular expressions (ERE) as documented for the
 * grep tool and eval files. Patterns are translated for PCRE2 in the one
 * place where the two read the same text differently: a backslash inside
 * a bracket expression is a literal backslash. `.` matches any byte
 * (newlines too) and `$` only the end of the subject, as in ERE. PCRE2's
 * extensions (\d, \w, lookaround, lazy quantifiers...) are accepted.
 * Matching is on bytes (no UTF mode), so any subject can be searched.
 */
#ifndef SKIT_LIB_RX_H
#define SKIT_LIB_RX_H

#include "skit/common.h"

#define SKIT__RX_PATTERN_MAX 1024u      /* bytes of a pattern */
#define SKIT__RX_NEST_MAX    64u        /* nested parentheses */
#define SKIT__RX_MEMORY_MAX  (8u << 20) /* bytes: compile + one match */
#define SKIT__RX_MATCH_LIMIT 1000000u   /* backtracking steps a match */
#define SKIT__RX_DEPTH_LIMIT 10000u     /* nested backtracking points */
#define SKIT__RX_HEAP_LIMIT  (4u << 10) /* KiB of backtracking frames */

#define SKIT__RX_ICASE 1u /* ASCII letters match either case */
#define SKIT__RX_RAW   2u /* PCRE2 syntax as written: no ERE translation */

struct skit__rx;

/*
 * Compile `pattern` (NUL-terminated, ERE syntax). The caller owns *out
 * (free it with skit__rx_free). SKIT_EINVALID for a syntax error (the
 * message gives the offset and what is wrong), SKIT_ETOOBIG for a pattern
 * over a limit, SKIT_ENOMEM. Messages are one line and do not quote the
 * pattern: the caller names it.
 */
int skit__rx_new(struct skit__rx **out, const char *pattern, unsigned int flags,
                 skit_error *err);

/*
 * Search `len` bytes at `subject` (no NUL needed). Returns 1 on a match
 * (its start offset in *start when `start` is not NULL), 0 when none,
 * SKIT_ETOOBIG when a limit stopped the search (the message says which),
 * SKIT_ENOMEM. One compiled pattern matches on one thread at a time.
 */
int skit__rx_match(struct skit__rx *rx, const char *subject, size_t len,
                   size_t *start, skit_error *err);

/*
 * skit__rx_match() that also gives the end of the match (one past its
 * last byte) in *end. `start` and `end` may not be NULL.
 */
int skit__rx_search(struct skit__rx *rx, const char *subject, size_t len,
                    size_t *start, size_t *end, skit_error *err);

/* Free `rx` and all it owns. NULL is a no-op. */
void skit__rx_free(struct skit__rx *rx);

#endif
