/* SPDX-License-Identifier: MIT */
/*
 * test_tool_provider.c - a tiny tool provider registered with the agent
 * through src/lib/tools/tool_provider.h, called by a scripted (replay) model:
 * its tools reach the model after the skill tools and only as the policy
 * lets them be seen; each call is routed to it by name, decided by the
 * agent's one gate (policy, then the approval hook) and audited there
 * before the provider runs; a name another provider already has stays
 * with that provider; the provider sees the run through its context and
 * writes to the same trail; and the agent releases it at the end.
 */
#include "common.h"

#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "harness.h"
#include "skit/agent.h"
#include "skit/model.h"
#include "skit/registry.h"
#include "lib/tools/tool_provider.h"

/* The probe provider's state, owned by the test (so it outlives the
 * agent and the test can read what happened). */
struct probe {
	unsigned int calls, released;
	char last[64];
	char project[PATH_MAX];
};

/* clang-format off */
static const skit_tool_schema look_schema = {
	"mcp__probe__look", "Look at something (read-only).",
	"{\"type\":\"object\",\"properties\":{\"what\":{\"type\":"
	"\"string\"}}}"
};
static const skit_tool_schema poke_schema = {
	"mcp__probe__poke", "Poke something (changes it).",
	"{\"type\":\"object\"}"
};
static const skit_tool_schema blocked_schema = {
	"mcp__probe__blocked", "Denied by the user's pattern.",
	"{\"type\":\"object\"}"
};
/* The same name as a skill tool: it must stay the skill provider's. */
static const skit_tool_schema clash_schema = {
	"use_skill", "A second use_skill that must never be called.",
	"{\"type\":\"object\"}"
};
/* clang-format on */

static size_t probe_list(void *self, const struct skit__tool_ctx *c,
                         struct skit__tool_def *out, size_t max)
{
	const skit_tool_schema *all[] = { &clash_schema, &look_schema,
		                          &poke_schema, &blocked_schema };
	size_t n = 0;

	(void)self;
	(void)c;
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(all) && n < max; i++) {
		out[n].schema = *all[i];
		out[n].risk = all[i] == &look_schema ? SKIT_RISK_READ
		                                     : SKIT_RISK_EXECUTE;
		out[n].gate = SKIT__GATE_EXTERNAL;
		out[n].offered = true;
		out[n].hint = "";
		n++;
	}
	return n;
}

/* The gate shows and audits what the provider says the call acts on. */
static int probe_target(void *self, const char *tool, json_t *args,
                        struct skitx_buf *t, const char **skill)
{
	json_t *what = json_object_get(args, "what");

	(void)self;
	*skill = NULL;
	return skitx_buf_printf(t, "%s on %s", tool + strlen("mcp__probe__"),
	                        json_is_string(what) ? json_string_value(what)
	                                             : "nothing");
}

static int probe_call(void *self, struct skit__tool_ctx *c, const char *tool,
                      json_t *args, struct skitx_buf *out, bool *is_error,
                      skit_error *err)
{
	struct probe *p = self;

	(void)args;
	(void)err;
	/* the context is the run's: its project folder, its trail */
	ASSERT_STR(c->project_dir, p->project);
	ASSERT(c->policy != NULL);
	p->calls++;
	snprintf(p->last, sizeof(p->last), "%s", tool);
	skit__tool_audit(c, "probe_ran", json_pack("{s:s}", "tool", tool));
	*is_error = false;
	return skitx_buf_printf(out, "PROBE-RESULT %s", tool) ? SKIT_ENOMEM : 0;
}

static void probe_release(void *self)
{
	((struct probe *)self)->released++;
}

static const struct skit__tool_provider_ops probe_ops = {
	"probe", probe_list, probe_target, probe_call, probe_release,
};

/* The approval hook: poke on "door" is approved, anything else declined. */
struct asked {
	unsigned int n;
	char target[128];
};

static skit_approve_answer approve(const skit_approval *req, void *payload)
{
	struct asked *k = payload;

	k->n++;
	snprintf(k->target, sizeof(k->target), "%s", req->target);
	ASSERT_STR(req->tool, "mcp__probe__poke");
	ASSERT_STR(req->always, "calls of mcp__probe__poke");
	return strstr(req->target, "door") ? SKIT_APPROVE_YES : SKIT_APPROVE_NO;
}

/* ---- scratch files ---------------------------------------------------- */

static char dir[PATH_MAX / 2];

/* The scratch folder (SKIT_TEST_DIR), made with its parents. */
static void setup(void)
{
	const char *base = getenv("SKIT_TEST_DIR");

	snprintf(dir, sizeof(dir), "%s",
	         base && *base ? base : "/tmp/skit-test-tool-provider");
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(dir, 0755);
		*p = '/';
	}
	mkdir(dir, 0755);
}

static const char *at(const char *rel)
{
	static char buf[4][PATH_MAX];
	static unsigned int k;
	char *b = buf[k++ % 4];

	snprintf(b, PATH_MAX, "%s/%s", dir, rel);
	return b;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ASSERT(f != NULL);
	fputs(text, f);
	fclose(f);
}

static json_t *load_lines(const char *path)
{
	json_t *all = json_array();
	char line[65536];
	FILE *f = fopen(path, "r");

	ASSERT(f != NULL);
	while (fgets(line, sizeof(line), f)) {
		json_t *j = json_loads(line, 0, NULL);

		ASSERT(j != NULL);
		json_array_append_new(all, j);
	}
	fclose(f);
	return all;
}

/* The names of the tools of request `i` of the log, space-separated. */
static void tool_names(json_t *reqs, size_t i, char *out, size_t cap)
{
	json_t *t;
	size_t k;

	out[0] = '\0';
	json_array_foreach(json_object_get(json_array_get(reqs, i), "tools"), k,
	                   t)
	{
		snprintf(out + strlen(out), cap - strlen(out), "%s ",
		         json_string_value(json_object_get(t, "name")));
	}
}

/* The trail's events of `type` as "tool:field" words, in order. */
static void events_of(json_t *ev, const char *type, const char *field,
                      char *out, size_t cap)
{
	json_t *e;
	size_t k;

	out[0] = '\0';
	json_array_foreach(ev, k, e)
	{
		const char *t = json_string_value(json_object_get(e, "type"));
		json_t *f = json_object_get(e, field);

		if (!t || strcmp(t, type))
			continue;
		snprintf(
		        out + strlen(out), cap - strlen(out), "%s:%s ",
		        json_string_value(json_object_get(e, "tool"))
		                ? json_string_value(json_object_get(e, "tool"))
		                : json_string_value(json_object_get(e, "name")),
		        json_is_string(f) ? json_string_value(f)
		        : json_is_true(f) ? "true"
		                          : "false");
	}
}

/* ---- the test --------------------------------------------------------- */

static void test_tool_provider__routing_policy_audit(void)
{
	skit_model_options mo = SKIT_MODEL_OPTIONS_INIT;
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	struct probe probe = { 0 };
	struct asked asked = { 0 };
	skit_registry *reg = NULL;
	skit_model *model = NULL;
	skit_policy *pol = NULL;
	skit_agent *a = NULL;
	skit_error err = { 0 };
	char spec[PATH_MAX + 16], names[2048], got[2048], run[PATH_MAX];
	json_t *reqs, *ev;
	char *answer = NULL;

	setup();
	mkdir(at("project"), 0755);
	mkdir(at("skills"), 0755);
	put(at("cassette.jsonl"),
	    "{\"tool_calls\": ["
	    "{\"id\": \"c1\", \"name\": \"mcp__probe__look\", "
	    "\"arguments\": {\"what\": \"sky\"}},"
	    "{\"id\": \"c2\", \"name\": \"mcp__probe__poke\", "
	    "\"arguments\": {\"what\": \"door\"}},"
	    "{\"id\": \"c3\", \"name\": \"mcp__probe__poke\", "
	    "\"arguments\": {\"what\": \"wall\"}},"
	    "{\"id\": \"c4\", \"name\": \"mcp__probe__blocked\", "
	    "\"arguments\": {}},"
	    "{\"id\": \"c5\", \"name\": \"use_skill\", "
	    "\"arguments\": {\"name\": \"nothing-here\"}},"
	    "{\"id\": \"c6\", \"name\": \"mcp__probe__missing\", "
	    "\"arguments\": {}}]}\n"
	    "{\"text\": \"DONE\"}\n");
	unlink(at("requests.jsonl"));

	ASSERT_OK(skit_registry_new(&reg, &err));
	ASSERT_OK(skit_registry_add_root(reg, "project", at("skills"), &err));
	ASSERT_OK(skit_registry_scan(reg, &err));
	snprintf(spec, sizeof(spec), "replay:%s", at("cassette.jsonl"));
	mo.spec = spec;
	mo.request_log = at("requests.jsonl");
	ASSERT_OK(skit_model_new(&model, &mo, &err));
	ASSERT_OK(skit_policy_new(&pol, &err));
	ASSERT_OK(skit_policy_add_flag(pol, SKIT_POLICY_LIST_DENY,
	                               "mcp__probe__blocked", &err));
	ao.registry = reg;
	ao.model = model;
	ao.policy = pol;
	ao.project_dir = at("project");
	ao.workdir = at("work");
	ao.runs_dir = at("runs");
	ao.file_tools = false; /* a short list: skill tools, then ours */
	ao.hooks.on_approve = approve;
	ao.hooks.payload = &asked;
	mkdir(at("work"), 0755);
	ASSERT_OK(skit_agent_new(&a, &ao, &err));
	ASSERT(realpath(at("project"), probe.project) != NULL);
	ASSERT_OK(skit__agent_add_provider(a, &probe_ops, &probe, &err));
	ASSERT(skit__agent_provider(a, &probe_ops) == &probe);
	snprintf(run, sizeof(run), "%s", skit_agent_run_dir(a));

	ASSERT_OK(skit_agent_send(a, "probe the world", &answer, &err));
	ASSERT_STR(answer, "DONE");
	skit_free(answer);

	/* Routing: the provider ran look and the approved poke, nothing
	 * else (not the denied, the declined, the unknown, nor the clash). */
	ASSERT_EQ(probe.calls, 2);
	ASSERT_STR(probe.last, "mcp__probe__poke");
	/* Approval: asked once per poke, with the provider's target. */
	ASSERT_EQ(asked.n, 2);
	ASSERT_STR(asked.target, "poke on wall");
	ASSERT_OK(skit_agent_finish(a, "ok", 0, &err));
	a = NULL;
	ASSERT_EQ(probe.released, 1);

	/* The model's tool list: the skill tools first (web_fetch too: an
	 * approver is there), task (subagent.c), then the probe's as the
	 * policy shows them (the denied one hidden, the clash once). */
	reqs = load_lines(at("requests.jsonl"));
	ASSERT_EQ(json_array_size(reqs), 2);
	tool_names(reqs, 0, names, sizeof(names));
	ASSERT_STR(names, "use_skill read_skill_resource update_plan ask_user "
	                  "web_fetch task mcp__probe__look mcp__probe__poke ");

	/* The model saw each outcome. */
	{
		json_t *m, *msgs = json_object_get(json_array_get(reqs, 1),
		                                   "messages");
		struct skitx_buf all = SKITX_BUF_INIT;
		size_t k;

		json_array_foreach(msgs, k, m)
		{
			const char *t =
			        json_string_value(json_object_get(m, "text"));

			ASSERT_OK(skitx_buf_printf(&all, "%s\n", t ? t : ""));
		}
		ASSERT_CONTAINS(all.ptr, "PROBE-RESULT mcp__probe__look");
		ASSERT_CONTAINS(all.ptr, "PROBE-RESULT mcp__probe__poke");
		ASSERT_CONTAINS(all.ptr, "the user declined this call");
		ASSERT_CONTAINS(all.ptr, "tool 'mcp__probe__blocked' is not "
		                         "available now");
		ASSERT_CONTAINS(all.ptr, "no skill named 'nothing-here'");
		ASSERT_CONTAINS(all.ptr, "unknown tool 'mcp__probe__missing'");
		skitx_buf_release(&all);
	}
	json_decref(reqs);

	/* Audit: one decision per gated call that reached the gate, by the
	 * agent, then the provider's own event in the same trail. */
	snprintf(spec, sizeof(spec), "%s/events.jsonl", run);
	ev = load_lines(spec);
	events_of(ev, "approval", "by", got, sizeof(got));
	ASSERT_STR(got, "mcp__probe__look:policy mcp__probe__poke:user "
	                "mcp__probe__poke:user ");
	events_of(ev, "approval", "target", got, sizeof(got));
	ASSERT_STR(got, "mcp__probe__look:look on sky "
	                "mcp__probe__poke:poke on door "
	                "mcp__probe__poke:poke on wall ");
	events_of(ev, "approval", "decision", got, sizeof(got));
	ASSERT_STR(got, "mcp__probe__look:allow mcp__probe__poke:allow "
	                "mcp__probe__poke:deny ");
	events_of(ev, "probe_ran", "tool", got, sizeof(got));
	ASSERT_STR(got, "mcp__probe__look:mcp__probe__look "
	                "mcp__probe__poke:mcp__probe__poke ");
	events_of(ev, "tool_result", "ok", got, sizeof(got));
	ASSERT_STR(got, "mcp__probe__look:true mcp__probe__poke:true "
	                "mcp__probe__poke:false mcp__probe__blocked:false "
	                "use_skill:false mcp__probe__missing:false ");
	json_decref(ev);

	skit_model_free(model);
	skit_registry_free(reg);
	skit_policy_free(pol);
}

/* A provider added to an agent that cannot hold it is released at once. */
static void test_tool_provider__released_with_agent(void)
{
	skit_model_options mo = SKIT_MODEL_OPTIONS_INIT;
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	struct probe probe = { 0 };
	skit_registry *reg = NULL;
	skit_model *model = NULL;
	skit_agent *a = NULL;
	skit_error err = { 0 };
	char spec[PATH_MAX + 16];

	setup();
	mkdir(at("project"), 0755);
	mkdir(at("work"), 0755);
	put(at("cassette.jsonl"), "{\"text\": \"DONE\"}\n");
	ASSERT_OK(skit_registry_new(&reg, &err));
	snprintf(spec, sizeof(spec), "replay:%s", at("cassette.jsonl"));
	mo.spec = spec;
	ASSERT_OK(skit_model_new(&model, &mo, &err));
	ao.registry = reg;
	ao.model = model;
	ao.project_dir = at("project");
	ao.workdir = at("work");
	ASSERT_OK(skit_agent_new(&a, &ao, &err));
	ASSERT(skit__agent_provider(a, &probe_ops) == NULL);
	ASSERT(skit__agent_provider(a, &skit__skill_tools) == NULL);
	ASSERT_OK(skit__agent_add_provider(a, &probe_ops, &probe, &err));
	/* the context is the agent's own, filled from its options */
	ASSERT(skit__agent_tool_ctx(a)->project_dir != NULL);
	ASSERT(skit__agent_tool_ctx(a)->file_tools == ao.file_tools);
	ASSERT(skit__agent_tool_ctx(a)->projfd == -1);
	skit_agent_free(a);
	ASSERT_EQ(probe.released, 1);
	ASSERT_EQ(probe.calls, 0);
	skit_model_free(model);
	skit_registry_free(reg);
}

/* clang-format off */
TEST_MAIN(
	TEST(test_tool_provider__routing_policy_audit)
	TEST(test_tool_provider__released_with_agent))
/* clang-format on */
