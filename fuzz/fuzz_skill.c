/* SPDX-License-Identifier: MIT */
/*
 * fuzz_skill.c - loading a SKILL.md: frontmatter fences, YAML, the field
 * rules, the lints (links, secrets through the regex engine) and the
 * body. skit loads skills from folders, so the input is written as
 * <scratch>/fz/SKILL.md and loaded as the validator and the registry
 * do. Byte 0 picks the load flags; the rest is the file.
 *
 * Checks: no crash or leak; every diagnostic has a code and a message;
 * the body and the properties JSON of a valid skill can be read.
 */
#include "common.h"

#include "skit/skill.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	skit_skill_options o = SKIT_SKILL_OPTIONS_INIT;
	skit_skill *s = NULL;
	skit_error err = { 0 };
	const skit_diag *d;
	const char *body;
	char *props = NULL;
	size_t n = 0, len;

	if (size < 1 || size > (1u << 20))
		return 0;
	/* Byte 0: strict or lenient (registry), with or without the lints
	 * (skit validate). */
	o.flags = data[0] & (SKIT_SKILL_LENIENT | SKIT_SKILL_LINT);
	fuzz_write(fuzz_path("fz/SKILL.md"), data + 1, size - 1);
	if (skit_skill_load(&s, fuzz_path("fz"), &o, &err))
		return 0;
	d = skit_skill_diags(s, &n);
	/* Diagnostics quote the file as the reference does (control bytes
	 * included); the CLI makes them safe to print. */
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK(d[i].message && d[i].code, "diagnostic %zu", i);
	if (skit_skill_valid(s)) {
		if (!skit_skill_body(s, &body, &len, &err))
			FUZZ_CHECK(body && strlen(body) <= len, "body");
		if (!skit_skill_properties_json(&props, s, &err))
			skit_free(props);
	}
	skit_skill_free(s);
	return 0;
}
