/* SPDX-License-Identifier: MIT */
/*
 * test_subagent.c - the `task` tool and `context: fork` skills through the
 * library API: replay cassettes written by each test (every request
 * captured by the request log, so the tests see what each model was
 * shown), and, for subagents on threads, an OpenAI-compatible server
 * (tests/support/httpd.c). What a subagent is told and offered, the
 * narrowing of its tools, one level only, the budgets it shares with its
 * parent, approvals asked through the parent's hook, its audit sub-run
 * and the links both ways, agent profiles, and forked skills.
 */
#include "common.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "harness.h"
#include "lib/agent/profile.h"
#include "lib/skill/skill_int.h"
#include "support/httpd.h"
#include "skit/agent.h"
#include "skit/host.h"
#include "skit/model.h"
#include "skit/registry.h"
#include "skit/skill.h"

static char world[PATH_MAX / 2];

/* ---- files --------------------------------------------------------------- */

static void fmt(char *buf, size_t cap, const char *f, ...) SKIT_PRINTF(3, 4);

static void fmt(char *buf, size_t cap, const char *f, ...)
{
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf(buf, cap, f, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= cap)
		HARNESS_FAIL("path too long: %s", buf);
}

static const char *at(const char *dir, const char *rel)
{
	static char bufs[16][PATH_MAX];
	static int next;
	char *b = bufs[next++ % 16];

	fmt(b, PATH_MAX, "%s/%s", dir, rel);
	return b;
}

static void rm_rf(const char *path)
{
	struct dirent *de;
	struct stat st;
	char sub[PATH_MAX];
	DIR *d;

	if (lstat(path, &st) < 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(path);
		return;
	}
	d = opendir(path);
	if (d) {
		while ((de = readdir(d))) {
			if (!strcmp(de->d_name, ".") ||
			    !strcmp(de->d_name, ".."))
				continue;
			fmt(sub, sizeof(sub), "%s/%s", path, de->d_name);
			rm_rf(sub);
		}
		closedir(d);
	}
	rmdir(path);
}

static void mkdirs(const char *path)
{
	char tmp[PATH_MAX];

	fmt(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(tmp, 0755);
		*p = '/';
	}
	mkdir(tmp, 0755);
}

static void put(const char *path, const char *text)
{
	char parent[PATH_MAX];
	FILE *f;

	fmt(parent, sizeof(parent), "%s", path);
	*strrchr(parent, '/') = '\0';
	mkdirs(parent);
	f = fopen(path, "wb");
	ASSERT(f);
	ASSERT_EQ(fwrite(text, 1, strlen(text), f), strlen(text));
	ASSERT_OK(fclose(f));
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	size_t len = 0, cap = 4096, n;
	char *s;

	if (!f)
		return NULL;
	s = malloc(cap);
	ASSERT(s);
	while ((n = fread(s + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len < 2) {
			cap *= 2;
			s = realloc(s, cap);
			ASSERT(s);
		}
	}
	fclose(f);
	s[len] = '\0';
	return s;
}

/*
 * The world: a project with skills `plain` (BODY-PLAIN), `forky`
 * (context: fork, BODY-FORKY $ARGUMENTS) and `forky-agent` (context:
 * fork, agent: missing), a file notes.txt, HOME and the config folders
 * of its own, and the user's agent profile `reviewer`.
 */
static void build_world(const char *name)
{
	const char *top = getenv("SKIT_TEST_DIR");

	fmt(world, sizeof(world), "%s/%s",
	    top ? top : "/tmp/skit-test-subagent", name);
	rm_rf(world);
	mkdirs(at(world, "work"));
	mkdirs(at(world, "runs"));
	put(at(world, "project/notes.txt"), "NOTES-MARKER\n");
	put(at(world, "project/.agents/skills/plain/SKILL.md"),
	    "---\nname: plain\ndescription: A plain skill.\n---\n"
	    "BODY-PLAIN\n");
	put(at(world, "project/.agents/skills/forky/SKILL.md"),
	    "---\nname: forky\ndescription: A skill that forks.\n"
	    "context: fork\nallowed-tools: Read\n---\n"
	    "BODY-FORKY for $ARGUMENTS\n");
	put(at(world, "project/.agents/skills/forky-agent/SKILL.md"),
	    "---\nname: forky-agent\ndescription: Forks as an agent.\n"
	    "context: fork\nagent: missing\n---\nBODY-FORKY-AGENT\n");
	put(at(world, "home/.agents/agents/reviewer.md"),
	    "---\nname: reviewer\ndescription: Reviews.\n"
	    "tools: Read, Grep\nmodel: inherit\n---\n"
	    "PROFILE-MARKER: review carefully.\n");
	setenv("HOME", at(world, "home"), 1);
	setenv("XDG_CONFIG_HOME", at(world, "home/.config"), 1);
	unsetenv("SKIT_HOME");
}

/* Write the cassette `name` (JSONL lines) into the world. */
static const char *cassette(const char *name, const char *lines)
{
	static char path[PATH_MAX];

	fmt(path, sizeof(path), "%s/%s", world, name);
	put(path, lines);
	return path;
}

/* ---- the agent ----------------------------------------------------------- */

struct fx {
	skit_policy *pol;
	skit_registry *reg;
	skit_model *model;
	skit_agent *agent;
	char log[PATH_MAX];
	char run_dir[PATH_MAX];
};

/* Open registry, model (`spec`, or replay of `cass`) and agent. */
static void fx_open(struct fx *f, const char *cass, const char *spec_in,
                    const skit_agent_options *tmpl, bool yes)
{
	skit_model_options mo = SKIT_MODEL_OPTIONS_INIT;
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	char spec[PATH_MAX + 16];
	skit_error err = { 0 };

	memset(f, 0, sizeof(*f));
	fmt(f->log, sizeof(f->log), "%s/requests.jsonl", world);
	unlink(f->log);
	ASSERT_OK(skit_registry_new(&f->reg, &err));
	ASSERT_OK(skit_registry_add_root(
	        f->reg, "project", at(world, "project/.agents/skills"), &err));
	ASSERT_OK(skit_registry_scan(f->reg, &err));
	if (spec_in)
		fmt(spec, sizeof(spec), "%s", spec_in);
	else
		fmt(spec, sizeof(spec), "replay:%s", cass);
	mo.spec = spec;
	mo.request_log = f->log;
	mo.api_key = "sk-test-not-a-key";
	mo.max_retries = 1;
	if (skit_model_new(&f->model, &mo, &err))
		HARNESS_FAIL("model: %s", err.message);
	if (tmpl)
		ao = *tmpl;
	ao.registry = f->reg;
	ao.model = f->model;
	ao.workdir = at(world, "work");
	ao.runs_dir =
	        tmpl && tmpl->runs_dir ? tmpl->runs_dir : at(world, "runs");
	ao.project_dir = at(world, "project");
	ao.file_tools = true;
	ao.script_timeout_ms = 5000;
	if (!ao.policy) {
		ASSERT_OK(skit_policy_new(&f->pol, &err));
		skit_policy_set_yes(f->pol, yes);
		ao.policy = f->pol;
	}
	if (skit_agent_new(&f->agent, &ao, &err))
		HARNESS_FAIL("agent: %s", err.message);
	fmt(f->run_dir, sizeof(f->run_dir), "%s", skit_agent_run_dir(f->agent));
}

static void fx_close(struct fx *f, int rc)
{
	ASSERT_OK(skit_agent_finish(f->agent, skit_agent_status(rc), rc ? 1 : 0,
	                            NULL));
	skit_model_free(f->model);
	skit_registry_free(f->reg);
	skit_policy_free(f->pol);
	memset(f, 0, sizeof(*f));
}

/* ---- what the models were shown ------------------------------------------ */

struct reqs {
	json_t *json[32];
	char *line[32];
	char *text;
	size_t n;
};

static void reqs_load(struct reqs *r, const char *path)
{
	char *p, *nl;

	memset(r, 0, sizeof(*r));
	r->text = slurp(path);
	ASSERT(r->text);
	for (p = r->text; (nl = strchr(p, '\n')); p = nl + 1) {
		*nl = '\0';
		ASSERT(r->n < 32);
		r->line[r->n] = p;
		r->json[r->n] = json_loads(p, 0, NULL);
		ASSERT(r->json[r->n]);
		r->n++;
	}
}

static void reqs_free(struct reqs *r)
{
	for (size_t i = 0; i < r->n; i++)
		json_decref(r->json[i]);
	free(r->text);
}

/* Whether request `i` offers tool `name`. */
static bool offers(const struct reqs *r, size_t i, const char *name)
{
	json_t *t;
	size_t k;

	ASSERT(i < r->n);
	json_array_foreach(json_object_get(r->json[i], "tools"), k, t)
	{
		if (!strcmp(json_string_value(json_object_get(t, "name")),
		            name))
			return true;
	}
	return false;
}

/* The text of the result of call `id` in request `i`. */
static const char *result_of(const struct reqs *r, size_t i, const char *id,
                             bool *is_error)
{
	json_t *m;
	size_t k;

	ASSERT(i < r->n);
	json_array_foreach(json_object_get(r->json[i], "messages"), k, m)
	{
		const char *cid =
		        json_string_value(json_object_get(m, "tool_call_id"));

		if (cid && !strcmp(cid, id)) {
			*is_error =
			        json_is_true(json_object_get(m, "is_error"));
			return json_string_value(json_object_get(m, "text"));
		}
	}
	HARNESS_FAIL("request %zu has no result for %s", i + 1, id);
	return NULL;
}

/* Request `i` as logged contains / lacks `s`. */
#define REQ_HAS(r, i, s)   ASSERT((i) < (r)->n && strstr((r)->line[i], (s)))
#define REQ_LACKS(r, i, s) ASSERT((i) < (r)->n && !strstr((r)->line[i], (s)))

/* ---- the trail ----------------------------------------------------------- */

/* The events of `run_dir`, as one array. */
static json_t *events(const char *run_dir)
{
	char *text = slurp(at(run_dir, "events.jsonl")), *p, *nl;
	json_t *a = json_array();

	ASSERT(text);
	for (p = text; (nl = strchr(p, '\n')); p = nl + 1) {
		json_t *e = json_loadb(p, (size_t)(nl - p), 0, NULL);

		ASSERT(e);
		json_array_append_new(a, e);
	}
	free(text);
	return a;
}

/* The `nth` event of `type`, or NULL. */
static json_t *event(json_t *ev, const char *type, size_t nth)
{
	json_t *e;
	size_t i;

	json_array_foreach(ev, i, e)
	{
		if (!strcmp(json_string_value(json_object_get(e, "type")),
		            type) &&
		    nth-- == 0)
			return e;
	}
	return NULL;
}

static const char *str_of(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* ---- hooks --------------------------------------------------------------- */

struct seen {
	char trace[8192];
	size_t tlen;
	int asked;
	char asked_tool[64];
	skit_approve_answer answer;
};

static void on_trace(skit_trace_kind kind, const char *line, void *payload)
{
	struct seen *s = payload;
	size_t n = strlen(line);

	(void)kind;
	if (s->tlen + n + 2 < sizeof(s->trace)) {
		memcpy(s->trace + s->tlen, line, n);
		s->tlen += n;
		s->trace[s->tlen++] = '\n';
		s->trace[s->tlen] = '\0';
	}
}

static skit_approve_answer on_approve(const skit_approval *req, void *payload)
{
	struct seen *s = payload;

	s->asked++;
	fmt(s->asked_tool, sizeof(s->asked_tool), "%s", req->tool);
	return s->answer;
}

/* ---- tests --------------------------------------------------------------- */

static void test_subagent__task_runs(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	struct seen seen = { 0 };
	char *answer = NULL, child[PATH_MAX];
	skit_agent_stats st;
	skit_error err = { 0 };
	json_t *ev, *cev, *e;
	struct reqs r;
	bool is_error;
	struct fx f;
	int rc;

	build_world("task_runs");
	ao.hooks.on_trace = on_trace;
	ao.hooks.payload = &seen;
	fx_open(&f,
	        cassette("c.jsonl",
	                 "{\"tool_calls\":[{\"id\":\"t1\",\"name\":\"task\","
	                 "\"arguments\":{\"description\":\"read notes\","
	                 "\"prompt\":\"CHILD-PROMPT read notes.txt\"}}]}\n"
	                 "{\"expect\":{\"contains\":[\"CHILD-PROMPT\"],"
	                 "\"not_contains\":[\"PARENT-TASK\"]},"
	                 "\"tool_calls\":[{\"id\":\"c1\",\"name\":"
	                 "\"read_file\",\"arguments\":{\"path\":"
	                 "\"notes.txt\"}}],\"usage\":{\"input_tokens\":10,"
	                 "\"output_tokens\":5}}\n"
	                 "{\"expect\":{\"contains\":[\"NOTES-MARKER\"]},"
	                 "\"text\":\"CHILD-ANSWER found it\"}\n"
	                 "{\"expect\":{\"contains\":[\"CHILD-ANSWER\"],"
	                 "\"not_contains\":[\"NOTES-MARKER\"]},"
	                 "\"text\":\"PARENT-DONE\"}\n"),
	        NULL, &ao, true);
	rc = skit_agent_send(f.agent, "PARENT-TASK look at the notes", &answer,
	                     &err);
	if (rc)
		HARNESS_FAIL("send: %s", err.message);
	ASSERT_STR(answer, "PARENT-DONE");
	skit_agent_get_stats(f.agent, &st);
	/* the subagent's turns, calls and tokens count in the parent's */
	ASSERT_EQ(st.turns, 4u);
	ASSERT_EQ(st.tool_calls, 2u);
	ASSERT_EQ(st.usage.input_tokens, 10u);

	reqs_load(&r, f.log);
	ASSERT_EQ(r.n, 4u);
	ASSERT(offers(&r, 0, "task"));
	/* one level: the subagent is not offered task */
	ASSERT(!offers(&r, 1, "task"));
	ASSERT(offers(&r, 1, "read_file"));
	/* a fresh conversation: the task alone */
	ASSERT_EQ(json_array_size(json_object_get(r.json[1], "messages")), 1u);
	REQ_LACKS(&r, 1, "PARENT-TASK");
	ASSERT_STR(result_of(&r, 3, "t1", &is_error),
	           "CHILD-ANSWER found it\n\n[subagent task-1: send_message "
	           "with to \"task-1\" continues its conversation]");
	ASSERT(!is_error);
	reqs_free(&r);

	ev = events(f.run_dir);
	e = event(ev, "subagent_start", 0);
	ASSERT(e);
	ASSERT_STR(str_of(e, "id"), "t1");
	ASSERT_STR(str_of(e, "description"), "read notes");
	ASSERT(!strncmp(str_of(e, "run"), "tasks/", 6));
	fmt(child, sizeof(child), "%s/%s", f.run_dir, str_of(e, "run"));
	e = event(ev, "subagent_end", 0);
	ASSERT(e);
	ASSERT_STR(str_of(e, "status"), "ok");
	ASSERT_EQ(json_integer_value(json_object_get(e, "turns")), 2);
	ASSERT(strstr(seen.trace, "task 1: read notes -> tasks/"));
	ASSERT(strstr(seen.trace, "task 1: turn 1:"));
	json_decref(ev);

	/* the sub-run records its parent */
	cev = events(child);
	e = json_array_get(cev, 0);
	ASSERT_STR(str_of(e, "type"), "parent");
	ASSERT(strstr(f.run_dir, str_of(e, "run")));
	ASSERT(event(cev, "tool_call", 0));
	json_decref(cev);
	/* kept for send_message, the sub-run ends with the session */
	ASSERT(!slurp(at(child, "run.json")));
	skit_free(answer);
	fx_close(&f, rc);
	{
		char *sum = slurp(at(child, "run.json"));

		ASSERT(sum && strstr(sum, "\"status\": \"ok\""));
		free(sum);
	}
}

/*
 * send_message: a subagent that answered is continued with its own
 * conversation, in this task and the next; it is offered only once one
 * answered, never to a subagent; an unknown id and a second message to
 * the same subagent in one response are errors the model sees.
 */
static void test_subagent__send_message(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	struct seen seen = { 0 };
	char *answer = NULL, child[PATH_MAX];
	skit_error err = { 0 };
	json_t *ev, *e, *msgs;
	struct reqs r;
	bool is_error;
	struct fx f;
	int rc;

	build_world("send_message");
	ao.hooks.on_trace = on_trace;
	ao.hooks.payload = &seen;
	fx_open(&f,
	        cassette("c.jsonl",
	                 "{\"tool_calls\":[{\"id\":\"t1\",\"name\":\"task\","
	                 "\"arguments\":{\"description\":\"remember\","
	                 "\"prompt\":\"CHILD-PROMPT the word is KIWI\"}}]}\n"
	                 "{\"expect\":{\"contains\":[\"CHILD-PROMPT\"]},"
	                 "\"text\":\"CHILD-ONE noted\"}\n"
	                 "{\"expect\":{\"contains\":[\"CHILD-ONE\","
	                 "\"task-1\"]},\"tool_calls\":["
	                 "{\"id\":\"m1\",\"name\":\"send_message\","
	                 "\"arguments\":{\"to\":\"task-1\",\"message\":"
	                 "\"CHILD-FOLLOWUP which word?\",\"summary\":"
	                 "\"ask the word\"}},"
	                 "{\"id\":\"m2\",\"name\":\"send_message\","
	                 "\"arguments\":{\"to\":\"task-1\",\"message\":"
	                 "\"again\"}},"
	                 "{\"id\":\"m3\",\"name\":\"send_message\","
	                 "\"arguments\":{\"to\":\"task-9\",\"message\":"
	                 "\"hello\"}}]}\n"
	                 "{\"expect\":{\"contains\":[\"CHILD-PROMPT\","
	                 "\"CHILD-ONE\",\"CHILD-FOLLOWUP\"]},"
	                 "\"text\":\"CHILD-TWO KIWI\"}\n"
	                 "{\"expect\":{\"contains\":[\"CHILD-TWO KIWI\"]},"
	                 "\"text\":\"PARENT-DONE\"}\n"
	                 "{\"tool_calls\":[{\"id\":\"m4\",\"name\":"
	                 "\"send_message\",\"arguments\":{\"to\":"
	                 "\"task-1\",\"message\":\"CHILD-THIRD\"}}]}\n"
	                 "{\"expect\":{\"contains\":[\"CHILD-FOLLOWUP\","
	                 "\"CHILD-THIRD\"]},\"text\":\"CHILD-THREE\"}\n"
	                 "{\"expect\":{\"contains\":[\"CHILD-THREE\"]},"
	                 "\"text\":\"PARENT-DONE-2\"}\n"),
	        NULL, &ao, true);
	rc = skit_agent_send(f.agent, "PARENT-TASK", &answer, &err);
	if (rc)
		HARNESS_FAIL("send: %s", err.message);
	ASSERT_STR(answer, "PARENT-DONE");
	skit_free(answer);
	answer = NULL;
	/* the next task of the session continues it too */
	rc = skit_agent_send(f.agent, "PARENT-TASK-2", &answer, &err);
	if (rc)
		HARNESS_FAIL("send 2: %s", err.message);
	ASSERT_STR(answer, "PARENT-DONE-2");

	reqs_load(&r, f.log);
	ASSERT_EQ(r.n, 8u);
	/* offered once a subagent answered, never to a subagent */
	ASSERT(!offers(&r, 0, "send_message"));
	ASSERT(!offers(&r, 1, "send_message"));
	ASSERT(offers(&r, 2, "send_message"));
	ASSERT(!offers(&r, 3, "send_message"));
	/* the subagent's own conversation goes on: task, answer, message */
	msgs = json_object_get(r.json[3], "messages");
	ASSERT_EQ(json_array_size(msgs), 3u);
	REQ_LACKS(&r, 3, "PARENT-TASK");
	ASSERT_STR(result_of(&r, 4, "m1", &is_error),
	           "CHILD-TWO KIWI\n\n[subagent task-1: send_message with to "
	           "\"task-1\" continues its conversation]");
	ASSERT(!is_error);
	ASSERT(strstr(result_of(&r, 4, "m2", &is_error),
	              "task-1 already has a message in this response"));
	ASSERT(is_error);
	ASSERT(strstr(result_of(&r, 4, "m3", &is_error),
	              "no subagent 'task-9' to continue; the subagents of "
	              "this session that can be are: task-1"));
	ASSERT(is_error);
	ASSERT_EQ(json_array_size(json_object_get(r.json[6], "messages")), 5u);
	reqs_free(&r);

	ev = events(f.run_dir);
	e = event(ev, "subagent_message", 0);
	ASSERT(e);
	ASSERT_STR(str_of(e, "id"), "m1");
	ASSERT_STR(str_of(e, "summary"), "ask the word");
	ASSERT_EQ(json_integer_value(json_object_get(e, "task")), 1);
	ASSERT(event(ev, "subagent_message", 1));
	ASSERT(!event(ev, "subagent_message", 2));
	/* each answer counted apart: one turn each */
	e = event(ev, "subagent_end", 1);
	ASSERT(e);
	ASSERT_EQ(json_integer_value(json_object_get(e, "turns")), 1);
	fmt(child, sizeof(child), "%s/%s", f.run_dir,
	    str_of(event(ev, "subagent_start", 0), "run"));
	json_decref(ev);
	ASSERT(strstr(seen.trace, "task 1: message: ask the word"));
	skit_free(answer);
	fx_close(&f, rc);
	{
		char *sum = slurp(at(child, "run.json"));

		/* the sub-run ends with its parent: three turns in all */
		ASSERT(sum && strstr(sum, "\"status\": \"ok\""));
		ASSERT(strstr(sum, "\"turns\": 3"));
		free(sum);
	}
}

/*
 * Eight subagents kept (the most): a response that starts a ninth and
 * messages the oldest keeps the one messaged (now the most recently
 * used) and ends the next oldest, without touching a job twice (ASan).
 */
static void test_subagent__evict_messaged(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	char *answer = NULL, lines[8192];
	skit_error err = { 0 };
	struct reqs r;
	bool is_error;
	size_t o = 0;
	struct fx f;
	int rc;

	build_world("evict_messaged");
	o += (size_t)snprintf(lines + o, sizeof(lines) - o,
	                      "{\"tool_calls\":[");
	for (int i = 1; i <= 8; i++)
		o += (size_t)snprintf(lines + o, sizeof(lines) - o,
		                      "%s{\"id\":\"t%d\",\"name\":\"task\","
		                      "\"arguments\":{\"description\":\"d%d\","
		                      "\"prompt\":\"P%d\"}}",
		                      i > 1 ? "," : "", i, i, i);
	o += (size_t)snprintf(lines + o, sizeof(lines) - o, "]}\n");
	for (int i = 1; i <= 8; i++)
		o += (size_t)snprintf(lines + o, sizeof(lines) - o,
		                      "{\"text\":\"CHILD-%d\"}\n", i);
	o += (size_t)snprintf(
	        lines + o, sizeof(lines) - o,
	        "{\"tool_calls\":[{\"id\":\"t9\",\"name\":\"task\","
	        "\"arguments\":{\"description\":\"d9\",\"prompt\":\"P9\"}},"
	        "{\"id\":\"m1\",\"name\":\"send_message\",\"arguments\":"
	        "{\"to\":\"task-1\",\"message\":\"again\"}}]}\n"
	        "{\"text\":\"CHILD-9\"}\n{\"text\":\"CHILD-1-AGAIN\"}\n"
	        "{\"tool_calls\":[{\"id\":\"m2\",\"name\":\"send_message\","
	        "\"arguments\":{\"to\":\"task-2\",\"message\":\"gone?\"}}]}\n"
	        "{\"text\":\"PARENT-DONE\"}\n");
	fx_open(&f, cassette("c.jsonl", lines), NULL, &ao, true);
	rc = skit_agent_send(f.agent, "PARENT", &answer, &err);
	if (rc)
		HARNESS_FAIL("send: %s", err.message);
	ASSERT_STR(answer, "PARENT-DONE");
	reqs_load(&r, f.log);
	ASSERT_EQ(r.n, 14u);
	ASSERT_STR(result_of(&r, 12, "m1", &is_error),
	           "CHILD-1-AGAIN\n\n[subagent task-1: send_message with to "
	           "\"task-1\" continues its conversation]");
	ASSERT(strstr(result_of(&r, 13, "m2", &is_error),
	              "no subagent 'task-2' to continue; the subagents of "
	              "this session that can be are: task-3, task-4, task-5, "
	              "task-6, task-7, task-8, task-1, task-9"));
	ASSERT(is_error);
	reqs_free(&r);
	skit_free(answer);
	fx_close(&f, rc);
}

static void test_subagent__narrowed(void)
{
	struct seen seen = { 0 };
	char *answer = NULL;
	skit_error err = { 0 };
	struct reqs r;
	bool is_error;
	struct fx f;
	int rc;

	build_world("narrowed");
	/* --yes: the parent may run shell; the task narrows to Read */
	fx_open(&f,
	        cassette("c.jsonl",
	                 "{\"tool_calls\":[{\"id\":\"t1\",\"name\":\"task\","
	                 "\"arguments\":{\"description\":\"d\",\"prompt\":"
	                 "\"p\",\"tools\":[\"Read\"]}}]}\n"
	                 "{\"tool_calls\":[{\"id\":\"c1\",\"name\":\"shell\","
	                 "\"arguments\":{\"command\":\"echo SHOULD-NOT-RUN"
	                 "\"}},{\"id\":\"c2\",\"name\":\"task\","
	                 "\"arguments\":{\"description\":\"d\",\"prompt\":"
	                 "\"p\"}}]}\n"
	                 "{\"text\":\"CHILD-OK\"}\n"
	                 "{\"text\":\"PARENT-OK\"}\n"),
	        NULL, NULL, true);
	(void)seen;
	rc = skit_agent_send(f.agent, "go", &answer, &err);
	if (rc)
		HARNESS_FAIL("send: %s", err.message);
	reqs_load(&r, f.log);
	ASSERT(offers(&r, 0, "shell"));
	ASSERT(!offers(&r, 1, "shell"));
	ASSERT(!offers(&r, 1, "write_file"));
	ASSERT(offers(&r, 1, "read_file"));
	ASSERT(offers(&r, 1, "grep"));
	ASSERT_CONTAINS(result_of(&r, 2, "c1", &is_error), "not available");
	ASSERT(is_error);
	ASSERT_CONTAINS(result_of(&r, 2, "c2", &is_error),
	                "cannot start subagents");
	ASSERT(is_error);
	REQ_LACKS(&r, 2, "SHOULD-NOT-RUN\\n");
	reqs_free(&r);
	skit_free(answer);
	fx_close(&f, rc);
}

static void test_subagent__refused(void)
{
	skit_error err = { 0 };
	char *answer = NULL;
	struct reqs r;
	bool is_error;
	struct fx f;
	json_t *ev;
	int rc;

	build_world("refused");
	fx_open(&f,
	        cassette("c.jsonl",
	                 "{\"tool_calls\":[{\"id\":\"t1\",\"name\":\"task\","
	                 "\"arguments\":{\"description\":\"d\",\"prompt\":"
	                 "\"p\"}},{\"id\":\"t2\",\"name\":\"task\","
	                 "\"arguments\":{\"description\":\"\",\"prompt\":"
	                 "\"p\"}},{\"id\":\"t3\",\"name\":\"task\","
	                 "\"arguments\":{\"description\":\"d\",\"prompt\":"
	                 "\"p\",\"subagent_type\":\"nobody\"}}]}\n"
	                 "{\"text\":\"CHILD-OK\"}\n"
	                 "{\"text\":\"PARENT-OK\"}\n"),
	        NULL, NULL, true);
	rc = skit_agent_send(f.agent, "go", &answer, &err);
	if (rc)
		HARNESS_FAIL("send: %s", err.message);
	reqs_load(&r, f.log);
	/* one subagent ran, the two bad calls were answered in order */
	ASSERT_EQ(r.n, 3u);
	ASSERT_STR(result_of(&r, 2, "t1", &is_error),
	           "CHILD-OK\n\n[subagent task-1: send_message "
	           "with to \"task-1\" continues its conversation]");
	ASSERT_CONTAINS(result_of(&r, 2, "t2", &is_error), "description");
	ASSERT(is_error);
	ASSERT_CONTAINS(result_of(&r, 2, "t3", &is_error),
	                "no agent profile named 'nobody'");
	ASSERT(is_error);
	reqs_free(&r);
	ev = events(f.run_dir);
	ASSERT(event(ev, "subagent_start", 0));
	ASSERT(!event(ev, "subagent_start", 1));
	json_decref(ev);
	skit_free(answer);
	fx_close(&f, rc);
}

static void test_subagent__denied(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	skit_error err = { 0 };
	char *answer = NULL;
	struct reqs r;
	bool is_error;
	struct fx f;
	int rc;

	build_world("denied");
	ASSERT_OK(skit_policy_new((skit_policy **)&ao.policy, &err));
	ASSERT_OK(skit_policy_add((skit_policy *)ao.policy,
	                          SKIT_POLICY_LIST_DENY, "Agent", &err));
	fx_open(&f,
	        cassette("c.jsonl",
	                 "{\"tool_calls\":[{\"id\":\"t1\",\"name\":\"task\","
	                 "\"arguments\":{\"description\":\"d\",\"prompt\":"
	                 "\"p\"}}]}\n"
	                 "{\"text\":\"PARENT-OK\"}\n"),
	        NULL, &ao, false);
	rc = skit_agent_send(f.agent, "go", &answer, &err);
	if (rc)
		HARNESS_FAIL("send: %s", err.message);
	reqs_load(&r, f.log);
	ASSERT(!offers(&r, 0, "task"));
	ASSERT_CONTAINS(result_of(&r, 1, "t1", &is_error), "not available");
	ASSERT(is_error);
	reqs_free(&r);
	skit_free(answer);
	fx_close(&f, rc);
	skit_policy_free((skit_policy *)ao.policy);
}

static void test_subagent__shared_budget(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	skit_error err = { 0 };
	char *answer = NULL;
	struct reqs r;
	bool is_error;
	struct fx f;
	json_t *ev;
	int rc;

	build_world("shared_budget");
	ao.max_turns = 3;
	fx_open(&f,
	        cassette("c.jsonl",
	                 "{\"tool_calls\":[{\"id\":\"t1\",\"name\":\"task\","
	                 "\"arguments\":{\"description\":\"d\",\"prompt\":"
	                 "\"p\"}}]}\n"
	                 "{\"tool_calls\":[{\"id\":\"c1\",\"name\":"
	                 "\"read_file\",\"arguments\":{\"path\":"
	                 "\"notes.txt\"}}]}\n"
	                 "{\"tool_calls\":[{\"id\":\"c2\",\"name\":"
	                 "\"read_file\",\"arguments\":{\"path\":"
	                 "\"notes.txt\"}}]}\n"
	                 "{\"text\":\"NEVER-SENT\"}\n"),
	        NULL, &ao, true);
	rc = skit_agent_send(f.agent, "go", &answer, &err);
	/* 1 parent turn + 2 of the subagent: the third of the subagent
	 * and the parent's next are over the shared budget */
	ASSERT_EQ(rc, SKIT_ELIMIT);
	ASSERT_CONTAINS(err.message, "turn budget");
	reqs_load(&r, f.log);
	ASSERT_EQ(r.n, 3u);
	reqs_free(&r);
	ev = events(f.run_dir);
	ASSERT_STR(str_of(event(ev, "subagent_end", 0), "status"), "limit");
	json_decref(ev);
	(void)is_error;
	skit_free(answer);
	fx_close(&f, rc);
}

static void test_subagent__approval(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	struct seen seen = { 0 };
	skit_error err = { 0 };
	char *answer = NULL;
	struct reqs r;
	bool is_error;
	struct fx f;
	int rc;

	build_world("approval");
	ao.hooks.on_approve = on_approve;
	ao.hooks.payload = &seen;
	seen.answer = SKIT_APPROVE_NO;
	fx_open(&f,
	        cassette("c.jsonl",
	                 "{\"tool_calls\":[{\"id\":\"t1\",\"name\":\"task\","
	                 "\"arguments\":{\"description\":\"d\",\"prompt\":"
	                 "\"p\"}}]}\n"
	                 "{\"tool_calls\":[{\"id\":\"c1\",\"name\":\"shell\","
	                 "\"arguments\":{\"command\":\"echo hi\"}}]}\n"
	                 "{\"expect\":{\"contains\":[\"declined\"]},"
	                 "\"text\":\"CHILD-GAVE-UP\"}\n"
	                 "{\"text\":\"PARENT-OK\"}\n"),
	        NULL, &ao, false);
	rc = skit_agent_send(f.agent, "go", &answer, &err);
	if (rc)
		HARNESS_FAIL("send: %s", err.message);
	/* the subagent's call was put to the parent's hook */
	ASSERT_EQ(seen.asked, 1);
	ASSERT_STR(seen.asked_tool, "shell");
	reqs_load(&r, f.log);
	ASSERT_STR(result_of(&r, 3, "t1", &is_error),
	           "CHILD-GAVE-UP\n\n[subagent task-1: send_message "
	           "with to \"task-1\" continues its conversation]");
	reqs_free(&r);
	skit_free(answer);
	fx_close(&f, rc);

	/* no one to ask: refused, and the model is told */
	build_world("approval_none");
	fx_open(&f,
	        cassette("c.jsonl",
	                 "{\"tool_calls\":[{\"id\":\"t1\",\"name\":\"task\","
	                 "\"arguments\":{\"description\":\"d\",\"prompt\":"
	                 "\"p\"}}]}\n"
	                 "{\"tool_calls\":[{\"id\":\"c1\",\"name\":"
	                 "\"write_file\",\"arguments\":{\"path\":\"x.txt\","
	                 "\"content\":\"x\"}}]}\n"
	                 "{\"expect\":{\"contains\":[\"no one to ask\"]},"
	                 "\"text\":\"CHILD-GAVE-UP\"}\n"
	                 "{\"text\":\"PARENT-OK\"}\n"),
	        NULL, NULL, false);
	rc = skit_agent_send(f.agent, "go", &answer, &err);
	if (rc)
		HARNESS_FAIL("send: %s", err.message);
	ASSERT(access(at(world, "project/x.txt"), F_OK) != 0);
	skit_free(answer);
	fx_close(&f, rc);
}

static void test_subagent__profile(void)
{
	skit_error err = { 0 };
	char *answer = NULL;
	struct reqs r;
	struct fx f;
	json_t *ev;
	int rc;

	build_world("profile");
	fx_open(&f,
	        cassette("c.jsonl",
	                 "{\"tool_calls\":[{\"id\":\"t1\",\"name\":\"task\","
	                 "\"arguments\":{\"description\":\"review\","
	                 "\"prompt\":\"TASK-TEXT\",\"subagent_type\":"
	                 "\"reviewer\"}}]}\n"
	                 "{\"expect\":{\"contains\":[\"PROFILE-MARKER\","
	                 "\"TASK-TEXT\"]},\"text\":\"REVIEWED\"}\n"
	                 "{\"text\":\"PARENT-OK\"}\n"),
	        NULL, NULL, true);
	rc = skit_agent_send(f.agent, "go", &answer, &err);
	if (rc)
		HARNESS_FAIL("send: %s", err.message);
	reqs_load(&r, f.log);
	/* the profile's tools: Read and Grep only */
	ASSERT(offers(&r, 1, "read_file"));
	ASSERT(offers(&r, 1, "grep"));
	ASSERT(!offers(&r, 1, "shell"));
	ASSERT(!offers(&r, 1, "write_file"));
	REQ_HAS(&r, 2, "REVIEWED");
	reqs_free(&r);
	ev = events(f.run_dir);
	ASSERT_STR(str_of(event(ev, "subagent_start", 0), "profile"),
	           "reviewer");
	json_decref(ev);
	skit_free(answer);
	fx_close(&f, rc);
}

/* Claude Code's built-in Explore: read-only tools and its instructions,
 * unless a profile file of that name says otherwise. */
static void test_subagent__builtin_profiles(void)
{
	skit_error err = { 0 };
	char *answer = NULL;
	struct reqs r;
	struct fx f;
	json_t *ev;
	int rc;

	build_world("builtin");
	fx_open(&f,
	        cassette(
	                "c.jsonl",
	                "{\"tool_calls\":[{\"id\":\"t1\",\"name\":\"task\","
	                "\"arguments\":{\"description\":\"find\","
	                "\"prompt\":\"TASK-TEXT\",\"subagent_type\":"
	                "\"Explore\"}}]}\n"
	                "{\"expect\":{\"contains\":[\"You explore a codebase\","
	                "\"TASK-TEXT\"]},\"text\":\"FOUND\"}\n"
	                "{\"text\":\"PARENT-OK\"}\n"),
	        NULL, NULL, true);
	rc = skit_agent_send(f.agent, "go", &answer, &err);
	if (rc)
		HARNESS_FAIL("send: %s", err.message);
	reqs_load(&r, f.log);
	ASSERT(offers(&r, 1, "read_file"));
	ASSERT(offers(&r, 1, "grep"));
	ASSERT(offers(&r, 1, "glob"));
	ASSERT(!offers(&r, 1, "shell"));
	ASSERT(!offers(&r, 1, "write_file"));
	ASSERT(!offers(&r, 1, "edit_file"));
	REQ_HAS(&r, 2, "FOUND");
	reqs_free(&r);
	ev = events(f.run_dir);
	ASSERT_STR(str_of(event(ev, "subagent_start", 0), "profile"),
	           "Explore");
	json_decref(ev);
	skit_free(answer);
	fx_close(&f, rc);

	/* the user's own Explore wins */
	put(at(world, "home/.agents/agents/Explore.md"),
	    "---\nname: Explore\ndescription: Mine.\ntools: Bash\n---\n"
	    "MY-EXPLORE-MARKER\n");
	answer = NULL;
	fx_open(&f,
	        cassette("c2.jsonl",
	                 "{\"tool_calls\":[{\"id\":\"t1\",\"name\":\"task\","
	                 "\"arguments\":{\"description\":\"find\","
	                 "\"prompt\":\"TASK-TEXT\",\"subagent_type\":"
	                 "\"Explore\"}}]}\n"
	                 "{\"expect\":{\"contains\":[\"MY-EXPLORE-MARKER\"]},"
	                 "\"text\":\"FOUND\"}\n"
	                 "{\"text\":\"PARENT-OK\"}\n"),
	        NULL, NULL, true);
	rc = skit_agent_send(f.agent, "go", &answer, &err);
	if (rc)
		HARNESS_FAIL("send: %s", err.message);
	reqs_load(&r, f.log);
	ASSERT(offers(&r, 1, "shell"));
	ASSERT(!offers(&r, 1, "read_file"));
	reqs_free(&r);
	skit_free(answer);
	fx_close(&f, rc);
}

static void test_subagent__fork(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	struct seen seen = { 0 };
	skit_error err = { 0 };
	char *answer = NULL;
	struct reqs r;
	bool is_error;
	struct fx f;
	json_t *ev, *e;
	int rc;

	build_world("fork");
	ao.hooks.on_trace = on_trace;
	ao.hooks.payload = &seen;
	fx_open(&f,
	        cassette("c.jsonl",
	                 "{\"tool_calls\":[{\"id\":\"u1\",\"name\":"
	                 "\"use_skill\",\"arguments\":{\"name\":\"forky\","
	                 "\"arguments\":\"ARG-ONE\"}}]}\n"
	                 "{\"expect\":{\"contains\":[\"BODY-FORKY for "
	                 "ARG-ONE\"]},\"tool_calls\":[{\"id\":\"c1\",\"name\":"
	                 "\"shell\",\"arguments\":{\"command\":\"true\"}}]}\n"
	                 "{\"text\":\"FORK-ANSWER\"}\n"
	                 "{\"expect\":{\"contains\":[\"FORK-ANSWER\"],"
	                 "\"not_contains\":[\"BODY-FORKY\"]},"
	                 "\"tool_calls\":[{\"id\":\"u2\",\"name\":"
	                 "\"use_skill\",\"arguments\":{\"name\":"
	                 "\"forky-agent\"}}]}\n"
	                 "{\"text\":\"AGENT-FORK-ANSWER\"}\n"
	                 "{\"text\":\"PARENT-OK\"}\n"),
	        NULL, &ao, true);
	rc = skit_agent_send(f.agent, "go", &answer, &err);
	if (rc)
		HARNESS_FAIL("send: %s", err.message);
	ASSERT_STR(answer, "PARENT-OK");
	/* the skill is active in the subagent, not in the parent */
	ASSERT_EQ(skit_agent_active_count(f.agent), 0u);
	reqs_load(&r, f.log);
	ASSERT_EQ(r.n, 6u);
	/* the fork's allowed-tools (Read) apply to the subagent */
	ASSERT(!offers(&r, 1, "shell"));
	ASSERT_CONTAINS(result_of(&r, 2, "c1", &is_error), "not available");
	ASSERT_CONTAINS(result_of(&r, 3, "u1", &is_error),
	                "ran as a subagent (context: fork)");
	ASSERT(!is_error);
	ASSERT_CONTAINS(result_of(&r, 5, "u2", &is_error), "AGENT-FORK-ANSWER");
	reqs_free(&r);
	/* agent: missing is reported */
	ASSERT(strstr(seen.trace, "agent 'missing' not used"));
	ev = events(f.run_dir);
	e = event(ev, "subagent_start", 0);
	ASSERT_STR(str_of(e, "skill"), "forky");
	e = event(ev, "note", 0);
	ASSERT(e);
	ASSERT_STR(str_of(e, "code"), "agent-profile-missing");
	json_decref(ev);
	skit_free(answer);
	fx_close(&f, rc);
}

/*
 * Subagents on threads: an OpenAI-compatible server, three task calls in
 * one response, every subagent with a model of its own. The children's
 * answers are alike, so the order the server answers them in does not
 * matter.
 */
static void test_subagent__parallel(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	httpd_response hr = HTTPD_RESPONSE_INIT;
	struct seen seen = { 0 };
	skit_error err = { 0 };
	char *answer = NULL, spec[64];
	skit_agent_stats st;
	struct httpd *h;
	struct reqs r;
	bool is_error;
	struct fx f;
	json_t *ev;
	int rc;

	build_world("parallel");
	ASSERT_OK(httpd_start(&h));
	hr.body = "{\"choices\":[{\"message\":{\"role\":\"assistant\","
	          "\"content\":null,\"tool_calls\":["
	          "{\"id\":\"t1\",\"type\":\"function\",\"function\":{\"name\":"
	          "\"task\",\"arguments\":\"{\\\"description\\\":\\\"a\\\","
	          "\\\"prompt\\\":\\\"PA\\\"}\"}},"
	          "{\"id\":\"t2\",\"type\":\"function\",\"function\":{\"name\":"
	          "\"task\",\"arguments\":\"{\\\"description\\\":\\\"b\\\","
	          "\\\"prompt\\\":\\\"PB\\\"}\"}},"
	          "{\"id\":\"t3\",\"type\":\"function\",\"function\":{\"name\":"
	          "\"task\",\"arguments\":\"{\\\"description\\\":\\\"c\\\","
	          "\\\"prompt\\\":\\\"PC\\\"}\"}}]},"
	          "\"finish_reason\":\"tool_calls\"}],"
	          "\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":1}}";
	httpd_push(h, &hr);
	hr.body = "{\"choices\":[{\"message\":{\"role\":\"assistant\","
	          "\"content\":\"CHILD-DONE\"},\"finish_reason\":\"stop\"}],"
	          "\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":1}}";
	hr.delay_ms = 50;
	for (int i = 0; i < 3; i++)
		httpd_push(h, &hr);
	hr.delay_ms = 0;
	hr.body = "{\"choices\":[{\"message\":{\"role\":\"assistant\","
	          "\"content\":\"ALL-DONE\"},\"finish_reason\":\"stop\"}]}";
	httpd_push(h, &hr);
	fmt(spec, sizeof(spec), "openai:test-model");
	setenv("OPENAI_BASE_URL", httpd_url(h), 1);
	ao.max_parallel_tasks = 3;
	ao.hooks.on_trace = on_trace;
	ao.hooks.payload = &seen;
	fx_open(&f, NULL, spec, &ao, true);
	rc = skit_agent_send(f.agent, "go", &answer, &err);
	if (rc)
		HARNESS_FAIL("send: %s", err.message);
	ASSERT_STR(answer, "ALL-DONE");
	skit_agent_get_stats(f.agent, &st);
	ASSERT_EQ(st.turns, 5u);
	ASSERT_EQ(st.usage.input_tokens, 31u);
	reqs_load(&r, f.log);
	ASSERT_EQ(r.n, 5u);
	ASSERT_STR(result_of(&r, 4, "t1", &is_error),
	           "CHILD-DONE\n\n[subagent task-1: send_message "
	           "with to \"task-1\" continues its conversation]");
	ASSERT_STR(result_of(&r, 4, "t2", &is_error),
	           "CHILD-DONE\n\n[subagent task-2: send_message with to "
	           "\"task-2\" continues its conversation]");
	ASSERT_STR(result_of(&r, 4, "t3", &is_error),
	           "CHILD-DONE\n\n[subagent task-3: send_message with to "
	           "\"task-3\" continues its conversation]");
	/* each subagent got its own prompt, alone */
	for (size_t i = 1; i < 4; i++)
		ASSERT_EQ(
		        json_array_size(json_object_get(r.json[i], "messages")),
		        1u);
	reqs_free(&r);
	ev = events(f.run_dir);
	for (size_t i = 0; i < 3; i++)
		ASSERT_STR(str_of(event(ev, "subagent_end", i), "status"),
		           "ok");
	json_decref(ev);
	skit_free(answer);
	fx_close(&f, rc);
	unsetenv("OPENAI_BASE_URL");
	httpd_stop(h);
}

/* The tool-call budget is shared too, and a long answer is cut. */
static void test_subagent__call_budget_and_cap(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	skit_error err = { 0 };
	char *answer = NULL, *cass;
	const char *res;
	struct reqs r;
	bool is_error;
	struct fx f;
	size_t n;
	int rc;

	build_world("call_budget");
	ao.max_tool_calls = 2;
	fx_open(&f,
	        cassette("c.jsonl",
	                 "{\"tool_calls\":[{\"id\":\"t1\",\"name\":\"task\","
	                 "\"arguments\":{\"description\":\"d\",\"prompt\":"
	                 "\"p\"}}]}\n"
	                 "{\"tool_calls\":[{\"id\":\"c1\",\"name\":"
	                 "\"read_file\",\"arguments\":{\"path\":"
	                 "\"notes.txt\"}}]}\n"
	                 "{\"tool_calls\":[{\"id\":\"c2\",\"name\":"
	                 "\"read_file\",\"arguments\":{\"path\":"
	                 "\"notes.txt\"}}]}\n"
	                 "{\"text\":\"PARENT-OK\"}\n"),
	        NULL, &ao, true);
	rc = skit_agent_send(f.agent, "go", &answer, &err);
	if (rc)
		HARNESS_FAIL("send: %s", err.message);
	reqs_load(&r, f.log);
	res = result_of(&r, r.n - 1, "t1", &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(res, "the subagent stopped: tool-call budget");
	ASSERT_CONTAINS(res, "shared with the main agent");
	reqs_free(&r);
	skit_free(answer);
	fx_close(&f, rc);

	/* an answer over 64 KiB reaches the parent cut, with a note */
	build_world("answer_cap");
	n = 70 * 1024;
	cass = malloc(n + 512);
	ASSERT(cass);
	{
		static const char head[] =
		        "{\"tool_calls\":[{\"id\":\"t1\",\"name\":\"task\","
		        "\"arguments\":{\"description\":\"d\",\"prompt\":"
		        "\"p\"}}]}\n{\"text\":\"";
		static const char tail[] =
		        "END-OF-ANSWER\"}\n{\"text\":\"PARENT-OK\"}\n";

		memcpy(cass, head, sizeof(head) - 1);
		memset(cass + sizeof(head) - 1, 'A', n);
		memcpy(cass + sizeof(head) - 1 + n, tail, sizeof(tail));
	}
	fx_open(&f, cassette("c.jsonl", cass), NULL, NULL, true);
	free(cass);
	rc = skit_agent_send(f.agent, "go", &answer, &err);
	if (rc)
		HARNESS_FAIL("send: %s", err.message);
	reqs_load(&r, f.log);
	res = result_of(&r, r.n - 1, "t1", &is_error);
	ASSERT(!is_error);
	ASSERT_CONTAINS(res, "[the answer was cut at 64 KiB]");
	ASSERT(!strstr(res, "END-OF-ANSWER"));
	ASSERT(strlen(res) < 66 * 1024);
	reqs_free(&r);
	skit_free(answer);
	fx_close(&f, rc);
}

/* "Always" answers hold both ways: the session's for its subagents, and
 * a subagent's for the rest of the session. */
static void test_subagent__always(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	struct seen seen = { 0 };
	skit_error err = { 0 };
	char *answer = NULL;
	struct reqs r;
	bool is_error;
	struct fx f;
	int rc;

	build_world("always");
	ao.hooks.on_approve = on_approve;
	ao.hooks.payload = &seen;
	seen.answer = SKIT_APPROVE_ALWAYS;
	fx_open(&f,
	        cassette("c.jsonl",
	                 "{\"tool_calls\":[{\"id\":\"p1\",\"name\":\"shell\","
	                 "\"arguments\":{\"command\":\"echo P1\"}}]}\n"
	                 "{\"tool_calls\":[{\"id\":\"t1\",\"name\":\"task\","
	                 "\"arguments\":{\"description\":\"d\",\"prompt\":"
	                 "\"p\"}}]}\n"
	                 "{\"tool_calls\":[{\"id\":\"c1\",\"name\":\"shell\","
	                 "\"arguments\":{\"command\":\"echo C1\"}},"
	                 "{\"id\":\"c2\",\"name\":\"shell\",\"arguments\":"
	                 "{\"command\":\"pwd\"}}]}\n"
	                 "{\"text\":\"CHILD-OK\"}\n"
	                 "{\"tool_calls\":[{\"id\":\"p2\",\"name\":\"shell\","
	                 "\"arguments\":{\"command\":\"pwd\"}}]}\n"
	                 "{\"text\":\"PARENT-OK\"}\n"),
	        NULL, &ao, false);
	rc = skit_agent_send(f.agent, "go", &answer, &err);
	if (rc)
		HARNESS_FAIL("send: %s", err.message);
	/* asked for echo (the parent) and pwd (the subagent) only */
	ASSERT_EQ(seen.asked, 2);
	reqs_load(&r, f.log);
	ASSERT_CONTAINS(result_of(&r, r.n - 1, "p2", &is_error), "project");
	ASSERT(!is_error);
	reqs_free(&r);
	skit_free(answer);
	fx_close(&f, rc);
}

/* A host's own loop (skit/host.h) has no model to give a subagent: task
 * is not offered there, and a call is refused. */
static void test_subagent__not_for_hosts(void)
{
	skit_host_options ho = SKIT_HOST_OPTIONS_INIT;
	skit_registry *reg = NULL;
	skit_error err = { 0 };
	char *tools = NULL, *res = NULL;
	skit_host *h = NULL;
	bool is_error = false, changed = false;

	build_world("hosts");
	ASSERT_OK(skit_registry_new(&reg, &err));
	ASSERT_OK(skit_registry_add_root(
	        reg, "project", at(world, "project/.agents/skills"), &err));
	ASSERT_OK(skit_registry_scan(reg, &err));
	ho.registry = reg;
	ho.project_dir = at(world, "project");
	ho.runs_dir = at(world, "runs");
	ASSERT_OK(skit_host_new(&h, &ho, &err));
	ASSERT_OK(skit_host_tools(h, SKIT_TOOLS_OPENAI, &tools, &err));
	ASSERT(strstr(tools, "\"use_skill\""));
	ASSERT(!strstr(tools, "\"task\""));
	ASSERT_OK(skit_host_call(h, "task",
	                         "{\"description\":\"d\",\"prompt\":\"p\"}",
	                         &res, &is_error, &changed, &err));
	ASSERT(is_error);
	ASSERT_CONTAINS(res, "no model to run a subagent");
	skit_free(tools);
	skit_free(res);
	skit_host_free(h);
	skit_registry_free(reg);
}

/* A subagent's tools may not write its parent's trail, wherever the runs
 * folder is (here inside the project, not .agents/runs). */
static void test_subagent__parent_trail_protected(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	skit_error err = { 0 };
	char *answer = NULL, runs[PATH_MAX];
	struct reqs r;
	bool is_error;
	struct fx f;
	int rc;

	build_world("trail");
	fmt(runs, sizeof(runs), "%s", at(world, "project/myruns"));
	mkdirs(runs);
	ao.runs_dir = runs;
	fx_open(&f,
	        cassette("c.jsonl",
	                 "{\"tool_calls\":[{\"id\":\"t1\",\"name\":\"task\","
	                 "\"arguments\":{\"description\":\"d\",\"prompt\":"
	                 "\"p\"}}]}\n"
	                 "{\"tool_calls\":[{\"id\":\"c1\",\"name\":"
	                 "\"write_file\",\"arguments\":{\"path\":"
	                 "\"myruns/forged.txt\",\"content\":\"FORGED\"}}]}\n"
	                 "{\"text\":\"CHILD-OK\"}\n"
	                 "{\"text\":\"PARENT-OK\"}\n"),
	        NULL, &ao, true);
	rc = skit_agent_send(f.agent, "go", &answer, &err);
	if (rc)
		HARNESS_FAIL("send: %s", err.message);
	ASSERT(access(at(runs, "forged.txt"), F_OK) != 0);
	reqs_load(&r, f.log);
	ASSERT_CONTAINS(result_of(&r, 2, "c1", &is_error), "protected");
	ASSERT(is_error);
	reqs_free(&r);
	skit_free(answer);
	fx_close(&f, rc);
}

/* The lints of Claude Code's subagent fields (skit validate). */
static bool lint_has(const char *dir, const char *code)
{
	skit_skill_options opts = SKIT_SKILL_OPTIONS_INIT;
	skit_skill *s = NULL;
	const skit_diag *d;
	bool found = false;
	size_t n;

	/* lenient: the spec's validation refuses fields outside it */
	opts.flags = SKIT_SKILL_LINT | SKIT_SKILL_LENIENT;
	ASSERT_OK(skit_skill_load(&s, dir, &opts, NULL));
	ASSERT(skit_skill_valid(s));
	d = skit_skill_diags(s, &n);
	for (size_t i = 0; i < n; i++)
		found = found || !strcmp(d[i].code, code);
	skit_skill_free(s);
	return found;
}

static void test_subagent__lints(void)
{
	build_world("lints");
	put(at(world, "lint/nobody/SKILL.md"),
	    "---\nname: nobody\ndescription: d\ncontext: fork\n"
	    "agent: nobody\n---\nB\n");
	put(at(world, "lint/reviewer/SKILL.md"),
	    "---\nname: reviewer\ndescription: d\ncontext: fork\n"
	    "agent: reviewer\n---\nB\n");
	put(at(world, "lint/nofork/SKILL.md"),
	    "---\nname: nofork\ndescription: d\nagent: reviewer\n---\nB\n");
	put(at(world, "lint/inline/SKILL.md"),
	    "---\nname: inline\ndescription: d\ncontext: inline\n---\nB\n");
	put(at(world, "lint/search/SKILL.md"),
	    "---\nname: search\ndescription: d\n"
	    "allowed-tools: Read Task WebSearch\n---\nB\n");
	put(at(world, "lint/explore/SKILL.md"),
	    "---\nname: explore\ndescription: d\ncontext: fork\n"
	    "agent: Explore\n---\nB\n");
	ASSERT(lint_has(at(world, "lint/nobody"), "agent-profile-missing"));
	/* Claude Code's built-in agents need no file; the lint and the
	 * profiles know the same ones */
	ASSERT(!lint_has(at(world, "lint/explore"), "agent-profile-missing"));
	ASSERT(skit__profile_builtin("Explore") &&
	       skit__skill_builtin_agent("Explore"));
	ASSERT(skit__profile_builtin("Plan") &&
	       skit__skill_builtin_agent("Plan"));
	ASSERT(!skit__profile_builtin("general-purpose") &&
	       skit__skill_builtin_agent("general-purpose"));
	ASSERT(!skit__profile_builtin("explore") &&
	       !skit__skill_builtin_agent("explore"));
	/* the user's profile (home/.agents/agents/reviewer.md) is found */
	ASSERT(!lint_has(at(world, "lint/reviewer"), "agent-profile-missing"));
	ASSERT(lint_has(at(world, "lint/nofork"), "agent-without-fork"));
	ASSERT(lint_has(at(world, "lint/inline"), "context-unknown"));
	ASSERT(!lint_has(at(world, "lint/reviewer"), "context-unknown"));
	/* Task is offered; WebSearch only with a backend */
	ASSERT(lint_has(at(world, "lint/search"), "allowed-tools-not-offered"));
	ASSERT(!lint_has(at(world, "lint/search"),
	                 "allowed-tools-unknown-tool"));
}

/* With the JSON action protocol the tools are listed in the system
 * prompt: a subagent's lists what it has (no task), not its parent's. */
static void test_subagent__json_actions(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	char *answer = NULL;
	skit_error err = { 0 };
	struct reqs r;
	struct fx f;
	int rc;

	build_world("json_actions");
	ao.json_actions = true;
	fx_open(&f,
	        cassette("c.jsonl",
	                 "{\"text\":\"{\\\"action\\\": \\\"task\\\", "
	                 "\\\"description\\\": \\\"look\\\", \\\"prompt\\\": "
	                 "\\\"CHILD-PROMPT\\\"}\"}\n"
	                 "{\"expect\":{\"contains\":[\"CHILD-PROMPT\"]},"
	                 "\"text\":\"CHILD-ANSWER\"}\n"
	                 "{\"expect\":{\"contains\":[\"CHILD-ANSWER\"]},"
	                 "\"text\":\"PARENT-DONE\"}\n"),
	        NULL, &ao, true);
	rc = skit_agent_send(f.agent, "PARENT-TASK", &answer, &err);
	if (rc)
		HARNESS_FAIL("send: %s", err.message);
	ASSERT_STR(answer, "PARENT-DONE");
	reqs_load(&r, f.log);
	ASSERT_EQ(r.n, 3u);
	REQ_HAS(&r, 0, "- task: ");
	REQ_LACKS(&r, 1, "- task: ");
	REQ_HAS(&r, 1, "- read_file: ");
	reqs_free(&r);
	skit_free(answer);
	fx_close(&f, rc);
}

/* clang-format off */
TEST_MAIN(
	TEST(test_subagent__task_runs)
	TEST(test_subagent__send_message)
	TEST(test_subagent__evict_messaged)
	TEST(test_subagent__narrowed)
	TEST(test_subagent__refused)
	TEST(test_subagent__denied)
	TEST(test_subagent__shared_budget)
	TEST(test_subagent__call_budget_and_cap)
	TEST(test_subagent__approval)
	TEST(test_subagent__always)
	TEST(test_subagent__parent_trail_protected)
	TEST(test_subagent__profile)
	TEST(test_subagent__builtin_profiles)
	TEST(test_subagent__fork)
	TEST(test_subagent__parallel)
	TEST(test_subagent__not_for_hosts)
	TEST(test_subagent__json_actions)
	TEST(test_subagent__lints))
/* clang-format on */
