/* SPDX-License-Identifier: MIT */
/*
 * fuzz_config.c - config files: the permissions of
 * `.agents/skit.json` and `~/.config/skit/config.json`, and the roots a
 * project config names. Input: byte 0 picks what reads it, the rest is
 * the file.
 *
 * Properties: a refused file gives a one-line error; a project config
 * (repository content, not trusted) may restrict but never grant: under
 * it no call is allowed that an empty policy would not allow.
 */
#include "common.h"

#include "skit/policy.h"
#include "skit/registry.h"
#include "fuzz.h"

static const skit_tool_request calls[] = {
	{ "shell", "rm -rf /", NULL },
	{ "shell", "git status", NULL },
	{ "write_file", "out/a.md", NULL },
	{ "read_file", "docs/a.md", NULL },
	{ "WebFetch", "https://example.com/x", NULL },
	{ "run_skill_script", "scripts/x.py", "fz" },
	{ "grep", ".", NULL },
};

static void one_line(const char *s)
{
	FUZZ_CHECK(!strchr(s, '\n') && !strchr(s, '\r'), "\"%s\"", s);
}

static skit_verdict verdict(const skit_policy *p, const skit_tool_request *r)
{
	skit_decision d;

	if (skit_policy_check(p, NULL, 0, r, &d, NULL))
		return SKIT_POLICY_DENY;
	one_line(d.reason);
	return d.verdict;
}

static void policy_config(const char *path, bool trusted)
{
	skit_policy *empty = NULL, *p = NULL;
	skit_error err = { 0 };
	size_t ignored = 0;

	if (skit_policy_new(&empty, NULL) || skit_policy_new(&p, NULL))
		goto out;
	if (skit_policy_load_config(p, path, trusted, &ignored, &err))
		one_line(err.message);
	if (!trusted)
		for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
			FUZZ_CHECK(verdict(p, &calls[i]) != SKIT_POLICY_ALLOW ||
			                   verdict(empty, &calls[i]) ==
			                           SKIT_POLICY_ALLOW,
			           "an untrusted config allows %s %s",
			           calls[i].tool, calls[i].target);
out:
	skit_policy_free(p);
	skit_policy_free(empty);
}

static void roots_config(bool extra)
{
	skit_roots_options o = SKIT_ROOTS_OPTIONS_INIT;
	skit_registry *reg = NULL;
	skit_error err = { 0 };

	if (skit_registry_new(&reg, NULL))
		return;
	o.cwd = fuzz_path("proj");
	o.home = fuzz_path("home");
	o.skit_home = fuzz_path("home/.agents");
	if (extra)
		o.config_file = fuzz_path("proj/.agents/skit.json");
	if (skit_registry_add_default_roots(reg, &o, &err))
		one_line(err.message);
	else if (skit_registry_scan(reg, &err))
		one_line(err.message);
	skit_registry_free(reg);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_write(fuzz_path("proj/.git/HEAD"), "ref: refs/heads/main\n", 21);
	fuzz_write(fuzz_path("home/.keep"), "", 0);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_path("proj/.agents/skit.json");

	if (size < 1 || size > 65536)
		return 0;
	fuzz_write(path, data + 1, size - 1);
	switch (data[0] % 4) {
	case 0:
		policy_config(path, false);
		break;
	case 1:
		policy_config(path, true);
		break;
	default:
		roots_config(data[0] % 4 == 3);
		break;
	}
	return 0;
}
