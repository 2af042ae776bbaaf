/* SPDX-License-Identifier: MIT */
/*
 * rx.c - bounded-cost regular expressions on PCRE2. See rx.h.
 *
 * Costs are bounded three ways. The pattern is short and shallow
 * (SKIT__RX_PATTERN_MAX, SKIT__RX_NEST_MAX), so the compile step has little
 * to chew on; every byte PCRE2 allocates, for the compiled code and for a
 * match's backtracking frames, goes through a counting allocator that
 * refuses past SKIT__RX_MEMORY_MAX, so a pattern that expands (nested
 * counted repeats) fails instead of eating the address space; and a match
 * stops after SKIT__RX_MATCH_LIMIT backtracking steps, SKIT__RX_DEPTH_LIMIT
 * nested ones and SKIT__RX_HEAP_LIMIT KiB of frames, so a back-reference
 * that goes exponential ends in milliseconds. No JIT: the interpreter
 * honours every limit, and the patterns are small.
 */
#include "common.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "lib/core/rx.h"
#include "lib/core/error.h"

/* What PCRE2 has allocated through this pattern's contexts. */
struct rx_mem {
	size_t used;
	bool refused; /* an allocation was over the cap */
};

struct skit__rx {
	struct rx_mem mem; /* first: the contexts point at it */
	pcre2_general_context *gctx;
	pcre2_compile_context *cctx;
	pcre2_match_context *mctx;
	pcre2_code *code;
	pcre2_match_data *md;
};

/* Each block carries its size in front, so frees can be counted. */
union rx_head {
	size_t size;
	max_align_t align;
};

static void *rx_malloc(PCRE2_SIZE size, void *data)
{
	struct rx_mem *mem = data;
	union rx_head *h;

	if (size > SKIT__RX_MEMORY_MAX - mem->used ||
	    mem->used > SKIT__RX_MEMORY_MAX) {
		mem->refused = true;
		return NULL;
	}
	h = skitx_malloc(sizeof(*h) + size);
	if (!h)
		return NULL;
	h->size = size;
	mem->used += size;
	return h + 1;
}

static void rx_free(void *p, void *data)
{
	struct rx_mem *mem = data;
	union rx_head *h;

	if (!p)
		return;
	h = (union rx_head *)p - 1;
	mem->used -= h->size;
	skitx_free(h);
}

/*
 * Copy the ERE `pattern` into `out` (room for twice its length plus one)
 * in PCRE2's reading: inside a bracket expression a backslash is an
 * ordinary character in ERE and an escape in PCRE2, so it is doubled.
 * "[:alpha:]", "[=a=]" and "[.a.]" inside brackets are copied whole, and
 * a "]" right after "[" or "[^" is a member, not the end.
 */
static void ere_to_pcre2(const char *pattern, char *out)
{
	const char *p = pattern;
	size_t o = 0;

	while (*p) {
		if (*p == '\\') {
			out[o++] = *p++;
			if (*p)
				out[o++] = *p++;
			continue;
		}
		if (*p != '[') {
			out[o++] = *p++;
			continue;
		}
		out[o++] = *p++;
		if (*p == '^')
			out[o++] = *p++;
		if (*p == ']')
			out[o++] = *p++;
		while (*p && *p != ']') {
			if (*p == '[' &&
			    (p[1] == ':' || p[1] == '=' || p[1] == '.')) {
				char kind = p[1];
				const char *q = p + 2;

				while (*q && !(q[0] == kind && q[1] == ']'))
					q++;
				if (*q) {
					q += 2;
					while (p < q)
						out[o++] = *p++;
					continue;
				}
			}
			if (*p == '\\')
				out[o++] = '\\';
			out[o++] = *p++;
		}
	}
	out[o] = '\0';
}

/* PCRE2's own words for `code`, after `what`. */
static int pcre2_failure(int status, int code, const char *what,
                         skit_error *err)
{
	PCRE2_UCHAR msg[160];

	if (pcre2_get_error_message(code, msg, sizeof(msg)) < 0)
		snprintf((char *)msg, sizeof(msg), "error %d", code);
	return skit__error_set(err, status, 0, "%s: %s", what,
	                       (const char *)msg);
}

int skit__rx_new(struct skit__rx **out, const char *pattern, unsigned int flags,
                 skit_error *err)
{
	uint32_t opts = PCRE2_DOTALL | PCRE2_DOLLAR_ENDONLY | PCRE2_NEVER_UTF |
	                PCRE2_NEVER_UCP | PCRE2_NEVER_BACKSLASH_C;
	size_t plen = strlen(pattern);
	struct skit__rx *rx;
	PCRE2_SIZE erroff;
	char *translated;
	int code, rc = 0;

	*out = NULL;
	if (plen > SKIT__RX_PATTERN_MAX)
		return skit__error_set(err, SKIT_ETOOBIG, 0,
		                       "the pattern is %zu bytes, limit is %u",
		                       plen, SKIT__RX_PATTERN_MAX);
	if (flags & SKIT__RX_ICASE)
		opts |= PCRE2_CASELESS;
	rx = skitx_calloc(1, sizeof(*rx));
	translated = skitx_malloc(plen * 2 + 1);
	if (!rx || !translated) {
		skitx_free(rx);
		skitx_free(translated);
		return skit__error_oom(err);
	}
	if (flags & SKIT__RX_RAW)
		memcpy(translated, pattern, plen + 1);
	else
		ere_to_pcre2(pattern, translated);
	rx->gctx = pcre2_general_context_create(rx_malloc, rx_free, &rx->mem);
	if (rx->gctx) {
		rx->cctx = pcre2_compile_context_create(rx->gctx);
		rx->mctx = pcre2_match_context_create(rx->gctx);
	}
	if (!rx->cctx || !rx->mctx) {
		rc = skit__error_oom(err);
		goto out;
	}
	pcre2_set_max_pattern_length(rx->cctx, SKIT__RX_PATTERN_MAX * 2);
	pcre2_set_parens_nest_limit(rx->cctx, SKIT__RX_NEST_MAX);
	pcre2_set_match_limit(rx->mctx, SKIT__RX_MATCH_LIMIT);
	pcre2_set_depth_limit(rx->mctx, SKIT__RX_DEPTH_LIMIT);
	pcre2_set_heap_limit(rx->mctx, SKIT__RX_HEAP_LIMIT);

	rx->code = pcre2_compile((PCRE2_SPTR)translated, PCRE2_ZERO_TERMINATED,
	                         opts, &code, &erroff, rx->cctx);
	if (!rx->code) {
		if (rx->mem.refused)
			rc = skit__error_set(err, SKIT_ETOOBIG, 0,
			                     "the pattern compiles to more "
			                     "than %u MiB",
			                     SKIT__RX_MEMORY_MAX >> 20);
		else if (code == PCRE2_ERROR_HEAP_FAILED)
			rc = skit__error_oom(err);
		else if (code == PCRE2_ERROR_PATTERN_TOO_COMPLICATED ||
		         code == PCRE2_ERROR_PARENTHESES_NEST_TOO_DEEP ||
		         code == PCRE2_ERROR_PATTERN_TOO_LARGE) {
			rc = pcre2_failure(SKIT_ETOOBIG, code,
			                   "the pattern is too complex", err);
		} else {
			char where[48];

			snprintf(where, sizeof(where), "at offset %zu",
			         (size_t)erroff);
			rc = pcre2_failure(SKIT_EINVALID, code, where, err);
		}
		goto out;
	}
	rx->md = pcre2_match_data_create(1, rx->gctx);
	if (!rx->md) {
		rc = skit__error_oom(err);
		goto out;
	}
	*out = rx;
	rx = NULL;
out:
	skitx_free(translated);
	skit__rx_free(rx);
	return rc;
}

int skit__rx_match(struct skit__rx *rx, const char *subject, size_t len,
                   size_t *start, skit_error *err)
{
	int rc;

	rx->mem.refused = false;
	rc = pcre2_match(rx->code, (PCRE2_SPTR)subject, len, 0, 0, rx->md,
	                 rx->mctx);
	if (rc >= 0) {
		if (start)
			*start = (size_t)pcre2_get_ovector_pointer(rx->md)[0];
		return 1;
	}
	switch (rc) {
	case PCRE2_ERROR_NOMATCH:
		return 0;
	case PCRE2_ERROR_MATCHLIMIT:
		return skit__error_set(err, SKIT_ETOOBIG, 0,
		                       "the pattern needs too much "
		                       "backtracking (more than %u steps); "
		                       "simplify it",
		                       SKIT__RX_MATCH_LIMIT);
	case PCRE2_ERROR_DEPTHLIMIT:
		return skit__error_set(err, SKIT_ETOOBIG, 0,
		                       "the pattern backtracks too deep "
		                       "(more than %u levels); simplify it",
		                       SKIT__RX_DEPTH_LIMIT);
	case PCRE2_ERROR_HEAPLIMIT:
	case PCRE2_ERROR_NOMEMORY:
		if (rc == PCRE2_ERROR_NOMEMORY && !rx->mem.refused)
			return skit__error_oom(err);
		return skit__error_set(err, SKIT_ETOOBIG, 0,
		                       "the pattern needs more than %u KiB "
		                       "to match; simplify it",
		                       SKIT__RX_HEAP_LIMIT);
	default:
		return pcre2_failure(SKIT_EINVALID, rc, "cannot match", err);
	}
}

int skit__rx_search(struct skit__rx *rx, const char *subject, size_t len,
                    size_t *start, size_t *end, skit_error *err)
{
	int rc = skit__rx_match(rx, subject, len, start, err);

	if (rc == 1)
		*end = (size_t)pcre2_get_ovector_pointer(rx->md)[1];
	return rc;
}

void skit__rx_free(struct skit__rx *rx)
{
	if (!rx)
		return;
	pcre2_match_data_free(rx->md);
	pcre2_code_free(rx->code);
	pcre2_match_context_free(rx->mctx);
	pcre2_compile_context_free(rx->cctx);
	pcre2_general_context_free(rx->gctx);
	skitx_free(rx);
}
