/* SPDX-License-Identifier: MIT */
/*
 * fuzz_eval.c - eval files: cases and trigger sets, YAML or JSON
 * (documented as untrusted). Input: byte 0 picks the file's extension
 * (.yaml or .json), the rest is the file. It is loaded next to a skills
 * folder and a cassette it may name. Checks: no crash or leak, a refused
 * file gives a one-line error, a loaded suite lists named cases.
 */
#include "common.h"

#include "skit/eval.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char skill[] =
	        "---\nname: fz\ndescription: A skill for fuzzing. Use when "
	        "asked.\n---\nBody.\n";
	static const char cassette[] =
	        "{\"text\": \"ok\", \"stop_reason\": \"end_turn\"}\n";

	(void)argc;
	(void)argv;
	fuzz_write(fuzz_path("e/skills/fz/SKILL.md"), skill, sizeof(skill) - 1);
	fuzz_write(fuzz_path("e/c.jsonl"), cassette, sizeof(cassette) - 1);
	fuzz_write(fuzz_path("e/data.csv"), "a,b\n1,2\n", 8);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	skit_eval_suite *s = NULL;
	skit_error err = { 0 };
	const char *path;

	if (size < 1 || size > 65536)
		return 0;
	path = fuzz_path(data[0] & 1 ? "e/case.json" : "e/case.yaml");
	fuzz_write(path, data + 1, size - 1);
	if (skit_eval_suite_load(&s, &path, 1, &err)) {
		FUZZ_CHECK(!s, "a refused suite was returned");
		FUZZ_CHECK(!strchr(err.message, '\n'), "%s", err.message);
		return 0;
	}
	for (size_t i = 0; i < skit_eval_suite_count(s); i++)
		FUZZ_CHECK(skit_eval_suite_case_name(s, i), "case %zu", i);
	skit_eval_suite_free(s);
	return 0;
}
