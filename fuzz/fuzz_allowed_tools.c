/* SPDX-License-Identifier: MIT */
/*
 * fuzz_allowed_tools.c - the allowed-tools grammar (a skill's field, the
 * config's and --allow's patterns), the policy check and the "narrowest
 * --allow" suggestion.
 *
 * Input: one byte picks a tool, then the allowed-tools text, a newline,
 * and the call's target (a command line, a path, a URL).
 *
 * Properties: a refused pattern list gives a one-line error; a decision's
 * reason is one line; the pattern skit suggests for a call, given as the
 * only --allow, allows that call, and, for shell commands and written
 * paths (where the suggestion is meant to be exact), allows no longer
 * call made by adding to it (another word, a path under it, a suffix).
 */
#include "common.h"

#include "skit/policy.h"
#include "fuzz.h"

static const char *const tools[] = {
	"shell",     "Bash",    "write_file",       "Write",
	"read_file", "Read",    "run_skill_script", "WebFetch",
	"grep",      "list_dir"
};

/* One line with no terminal control: a tab, which the call itself may
 * hold, is the only control byte allowed. */
static void one_line(const char *s)
{
	for (const char *p = s; *p; p++)
		FUZZ_CHECK(*p == '\t' ||
		                   ((unsigned char)*p >= 0x20 && *p != 0x7f),
		           "control byte in \"%s\"", s);
}

static skit_verdict verdict(const skit_policy *p,
                            const skit_active_skill *active, size_t n,
                            const char *tool, const char *target)
{
	skit_tool_request req = { tool, target, NULL };
	skit_decision d;

	if (!strcmp(tool, "run_skill_script"))
		req.skill = "fz";
	if (skit_policy_check(p, active, n, &req, &d, NULL))
		return SKIT_POLICY_DENY;
	one_line(d.reason);
	return d.verdict;
}

/* The suggestion for (tool, target) allows it and nothing longer. */
static void check_suggestion(const char *tool, const char *target)
{
	static const char *const more[] = { " x",  "x",   "/x", " && x",
		                            "; x", " :*", "*" };
	skit_tool_request req = { tool, target, NULL };
	skit_policy *p = NULL;
	char pattern[2048], flag[2100];
	bool exact = !strcmp(tool, "shell") || !strcmp(tool, "Bash") ||
	             !strcmp(tool, "write_file") || !strcmp(tool, "Write");

	if (!strcmp(tool, "run_skill_script"))
		req.skill = "fz";
	if (skit_policy_suggest(pattern, sizeof(pattern), &req, false))
		return;
	one_line(pattern);
	if (skit_policy_new(&p, NULL))
		return;
	if (skit_policy_add_flag(p, SKIT_POLICY_LIST_ALLOW, pattern, NULL)) {
		/* A suggestion the grammar refuses helps nobody. */
		FUZZ_CHECK(0, "suggested '%s' for %s '%s' does not parse",
		           pattern, tool, target);
	}
	FUZZ_CHECK(verdict(p, NULL, 0, tool, target) == SKIT_POLICY_ALLOW,
	           "suggested '%s' does not allow %s '%s'", pattern, tool,
	           target);
	for (size_t i = 0; exact && i < sizeof(more) / sizeof(more[0]); i++) {
		char longer[4200];

		snprintf(longer, sizeof(longer), "%s%s", target, more[i]);
		FUZZ_CHECK(verdict(p, NULL, 0, tool, longer) !=
		                   SKIT_POLICY_ALLOW,
		           "suggested '%s' for %s '%s' also allows '%s'",
		           pattern, tool, target, longer);
	}
	/* And the flag skit prints for it (shell-quoted) stays one line. */
	if (!skit_policy_approving_flag(flag, sizeof(flag), p, NULL, 0, &req))
		one_line(flag);
	skit_policy_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *tool, *nl;
	char *text, *target;
	skit_allowed_tools *at = NULL;
	skit_active_skill active;
	skit_policy *p = NULL;
	skit_error err = { 0 };

	if (size < 1 || size > 4096)
		return 0;
	tool = tools[data[0] % (sizeof(tools) / sizeof(tools[0]))];
	text = fuzz_str(data + 1, size - 1);
	nl = memchr(text, '\n', size - 1);
	if (nl) {
		target = text + (nl - text) + 1;
		text[nl - text] = '\0';
	} else {
		target = text + strlen(text);
	}

	if (skit_allowed_tools_parse(&at, "fz", text, &err)) {
		FUZZ_CHECK(!at, "a refused list was returned");
		one_line(err.message);
	} else {
		for (size_t i = 0; i < skit_allowed_tools_count(at); i++)
			FUZZ_CHECK(skit_allowed_tools_pattern(at, i), "%zu", i);
		active.name = "fz";
		active.tools = at;
		if (!skit_policy_new(&p, NULL)) {
			(void)verdict(p, &active, 1, tool, target);
			skit_policy_set_yes(p, true);
			(void)verdict(p, &active, 1, tool, target);
			skit_policy_free(p);
		}
		/* The same text as --allow flags, one pattern each. */
		if (!skit_policy_new(&p, NULL)) {
			for (size_t i = 0; i < skit_allowed_tools_count(at);
			     i++)
				if (skit_policy_add_flag(
				            p, SKIT_POLICY_LIST_ALLOW,
				            skit_allowed_tools_pattern(at, i),
				            &err))
					one_line(err.message);
			(void)verdict(p, NULL, 0, tool, target);
			skit_policy_free(p);
		}
		skit_allowed_tools_free(at);
	}
	check_suggestion(tool, target);
	free(text);
	return 0;
}
