/* SPDX-License-Identifier: MIT */
/*
 * fuzz_yaml.c - the frontmatter YAML parser's two paths. skit parses the
 * simplest frontmatter shape itself and hands every other text to
 * libyaml (src/lib/skill/yaml.c). Properties, for any bytes:
 *   - when the fast path takes a text, libyaml accepts it too and builds
 *     the same tree (kinds, positions, bytes, styles);
 *   - skit__yaml_parse_flags() gives the same verdict and tree whether
 *     the fast path may be taken or not (SKIT_YAML_SLOW), with and
 *     without SKIT_YAML_FLOW;
 *   - a refusal's message is one line.
 */
#include "common.h"

#include <string.h>

#include "lib/skill/yaml.h"
#include "util/pool.h"
#include "fuzz.h"

static void one_line(const char *msg)
{
	for (const char *p = msg; *p; p++)
		FUZZ_CHECK((unsigned char)*p >= 0x20 && *p != 0x7f,
		           "control byte in \"%s\"", msg);
}

/* Both entry points agree, under `flags`. */
static void same_verdict(const char *text, size_t len, unsigned int flags)
{
	struct skitx_pool pool;
	struct skit__ynode *a = NULL, *b = NULL;
	char ma[256], mb[256];
	unsigned int la, ca, lb, cb;
	int ra, rb;

	skitx_pool_init(&pool, 0);
	ra = skit__yaml_parse_flags(&a, &pool, text, len, flags, ma, sizeof(ma),
	                            &la, &ca);
	rb = skit__yaml_parse_flags(&b, &pool, text, len,
	                            flags | SKIT_YAML_SLOW, mb, sizeof(mb), &lb,
	                            &cb);
	if (ra != SKIT_ENOMEM && rb != SKIT_ENOMEM) {
		FUZZ_CHECK(ra == rb,
		           "verdict %d with the fast path, %d without", ra, rb);
		if (!ra)
			FUZZ_CHECK(skit__yaml_same_tree(a, b),
			           "the trees differ (flags %u)", flags);
		else
			one_line(ma);
	}
	skitx_pool_release(&pool);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct skitx_pool pool;
	struct skit__ynode *fast = NULL, *slow = NULL;
	char msg[256], *text;
	unsigned int line, col;
	int rf, rs;

	if (size > 64 * 1024)
		return 0;
	/* skit hands the parser a NUL-free text (skill.c refuses NUL) */
	if (memchr(data, 0, size))
		return 0;
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';

	skitx_pool_init(&pool, 0);
	rf = skit__yaml_parse_fast(&fast, &pool, text, size);
	FUZZ_CHECK(rf == 0 || rf == 1 || rf == SKIT_ENOMEM, "fast path: %d",
	           rf);
	if (rf == 1) {
		rs = skit__yaml_parse_flags(&slow, &pool, text, size,
		                            SKIT_YAML_SLOW, msg, sizeof(msg),
		                            &line, &col);
		if (rs != SKIT_ENOMEM) {
			FUZZ_CHECK(
			        rs == 0,
			        "the fast path took a text libyaml refuses: %s",
			        msg);
			FUZZ_CHECK(skit__yaml_same_tree(fast, slow),
			           "the fast path's tree is not libyaml's");
		}
	}
	skitx_pool_release(&pool);

	same_verdict(text, size, 0);
	same_verdict(text, size, SKIT_YAML_FLOW);
	free(text);
	return 0;
}
