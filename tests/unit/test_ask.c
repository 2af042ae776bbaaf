/* SPDX-License-Identifier: MIT */
/*
 * test_ask.c - ask_user through the library: the program's on_ask hook
 * answers (an option or its own words, the question and options as the
 * model asked), no hook (or options of an older version) tells the model
 * no one can answer, a hook's failure ends the task, and bad questions
 * are refused before anyone is asked.
 */
#include "common.h"

#include <unistd.h>

#include "harness.h"
#include "skit/skit.h"
#include "util/buf.h"
#include "util/fs.h"

static char logpath[PATH_MAX];
static int calls;
static size_t last_options;
static int hook_status;

static int answer(const skit_question *q, skit_tool_output *out, void *payload)
{
	(void)payload;
	calls++;
	last_options = q->option_count;
	if (hook_status)
		return hook_status;
	if (q->option_count)
		return skit_tool_output_puts(out, q->options[1]);
	return skit_tool_output_puts(out, "nothing more");
}

/* Run the ask cassette with `version` options and `hook`; the request
 * log's text. */
static const char *cassette = "ask.jsonl";

static int run(unsigned int version, skit_ask_fn hook, struct skitx_buf *log)
{
	const char *src = getenv("SKIT_SOURCE_DIR"),
	           *top = getenv("SKIT_TEST_DIR");
	skit_model_options mo = SKIT_MODEL_OPTIONS_INIT;
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	char spec[PATH_MAX + 16], work[PATH_MAX];
	skit_registry *reg = NULL;
	skit_model *model = NULL;
	skit_agent *a = NULL;
	skit_error err = { 0 };
	int rc;

	snprintf(logpath, sizeof(logpath), "%s/req.jsonl", top ? top : "/tmp");
	snprintf(work, sizeof(work), "%s/work", top ? top : "/tmp");
	unlink(logpath);
	ASSERT_OK(skitx_fs_mkdir_p(work, 0700));
	snprintf(spec, sizeof(spec), "replay:%s/tests/fixtures/agent/%s",
	         src ? src : ".", cassette);
	mo.spec = spec;
	mo.request_log = logpath;
	ASSERT_OK(skit_registry_new(&reg, &err));
	ASSERT_OK(skit_registry_scan(reg, &err));
	ASSERT_OK(skit_model_new(&model, &mo, &err));
	ao.version = version;
	ao.registry = reg;
	ao.model = model;
	ao.workdir = work;
	ao.project_dir = work;
	ao.on_ask = hook;
	ASSERT_OK(skit_agent_new(&a, &ao, &err));
	rc = skit_agent_send(a, "go", NULL, &err);
	skit_agent_free(a);
	skit_model_free(model);
	skit_registry_free(reg);
	skitx_buf_init(log, 0);
	if (skitx_fs_read_file(logpath, log, 1 << 20) < 0)
		skitx_buf_clear(log);
	return rc;
}

static void test_ask__hook_answers(void)
{
	struct skitx_buf log;

	calls = 0;
	hook_status = 0;
	ASSERT_OK(run(SKIT_AGENT_OPTIONS_VERSION, answer, &log));
	ASSERT_EQ(calls, 2);
	ASSERT_EQ(last_options, 0);
	ASSERT_CONTAINS(log.ptr, "The user answered: CSV");
	ASSERT_CONTAINS(log.ptr, "The user answered: nothing more");
	ASSERT(!strstr(log.ptr, "No one can answer"));
	skitx_buf_release(&log);
}

static void test_ask__no_one(void)
{
	struct skitx_buf log;

	/* No hook. */
	calls = 0;
	ASSERT_OK(run(SKIT_AGENT_OPTIONS_VERSION, NULL, &log));
	ASSERT_CONTAINS(log.ptr, "No one can answer a question now");
	ASSERT(!strstr(log.ptr, "The user answered"));
	skitx_buf_release(&log);
	/* Options of version 2 have no on_ask: it is never read. */
	ASSERT_OK(run(2, answer, &log));
	ASSERT_EQ(calls, 0);
	ASSERT_CONTAINS(log.ptr, "No one can answer a question now");
	skitx_buf_release(&log);
	/* The hook itself may say no one can answer. */
	hook_status = SKIT_ENOTFOUND;
	ASSERT_OK(run(SKIT_AGENT_OPTIONS_VERSION, answer, &log));
	ASSERT_CONTAINS(log.ptr, "No one can answer a question now");
	skitx_buf_release(&log);
	/* Another failure ends the task with its status. */
	hook_status = SKIT_EIO;
	ASSERT_EQ(run(SKIT_AGENT_OPTIONS_VERSION, answer, &log), SKIT_EIO);
	skitx_buf_release(&log);
	hook_status = 0;
}

static void test_ask__bad_questions(void)
{
	struct skitx_buf log;

	calls = 0;
	cassette = "ask_bad.jsonl";
	ASSERT_OK(run(SKIT_AGENT_OPTIONS_VERSION, answer, &log));
	cassette = "ask.jsonl";
	ASSERT_EQ(calls, 0);
	ASSERT_CONTAINS(log.ptr,
	                "\\\"question\\\" must be text of 1 to 2000 bytes");
	ASSERT_CONTAINS(log.ptr, "\\\"options\\\" must be at most 10 strings");
	ASSERT_CONTAINS(log.ptr, "each option must be text of 1 to 200 bytes");
	skitx_buf_release(&log);
}

/* clang-format off */
TEST_MAIN(
	TEST(test_ask__hook_answers)
	TEST(test_ask__no_one)
	TEST(test_ask__bad_questions))
/* clang-format on */
