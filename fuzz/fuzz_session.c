/* SPDX-License-Identifier: MIT */
/*
 * fuzz_session.c - the session loader (a run's session.jsonl, what
 * `skit run --continue` and `skit chat --resume` read). The input is
 * written as a private session file, checked (skit_session_check()) and
 * resumed by an agent. Properties: a refusal is one line and leaves the
 * description empty, and no agent is created from a file the check
 * refuses; a file the check accepts resumes (its skills, absent here,
 * are dropped), the session that agent saves is accepted again, not
 * shorter and with no record cut short, and resuming that one and saving
 * again keeps its conversation's length (a resume closes what was left
 * open once).
 */
#include "common.h"

#include <sys/stat.h>

#include "skit/agent.h"
#include "skit/model.h"
#include "skit/registry.h"
#include "skit/session.h"
#include "fuzz.h"

static skit_registry *reg;
static skit_model *model;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	skit_model_options mo = SKIT_MODEL_OPTIONS_INIT;
	static char spec[4200];

	(void)argc;
	(void)argv;
	fuzz_write(fuzz_path("skills/.keep"), "", 0);
	fuzz_write(fuzz_path("cassette.jsonl"), "{\"text\": \"x\"}\n", 14);
	if (skit_registry_new(&reg, NULL) ||
	    skit_registry_add_root(reg, "project", fuzz_path("skills"), NULL) ||
	    skit_registry_scan(reg, NULL))
		abort();
	snprintf(spec, sizeof(spec), "replay:%s", fuzz_path("cassette.jsonl"));
	mo.spec = spec;
	if (skit_model_new(&model, &mo, NULL))
		abort();
	return 0;
}

/* An agent resuming `path`; NULL when it refuses (err says why). */
static skit_agent *resume(const char *path, skit_error *err)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	skit_agent *a = NULL;

	ao.registry = reg;
	ao.model = model;
	ao.file_tools = false;
	ao.project_instructions = false;
	ao.project_dir = fuzz_dir();
	ao.resume_session = path;
	if (skit_agent_new(&a, &ao, err))
		return NULL;
	return a;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = fuzz_path("in.jsonl"), *out = fuzz_path("out.jsonl"),
	           *out2 = fuzz_path("out2.jsonl");
	skit_session_info info, again;
	skit_error err = { 0 };
	skit_agent *a;
	int rc;

	if (!model) {
		int argc = 0;
		char **argv = NULL;

		LLVMFuzzerInitialize(&argc, &argv);
	}
	if (size > 1 << 20)
		return 0;
	fuzz_write(in, data, size);
	if (chmod(in, 0600))
		abort();
	rc = skit_session_check(in, &info, &err);
	if (rc) {
		FUZZ_CHECK(!info.id && !info.model && !info.first_line &&
		                   !info.messages,
		           "a refused session was described");
		FUZZ_CHECK(!strchr(err.message, '\n'), "%s", err.message);
		a = resume(in, &err);
		FUZZ_CHECK(!a, "an agent resumed a refused session");
		return 0;
	}
	a = resume(in, &err);
	if (!a) {
		/* Only what the check cannot know: the protocol it was held
		 * with, or out of memory. */
		FUZZ_CHECK(err.code == SKIT_EUSAGE || err.code == SKIT_ENOMEM,
		           "a checked session was refused: %s", err.message);
		FUZZ_CHECK(!strchr(err.message, '\n'), "%s", err.message);
		skit_session_info_release(&info);
		return 0;
	}
	FUZZ_CHECK(!skit_agent_session_save(a, out, &err), "save: %s",
	           err.message);
	skit_agent_free(a);
	FUZZ_CHECK(!skit_session_check(out, &again, &err),
	           "the saved session is refused: %s", err.message);
	/* A call left open gets its results, a question its reply: the
	 * saved conversation is at least as long. */
	FUZZ_CHECK(again.messages >= info.messages, "%zu messages, then %zu",
	           info.messages, again.messages);
	FUZZ_CHECK(!again.truncated, "the saved session was cut short");
	a = resume(out, &err);
	FUZZ_CHECK(a, "the saved session does not resume: %s", err.message);
	FUZZ_CHECK(!skit_agent_session_save(a, out2, &err), "save: %s",
	           err.message);
	skit_agent_free(a);
	{
		skit_session_info third;

		FUZZ_CHECK(!skit_session_check(out2, &third, &err), "%s",
		           err.message);
		FUZZ_CHECK(third.messages == again.messages,
		           "%zu messages, then %zu", again.messages,
		           third.messages);
		skit_session_info_release(&third);
	}
	skit_session_info_release(&info);
	skit_session_info_release(&again);
	return 0;
}
