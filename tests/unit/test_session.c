/* SPDX-License-Identifier: MIT */
/*
 * test_session.c - sessions through the library API (skit/session.h):
 * save a session anywhere and resume it in a new agent (the request log
 * shows the same conversation going to the model), a session without an
 * audit trail, refusal of damaged files (nothing half-loaded: the agent
 * is not created), a record cut short by a crash, skit_session_find(),
 * compaction on request with the active skill's text re-attached, the
 * context figures, and the model table of context windows.
 */
#include "common.h"

#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "skit/agent.h"
#include "skit/model.h"
#include "skit/registry.h"
#include "skit/session.h"

static char dir[1024];

static const char *at(const char *rel)
{
	static char buf[16][1400];
	static int k;

	k = (k + 1) % 16;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, rel);
	return buf[k];
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ASSERT(f);
	fputs(text, f);
	fclose(f);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *s;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	s = malloc((size_t)n + 1);
	ASSERT(s);
	s[fread(s, 1, (size_t)n, f)] = '\0';
	fclose(f);
	return s;
}

static void setup(void)
{
	const char *base = getenv("SKIT_TEST_DIR");
	char cmd[2400];

	snprintf(dir, sizeof(dir), "%s/session", base ? base : "/tmp");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s/skills/alpha'",
	         dir, dir);
	ASSERT_OK(system(cmd));
	put(at("skills/alpha/SKILL.md"),
	    "---\nname: alpha\ndescription: The alpha skill.\n---\n"
	    "BODY-MARKER-alpha\n");
}

struct fx {
	skit_registry *reg;
	skit_model *model;
	skit_agent *agent;
};

/* An agent over skills/ with the replay cassette `cassette` (text),
 * its requests logged to `log`, resuming `resume` (may be NULL). */
static int open_fx(struct fx *f, const char *cassette, const char *log,
                   const char *resume, const char *runs, skit_error *err)
{
	skit_model_options mo = SKIT_MODEL_OPTIONS_INIT;
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	char spec[1500];
	int rc;

	memset(f, 0, sizeof(*f));
	put(at("cassette.jsonl"), cassette);
	ASSERT_OK(skit_registry_new(&f->reg, NULL));
	ASSERT_OK(
	        skit_registry_add_root(f->reg, "project", at("skills"), NULL));
	ASSERT_OK(skit_registry_scan(f->reg, NULL));
	snprintf(spec, sizeof(spec), "replay:%s", at("cassette.jsonl"));
	mo.spec = spec;
	mo.request_log = log;
	ASSERT_OK(skit_model_new(&f->model, &mo, NULL));
	ao.registry = f->reg;
	ao.model = f->model;
	ao.runs_dir = runs;
	ao.project_dir = dir;
	ao.file_tools = false;
	ao.resume_session = resume;
	rc = skit_agent_new(&f->agent, &ao, err);
	return rc;
}

static void close_fx(struct fx *f)
{
	skit_agent_free(f->agent);
	skit_model_free(f->model);
	skit_registry_free(f->reg);
}

static void test_session__save_and_resume(void)
{
	struct fx f;
	skit_error err = { 0 };
	skit_session_info info;
	char *answer = NULL, *log;

	setup();
	ASSERT_OK(open_fx(&f,
	                  "{\"tool_calls\": [{\"id\": \"u1\", \"name\": "
	                  "\"use_skill\", \"arguments\": {\"name\": "
	                  "\"alpha\"}}]}\n{\"text\": \"ANSWER-ONE\"}\n",
	                  NULL, NULL, NULL, &err));
	ASSERT_OK(skit_agent_send(f.agent, "task with APPLE", &answer, &err));
	ASSERT_STR(answer, "ANSWER-ONE");
	skit_free(answer);
	/* No trail: no id, but the session saves anywhere. */
	ASSERT(skit_agent_session_id(f.agent) == NULL);
	ASSERT_OK(skit_agent_session_save(f.agent, at("saved.jsonl"), &err));
	close_fx(&f);

	ASSERT_OK(skit_session_check(at("saved.jsonl"), &info, &err));
	ASSERT_EQ(info.messages, 4);
	ASSERT_EQ(info.skills, 1);
	ASSERT_STR(info.first_line, "task with APPLE");
	ASSERT(!info.truncated);
	skit_session_info_release(&info);

	if (open_fx(&f, "{\"text\": \"ANSWER-TWO\"}\n", at("req.jsonl"),
	            at("saved.jsonl"), NULL, &err))
		HARNESS_FAIL("resume: %s", err.message);
	ASSERT_EQ(skit_agent_active_count(f.agent), 1);
	ASSERT_STR(skit_agent_active_skill(f.agent, 0), "alpha");
	ASSERT_OK(skit_agent_send(f.agent, "and BANANA", &answer, &err));
	ASSERT_STR(answer, "ANSWER-TWO");
	skit_free(answer);
	ASSERT(skit_agent_resumed_from(f.agent) != NULL);
	close_fx(&f);
	log = slurp(at("req.jsonl"));
	ASSERT_CONTAINS(log, "task with APPLE");
	ASSERT_CONTAINS(log, "BODY-MARKER-alpha");
	ASSERT_CONTAINS(log, "ANSWER-ONE");
	ASSERT_CONTAINS(log, "and BANANA");
	free(log);
}

/* Write `text` as the session file and try to resume it. */
static int resume_text(const char *text, skit_error *err)
{
	struct fx f;
	int rc;

	put(at("bad.jsonl"), text);
	ASSERT_OK(chmod(at("bad.jsonl"), 0600));
	rc = open_fx(&f, "{\"text\": \"X\"}\n", NULL, at("bad.jsonl"), NULL,
	             err);
	ASSERT(rc != 0 || f.agent != NULL);
	if (!rc)
		close_fx(&f);
	else {
		ASSERT(f.agent == NULL);
		skit_model_free(f.model);
		skit_registry_free(f.reg);
	}
	return rc;
}

#define HEAD                                                        \
 "{\"n\":0,\"type\":\"session\",\"format\":\"skit-session\","       \
 "\"version\":1,\"id\":null,\"skit\":\"0\",\"model\":\"replay:x\"," \
 "\"project\":\"/\",\"json_actions\":false}\n"

static void test_session__damaged_refused(void)
{
	skit_error err = { 0 };

	setup();
	/* another format version */
	ASSERT_EQ(resume_text("{\"n\":0,\"type\":\"session\",\"format\":"
	                      "\"skit-session\",\"version\":7,\"skit\":"
	                      "\"9.9\"}\n",
	                      &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "format 7");
	/* not a session at all */
	ASSERT_EQ(resume_text("{\"hello\": 1}\n", &err), SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "not a skit session file");
	/* a bad line in the middle */
	ASSERT_EQ(resume_text(HEAD "{\"n\":1,\"type\":\"message\",\"role\":"
	                           "\"user\",\"text\":\"a\"}\n{oops\n"
	                           "{\"n\":3,\"type\":\"message\",\"role\":"
	                           "\"assistant\",\"text\":\"b\"}\n",
	                      &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "line 3");
	/* a tool result that answers no call */
	ASSERT_EQ(resume_text(HEAD "{\"n\":1,\"type\":\"message\",\"role\":"
	                           "\"tool\",\"text\":\"r\",\"call_id\":\"c\","
	                           "\"tool_name\":\"t\"}\n",
	                      &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "answers no call");
	/* a record of a type from the future */
	ASSERT_EQ(resume_text(HEAD "{\"n\":1,\"type\":\"hologram\"}\n", &err),
	          SKIT_EINVALID);
	/* a gap in the sequence */
	ASSERT_EQ(resume_text(HEAD "{\"n\":2,\"type\":\"message\",\"role\":"
	                           "\"user\",\"text\":\"a\"}\n",
	                      &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "out of sequence");
	/* a file others may write, or read: not from this user's skit */
	ASSERT_EQ(resume_text(HEAD, &err), 0);
	ASSERT_OK(chmod(at("bad.jsonl"), 0644));
	{
		struct fx f;

		ASSERT_EQ(open_fx(&f, "{\"text\": \"X\"}\n", NULL,
		                  at("bad.jsonl"), NULL, &err),
		          SKIT_EUNSAFE);
		ASSERT_CONTAINS(err.message, "mode 644");
		skit_model_free(f.model);
		skit_registry_free(f.reg);
	}
	/* a missing file */
	ASSERT_EQ(resume_text("", &err), SKIT_EINVALID);
	/* the last record cut short by a crash is left out; the rest loads */
	ASSERT_OK(resume_text(HEAD "{\"n\":1,\"type\":\"message\",\"role\":"
	                           "\"user\",\"text\":\"a\"}\n{\"n\":2,\"ty",
	                      &err));
}

static void test_session__find(void)
{
	struct fx f;
	skit_error err = { 0 };
	char *path = NULL, *answer = NULL, id[128];

	setup();
	ASSERT_EQ(skit_session_find(at("runs"), dir, "last", &path, &err),
	          SKIT_ENOTFOUND);
	ASSERT_OK(open_fx(&f, "{\"text\": \"A\"}\n", NULL, NULL, at("runs"),
	                  &err));
	ASSERT_OK(skit_agent_send(f.agent, "one", &answer, &err));
	skit_free(answer);
	snprintf(id, sizeof(id), "%s", skit_agent_session_id(f.agent));
	/* a running session is not "last" */
	ASSERT_EQ(skit_session_find(at("runs"), dir, "last", &path, &err),
	          SKIT_ENOTFOUND);
	ASSERT_OK(skit_agent_finish(f.agent, "ok", 0, &err));
	skit_model_free(f.model);
	skit_registry_free(f.reg);
	ASSERT_OK(skit_session_find(at("runs"), dir, "last", &path, &err));
	ASSERT_CONTAINS(path, id);
	skit_free(path);
	ASSERT_OK(skit_session_find(at("runs"), NULL, id, &path, &err));
	skit_free(path);
	id[12] = '\0'; /* a unique prefix */
	ASSERT_OK(skit_session_find(at("runs"), NULL, id, &path, &err));
	skit_free(path);
	ASSERT_EQ(skit_session_find(at("runs"), NULL, "../etc", &path, &err),
	          SKIT_EINVALID);
	/* another project's session is not this project's last */
	ASSERT_EQ(skit_session_find(at("runs"), "/nonexistent-project", "last",
	                            &path, &err),
	          SKIT_ENOTFOUND);
}

static void test_session__compact_on_request(void)
{
	struct fx f;
	skit_error err = { 0 };
	skit_agent_context_info ci;
	char *answer = NULL, *log;

	setup();
	ASSERT_OK(open_fx(&f,
	                  "{\"tool_calls\": [{\"id\": \"u1\", \"name\": "
	                  "\"use_skill\", \"arguments\": {\"name\": "
	                  "\"alpha\"}}]}\n{\"text\": \"FIRST\"}\n"
	                  "{\"text\": \"SECOND\"}\n"
	                  "{\"text\": \"THE-SUMMARY\"}\n"
	                  "{\"text\": \"THIRD\", \"expect\": {\"contains\": "
	                  "[\"THE-SUMMARY\", \"BODY-MARKER-alpha\"], "
	                  "\"not_contains\": [\"OLD-DETAIL\"]}}\n",
	                  at("req.jsonl"), NULL, NULL, &err));
	ASSERT_OK(skit_agent_send(f.agent, "OLD-DETAIL one", &answer, &err));
	skit_free(answer);
	ASSERT_OK(skit_agent_send(f.agent, "two", &answer, &err));
	skit_free(answer);
	skit_agent_context(f.agent, &ci);
	ASSERT_EQ(ci.messages, 6);
	ASSERT_EQ(ci.window, 0); /* replay: no window unless given */
	ASSERT_OK(skit_agent_compact(f.agent, "the fruit", &err));
	skit_agent_context(f.agent, &ci);
	ASSERT_EQ(ci.compactions, 1);
	ASSERT_EQ(ci.messages, 2);
	ASSERT_OK(skit_agent_send(f.agent, "three", &answer, &err));
	ASSERT_STR(answer, "THIRD");
	skit_free(answer);
	close_fx(&f);
	log = slurp(at("req.jsonl"));
	ASSERT_CONTAINS(log, "You compact the conversation");
	ASSERT_CONTAINS(log, "Focus on: the fruit");
	free(log);
}

static void test_session__window_table(void)
{
	uint64_t w = 0;

	ASSERT(skit_model_error_is_overflow(
	        "HTTP 400: This model's maximum context length is 16385 "
	        "tokens. However, your messages resulted in 20000 tokens.",
	        &w));
	ASSERT_EQ(w, 16385);
	ASSERT(skit_model_error_is_overflow("HTTP 400: prompt is too long: "
	                                    "210000 tokens > 200000 maximum",
	                                    NULL));
	ASSERT(!skit_model_error_is_overflow("HTTP 401: invalid api key", &w));
	ASSERT_EQ(w, 0);
	ASSERT(!skit_model_error_is_overflow(NULL, NULL));
}

/* clang-format off */
/*
 * A session a repository carries in its trail (.agents/runs), private
 * like skit's own (a checkout under umask 077), naming the project: not
 * in the user's ledger, so neither "last" nor a check takes it while the
 * project is not trusted; the user's own session is found instead.
 */
static void test_session__planted_in_trail(void)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	char runs[1200], planted[1400], own[80], text[3000], *path = NULL;
	skit_session_info info;
	skit_error err = { 0 };
	char *answer = NULL, *ledger;
	struct fx f;

	if (!xdg || strncmp(xdg, "/", 1)) {
		printf("note: no private XDG_CONFIG_HOME; skipped\n");
		return;
	}
	setup();
	snprintf(runs, sizeof(runs), "%s", at(".agents/runs"));
	snprintf(text, sizeof(text), "mkdir -p '%s' '%s'", runs, xdg);
	ASSERT_OK(system(text));
	ASSERT_OK(open_fx(&f, "{\"text\": \"MINE\"}\n", NULL, NULL, runs,
	                  &err));
	ASSERT_OK(skit_agent_send(f.agent, "my own task", &answer, &err));
	skit_free(answer);
	ASSERT(skit_agent_session_id(f.agent));
	snprintf(own, sizeof(own), "%s", skit_agent_session_id(f.agent));
	close_fx(&f);

	/* the planted one: newer, private, naming this project */
	snprintf(planted, sizeof(planted),
	         "%s/20990101T000000Z-deadbeef/session.jsonl", runs);
	snprintf(text, sizeof(text), "mkdir -p '%s/20990101T000000Z-deadbeef'",
	         runs);
	ASSERT_OK(system(text));
	snprintf(text, sizeof(text),
	         "{\"n\":0,\"type\":\"session\",\"format\":"
	         "\"skit-session\",\"version\":1,\"id\":"
	         "\"20990101T000000Z-deadbeef\",\"skit\":\"0\",\"model\":"
	         "\"replay:x\",\"project\":\"%s\",\"json_actions\":false}\n"
	         "{\"n\":1,\"type\":\"message\",\"role\":\"user\","
	         "\"text\":\"PLANTED\"}\n",
	         dir);
	put(planted, text);
	ASSERT_OK(chmod(planted, 0600));

	ASSERT_OK(skit_session_find(runs, dir, "last", &path, &err));
	ASSERT_CONTAINS(path, own);
	skit_free(path);
	ASSERT_EQ(skit_session_check(planted, &info, &err), SKIT_EUNSAFE);
	ASSERT_CONTAINS(err.message, "not a session your skit made");
	/* the ledger holds the user's own */
	snprintf(text, sizeof(text), "%s/skit/sessions", xdg);
	ledger = slurp(text);
	ASSERT(ledger);
	ASSERT_CONTAINS(ledger, own);
	ASSERT(!strstr(ledger, "deadbeef"));
	free(ledger);
	/* a project the user trusts vouches for its files */
	ASSERT_OK(skit_trust_add(dir, &err));
	ASSERT_OK(skit_session_check(planted, &info, &err));
	skit_session_info_release(&info);
	ASSERT_OK(skit_trust_remove(dir, &err));
}

TEST_MAIN(
	TEST(test_session__save_and_resume)
	TEST(test_session__damaged_refused)
	TEST(test_session__find)
	TEST(test_session__compact_on_request)
	TEST(test_session__window_table)
	TEST(test_session__planted_in_trail))
/* clang-format on */
