/* SPDX-License-Identifier: MIT */
/*
 * test_agent.c - the agent loop through the library API, driven by the
 * replay cassettes in tests/fixtures/agent/ with every model request
 * captured by the request log: progressive disclosure (markers planted in
 * every body, reference and script, checked request by request), the
 * three ways to activate a skill, composition and precedence,
 * read_skill_resource and run_skill_script edge cases, the environment
 * and timeouts of scripts, budgets, the plan, the JSON action protocol
 * and the audit trail.
 */
#include "common.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <openssl/evp.h>

#include "harness.h"
#include "support/procs.h"
#include "skit/agent.h"
#include "skit/model.h"
#include "skit/registry.h"
#include "skit/sandbox.h"
#include "lib/sandbox/sandbox_int.h"

#define MARKED_COUNT 5

static const char *const marked[MARKED_COUNT] = { "alpha", "beta", "gamma",
	                                          "delta", "epsilon" };

static char world[PATH_MAX / 2];

/* ---- files ------------------------------------------------------------ */

/* snprintf that fails the test instead of truncating. */
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
	chmod(path, 0700);
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

/* "dir/rel" in a rotating static buffer. */
static const char *at(const char *dir, const char *rel)
{
	static char bufs[16][PATH_MAX];
	static int next;
	char *b = bufs[next++ % 16];

	fmt(b, PATH_MAX, "%s/%s", dir, rel);
	return b;
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

/* Write `len` bytes to `path` (parents created), then chmod `mode`. */
static void put_bytes(const char *path, const char *data, size_t len,
                      mode_t mode)
{
	char parent[PATH_MAX];
	char *slash;
	FILE *f;

	fmt(parent, sizeof(parent), "%s", path);
	slash = strrchr(parent, '/');
	ASSERT(slash);
	*slash = '\0';
	mkdirs(parent);
	f = fopen(path, "wb");
	ASSERT(f);
	ASSERT_EQ(fwrite(data, 1, len, f), len);
	ASSERT_OK(fclose(f));
	ASSERT_OK(chmod(path, mode));
}

static void put(const char *path, const char *text, mode_t mode)
{
	put_bytes(path, text, strlen(text), mode);
}

/* The whole file, malloc'd and NUL-terminated; NULL when missing. */
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
		if (cap - len - 1 == 0) {
			cap *= 2;
			s = realloc(s, cap);
			ASSERT(s);
		}
	}
	s[len] = '\0';
	fclose(f);
	return s;
}

/* A skill folder ROOT/NAME with extra frontmatter lines and a body. */
static void mkskill(const char *root, const char *name, const char *extra,
                    const char *desc, const char *body)
{
	char dir[PATH_MAX], text[8192];

	fmt(dir, sizeof(dir), "%s/%s", root, name);
	fmt(text, sizeof(text), "---\nname: %s\ndescription: %s\n%s---\n%s",
	    name, desc, extra ? extra : "", body);
	put(at(dir, "SKILL.md"), text, 0644);
}

/*
 * The world every test starts from, under SKIT_TEST_DIR/<name>:
 *   project/  alpha..epsilon (markers), greet, plain, manual, nouser,
 *             files (resource edge cases), scr (scripts), dup
 *   user/     dup (shadowed)
 *   outside/  secret.md (never reachable)
 *   work/     the scripts' working folder
 */
static const char *build_world(const char *name)
{
	const char *top = getenv("SKIT_TEST_DIR");
	char proj[PATH_MAX], user[PATH_MAX], dir[PATH_MAX], text[4096];
	char *big;

	fmt(world, sizeof(world), "%s/%s", top ? top : "/tmp/skit-test-agent",
	    name);
	rm_rf(world);
	mkdirs(world);
	fmt(proj, sizeof(proj), "%s/project", world);
	fmt(user, sizeof(user), "%s/user", world);
	mkdirs(at(world, "work"));
	mkdirs(at(world, "runs"));
	put(at(world, "outside/secret.md"), "OUTSIDE-SECRET\n", 0644);

	for (size_t i = 0; i < MARKED_COUNT; i++) {
		const char *n = marked[i];

		fmt(text, sizeof(text),
		    "# %s\n\nBODY-MARKER-%s\nRead references/guide.md, "
		    "then run scripts/run.sh.\n",
		    n, n);
		fmt(dir, sizeof(dir), "The %s skill, for %s tasks.", n, n);
		mkskill(proj, n, NULL, dir, text);
		fmt(dir, sizeof(dir), "%s/%s", proj, n);
		fmt(text, sizeof(text), "# Guide\n\nRES-MARKER-%s\n", n);
		put(at(dir, "references/guide.md"), text, 0644);
		fmt(text, sizeof(text),
		    "#!/bin/sh\n# SRC-MARKER-%s\necho \"SCRIPT-OUT-%s "
		    "$*\"\n",
		    n, n);
		put(at(dir, "scripts/run.sh"), text, 0755);
	}

	mkskill(proj, "greet", "argument-hint: WHO WHAT\n", "Greets people.",
	        "GREET-BODY first=$1 second=$2 all=[$ARGUMENTS] "
	        "ninth=[$9] dir=${SKILL_DIR} price=$USD\n");
	mkskill(proj, "plain", NULL, "A skill with no argument slots.",
	        "PLAIN-BODY takes no arguments.\n");
	mkskill(proj, "manual", "disable-model-invocation: true\n",
	        "MANUAL-DESC-TEXT only the user starts this.", "MANUAL-BODY\n");
	mkskill(proj, "nouser", "user-invocable: false\n",
	        "NOUSER-DESC-TEXT background knowledge.", "NOUSER-BODY\n");
	mkskill(proj, "dup", NULL, "The project's dup.", "DUP-PROJECT-BODY\n");
	mkskill(user, "dup", NULL, "The user's dup.", "DUP-USER-BODY\n");

	/* files: read_skill_resource edge cases */
	mkskill(proj, "files", NULL, "Files with edge cases.", "FILES-BODY\n");
	fmt(dir, sizeof(dir), "%s/files", proj);
	big = malloc(20000);
	ASSERT(big);
	big[0] = '\0';
	for (int i = 1; i <= 100; i++)
		snprintf(big + strlen(big), 20000 - strlen(big), "line %d\n",
		         i);
	put(at(dir, "references/long.md"), big, 0644);
	memset(big, 'w', 10000);
	memcpy(big + 10000, "\nWIDE-TAIL\n", 12);
	put(at(dir, "references/wide.md"), big, 0644);
	free(big);
	ASSERT_OK(symlink(at(world, "outside/secret.md"),
	                  at(dir, "references/escape.md")));
	ASSERT_OK(symlink(at(world, "outside"), at(dir, "outdir")));
	ASSERT_OK(symlink("/proc/self/environ", at(dir, "references/proc.md")));
	ASSERT_OK(mkfifo(at(dir, "references/pipe.md"), 0644));
	put_bytes(at(dir, "assets/blob.bin"), "BIN\0\0\0BINARY-MARKER\n", 20,
	          0644);
	put(at(dir, "references/bad-utf8.md"),
	    "abc\xff\xfe def \x1b[31mred\nZW\xe2\x80\x8bSP \xe2\x80\xaeRLO "
	    "\xf3\xa0\x81\x81TAG\nUTF8-TAIL\n",
	    0644);

	/* scr: run_skill_script edge cases */
	mkskill(proj, "scr", NULL, "Scripts with edge cases.", "SCR-BODY\n");
	fmt(dir, sizeof(dir), "%s/scr", proj);
	put(at(dir, "scripts/exit3.sh"),
	    "#!/bin/sh\necho \"OUT3 [$1] [$2]\"\necho ERR3 >&2\nexit 3\n",
	    0755);
	put(at(dir, "scripts/env.sh"), "#!/bin/sh\necho ENV-START\nenv\n",
	    0755);
	put(at(dir, "scripts/flood.sh"),
	    "#!/bin/sh\nhead -c 300000 /dev/zero | tr '\\000' x\n", 0755);
	put(at(dir, "scripts/noexec.sh"), "#!/bin/sh\necho NOEXEC-RAN\n", 0644);
	put(at(dir, "scripts/ok.sh"), "#!/bin/sh\necho OK-RUN\n", 0755);
	put(at(dir, "scripts/sleep.sh"),
	    "#!/bin/sh\necho started\nsleep 30\necho SLEPT-THROUGH\n", 0755);
	put(at(dir, "scripts/trap.sh"),
	    "#!/bin/sh\ntrap '' TERM\nsleep 30.0417 &\n"
	    "wait\necho TRAP-SURVIVED\n",
	    0755);
	put(at(dir, "references/notes.md"), "#!/bin/sh\necho NOTES-RAN\n",
	    0755);

	/* gated: declares allowed-tools */
	mkskill(proj, "gated", "allowed-tools: Bash(echo:*) Read\n",
	        "A skill that declares its tools.", "GATED-BODY\n");
	fmt(dir, sizeof(dir), "%s/gated", proj);
	put(at(dir, "scripts/ok.sh"), "#!/bin/sh\necho OK-RUN \"$@\"\n", 0755);
	return world;
}

/* ---- the agent -------------------------------------------------------- */

struct fx {
	skit_policy *pol; /* the default: everything approved (--yes) */
	skit_registry *reg;
	skit_model *model;
	skit_agent *agent;
	char log[PATH_MAX];
	char run_dir[PATH_MAX];
};

static const char *fixture(const char *cassette)
{
	static char path[PATH_MAX];
	const char *src = getenv("SKIT_SOURCE_DIR");

	fmt(path, sizeof(path), "%s/tests/fixtures/agent/%s", src ? src : ".",
	    cassette);
	return path;
}

/* Open registry (project + user roots), model and agent over `world`. */
/* fx_open() names the roots relatively, from `world`. */
static bool relative_roots;

static void fx_open(struct fx *f, const char *cassette,
                    const skit_agent_options *tmpl)
{
	skit_model_options mo = SKIT_MODEL_OPTIONS_INIT;
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	char spec[PATH_MAX + 16];
	skit_error err = { 0 };

	memset(f, 0, sizeof(*f));
	fmt(f->log, sizeof(f->log), "%s/requests.jsonl", world);
	unlink(f->log);
	ASSERT_OK(skit_registry_new(&f->reg, &err));
	if (relative_roots) {
		/* As an embedder may: roots named from the working folder. */
		ASSERT_OK(chdir(world));
		ASSERT_OK(skit_registry_add_root(f->reg, "project", "project",
		                                 &err));
		ASSERT_OK(
		        skit_registry_add_root(f->reg, "user", "./user", &err));
	} else {
		ASSERT_OK(skit_registry_add_root(f->reg, "project",
		                                 at(world, "project"), &err));
		ASSERT_OK(skit_registry_add_root(f->reg, "user",
		                                 at(world, "user"), &err));
	}
	ASSERT_OK(skit_registry_scan(f->reg, &err));
	fmt(spec, sizeof(spec), "replay:%s", fixture(cassette));
	mo.spec = spec;
	mo.request_log = f->log;
	if (skit_model_new(&f->model, &mo, &err))
		HARNESS_FAIL("model: %s", err.message);
	if (tmpl)
		ao = *tmpl;
	ao.registry = f->reg;
	ao.model = f->model;
	if (!ao.workdir)
		ao.workdir = at(world, "work");
	if (!ao.runs_dir)
		ao.runs_dir = at(world, "runs");
	if (!ao.script_timeout_ms)
		ao.script_timeout_ms = 5000;
	if (!ao.policy) {
		ASSERT_OK(skit_policy_new(&f->pol, &err));
		skit_policy_set_yes(f->pol, true);
		ao.policy = f->pol;
	}
	if (skit_agent_new(&f->agent, &ao, &err))
		HARNESS_FAIL("agent: %s", err.message);
	ASSERT(skit_agent_run_dir(f->agent));
	fmt(f->run_dir, sizeof(f->run_dir), "%s", skit_agent_run_dir(f->agent));
}

static void fx_close(struct fx *f, const char *status, int exit_code)
{
	skit_error err = { 0 };

	ASSERT_OK(skit_agent_finish(f->agent, status, exit_code, &err));
	f->agent = NULL;
	skit_model_free(f->model);
	skit_registry_free(f->reg);
	skit_policy_free(f->pol);
	f->model = NULL;
	f->reg = NULL;
	f->pol = NULL;
}

/* ---- the request log -------------------------------------------------- */

struct reqs {
	char *text;
	char *line[32]; /* pointers into text */
	json_t *json[32];
	size_t n;
};

static void reqs_load(struct reqs *r, const char *path)
{
	char *p, *nl;

	memset(r, 0, sizeof(*r));
	r->text = slurp(path);
	if (!r->text)
		return;
	for (p = r->text; (nl = strchr(p, '\n')); p = nl + 1) {
		json_error_t je;

		*nl = '\0';
		ASSERT(r->n < 32);
		r->line[r->n] = p;
		r->json[r->n] = json_loads(p, 0, &je);
		if (!r->json[r->n])
			HARNESS_FAIL("request %zu does not parse: %s", r->n + 1,
			             je.text);
		r->n++;
	}
	ASSERT_EQ(*p, '\0');
}

static void reqs_free(struct reqs *r)
{
	for (size_t i = 0; i < r->n; i++)
		json_decref(r->json[i]);
	free(r->text);
	memset(r, 0, sizeof(*r));
}

/* Request `i` (0-based) as logged contains / lacks `s`. */
#define REQ_HAS(r, i, s)                                       \
 do {                                                          \
  ASSERT((i) < (r)->n);                                        \
  if (!strstr((r)->line[i], (s)))                              \
   HARNESS_FAIL("request %d lacks \"%s\"", (int)(i) + 1, (s)); \
 } while (0)
#define REQ_LACKS(r, i, s)                                       \
 do {                                                            \
  ASSERT((i) < (r)->n);                                          \
  if (strstr((r)->line[i], (s)))                                 \
   HARNESS_FAIL("request %d carries \"%s\"", (int)(i) + 1, (s)); \
 } while (0)

/* The text of the tool result answering call `id` in the last request. */
static const char *result_of(const struct reqs *r, const char *id,
                             bool *is_error)
{
	json_t *msgs, *m;
	size_t i;

	ASSERT(r->n > 0);
	msgs = json_object_get(r->json[r->n - 1], "messages");
	json_array_foreach(msgs, i, m)
	{
		const char *cid =
		        json_string_value(json_object_get(m, "tool_call_id"));

		if (cid && !strcmp(cid, id)) {
			if (is_error)
				*is_error = json_is_true(
				        json_object_get(m, "is_error"));
			return json_string_value(json_object_get(m, "text"));
		}
	}
	HARNESS_FAIL("no result for call %s", id);
	return NULL;
}

/* The text of message `k` of request `i`. */
static const char *msg_text(const struct reqs *r, size_t i, size_t k)
{
	json_t *m;

	ASSERT(i < r->n);
	m = json_array_get(json_object_get(r->json[i], "messages"), k);
	ASSERT(m);
	return json_string_value(json_object_get(m, "text"));
}

/* ---- the audit trail -------------------------------------------------- */

struct events {
	json_t *ev[256];
	size_t n;
};

static void events_load(struct events *e, const char *run_dir)
{
	char *text = slurp(at(run_dir, "events.jsonl")), *p, *nl;

	ASSERT(text);
	memset(e, 0, sizeof(*e));
	for (p = text; (nl = strchr(p, '\n')); p = nl + 1) {
		json_error_t je;

		ASSERT(e->n < 256);
		e->ev[e->n] = json_loadb(p, (size_t)(nl - p), 0, &je);
		if (!e->ev[e->n])
			HARNESS_FAIL("event %zu does not parse: %s", e->n + 1,
			             je.text);
		e->n++;
	}
	free(text);
}

static void events_free(struct events *e)
{
	for (size_t i = 0; i < e->n; i++)
		json_decref(e->ev[i]);
	e->n = 0;
}

/* The `nth` (0-based) event of `type`, or NULL. */
static json_t *event(const struct events *e, const char *type, size_t nth)
{
	for (size_t i = 0; i < e->n; i++) {
		const char *t =
		        json_string_value(json_object_get(e->ev[i], "type"));

		if (t && !strcmp(t, type) && nth-- == 0)
			return e->ev[i];
	}
	return NULL;
}

static const char *str_of(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* ---- hooks ------------------------------------------------------------ */

struct hook_log {
	char text[4096];
	size_t len;
	int skill_lines, model_lines;
};

static void on_text(const char *text, size_t len, void *payload)
{
	struct hook_log *h = payload;

	if (h->len + len < sizeof(h->text)) {
		memcpy(h->text + h->len, text, len);
		h->len += len;
		h->text[h->len] = '\0';
	}
}

static void on_trace(skit_trace_kind kind, const char *line, void *payload)
{
	struct hook_log *h = payload;

	ASSERT(line && !strchr(line, '\n'));
	h->skill_lines += kind == SKIT_TRACE_SKILL;
	h->model_lines += kind == SKIT_TRACE_MODEL;
}

/* ---- progressive disclosure ------------------------------------------- */

static void test_agent__disclosure(void)
{
	struct fx f;
	struct reqs r;
	skit_agent_stats st;
	skit_error err = { 0 };
	char *answer = NULL, m[64];

	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	struct hook_log h;

	alarm(60);
	build_world("disclosure");
	memset(&h, 0, sizeof(h));
	ao.hooks.on_text = on_text;
	ao.hooks.on_trace = on_trace;
	ao.hooks.payload = &h;
	fx_open(&f, "disclosure.jsonl", &ao);
	if (skit_agent_send(f.agent, "Do the alpha thing", &answer, &err))
		HARNESS_FAIL("send: %s", err.message);
	ASSERT_STR(answer, "DONE-DISCLOSURE");
	/* The answer streamed through on_text; the trace saw both skills. */
	ASSERT_STR(h.text, "DONE-DISCLOSURE");
	ASSERT_EQ(h.skill_lines, 2);
	ASSERT_EQ(h.model_lines, 4);
	skit_free(answer);
	reqs_load(&r, f.log);
	ASSERT_EQ(r.n, 4);

	/* The index is there from the start; no body, file or script. */
	REQ_HAS(&r, 0, "The alpha skill, for alpha tasks.");
	REQ_HAS(&r, 0, "The epsilon skill, for epsilon tasks.");
	for (size_t i = 0; i < MARKED_COUNT; i++) {
		fmt(m, sizeof(m), "BODY-MARKER-%s", marked[i]);
		REQ_LACKS(&r, 0, m);
		fmt(m, sizeof(m), "RES-MARKER-%s", marked[i]);
		REQ_LACKS(&r, 0, m);
	}
	/* After use_skill alpha: its body, not its reference. */
	REQ_HAS(&r, 1, "BODY-MARKER-alpha");
	REQ_LACKS(&r, 1, "RES-MARKER-alpha");
	REQ_LACKS(&r, 1, "BODY-MARKER-beta");
	/* After the read: the reference; beta still not loaded. */
	REQ_HAS(&r, 2, "RES-MARKER-alpha");
	REQ_LACKS(&r, 2, "BODY-MARKER-beta");
	REQ_LACKS(&r, 2, "SCRIPT-OUT-alpha");
	/* After use_skill beta and the script: beta's body, the output. */
	REQ_HAS(&r, 3, "BODY-MARKER-beta");
	REQ_HAS(&r, 3, "SCRIPT-OUT-alpha one two");
	REQ_LACKS(&r, 3, "RES-MARKER-beta");
	for (size_t k = 0; k < r.n; k++) {
		for (size_t i = 2; i < MARKED_COUNT; i++) {
			fmt(m, sizeof(m), "BODY-MARKER-%s", marked[i]);
			REQ_LACKS(&r, k, m);
			fmt(m, sizeof(m), "RES-MARKER-%s", marked[i]);
			REQ_LACKS(&r, k, m);
			fmt(m, sizeof(m), "SCRIPT-OUT-%s", marked[i]);
			REQ_LACKS(&r, k, m);
		}
		for (size_t i = 0; i < MARKED_COUNT; i++) {
			/* Running a script never shows its source. */
			fmt(m, sizeof(m), "SRC-MARKER-%s", marked[i]);
			REQ_LACKS(&r, k, m);
		}
		REQ_LACKS(&r, k, "RES-MARKER-beta");
		REQ_LACKS(&r, k, "OUTSIDE-SECRET");
		REQ_LACKS(&r, k, "DUP-PROJECT-BODY");
	}
	reqs_free(&r);

	ASSERT_EQ(skit_agent_active_count(f.agent), 2);
	ASSERT_STR(skit_agent_active_skill(f.agent, 0), "alpha");
	ASSERT_STR(skit_agent_active_skill(f.agent, 1), "beta");
	skit_agent_get_stats(f.agent, &st);
	ASSERT_EQ(st.turns, 4);
	ASSERT_EQ(st.tool_calls, 4);
	ASSERT_EQ(st.script_runs, 1);
	ASSERT_EQ(st.usage.input_tokens, 1000);
	ASSERT_EQ(st.usage.output_tokens, 40);
	fx_close(&f, "ok", 0);
}

/* The audit trail of the same run: every event type, and run.json. */
static void test_agent__audit_events(void)
{
	static const char *const types[] = {
		"run_start",       "user_input",    "model_request",
		"model_response",  "tool_call",     "tool_result",
		"skill_activated", "resource_read", "script_run",
		"run_end",
	};
	struct fx f;
	struct events e;
	skit_error err = { 0 };
	unsigned char md[32];
	unsigned int mdlen = 0;
	char hex[65], *sum;
	const char out[] = "SCRIPT-OUT-alpha one two\n";
	json_t *ev, *js;

	alarm(60);
	build_world("audit");
	fx_open(&f, "disclosure.jsonl", NULL);
	ASSERT_OK(skit_agent_send(f.agent, "Do the alpha thing", NULL, &err));
	fx_close(&f, "ok", 0);
	events_load(&e, f.run_dir);
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(types); i++)
		if (!event(&e, types[i], 0))
			HARNESS_FAIL("no %s event", types[i]);
	ASSERT_STR(str_of(e.ev[0], "type"), "run_start");
	ASSERT_STR(str_of(e.ev[e.n - 1], "type"), "run_end");
	ASSERT_STR(str_of(event(&e, "user_input", 0), "text"),
	           "Do the alpha thing");
	ev = event(&e, "skill_activated", 0);
	ASSERT_STR(str_of(ev, "skill"), "alpha");
	ASSERT_STR(str_of(ev, "trigger"), "model");
	ASSERT_STR(str_of(ev, "source"), "project");
	ev = event(&e, "skill_activated", 1);
	ASSERT_STR(str_of(ev, "skill"), "beta");
	ev = event(&e, "resource_read", 0);
	ASSERT_STR(str_of(ev, "skill"), "alpha");
	ASSERT_STR(str_of(ev, "path"), "references/guide.md");
	ev = event(&e, "script_run", 0);
	ASSERT_STR(str_of(ev, "path"), "scripts/run.sh");
	ASSERT(json_is_integer(json_object_get(ev, "exit_code")));
	ASSERT_EQ(json_integer_value(json_object_get(ev, "exit_code")), 0);
	ASSERT(EVP_Digest(out, strlen(out), md, &mdlen, EVP_sha256(), NULL));
	for (unsigned int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	ASSERT_STR(str_of(ev, "stdout_sha256"), hex);
	ASSERT_EQ(json_array_size(json_object_get(ev, "args")), 2);
	ASSERT(event(&e, "model_request", 3));
	ASSERT(!event(&e, "model_request", 4));
	ASSERT(event(&e, "tool_result", 3));
	ASSERT_STR(str_of(e.ev[e.n - 1], "status"), "ok");
	events_free(&e);

	sum = slurp(at(f.run_dir, "run.json"));
	ASSERT(sum);
	js = json_loads(sum, 0, NULL);
	free(sum);
	ASSERT(js);
	ASSERT_STR(str_of(js, "status"), "ok");
	ASSERT_EQ(json_integer_value(json_object_get(js, "exit")), 0);
	ASSERT_EQ(json_integer_value(json_object_get(js, "turns")), 4);
	ASSERT_EQ(json_integer_value(json_object_get(js, "script_runs")), 1);
	ASSERT_EQ(json_array_size(json_object_get(js, "skills_activated")), 2);
	json_decref(js);
}

/* ---- activation ------------------------------------------------------- */

static void test_agent__activate_user_arguments(void)
{
	struct fx f;
	struct reqs r;
	struct events e;
	skit_error err = { 0 };
	char *answer = NULL;
	const char *t;
	json_t *ev;

	build_world("user-args");
	fx_open(&f, "final.jsonl", NULL);
	if (skit_agent_send(f.agent, "/greet hello \"big world\"", &answer,
	                    &err))
		HARNESS_FAIL("send: %s", err.message);
	ASSERT_STR(answer, "FINAL-ANSWER");
	skit_free(answer);
	reqs_load(&r, f.log);
	ASSERT_EQ(r.n, 1);
	t = msg_text(&r, 0, 0);
	ASSERT_CONTAINS(t, "GREET-BODY first=hello second=big world");
	ASSERT_CONTAINS(t, "all=[hello \"big world\"]");
	ASSERT_CONTAINS(t, "ninth=[]");
	ASSERT_CONTAINS(t, "/project/greet");
	ASSERT(!strstr(t, "${SKILL_DIR}"));
	ASSERT(!strstr(t, "$ARGUMENTS"));
	/* A '$' not followed by a placeholder stays as written. */
	ASSERT_CONTAINS(t, "price=$USD");
	/* Arguments were used, so they are not appended again. */
	ASSERT(!strstr(t, "ARGUMENTS:"));
	reqs_free(&r);
	ASSERT_EQ(skit_agent_active_count(f.agent), 1);
	fx_close(&f, "ok", 0);
	events_load(&e, f.run_dir);
	ev = event(&e, "skill_activated", 0);
	ASSERT(ev);
	ASSERT_STR(str_of(ev, "trigger"), "user");
	ASSERT_STR(str_of(ev, "arguments"), "hello \"big world\"");
	events_free(&e);
}

static void test_agent__activate_user_appends_arguments(void)
{
	struct fx f;
	struct reqs r;
	skit_error err = { 0 };

	build_world("user-append");
	fx_open(&f, "final.jsonl", NULL);
	ASSERT_OK(skit_agent_send(f.agent, "/plain foo bar", NULL, &err));
	reqs_load(&r, f.log);
	ASSERT_EQ(r.n, 1);
	ASSERT_CONTAINS(msg_text(&r, 0, 0), "PLAIN-BODY");
	ASSERT_CONTAINS(msg_text(&r, 0, 0), "ARGUMENTS: foo bar");
	reqs_free(&r);
	fx_close(&f, "ok", 0);
}

static void test_agent__activate_mention(void)
{
	struct fx f;
	struct reqs r;
	struct events e;
	skit_error err = { 0 };
	json_t *ev;

	build_world("mention");
	fx_open(&f, "final.jsonl", NULL);
	if (skit_agent_send(f.agent,
	                    "Please use $alpha (not $nosuch) for $5 and "
	                    "a$beta",
	                    NULL, &err))
		HARNESS_FAIL("send: %s", err.message);
	reqs_load(&r, f.log);
	ASSERT_EQ(r.n, 1);
	ASSERT_CONTAINS(msg_text(&r, 0, 0), "BODY-MARKER-alpha");
	ASSERT_CONTAINS(msg_text(&r, 0, 0), "Please use $alpha");
	/* "a$beta" is not a mention: '$' inside a word. */
	REQ_LACKS(&r, 0, "BODY-MARKER-beta");
	reqs_free(&r);
	ASSERT_EQ(skit_agent_active_count(f.agent), 1);
	fx_close(&f, "ok", 0);
	events_load(&e, f.run_dir);
	ev = event(&e, "skill_activated", 0);
	ASSERT(ev);
	ASSERT_STR(str_of(ev, "skill"), "alpha");
	ASSERT_STR(str_of(ev, "trigger"), "mention");
	ASSERT(!event(&e, "skill_activated", 1));
	events_free(&e);
}

static void test_agent__activate_unknown(void)
{
	struct fx f;
	struct stat st;
	skit_error err = { 0 };
	char *answer = NULL;

	build_world("unknown");
	fx_open(&f, "final.jsonl", NULL);
	ASSERT_EQ(skit_agent_send(f.agent, "/nosuch do it", &answer, &err),
	          SKIT_ENOTFOUND);
	ASSERT(answer == NULL);
	ASSERT_CONTAINS(err.message, "nosuch");
	/* Nothing was sent to the model. */
	ASSERT(stat(f.log, &st) < 0 || st.st_size == 0);
	ASSERT_EQ(skit_agent_active_count(f.agent), 0);
	/* The conversation stays usable. */
	ASSERT_OK(skit_agent_send(f.agent, "hello", &answer, &err));
	ASSERT_STR(answer, "FINAL-ANSWER");
	skit_free(answer);
	fx_close(&f, "ok", 0);
}

/*
 * Skills the loading rules accept are activated under the name they are
 * known by (their folder's, when their own differs or breaks the rules),
 * answer to the name they declare, and reach the model without hidden
 * characters (docs/format.md, docs/prompt.md).
 */
static void test_agent__activate_lenient_names(void)
{
	struct fx f;
	struct reqs r;
	skit_error err = { 0 };
	char *answer = NULL;
	char proj[PATH_MAX];
	const char *t;

	build_world("lenient-names");
	fmt(proj, sizeof(proj), "%s/project", world);
	put(at(proj, "acme-pdf-v2/SKILL.md"),
	    "---\nname: acme-pdf\ndescription: Fills PDF forms.\n"
	    "tags: [pdf]\n---\nACME-BODY\xe2\x80\x8b\xe2\x80\x8b done\n",
	    0644);
	put(at(proj, "noname/SKILL.md"),
	    "---\ndescription: Use it: no name.\n---\nNONAME-BODY\n", 0644);
	fx_open(&f, "final.jsonl", NULL);
	if (skit_agent_send(f.agent, "/acme-pdf-v2 go", &answer, &err))
		HARNESS_FAIL("send: %s", err.message);
	skit_free(answer);
	answer = NULL;
	reqs_load(&r, f.log);
	t = msg_text(&r, 0, 0);
	ASSERT_CONTAINS(t, "ACME-BODY done");
	ASSERT(!strstr(t, "\xe2\x80\x8b"));
	reqs_free(&r);
	ASSERT_EQ(skit_agent_active_count(f.agent), 1);
	fx_close(&f, "ok", 0);

	/* the declared name finds it too; a skill without a name loads */
	fx_open(&f, "final.jsonl", NULL);
	if (skit_agent_send(f.agent, "/acme-pdf go", &answer, &err))
		HARNESS_FAIL("send: %s", err.message);
	skit_free(answer);
	answer = NULL;
	fx_close(&f, "ok", 0);
	fx_open(&f, "final.jsonl", NULL);
	if (skit_agent_send(f.agent, "/noname go", &answer, &err))
		HARNESS_FAIL("send: %s", err.message);
	skit_free(answer);
	reqs_load(&r, f.log);
	ASSERT_CONTAINS(msg_text(&r, 0, 0), "NONAME-BODY");
	reqs_free(&r);
	fx_close(&f, "ok", 0);
}

/* ---- composition ------------------------------------------------------ */

static void test_agent__max_skills_per_turn(void)
{
	struct fx f;
	struct reqs r;
	skit_error err = { 0 };
	bool is_error = false;

	build_world("per-turn");
	fx_open(&f, "per_turn.jsonl", NULL);
	if (skit_agent_send(f.agent, "all three", NULL, &err))
		HARNESS_FAIL("send: %s", err.message);
	reqs_load(&r, f.log);
	ASSERT_EQ(r.n, 2);
	ASSERT_CONTAINS(result_of(&r, "a", &is_error), "BODY-MARKER-alpha");
	ASSERT(!is_error);
	ASSERT_CONTAINS(result_of(&r, "b", &is_error), "BODY-MARKER-beta");
	ASSERT(!is_error);
	ASSERT_CONTAINS(result_of(&r, "g", &is_error), "at most 2");
	ASSERT(is_error);
	REQ_LACKS(&r, 1, "BODY-MARKER-gamma");
	reqs_free(&r);
	ASSERT_EQ(skit_agent_active_count(f.agent), 2);
	fx_close(&f, "ok", 0);
}

static void test_agent__max_skills_per_turn_option(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	struct fx f;
	struct reqs r;
	skit_error err = { 0 };
	bool is_error = false;

	build_world("per-turn-3");
	ao.max_skills_per_turn = 3;
	fx_open(&f, "per_turn.jsonl", &ao);
	ASSERT_OK(skit_agent_send(f.agent, "all three", NULL, &err));
	reqs_load(&r, f.log);
	ASSERT_CONTAINS(result_of(&r, "g", &is_error), "BODY-MARKER-gamma");
	ASSERT(!is_error);
	reqs_free(&r);
	ASSERT_EQ(skit_agent_active_count(f.agent), 3);
	fx_close(&f, "ok", 0);
}

static void test_agent__precedence_and_source(void)
{
	struct fx f;
	struct reqs r;
	struct events e;
	skit_error err = { 0 };
	bool is_error = false;

	build_world("precedence");
	fx_open(&f, "precedence.jsonl", NULL);
	ASSERT_OK(skit_agent_send(f.agent, "use dup", NULL, &err));
	reqs_load(&r, f.log);
	ASSERT_EQ(r.n, 3);
	ASSERT_CONTAINS(result_of(&r, "d1", &is_error), "DUP-PROJECT-BODY");
	ASSERT(!is_error);
	/* The same name from the other root while one is active: refused. */
	ASSERT(result_of(&r, "d2", &is_error));
	ASSERT(is_error);
	for (size_t i = 0; i < r.n; i++)
		REQ_LACKS(&r, i, "DUP-USER-BODY");
	reqs_free(&r);
	fx_close(&f, "ok", 0);

	/* source picks the shadowed one. */
	fx_open(&f, "source_user.jsonl", NULL);
	ASSERT_OK(skit_agent_send(f.agent, "use dup", NULL, &err));
	reqs_load(&r, f.log);
	ASSERT_EQ(r.n, 2);
	ASSERT_CONTAINS(result_of(&r, "d1", &is_error), "DUP-USER-BODY");
	ASSERT(!is_error);
	REQ_LACKS(&r, 1, "DUP-PROJECT-BODY");
	reqs_free(&r);
	fx_close(&f, "ok", 0);
	events_load(&e, f.run_dir);
	ASSERT_STR(str_of(event(&e, "skill_activated", 0), "source"), "user");
	events_free(&e);
}

static void test_agent__disable_model_invocation(void)
{
	struct fx f;
	struct reqs r;
	skit_error err = { 0 };
	bool is_error = false;

	build_world("manual");
	fx_open(&f, "manual.jsonl", NULL);
	ASSERT_OK(skit_agent_send(f.agent, "use manual", NULL, &err));
	reqs_load(&r, f.log);
	ASSERT_EQ(r.n, 2);
	/* Not in the index... */
	REQ_LACKS(&r, 0, "MANUAL-DESC-TEXT");
	REQ_HAS(&r, 0, "The alpha skill");
	/* ...and the model cannot activate it. */
	ASSERT(result_of(&r, "m1", &is_error));
	ASSERT(is_error);
	REQ_LACKS(&r, 1, "MANUAL-BODY");
	reqs_free(&r);
	ASSERT_EQ(skit_agent_active_count(f.agent), 0);
	fx_close(&f, "ok", 0);

	/* The user can. */
	fx_open(&f, "final.jsonl", NULL);
	ASSERT_OK(skit_agent_send(f.agent, "/manual", NULL, &err));
	reqs_load(&r, f.log);
	REQ_HAS(&r, 0, "MANUAL-BODY");
	reqs_free(&r);
	fx_close(&f, "ok", 0);
}

static void test_agent__not_user_invocable(void)
{
	struct fx f;
	struct stat st;
	skit_error err = { 0 };

	build_world("nouser");
	fx_open(&f, "final.jsonl", NULL);
	/* agent.h: SKIT_ENOTFOUND for /name naming no skill the user may
	 * invoke. */
	ASSERT_EQ(skit_agent_send(f.agent, "/nouser", NULL, &err),
	          SKIT_ENOTFOUND);
	ASSERT(stat(f.log, &st) < 0 || st.st_size == 0);
	ASSERT_EQ(skit_agent_active_count(f.agent), 0);
	fx_close(&f, "ok", 0);
}

/* ---- read_skill_resource ---------------------------------------------- */

static void test_agent__read_resource(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	struct fx f;
	struct reqs r;
	skit_error err = { 0 };
	bool is_error = false;
	const char *t;
	long t0;

	alarm(60);
	build_world("resources");
	ao.resource_cap = 4096;
	fx_open(&f, "resources.jsonl", &ao);
	t0 = now_ms();
	if (skit_agent_send(f.agent, "read them", NULL, &err))
		HARNESS_FAIL("send: %s", err.message);
	ASSERT(now_ms() - t0 < 10000);
	reqs_load(&r, f.log);
	ASSERT_EQ(r.n, 3);

	/* offset + limit: exactly those lines, and where to go on */
	t = result_of(&r, "r01", &is_error);
	ASSERT(!is_error);
	ASSERT(!strncmp(t, "line 10\nline 11\nline 12\n", 24));
	ASSERT(!strstr(t, "line 9\n"));
	ASSERT(!strstr(t, "line 13\n"));
	ASSERT_CONTAINS(t, "[truncated: lines 10-12 of 100 shown; continue "
	                   "with offset=13]");
	/* one line longer than the cap: its head and a marker */
	t = result_of(&r, "r02", &is_error);
	ASSERT(!is_error);
	ASSERT_CONTAINS(t, "wwww");
	ASSERT_CONTAINS(t, "[truncated");
	ASSERT(!strstr(t, "WIDE-TAIL"));
	ASSERT(strlen(t) < 4096 + 200);
	/* '..', absolute, symlink out, symlinked folder out */
	t = result_of(&r, "r03", &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(t, "'..'");
	t = result_of(&r, "r04", &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(t, "absolute");
	ASSERT(!strstr(t, "root:"));
	t = result_of(&r, "r05", &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(t, "refused");
	t = result_of(&r, "r06", &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(t, "refused");
	/* a FIFO: refused, and the call did not block */
	t = result_of(&r, "r07", &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(t, "not a regular file");
	/* binary: described, not shown */
	t = result_of(&r, "r08", &is_error);
	ASSERT_CONTAINS(t, "binary");
	ASSERT(!strstr(t, "BINARY-MARKER"));
	/* invalid UTF-8 and escapes become U+FFFD */
	t = result_of(&r, "r09", &is_error);
	ASSERT(!is_error);
	ASSERT_CONTAINS(t, "abc\xEF\xBF\xBD");
	ASSERT_CONTAINS(t, "UTF8-TAIL");
	ASSERT(!strchr(t, '\x1b'));
	/* zero-width, bidi override and TAG characters: U+FFFD too */
	ASSERT_CONTAINS(t, "ZW\xEF\xBF\xBDSP \xEF\xBF\xBDRLO \xEF\xBF\xBDTAG");
	ASSERT(!strstr(t, "\xe2\x80\x8b") && !strstr(t, "\xe2\x80\xae"));
	/* a skill not yet activated */
	t = result_of(&r, "r10", &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(t, "use_skill");
	/* the last two lines; no marker when the end is reached */
	t = result_of(&r, "r11", &is_error);
	ASSERT(!is_error);
	ASSERT_STR(t, "line 99\nline 100\n");
	t = result_of(&r, "r12", &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(t, "no such file");
	/* a folder: its entries */
	t = result_of(&r, "r14", &is_error);
	ASSERT(!is_error);
	ASSERT_CONTAINS(t, "long.md");
	/* offset 0 is out of range */
	t = result_of(&r, "r15", &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(t, "offset");
	for (size_t i = 0; i < r.n; i++) {
		REQ_LACKS(&r, i, "OUTSIDE-SECRET");
		REQ_LACKS(&r, i, "RES-MARKER-alpha");
		REQ_LACKS(&r, i, "BINARY-MARKER");
	}
	/* past the end: the note gives the file's real line count */
	/* /proc/self: absolute, or through a link planted in the skill */
	t = result_of(&r, "r16", &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(t, "absolute paths are refused");
	t = result_of(&r, "r17", &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(t, "symbolic link");
	ASSERT(!strstr(t, "PATH="));
	t = result_of(&r, "r13", &is_error);
	ASSERT_CONTAINS(t, "has 100 lines");
	reqs_free(&r);
	fx_close(&f, "ok", 0);
}

/* ---- run_skill_script ------------------------------------------------- */

static const char *const secrets[][2] = {
	{ "OPENAI_API_KEY", "sk-test-secret-123456" },
	{ "ANTHROPIC_API_KEY", "sk-ant-secret-654321" },
	{ "GITHUB_TOKEN", "ghp-secret-token-777" },
	{ "SKIT_UNIT_PRIVATE", "private-value-888" },
	{ "SSH_AUTH_SOCK", "/tmp/ssh-agent-sock-999" },
	{ "LD_PRELOAD", "/tmp/preload-me-000.so" },
};

static void test_agent__run_script(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	struct fx f;
	struct reqs r;
	struct events e;
	skit_error err = { 0 };
	bool is_error = false;
	const char *t;
	char *trail;
	long t0, took;
	json_t *ev;

	alarm(60);
	build_world("scripts");
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(secrets); i++)
		setenv(secrets[i][0], secrets[i][1], 1);
	ao.script_timeout_ms = 300;
	ao.script_output_cap = 4096;
	fx_open(&f, "scripts.jsonl", &ao);
	t0 = now_ms();
	if (skit_agent_send(f.agent, "run them", NULL, &err))
		HARNESS_FAIL("send: %s", err.message);
	took = now_ms() - t0;
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(secrets); i++)
		unsetenv(secrets[i][0]);
	/* sleep 30 and a script that ignores SIGTERM: killed quickly */
	if (took > 8000)
		HARNESS_FAIL("the scripts took %ld ms", took);
	reqs_load(&r, f.log);
	ASSERT_EQ(r.n, 4);

	/* exit code, stdout, stderr and arguments reach the model */
	t = result_of(&r, "s01", &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(t, "exit code: 3");
	ASSERT_CONTAINS(t, "OUT3 [a b] [c]");
	ASSERT_CONTAINS(t, "ERR3");
	/* the environment is an allow-list */
	t = result_of(&r, "s02", &is_error);
	ASSERT(!is_error);
	ASSERT_CONTAINS(t, "ENV-START");
	ASSERT_CONTAINS(t, "SKILL_DIR=");
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(secrets); i++) {
		if (strstr(t, secrets[i][0]) || strstr(t, secrets[i][1]))
			HARNESS_FAIL("the script saw %s", secrets[i][0]);
	}
	/* output flood: capped with a marker */
	t = result_of(&r, "s03", &is_error);
	ASSERT(!is_error);
	ASSERT_CONTAINS(t, "xxxx");
	ASSERT_CONTAINS(t, "[truncated");
	ASSERT(strlen(t) < 4096 + 300);
	/* not executable; not under scripts/; '..'; absolute */
	t = result_of(&r, "s04", &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(t, "not executable");
	t = result_of(&r, "s05", &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(t, "scripts/");
	t = result_of(&r, "s06", &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(t, "'..'");
	t = result_of(&r, "s07", &is_error);
	ASSERT(is_error);
	/* timeouts */
	t = result_of(&r, "s08", &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(t, "timed out");
	ASSERT(!strstr(t, "SLEPT-THROUGH"));
	t = result_of(&r, "s09", &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(t, "timed out");
	ASSERT(!strstr(t, "TRAP-SURVIVED"));
	for (size_t i = 0; i < r.n; i++) {
		REQ_LACKS(&r, i, "NOEXEC-RAN");
		REQ_LACKS(&r, i, "NOTES-RAN");
		REQ_LACKS(&r, i, "SCRIPT-OUT-alpha");
	}
	reqs_free(&r);
	/* nothing of the killed group lingers */
	ASSERT(skit_test_none_running(at(world, "project/scr/scripts/trap.sh"),
	                              50));
	ASSERT(skit_test_none_running("sleep 30.0417", 50));
	fx_close(&f, "ok", 0);

	/* the trail: script_run events, and no secret anywhere */
	events_load(&e, f.run_dir);
	ev = event(&e, "script_run", 0);
	ASSERT(ev);
	ASSERT_EQ(json_integer_value(json_object_get(ev, "exit_code")), 3);
	ev = event(&e, "script_run", 4);
	ASSERT(ev);
	ASSERT(json_is_true(json_object_get(ev, "timed_out")));
	events_free(&e);
	trail = slurp(at(f.run_dir, "events.jsonl"));
	ASSERT(trail);
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(secrets); i++)
		ASSERT(!strstr(trail, secrets[i][1]));
	free(trail);
	trail = slurp(at(f.run_dir, "run.json"));
	ASSERT(trail);
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(secrets); i++)
		ASSERT(!strstr(trail, secrets[i][1]));
	free(trail);
}

/*
 * Roots given to the library relative to the working folder (issue 30):
 * they are made absolute when added, so the index's folders are absolute
 * and a script still runs once the program's folder is the project
 * (it failed with exit 127, "cannot execute the program").
 */
static void test_agent__relative_root(void)
{
	char here[PATH_MAX];
	struct fx f;
	struct reqs r;
	skit_error err = { 0 };
	bool is_error = false;
	const char *t;

	alarm(60);
	ASSERT(getcwd(here, sizeof(here)));
	build_world("scripts");
	relative_roots = true;
	fx_open(&f, "scripts.jsonl", NULL);
	relative_roots = false;
	ASSERT_OK(chdir("/"));
	for (size_t i = 0; i < skit_registry_count(f.reg); i++)
		ASSERT_EQ(skit_registry_entry(f.reg, i)->dir[0], '/');
	if (skit_agent_send(f.agent, "run them", NULL, &err))
		HARNESS_FAIL("send: %s", err.message);
	reqs_load(&r, f.log);
	t = result_of(&r, "s01", &is_error);
	ASSERT_CONTAINS(t, "exit code: 3");
	ASSERT_CONTAINS(t, "OUT3 [a b] [c]");
	ASSERT(!strstr(t, "cannot execute"));
	reqs_free(&r);
	fx_close(&f, "ok", 0);
	ASSERT_OK(chdir(here));
}

static void test_agent__script_budget(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	struct fx f;
	skit_agent_stats st;
	skit_error err = { 0 };
	char *answer = NULL;

	build_world("script-budget");
	ao.max_script_runs = 2;
	fx_open(&f, "script_budget.jsonl", &ao);
	ASSERT_EQ(skit_agent_send(f.agent, "run thrice", &answer, &err),
	          SKIT_ELIMIT);
	ASSERT(answer == NULL);
	ASSERT_CONTAINS(err.message, "script");
	skit_agent_get_stats(f.agent, &st);
	ASSERT_EQ(st.script_runs, 2);
	fx_close(&f, "limit", 1);
}

/* ---- budgets ---------------------------------------------------------- */

static void test_agent__max_turns(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	struct fx f;
	struct reqs r;
	skit_agent_stats st;
	skit_error err = { 0 };
	char *sum;

	build_world("max-turns");
	ao.max_turns = 3;
	fx_open(&f, "loop.jsonl", &ao);
	ASSERT_EQ(skit_agent_send(f.agent, "loop", NULL, &err), SKIT_ELIMIT);
	ASSERT_CONTAINS(err.message, "turn");
	skit_agent_get_stats(f.agent, &st);
	ASSERT_EQ(st.turns, 3);
	reqs_load(&r, f.log);
	ASSERT_EQ(r.n, 3);
	reqs_free(&r);
	fx_close(&f, "limit", 1);
	sum = slurp(at(f.run_dir, "run.json"));
	ASSERT_CONTAINS(sum, "\"limit\"");
	free(sum);
}

static void test_agent__max_tool_calls(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	struct fx f;
	skit_agent_stats st;
	skit_error err = { 0 };

	build_world("max-calls");
	ao.max_tool_calls = 2;
	fx_open(&f, "many_calls.jsonl", &ao);
	ASSERT_EQ(skit_agent_send(f.agent, "three calls", NULL, &err),
	          SKIT_ELIMIT);
	ASSERT_CONTAINS(err.message, "tool-call");
	skit_agent_get_stats(f.agent, &st);
	ASSERT_EQ(st.tool_calls, 2);
	fx_close(&f, "limit", 1);
}

static void test_agent__max_tokens(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	struct fx f;
	skit_agent_stats st;
	skit_error err = { 0 };

	build_world("max-tokens");
	ao.max_tokens = 100;
	fx_open(&f, "tokens.jsonl", &ao);
	ASSERT_EQ(skit_agent_send(f.agent, "spend", NULL, &err), SKIT_ELIMIT);
	ASSERT_CONTAINS(err.message, "token");
	skit_agent_get_stats(f.agent, &st);
	ASSERT_EQ(st.turns, 1);
	ASSERT_EQ(st.usage.input_tokens + st.usage.output_tokens, 110);
	fx_close(&f, "limit", 1);
}

static void test_agent__cassette_exhausted(void)
{
	struct fx f;
	skit_error err = { 0 };
	char *answer = NULL;
	int rc;

	build_world("exhausted");
	fx_open(&f, "exhausted.jsonl", NULL);
	rc = skit_agent_send(f.agent, "go", &answer, &err);
	ASSERT(rc != 0);
	ASSERT(rc != SKIT_ELIMIT);
	ASSERT(answer == NULL);
	ASSERT_CONTAINS(err.message, "no response");
	fx_close(&f, "error", 1);
}

/* ---- the plan --------------------------------------------------------- */

static void test_agent__plan(void)
{
	struct fx f;
	struct reqs r;
	struct events e;
	skit_step_status s;
	skit_error err = { 0 };
	bool is_error = false;
	json_t *ev;

	build_world("plan");
	fx_open(&f, "plan.jsonl", NULL);
	ASSERT_EQ(skit_agent_plan_count(f.agent), 0);
	ASSERT_OK(skit_agent_send(f.agent, "plan it", NULL, &err));
	ASSERT_EQ(skit_agent_plan_count(f.agent), 3);
	ASSERT_STR(skit_agent_plan_step(f.agent, 0, &s), "Read the data");
	ASSERT_EQ(s, SKIT_STEP_COMPLETED);
	ASSERT_STR(skit_agent_plan_step(f.agent, 1, &s), "Compute totals");
	ASSERT_EQ(s, SKIT_STEP_IN_PROGRESS);
	ASSERT_STR(skit_agent_plan_step(f.agent, 2, &s), "Write the report");
	ASSERT_EQ(s, SKIT_STEP_PENDING);
	reqs_load(&r, f.log);
	ASSERT_EQ(r.n, 5);
	ASSERT(result_of(&r, "p1", &is_error));
	ASSERT(!is_error);
	ASSERT_CONTAINS(result_of(&r, "p2", &is_error), "status");
	ASSERT(is_error);
	ASSERT_CONTAINS(result_of(&r, "p3", &is_error), "in_progress");
	ASSERT(is_error);
	ASSERT(result_of(&r, "p4", &is_error));
	ASSERT(is_error);
	reqs_free(&r);
	fx_close(&f, "ok", 0);
	events_load(&e, f.run_dir);
	ev = event(&e, "plan_updated", 0);
	ASSERT(ev);
	ASSERT_EQ(json_array_size(json_object_get(ev, "steps")), 3);
	ASSERT_STR(str_of(json_array_get(json_object_get(ev, "steps"), 1),
	                  "status"),
	           "in_progress");
	/* Refused plans are not recorded as updates. */
	ASSERT(!event(&e, "plan_updated", 1));
	events_free(&e);
}

/* ---- the JSON action protocol ----------------------------------------- */

static void test_agent__json_actions(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	struct fx f;
	struct reqs r;
	skit_error err = { 0 };
	char *answer = NULL;

	build_world("actions");
	ao.json_actions = true;
	fx_open(&f, "actions.jsonl", &ao);
	if (skit_agent_send(f.agent, "act", &answer, &err))
		HARNESS_FAIL("send: %s", err.message);
	ASSERT_STR(answer, "All done: ACTIONS-FINAL");
	skit_free(answer);
	reqs_load(&r, f.log);
	ASSERT_EQ(r.n, 4);
	for (size_t i = 0; i < r.n; i++) {
		/* No native tools; the protocol is in the system text. */
		REQ_HAS(&r, i, "\"tools\":[]");
		REQ_HAS(&r, i, "read_skill_resource");
	}
	REQ_LACKS(&r, 0, "BODY-MARKER-alpha");
	REQ_HAS(&r, 1, "BODY-MARKER-alpha");
	REQ_LACKS(&r, 1, "RES-MARKER-alpha");
	REQ_HAS(&r, 2, "RES-MARKER-alpha");
	REQ_LACKS(&r, 2, "malformed");
	REQ_HAS(&r, 3, "malformed");
	reqs_free(&r);
	ASSERT_EQ(skit_agent_active_count(f.agent), 1);
	fx_close(&f, "ok", 0);
}

/* ---- odd calls and cancellation ---------------------------------------- */

static void test_agent__odd_calls(void)
{
	struct fx f;
	struct reqs r;
	skit_error err = { 0 };
	bool is_error = false;
	char *answer = NULL;

	build_world("odd-calls");
	fx_open(&f, "odd_calls.jsonl", NULL);
	if (skit_agent_send(f.agent, "confuse", &answer, &err))
		HARNESS_FAIL("send: %s", err.message);
	ASSERT_STR(answer, "FINAL-ANSWER");
	skit_free(answer);
	reqs_load(&r, f.log);
	ASSERT_EQ(r.n, 2);
	ASSERT_CONTAINS(result_of(&r, "o1", &is_error), "JSON");
	ASSERT(is_error);
	ASSERT_CONTAINS(result_of(&r, "o2", &is_error), "rm_rf");
	ASSERT(is_error);
	ASSERT(result_of(&r, "o3", &is_error));
	ASSERT(is_error);
	ASSERT_CONTAINS(result_of(&r, "o4", &is_error), "name");
	ASSERT(is_error);
	ASSERT_CONTAINS(result_of(&r, "o5", &is_error), "nosuch");
	ASSERT(is_error);
	/* a script of a skill not yet active */
	ASSERT_CONTAINS(result_of(&r, "o6", &is_error), "use_skill");
	ASSERT(is_error);
	REQ_LACKS(&r, 1, "SCRIPT-OUT-alpha");
	ASSERT_CONTAINS(result_of(&r, "o7", &is_error), "BODY-MARKER-alpha");
	ASSERT(!is_error);
	/* twice: not loaded again */
	ASSERT(!strstr(result_of(&r, "o8", &is_error), "BODY-MARKER-alpha"));
	ASSERT(!is_error);
	reqs_free(&r);
	ASSERT_EQ(skit_agent_active_count(f.agent), 1);
	fx_close(&f, "ok", 0);
}

static void test_agent__canceled(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	static volatile int cancel = 1;
	struct fx f;
	struct stat st;
	skit_error err = { 0 };
	char *sum;

	build_world("canceled");
	ao.cancel = &cancel;
	fx_open(&f, "final.jsonl", &ao);
	ASSERT_EQ(skit_agent_send(f.agent, "go", NULL, &err), SKIT_ECANCELED);
	ASSERT(stat(f.log, &st) < 0 || st.st_size == 0);
	fx_close(&f, "canceled", 130);
	sum = slurp(at(f.run_dir, "run.json"));
	ASSERT_CONTAINS(sum, "\"canceled\"");
	free(sum);
}

/* ---- misc ------------------------------------------------------------- */

static void test_agent__bad_options(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	skit_agent *a = NULL;
	skit_error err = { 0 };

	ASSERT_EQ(skit_agent_new(&a, &ao, &err), SKIT_EUSAGE);
	ASSERT(a == NULL);
}

static void test_agent__model_missing_cassette(void)
{
	skit_model_options mo = SKIT_MODEL_OPTIONS_INIT;
	skit_model *m = NULL;
	skit_error err = { 0 };

	mo.spec = "replay:/nonexistent/cassette.jsonl";
	ASSERT_EQ(skit_model_new(&m, &mo, &err), SKIT_EUSAGE);
	ASSERT(m == NULL);
	ASSERT(!strchr(err.message, '\n'));
	mo.spec = "nope:x";
	ASSERT_EQ(skit_model_new(&m, &mo, &err), SKIT_EUSAGE);
}

/* clang-format off */

/* ---- permissions and the file tools ------------------------------------ */

/* Whether request `i` offered tool `name`. */
static bool offers(const struct reqs *r, size_t i, const char *name)
{
	json_t *t;
	size_t k;

	ASSERT(i < r->n);
	json_array_foreach(json_object_get(r->json[i], "tools"), k, t)
	{
		if (!strcmp(str_of(t, "name"), name))
			return true;
	}
	return false;
}

struct asker {
	unsigned int asked, refused;
	char last_flag[256];
};

static skit_approve_answer ask_hook(const skit_approval *req, void *payload)
{
	struct asker *k = payload;

	k->asked++;
	if (!strcmp(req->tool, "shell") && strstr(req->target, "EARLY"))
		return SKIT_APPROVE_YES;
	if (!strcmp(req->tool, "shell")) {
		ASSERT_STR(req->target, "echo GATED-SHELL");
		ASSERT_STR(req->reason, "execute call needs approval");
		ASSERT_STR(req->always, "shell commands starting with 'echo'");
		ASSERT_STR(req->approving_flag,
		           "--allow 'Bash(echo GATED-SHELL)'");
		ASSERT(!req->skill);
		/* The prompt says what network the program would have. */
		ASSERT_STR(req->network, "off");
		return SKIT_APPROVE_YES;
	}
	ASSERT_STR(req->tool, "run_skill_script");
	ASSERT_STR(req->skill, "gated");
	ASSERT_STR(req->network, "off");
	ASSERT_STR(req->always, "runs of gated's scripts/ok.sh");
	ASSERT_CONTAINS(req->arguments, "\"path\":\"scripts/ok.sh\"");
	return SKIT_APPROVE_ALWAYS;
}

static void refused_hook(const skit_approval *req, void *payload)
{
	struct asker *k = payload;

	k->refused++;
	snprintf(k->last_flag, sizeof(k->last_flag), "%s",
	         req->approving_flag);
}

/* The approval events of the trail, as "id:decision:by" for each. */
static void approvals_of(const struct events *e, char *out, size_t cap)
{
	out[0] = '\0';
	for (size_t i = 0; i < e->n; i++) {
		json_t *ev = e->ev[i];

		if (strcmp(str_of(ev, "type"), "approval"))
			continue;
		snprintf(out + strlen(out), cap - strlen(out), "%s:%s:%s%s ",
		         str_of(ev, "tool"), str_of(ev, "decision"),
		         str_of(ev, "by"),
		         json_is_true(json_object_get(ev, "asked")) ? ":asked"
		                                                    : "");
	}
}

static void test_agent__approvals_without_terminal(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	struct asker k = { 0 };
	skit_policy *pol;
	struct fx f;
	struct reqs r;
	struct events e;
	skit_error err = { 0 };
	bool is_error = false;
	char list[1024];
	const char *t;

	build_world("approvals-no-tty");
	ASSERT_OK(skit_policy_new(&pol, &err));
	ao.policy = pol;
	ao.hooks.on_refused = refused_hook;
	ao.hooks.payload = &k;
	fx_open(&f, "approvals.jsonl", &ao);
	if (skit_agent_send(f.agent, "do it", NULL, &err))
		HARNESS_FAIL("send: %s", err.message);
	reqs_load(&r, f.log);
	ASSERT_EQ(r.n, 5);
	/* Before activation: reads, no shell, no scripts, no writes. */
	ASSERT(offers(&r, 0, "read_file"));
	ASSERT(offers(&r, 0, "grep"));
	ASSERT(!offers(&r, 0, "shell"));
	ASSERT(!offers(&r, 0, "run_skill_script"));
	ASSERT(!offers(&r, 0, "write_file"));
	t = result_of(&r, "a01", &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(t, "not available");
	/* After: what gated names, and its scripts; still no writes. */
	ASSERT(offers(&r, 2, "shell"));
	ASSERT(offers(&r, 2, "run_skill_script"));
	ASSERT(offers(&r, 2, "read_file"));
	ASSERT(!offers(&r, 2, "write_file"));
	ASSERT(offers(&r, 2, "grep"));
	t = result_of(&r, "a02", &is_error);
	ASSERT_CONTAINS(t, "Tools now available");
	ASSERT_CONTAINS(t, "- shell");
	/* No one to ask: refused, with the flag that would approve it. */
	t = result_of(&r, "a03", &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(t, "no one to ask");
	ASSERT_CONTAINS(t, "--allow 'Bash(echo GATED-SHELL)'");
	t = result_of(&r, "a04", &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(t, "not available");
	t = result_of(&r, "a05", &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(t, "--yes");
	t = result_of(&r, "a07", &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(t, "not in the allowed-tools");
	for (size_t i = 0; i < r.n; i++) {
		REQ_LACKS(&r, i, "EARLY-SHELL\n");
		REQ_LACKS(&r, i, "OK-RUN");
	}
	ASSERT_EQ(k.refused, 3);
	ASSERT_STR(k.last_flag, "--yes");
	reqs_free(&r);
	fx_close(&f, "ok", 0);
	events_load(&e, f.run_dir);
	approvals_of(&e, list, sizeof(list));
	ASSERT_STR(list, "shell:deny:no-tty run_skill_script:deny:no-tty "
	                 "run_skill_script:deny:no-tty shell:deny:policy ");
	events_free(&e);
	skit_policy_free(pol);
}

static void test_agent__approvals_asked(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	struct asker k = { 0 };
	skit_policy *pol;
	struct fx f;
	struct reqs r;
	struct events e;
	skit_error err = { 0 };
	bool is_error = false;
	char list[1024];
	const char *t;

	build_world("approvals-asked");
	ASSERT_OK(skit_policy_new(&pol, &err));
	ao.policy = pol;
	ao.hooks.on_approve = ask_hook;
	ao.hooks.on_refused = refused_hook;
	ao.hooks.payload = &k;
	fx_open(&f, "approvals.jsonl", &ao);
	if (skit_agent_send(f.agent, "do it", NULL, &err))
		HARNESS_FAIL("send: %s", err.message);
	reqs_load(&r, f.log);
	ASSERT_EQ(r.n, 5);
	/* Someone can approve: shell is offered from the start, but the
	 * active skill's allowed-tools still hides write_file. */
	ASSERT(offers(&r, 0, "shell"));
	ASSERT(offers(&r, 0, "write_file"));
	ASSERT(!offers(&r, 2, "write_file"));
	t = result_of(&r, "a01", &is_error);
	ASSERT(!is_error);
	ASSERT_CONTAINS(t, "EARLY-SHELL");
	t = result_of(&r, "a03", &is_error);
	ASSERT(!is_error);
	ASSERT_CONTAINS(t, "GATED-SHELL");
	ASSERT_CONTAINS(result_of(&r, "a05", &is_error), "OK-RUN");
	ASSERT(!is_error);
	/* "always": the second run is not asked about */
	ASSERT_CONTAINS(result_of(&r, "a06", &is_error), "OK-RUN again");
	ASSERT(!is_error);
	ASSERT_CONTAINS(result_of(&r, "a07", &is_error), "allowed-tools");
	ASSERT(is_error);
	reqs_free(&r);
	ASSERT_EQ(k.asked, 3); /* a01, a03, a05; a06 was covered by "always" */
	ASSERT_EQ(k.refused, 0);
	fx_close(&f, "ok", 0);
	events_load(&e, f.run_dir);
	approvals_of(&e, list, sizeof(list));
	ASSERT_STR(list, "shell:allow:user:asked shell:allow:user:asked "
	                 "run_skill_script:allow:user:asked "
	                 "run_skill_script:allow:user shell:deny:policy ");
	events_free(&e);
	skit_policy_free(pol);
}

static void test_agent__file_tools(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	char proj[PATH_MAX], pwd[PATH_MAX + 16], *text;
	struct fx f;
	struct reqs r;
	struct events e;
	skit_error err = { 0 };
	bool is_error = false, landlock;
	const char *t;
	size_t writes = 0;
	DIR *d;
	struct dirent *de;

	build_world("file-tools");
	fmt(proj, sizeof(proj), "%s/proj", world);
	put(at(proj, "notes/a.txt"), "line1 NEEDLE1\nline2\nline3\n", 0644);
	put(at(proj, "notes/b.md"), "a needle here\n", 0644);
	put(at(proj, ".hidden/x.txt"), "NEEDLE9\n", 0644);
	ASSERT_OK(symlink(at(world, "outside"), at(proj, "link-out")));
	ASSERT_OK(symlink(at(world, "outside/secret.md"),
	                  at(proj, "link-file")));
	ao.project_dir = proj;
	fx_open(&f, "files.jsonl", &ao);
	if (skit_agent_send(f.agent, "files", NULL, &err))
		HARNESS_FAIL("send: %s", err.message);
	reqs_load(&r, f.log);
	ASSERT_EQ(r.n, 5);
	t = result_of(&r, "f01", &is_error);
	ASSERT(!is_error);
	ASSERT_CONTAINS(t, "NEEDLE1");
	ASSERT_CONTAINS(result_of(&r, "f02", &is_error),
	                "outside the project");
	ASSERT(is_error);
	ASSERT_CONTAINS(result_of(&r, "f03", &is_error),
	                "outside the project");
	ASSERT(is_error);
	ASSERT_CONTAINS(result_of(&r, "f04", &is_error), "symbolic link");
	ASSERT(is_error);
	t = result_of(&r, "f05", &is_error);
	ASSERT_CONTAINS(t, "line2");
	ASSERT(!strstr(t, "line1"));
	t = result_of(&r, "f06", &is_error);
	ASSERT(!is_error);
	ASSERT_CONTAINS(t, "notes/\n");
	ASSERT_CONTAINS(t, "link-out (symbolic link)");
	ASSERT_CONTAINS(result_of(&r, "f07", &is_error), "a.txt  26 bytes");
	t = result_of(&r, "f08", &is_error);
	ASSERT_CONTAINS(t, "notes/a.txt:1: line1 NEEDLE1");
	ASSERT(!strstr(t, "NEEDLE9"));
	t = result_of(&r, "f09", &is_error);
	ASSERT_CONTAINS(t, "notes/b.md:1:");
	ASSERT(!strstr(t, "a.txt"));
	ASSERT_CONTAINS(result_of(&r, "f10", &is_error),
	                "bad regular expression");
	ASSERT(is_error);
	ASSERT_CONTAINS(result_of(&r, "f11", &is_error), "Created");
	ASSERT(!is_error);
	ASSERT_CONTAINS(result_of(&r, "f12", &is_error), "Replaced");
	ASSERT_CONTAINS(result_of(&r, "f13", &is_error),
	                "not a regular file");
	ASSERT(is_error);
	ASSERT(result_of(&r, "f14", &is_error));
	ASSERT(is_error);
	ASSERT_CONTAINS(result_of(&r, "f15", &is_error),
	                "outside the project");
	t = result_of(&r, "f16", &is_error);
	ASSERT_CONTAINS(t, "REPLACED");
	/* Programs run in the project and may write it (workspace-write). */
	fmt(pwd, sizeof(pwd), "SHELL-PWD=%s", proj);
	ASSERT_CONTAINS(t, pwd);
	ASSERT_CONTAINS(t, "WROTE-WORKDIR");
	landlock = (skit_sandbox_available() & SKIT_SANDBOX_LANDLOCK) != 0;
	if (landlock)
		ASSERT_CONTAINS(result_of(&r, "f17", &is_error),
		                "OUTSIDE-READONLY");
	else
		fprintf(stderr, "note: no Landlock here; f17 not checked\n");
	for (size_t i = 0; i < r.n; i++)
		REQ_LACKS(&r, i, "OUTSIDE-SECRET");
	reqs_free(&r);
	fx_close(&f, "ok", 0);

	/* The files: written atomically, nothing outside, no temp left. */
	text = slurp(at(proj, "out/deep/new.txt"));
	ASSERT_STR(text, "NEW-CONTENT\n");
	free(text);
	text = slurp(at(proj, "notes/a.txt"));
	ASSERT_STR(text, "REPLACED\n");
	free(text);
	text = slurp(at(world, "outside/secret.md"));
	ASSERT_STR(text, "OUTSIDE-SECRET\n");
	free(text);
	ASSERT(access(at(world, "outside/x.txt"), F_OK) < 0);
	ASSERT(access(at(world, "escape.txt"), F_OK) < 0);
	ASSERT(access(at(proj, "made-here.txt"), F_OK) == 0);
	ASSERT(access(at(world, "work/made-here.txt"), F_OK) < 0);
	/* HOME is the private folder (here the one given as workdir). */
	text = slurp(at(proj, "home.txt"));
	ASSERT_CONTAINS(text, at(world, "work"));
	free(text);
	if (landlock)
		ASSERT(access(at(world, "outside/evil.txt"), F_OK) < 0);
	d = opendir(at(proj, "notes"));
	ASSERT(d);
	while ((de = readdir(d)))
		ASSERT(!strstr(de->d_name, "skit-"));
	closedir(d);
	events_load(&e, f.run_dir);
	for (size_t i = 0; i < e.n; i++)
		writes += !strcmp(str_of(e.ev[i], "type"), "file_written");
	ASSERT_EQ(writes, 2);
	ASSERT(event(&e, "approval", 0));
	ASSERT_STR(str_of(event(&e, "approval", 0), "by"), "policy");
	events_free(&e);
}

static void test_agent__no_file_tools(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	struct fx f;
	struct reqs r;
	skit_error err = { 0 };
	bool is_error = false;

	build_world("no-file-tools");
	ao.file_tools = false;
	fx_open(&f, "files.jsonl", &ao);
	if (skit_agent_send(f.agent, "files", NULL, &err))
		HARNESS_FAIL("send: %s", err.message);
	reqs_load(&r, f.log);
	ASSERT(!offers(&r, 0, "read_file"));
	ASSERT(!offers(&r, 0, "shell"));
	ASSERT_CONTAINS(result_of(&r, "f01", &is_error), "not available");
	ASSERT(is_error);
	reqs_free(&r);
	fx_close(&f, "ok", 0);
}

/* ---- edit_file, multi_edit and glob ------------------------------------ */

/* The SHA-256 of `text` in hex. */
static void sha_hex(const char *text, char hex[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	ASSERT(EVP_Digest(text, strlen(text), md, &mdlen, EVP_sha256(), NULL));
	for (unsigned int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

static void test_agent__edit_tools(void)
{
	static const char main_c[] = "int main(void)\n{\n\tint count = 1;\n"
	                             "\treturn count;\n}\n";
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	char proj[PATH_MAX], hex[65], *text;
	struct fx f;
	struct reqs r;
	struct events e;
	skit_error err = { 0 };
	bool is_error = false;
	struct stat st;
	const char *t;
	json_t *ev;

	build_world("edit-tools");
	fmt(proj, sizeof(proj), "%s/proj", world);
	put(at(proj, "src/main.c"), main_c, 0640);
	put(at(proj, "notes/dup.txt"), "alpha\nbeta\nalpha\ngamma\nalpha\n",
	    0644);
	put(at(proj, "multi.txt"), "one\ntwo\nthree\n", 0644);
	put(at(proj, ".git/config"), "x\n", 0644);
	put(at(world, "outside/secret.md"), "OUTSIDE-SECRET\n", 0644);
	ASSERT_OK(symlink(at(world, "outside/secret.md"),
	                  at(proj, "link-file")));
	ao.project_dir = proj;
	fx_open(&f, "edits.jsonl", &ao);
	if (skit_agent_send(f.agent, "edit", NULL, &err))
		HARNESS_FAIL("send: %s", err.message);
	reqs_load(&r, f.log);
	ASSERT_EQ(r.n, 3);
	ASSERT(offers(&r, 0, "edit_file"));
	ASSERT(offers(&r, 0, "multi_edit"));
	ASSERT(offers(&r, 0, "glob"));
	t = result_of(&r, "e01", &is_error);
	ASSERT(!is_error);
	ASSERT_CONTAINS(t, "Edited src/main.c: 1 replacement (line 3)");
	/* A miss names the closest place: blanks only... */
	t = result_of(&r, "e02", &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(t, "old_string was not found");
	ASSERT_CONTAINS(t, "matches lines 4-4 only when blanks");
	/* ... or the lines that start alike, best first. */
	t = result_of(&r, "e03", &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(t, "closest line(s)");
	ASSERT_CONTAINS(t, "line 3: \tint count = 2;\n  line 1: int main");
	t = result_of(&r, "e04", &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(t, "occurs 3 times (at lines 1, 3, 5)");
	t = result_of(&r, "e05", &is_error);
	ASSERT(!is_error);
	ASSERT_CONTAINS(t, "3 replacements (line 1 and 2 more)");
	/* multi_edit: a failing third edit leaves the file as it was */
	t = result_of(&r, "e06", &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(t, "edit 3 of 3: old_string was not found");
	ASSERT_CONTAINS(t, "after edits 1-2");
	ASSERT_CONTAINS(t, "the file is unchanged");
	/* ... and each edit works on the result of the one before */
	t = result_of(&r, "e07", &is_error);
	ASSERT(!is_error);
	ASSERT_CONTAINS(t, "2 replacements");
	t = result_of(&r, "e08", &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(t, "protected path");
	ASSERT_CONTAINS(t, "edit_file never writes it");
	ASSERT_CONTAINS(result_of(&r, "e09", &is_error), "no such file");
	ASSERT(is_error);
	ASSERT_CONTAINS(result_of(&r, "e10", &is_error), "is empty");
	ASSERT(is_error);
	ASSERT_CONTAINS(result_of(&r, "e11", &is_error),
	                "not a regular file");
	ASSERT(is_error);
	t = result_of(&r, "e12", &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(t, "first 2 line(s) of old_string match from line 2");
	ASSERT_CONTAINS(t, "line 4: \treturn count;");
	reqs_free(&r);
	fx_close(&f, "ok", 0);

	text = slurp(at(proj, "src/main.c"));
	ASSERT_STR(text, "int main(void)\n{\n\tint count = 2;\n"
	                 "\treturn count;\n}\n");
	free(text);
	ASSERT_OK(stat(at(proj, "src/main.c"), &st));
	ASSERT_EQ(st.st_mode & 0777, 0640); /* the mode is kept */
	text = slurp(at(proj, "notes/dup.txt"));
	ASSERT_STR(text, "omega\nbeta\nomega\ngamma\nomega\n");
	free(text);
	text = slurp(at(proj, "multi.txt"));
	ASSERT_STR(text, "ONE-TWO\nthree\n");
	free(text);
	text = slurp(at(proj, ".git/config"));
	ASSERT_STR(text, "x\n");
	free(text);
	text = slurp(at(world, "outside/secret.md"));
	ASSERT_STR(text, "OUTSIDE-SECRET\n");
	free(text);
	ASSERT(access(at(proj, "missing.txt"), F_OK) < 0);

	/* The trail: a digest of the file before and after each edit. */
	events_load(&e, f.run_dir);
	ev = event(&e, "file_edited", 0);
	ASSERT(ev);
	ASSERT_STR(str_of(ev, "path"), "src/main.c");
	ASSERT_STR(str_of(ev, "tool"), "edit_file");
	sha_hex(main_c, hex);
	ASSERT_STR(str_of(ev, "sha256_before"), hex);
	sha_hex("int main(void)\n{\n\tint count = 2;\n\treturn count;\n}\n",
	        hex);
	ASSERT_STR(str_of(ev, "sha256_after"), hex);
	ev = event(&e, "file_edited", 2);
	ASSERT(ev);
	ASSERT_STR(str_of(ev, "tool"), "multi_edit");
	ASSERT_EQ(json_integer_value(json_object_get(ev, "edits")), 2);
	sha_hex("one\ntwo\nthree\n", hex);
	ASSERT_STR(str_of(ev, "sha256_before"), hex);
	sha_hex("ONE-TWO\nthree\n", hex);
	ASSERT_STR(str_of(ev, "sha256_after"), hex);
	ASSERT(!event(&e, "file_edited", 3));
	ev = event(&e, "file_write_refused", 0);
	ASSERT(ev);
	ASSERT_STR(str_of(ev, "path"), ".git/config");
	ASSERT_STR(str_of(ev, "tool"), "edit_file");
	events_free(&e);
}

struct edit_asker {
	unsigned int asked;
	char tools[256];
};

static skit_approve_answer edit_ask(const skit_approval *req, void *payload)
{
	struct edit_asker *k = payload;

	k->asked++;
	snprintf(k->tools + strlen(k->tools), sizeof(k->tools) - strlen(k->tools),
	         "%s:%s:%s ", req->tool, req->target, req->approving_flag);
	ASSERT_STR(req->reason, "write call needs approval");
	return strcmp(req->tool, "edit_file") ? SKIT_APPROVE_NO
	                                      : SKIT_APPROVE_YES;
}

/* The edit tools through the gate: Edit and Write patterns refuse them,
 * and without one the user is asked. */
static void test_agent__edit_gate(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	struct edit_asker k = { 0 };
	char proj[PATH_MAX], list[1024], *text;
	skit_policy *pol;
	struct fx f;
	struct reqs r;
	struct events e;
	skit_error err = { 0 };
	bool is_error = false;

	build_world("edit-gate");
	fmt(proj, sizeof(proj), "%s/proj", world);
	put(at(proj, "notes/a.txt"), "OLD-A\n", 0644);
	put(at(proj, "src/x.c"), "OLD-X\n", 0644);
	ao.project_dir = proj;

	/* --yes, but Edit and Write deny rules on the two folders */
	ASSERT_OK(skit_policy_new(&pol, &err));
	skit_policy_set_yes(pol, true);
	ASSERT_OK(skit_policy_add_flag(pol, SKIT_POLICY_LIST_DENY,
	                               "Edit(notes/**)", &err));
	ASSERT_OK(skit_policy_add_flag(pol, SKIT_POLICY_LIST_DENY,
	                               "Write(src/**)", &err));
	ao.policy = pol;
	fx_open(&f, "edit_gate.jsonl", &ao);
	if (skit_agent_send(f.agent, "edit", NULL, &err))
		HARNESS_FAIL("send: %s", err.message);
	reqs_load(&r, f.log);
	ASSERT_CONTAINS(result_of(&r, "d1", &is_error),
	                "denied by --deny 'Edit(notes/**)'");
	ASSERT(is_error);
	ASSERT_CONTAINS(result_of(&r, "d2", &is_error),
	                "denied by --deny 'Write(src/**)'");
	ASSERT(is_error);
	reqs_free(&r);
	fx_close(&f, "ok", 0);
	skit_policy_free(pol);
	text = slurp(at(proj, "notes/a.txt"));
	ASSERT_STR(text, "OLD-A\n");
	free(text);

	/* No rule and someone to ask: d1 approved, d2 declined. */
	ASSERT_OK(skit_policy_new(&pol, &err));
	ao.policy = pol;
	ao.hooks.on_approve = edit_ask;
	ao.hooks.payload = &k;
	fx_open(&f, "edit_gate.jsonl", &ao);
	if (skit_agent_send(f.agent, "edit", NULL, &err))
		HARNESS_FAIL("send: %s", err.message);
	reqs_load(&r, f.log);
	ASSERT(offers(&r, 0, "edit_file"));
	ASSERT_CONTAINS(result_of(&r, "d1", &is_error), "Edited notes/a.txt");
	ASSERT(!is_error);
	ASSERT_CONTAINS(result_of(&r, "d2", &is_error), "declined");
	ASSERT(is_error);
	reqs_free(&r);
	ASSERT_EQ(k.asked, 2);
	ASSERT_STR(k.tools, "edit_file:notes/a.txt:--allow 'Write(notes/a.txt)' "
	                    "multi_edit:src/x.c:--allow 'Write(src/x.c)' ");
	fx_close(&f, "ok", 0);
	events_load(&e, f.run_dir);
	approvals_of(&e, list, sizeof(list));
	ASSERT_STR(list, "edit_file:allow:user:asked "
	                 "multi_edit:deny:user:asked ");
	events_free(&e);
	skit_policy_free(pol);
	text = slurp(at(proj, "notes/a.txt"));
	ASSERT_STR(text, "NEW-A\n");
	free(text);
	text = slurp(at(proj, "src/x.c"));
	ASSERT_STR(text, "OLD-X\n");
	free(text);
}

/* Set the modification time of `path` to `sec` seconds after 2020. */
static void age(const char *path, long sec)
{
	struct timespec ts[2];

	ts[0].tv_sec = ts[1].tv_sec = 1577836800L + sec;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	ASSERT_OK(utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW));
}

static void test_agent__glob_tool(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	char proj[PATH_MAX], name[64];
	skit_policy *pol;
	struct fx f;
	struct reqs r;
	skit_error err = { 0 };
	bool is_error = false;
	const char *t, *a, *b, *c;

	build_world("glob-tool");
	fmt(proj, sizeof(proj), "%s/proj", world);
	put(at(proj, "top.c"), "t\n", 0644);
	put(at(proj, "src/a.c"), "a\n", 0644);
	put(at(proj, "src/deep/b.c"), "b\n", 0644);
	put(at(proj, "src/deep/c.h"), "c\n", 0644);
	put(at(proj, ".git/x.c"), "g\n", 0644);
	put(at(proj, ".hidden/h.c"), "h\n", 0644);
	put(at(proj, "secrets/k.c"), "k\n", 0644);
	put(at(world, "outside/o.c"), "o\n", 0644);
	ASSERT_OK(symlink(at(world, "outside"), at(proj, "link-out")));
	ASSERT_OK(symlink(at(world, "outside/o.c"), at(proj, "link.c")));
	age(at(proj, "top.c"), 100);
	age(at(proj, "src/a.c"), 10);
	age(at(proj, "src/deep/b.c"), 1000);
	for (int i = 0; i < 205; i++) {
		fmt(name, sizeof(name), "many/sub/f%03d.txt", i);
		put(at(proj, name), "m\n", 0644);
		age(at(proj, name), i);
	}
	ASSERT_OK(skit_policy_new(&pol, &err));
	skit_policy_set_yes(pol, true);
	ASSERT_OK(skit_policy_add_flag(pol, SKIT_POLICY_LIST_DENY,
	                               "Read(secrets/**)", &err));
	ao.policy = pol;
	ao.project_dir = proj;
	fx_open(&f, "glob.jsonl", &ao);
	if (skit_agent_send(f.agent, "glob", NULL, &err))
		HARNESS_FAIL("send: %s", err.message);
	reqs_load(&r, f.log);
	ASSERT_EQ(r.n, 2);
	t = result_of(&r, "g01", &is_error);
	ASSERT(!is_error);
	ASSERT_CONTAINS(t, "3 files match, newest first:\n");
	/* newest first: b.c (1000), top.c (100), a.c (10) */
	a = strstr(t, "src/deep/b.c\n");
	b = strstr(t, "top.c\n");
	c = strstr(t, "src/a.c\n");
	ASSERT(a && b && c && a < b && b < c);
	ASSERT(!strstr(t, "x.c")); /* .git */
	ASSERT(!strstr(t, "h.c")); /* a hidden folder, not named */
	ASSERT(!strstr(t, "o.c")); /* no link is followed */
	ASSERT(!strstr(t, "link.c"));
	ASSERT(!strstr(t, "k.c"));
	ASSERT_CONTAINS(t, "[1 entry hidden by the permission rules]");
	t = result_of(&r, "g02", &is_error);
	ASSERT_CONTAINS(t, "1 file matches, newest first:\ntop.c\n");
	t = result_of(&r, "g03", &is_error);
	ASSERT_CONTAINS(t, "205 files match, newest first:\n"
	                   "many/sub/f204.txt\nmany/sub/f203.txt\n");
	ASSERT_CONTAINS(t, "many/sub/f005.txt\n[5 more not shown");
	ASSERT(!strstr(t, "f004.txt"));
	t = result_of(&r, "g04", &is_error);
	ASSERT_CONTAINS(t, "src/deep/c.h\n");
	ASSERT_CONTAINS(t, "3 files match");
	t = result_of(&r, "g05", &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(t, "'..' is refused");
	t = result_of(&r, "g06", &is_error);
	ASSERT(!is_error);
	ASSERT_CONTAINS(t, "1 file matches, newest first:\n.hidden/h.c\n");
	ASSERT_CONTAINS(result_of(&r, "g07", &is_error), "No file matches.");
	for (size_t i = 0; i < r.n; i++)
		REQ_LACKS(&r, i, "secrets/k.c");
	reqs_free(&r);
	fx_close(&f, "ok", 0);
	skit_policy_free(pol);
}

struct warn_log {
	unsigned int warnings;
	char line[512];
};

static void warn_trace(skit_trace_kind kind, const char *line, void *payload)
{
	struct warn_log *w = payload;

	if (kind == SKIT_TRACE_NOTE && strstr(line, "sandbox")) {
		w->warnings++;
		snprintf(w->line, sizeof(w->line), "%s", line);
	}
}

/* A kernel without a layer: one warning line, and the trail records it. */
static void test_agent__sandbox_layer_missing(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	struct warn_log w = { 0 };
	struct fx f;
	struct reqs r;
	struct events e;
	skit_error err = { 0 };
	bool is_error = false;
	json_t *ev;

	build_world("layer-missing");
	ao.hooks.on_trace = warn_trace;
	ao.hooks.payload = &w;
	skit__sandbox_disabled = SKIT_SANDBOX_LANDLOCK;
	fx_open(&f, "perm.jsonl", &ao);
	if (skit_agent_send(f.agent, "go", NULL, &err))
		HARNESS_FAIL("send: %s", err.message);
	skit__sandbox_disabled = 0;
	reqs_load(&r, f.log);
	/* Both programs still ran, under the other layers. */
	ASSERT_CONTAINS(result_of(&r, "p1", &is_error), "OK-RUN");
	ASSERT_CONTAINS(result_of(&r, "p2", &is_error), "SHELL-RAN");
	reqs_free(&r);
	ASSERT_EQ(w.warnings, 1);
	ASSERT_STR(w.line, "warning: sandbox layers unavailable here: landlock, "
	                   "landlock_net, landlock_scope (see skit doctor)");
	fx_close(&f, "ok", 0);
	events_load(&e, f.run_dir);
	ev = event(&e, "sandbox_warning", 0);
	ASSERT(ev);
	ASSERT_STR(json_string_value(
	                   json_array_get(json_object_get(ev, "missing"), 0)),
	           "landlock");
	ASSERT(!event(&e, "sandbox_warning", 1));
	events_free(&e);
}

/* ---- a program's own tools (skit_agent_options.tools) ------------------ */

struct app {
	unsigned int lookups, orders, floods;
	char last_args[256];
	char trace[8192];
};

static int app_lookup(const char *arguments, skit_tool_output *out,
                      bool *is_error, void *payload)
{
	struct app *ap = payload;
	json_t *args = json_loads(arguments, 0, NULL);
	const char *item = json_string_value(json_object_get(args, "item"));
	char text[128];

	ASSERT(args);
	ASSERT(!*is_error);
	ap->lookups++;
	snprintf(ap->last_args, sizeof(ap->last_args), "%s", arguments);
	if (!item) {
		*is_error = true;
		json_decref(args);
		return skit_tool_output_puts(out, "no item") == 0 ? 0 : -1;
	}
	snprintf(text, sizeof(text), "PRICE-OF-%s is 3", item);
	json_decref(args);
	ASSERT_OK(skit_tool_output_puts(out, text));
	return 0;
}

static int app_order(const char *arguments, skit_tool_output *out,
                     bool *is_error, void *payload)
{
	struct app *ap = payload;

	(void)is_error;
	ap->orders++;
	ASSERT_CONTAINS(arguments, "\"qty\"");
	ASSERT_OK(skit_tool_output_append(out, "ORDERED-xyz", 7));
	return 0;
}

static int app_flood(const char *arguments, skit_tool_output *out,
                     bool *is_error, void *payload)
{
	struct app *ap = payload;
	static char chunk[4096];
	int rc = 0;

	(void)arguments;
	(void)is_error;
	ap->floods++;
	memset(chunk, 'f', sizeof(chunk));
	for (int i = 0; i < 20 && !rc; i++)
		rc = skit_tool_output_append(out, chunk, sizeof(chunk));
	ASSERT_EQ(rc, SKIT_ETOOBIG);
	ASSERT_EQ(skit_tool_output_puts(out, "more"), SKIT_ETOOBIG);
	return 0;
}

static void app_trace(skit_trace_kind kind, const char *line, void *payload)
{
	struct app *ap = payload;
	size_t n = strlen(ap->trace);

	if (kind == SKIT_TRACE_TOOL)
		snprintf(ap->trace + n, sizeof(ap->trace) - n, "%s\n", line);
}

static void app_defs(skit_tool_def d[3], struct app *ap)
{
	const skit_tool_def init = SKIT_TOOL_DEF_INIT;

	for (int i = 0; i < 3; i++) {
		d[i] = init;
		d[i].payload = ap;
	}
	d[0].name = "mcp__app__lookup";
	d[0].description = "LOOKUP-DESC: the price of an item.";
	d[0].parameters = "{\"type\": \"object\", \"properties\": {\"item\": "
	                  "{\"type\": \"string\"}}, \"required\": [\"item\"]}";
	d[0].risk = SKIT_RISK_READ;
	d[0].call = app_lookup;
	d[1].name = "mcp__app__order";
	d[1].description = "Order an item.";
	d[1].risk = SKIT_RISK_WRITE;
	d[1].call = app_order;
	d[2].name = "mcp__app__flood";
	d[2].description = "Says too much.";
	d[2].risk = SKIT_RISK_READ;
	d[2].call = app_flood;
}

static void custom_world(const char *name)
{
	build_world(name);
	mkskill(at(world, "project"), "shop",
	        "allowed-tools: mcp__app__lookup\n", "Shops for the user.",
	        "SHOP-BODY\n");
}

static void test_agent__custom_tools(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	skit_tool_def defs[3];
	struct app ap = { 0 };
	struct fx f;
	struct reqs r;
	struct events e;
	skit_error err = { 0 };
	bool is_error = true;
	json_t *ev, *tools, *t;
	const char *res;
	size_t k;

	custom_world("custom-tools");
	app_defs(defs, &ap);
	ao.tools = defs;
	ao.ntools = 3;
	ao.hooks.on_trace = app_trace;
	ao.hooks.payload = &ap;
	fx_open(&f, "custom_tools.jsonl", &ao); /* --yes */
	if (skit_agent_send(f.agent, "buy an apple", NULL, &err))
		HARNESS_FAIL("send: %s", err.message);
	reqs_load(&r, f.log);
	ASSERT_EQ(r.n, 4);
	/* Offered with the description and the schema as given. */
	ASSERT(offers(&r, 0, "mcp__app__lookup"));
	ASSERT(offers(&r, 0, "mcp__app__order"));
	tools = json_object_get(r.json[0], "tools");
	json_array_foreach(tools, k, t)
	{
		if (strcmp(str_of(t, "name"), "mcp__app__lookup"))
			continue;
		ASSERT_STR(str_of(t, "description"),
		           "LOOKUP-DESC: the price of an item.");
		ASSERT_CONTAINS(str_of(t, "parameters"),
		                "\"required\":[\"item\"]");
	}
	/* Called with the model's arguments; the result reached the model. */
	res = result_of(&r, "c1", &is_error);
	ASSERT(!is_error);
	ASSERT_STR(res, "PRICE-OF-apple is 3");
	res = result_of(&r, "c2", &is_error);
	ASSERT(!is_error);
	ASSERT_STR(res, "ORDERED");
	res = result_of(&r, "c3", &is_error);
	ASSERT(!is_error);
	ASSERT_CONTAINS(res, "[output cut at 64 KiB]");
	ASSERT(strlen(res) < SKIT_TOOL_OUTPUT_CAP + 64);
	/* The skill names lookup only: order is hidden and refused. */
	ASSERT(offers(&r, 2, "mcp__app__lookup"));
	ASSERT(!offers(&r, 2, "mcp__app__order"));
	res = result_of(&r, "c5", &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(res, "not available");
	res = result_of(&r, "c6", &is_error);
	ASSERT(!is_error);
	ASSERT_STR(res, "PRICE-OF-pear is 3");
	ASSERT_STR(ap.last_args, "{\"item\":\"pear\"}");
	ASSERT_EQ(ap.lookups, 2);
	ASSERT_EQ(ap.orders, 1);
	ASSERT_EQ(ap.floods, 1);
	reqs_free(&r);
	/* The trace shows each run. */
	ASSERT_CONTAINS(ap.trace, "mcp__app__lookup: ok, 19 bytes");
	ASSERT_CONTAINS(ap.trace, "mcp__app__order: ok, 7 bytes");
	fx_close(&f, "ok", 0);
	/* The trail: the decisions and the runs. */
	events_load(&e, f.run_dir);
	ev = event(&e, "approval", 0);
	ASSERT(ev);
	ASSERT_STR(str_of(ev, "tool"), "mcp__app__lookup");
	ASSERT_STR(str_of(ev, "risk"), "read");
	ASSERT_STR(str_of(ev, "decision"), "allow");
	ev = event(&e, "approval", 1);
	ASSERT_STR(str_of(ev, "tool"), "mcp__app__order");
	ASSERT_STR(str_of(ev, "risk"), "write");
	ASSERT_STR(str_of(ev, "by"), "flag");
	ev = event(&e, "custom_tool_run", 0);
	ASSERT(ev);
	ASSERT_STR(str_of(ev, "name"), "mcp__app__lookup");
	ASSERT_STR(str_of(ev, "risk"), "read");
	ASSERT(json_is_true(json_object_get(ev, "ok")));
	ASSERT_EQ(json_integer_value(json_object_get(ev, "bytes")), 19);
	ev = event(&e, "custom_tool_run", 2);
	ASSERT_STR(str_of(ev, "name"), "mcp__app__flood");
	ASSERT(json_is_true(json_object_get(ev, "truncated")));
	/* c5 was refused before the provider: no run for it */
	ev = event(&e, "custom_tool_run", 3);
	ASSERT_STR(str_of(ev, "name"), "mcp__app__lookup");
	ASSERT(!event(&e, "custom_tool_run", 4));
	events_free(&e);
}

/* The description the model was given for tool `name` in request `i`. */
static const char *tool_description(const struct reqs *r, size_t i,
                                    const char *name)
{
	json_t *t;
	size_t k;

	ASSERT(i < r->n);
	json_array_foreach(json_object_get(r->json[i], "tools"), k, t)
	{
		if (!strcmp(str_of(t, "name"), name))
			return str_of(t, "description");
	}
	return NULL;
}

/*
 * Deferred tools: with tool_search "always", the program's tools leave
 * the requests and tool_search names them; a search loads what it finds
 * (offered from the next request on), a deferred tool stays callable,
 * and once all are loaded tool_search is gone. "auto" defers only past a
 * tenth of the context window; "never" never.
 */
static void test_agent__tool_search(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	static char big[800];
	skit_tool_def defs[3];
	struct app ap = { 0 };
	struct fx f;
	struct reqs r;
	struct events e;
	skit_error err = { 0 };
	bool is_error = true;
	const char *res, *desc;
	json_t *ev;

	custom_world("tool-search");
	app_defs(defs, &ap);
	ao.tools = defs;
	ao.ntools = 3;
	ao.tool_search = SKIT_TOOL_SEARCH_ALWAYS;
	ao.hooks.on_trace = app_trace;
	ao.hooks.payload = &ap;
	fx_open(&f, "tool_search.jsonl", &ao); /* --yes */
	if (skit_agent_send(f.agent, "buy a pear", NULL, &err))
		HARNESS_FAIL("send: %s", err.message);
	reqs_load(&r, f.log);
	ASSERT_EQ(r.n, 3);
	ASSERT(!offers(&r, 0, "mcp__app__lookup"));
	ASSERT(!offers(&r, 0, "mcp__app__order"));
	ASSERT(offers(&r, 0, "read_skill_resource")); /* skit's stay */
	desc = tool_description(&r, 0, "tool_search");
	ASSERT(desc);
	ASSERT_CONTAINS(desc, "Deferred tools: mcp__app__lookup, "
	                      "mcp__app__order, mcp__app__flood");
	res = result_of(&r, "s1", &is_error);
	ASSERT(!is_error);
	ASSERT_CONTAINS(res, "1 tool loaded; call it by name");
	ASSERT_CONTAINS(res, "## mcp__app__lookup\nLOOKUP-DESC");
	ASSERT_CONTAINS(res, "\"required\":[\"item\"]");
	ASSERT(!strstr(res, "mcp__app__order"));
	/* loaded: offered in full; the others still deferred */
	ASSERT(offers(&r, 1, "mcp__app__lookup"));
	ASSERT(!offers(&r, 1, "mcp__app__order"));
	desc = tool_description(&r, 1, "tool_search");
	ASSERT(desc && !strstr(desc, "mcp__app__lookup"));
	/* a deferred tool is called by its name, under the same gate */
	res = result_of(&r, "c1", &is_error);
	ASSERT(!is_error);
	ASSERT_STR(res, "ORDERED");
	res = result_of(&r, "s2", &is_error);
	ASSERT(!is_error);
	ASSERT_CONTAINS(res, "2 tools loaded");
	ASSERT_CONTAINS(res, "## mcp__app__flood");
	ASSERT_CONTAINS(res, "## mcp__app__order");
	res = result_of(&r, "s3", &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(res, "no deferred tool matches 'zebra'");
	res = result_of(&r, "s4", &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(res, "max_results must be a whole number from 1 to "
	                     "20");
	/* all loaded: every tool offered, tool_search gone */
	ASSERT(offers(&r, 2, "mcp__app__order"));
	ASSERT(offers(&r, 2, "mcp__app__flood"));
	ASSERT(!offers(&r, 2, "tool_search"));
	reqs_free(&r);
	ASSERT_EQ(ap.orders, 1);
	fx_close(&f, "ok", 0);
	events_load(&e, f.run_dir);
	ev = event(&e, "tools_deferred", 0);
	ASSERT(ev);
	ASSERT_EQ(json_integer_value(json_object_get(ev, "deferred")), 3);
	ASSERT_STR(str_of(ev, "mode"), "always");
	events_free(&e);

	/* auto: a tenth of a 1024-token window is 102 tokens; the three
	 * tools take about 60, and about 260 with a long description */
	memset(big, 'x', sizeof(big) - 1);
	for (int i = 0; i < 3; i++) {
		skit_agent_options o = SKIT_AGENT_OPTIONS_INIT;

		custom_world("tool-search-auto");
		app_defs(defs, &ap);
		if (i)
			defs[2].description = big;
		o.tools = defs;
		o.ntools = 3;
		o.context_window = 1024;
		o.tool_search =
		        i == 2 ? SKIT_TOOL_SEARCH_NEVER : SKIT_TOOL_SEARCH_AUTO;
		fx_open(&f, "final.jsonl", &o);
		if (skit_agent_send(f.agent, "hi", NULL, &err))
			HARNESS_FAIL("send: %s", err.message);
		reqs_load(&r, f.log);
		ASSERT_EQ(offers(&r, 0, "mcp__app__flood"), i != 1);
		ASSERT_EQ(offers(&r, 0, "tool_search"), i == 1);
		reqs_free(&r);
		fx_close(&f, "ok", 0);
	}
}

struct app_asker {
	unsigned int asked;
	char tools[512];
};

static skit_approve_answer app_ask(const skit_approval *req, void *payload)
{
	struct app_asker *k = payload;

	k->asked++;
	snprintf(k->tools + strlen(k->tools), sizeof(k->tools) - strlen(k->tools),
	         "%s ", req->tool);
	if (!strcmp(req->tool, "mcp__app__flood"))
		return SKIT_APPROVE_YES;
	ASSERT_STR(req->tool, "mcp__app__lookup");
	ASSERT_EQ(req->risk, SKIT_RISK_READ);
	ASSERT_STR(req->reason, "needs approval: config ask 'mcp__app__*'");
	ASSERT_STR(req->always, "calls of mcp__app__lookup");
	ASSERT_CONTAINS(req->arguments, "\"item\":\"apple\"");
	return SKIT_APPROVE_ALWAYS;
}

static void test_agent__custom_tools_policy(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	skit_tool_def defs[4];
	struct app ap = { 0 };
	struct app_asker k = { 0 };
	skit_policy *pol;
	struct fx f;
	struct reqs r;
	struct events e;
	skit_error err = { 0 };
	bool is_error = false;
	char list[1024];

	custom_world("custom-tools-policy");
	app_defs(defs, &ap);
	defs[3] = defs[0];
	defs[3].name = "mcp__app__fetch";
	defs[3].risk = SKIT_RISK_NETWORK;
	ASSERT_OK(skit_policy_new(&pol, &err));
	ASSERT_OK(skit_policy_add(pol, SKIT_POLICY_LIST_DENY, "mcp__app__order",
	                          &err));
	ASSERT_OK(
	        skit_policy_add(pol, SKIT_POLICY_LIST_ASK, "mcp__app__*", &err));
	skit_policy_set_no_network(pol, true);
	ao.policy = pol;
	ao.tools = defs;
	ao.ntools = 4;
	ao.hooks.on_approve = app_ask;
	ao.hooks.payload = &k;
	fx_open(&f, "custom_tools.jsonl", &ao);
	if (skit_agent_send(f.agent, "buy an apple", NULL, &err))
		HARNESS_FAIL("send: %s", err.message);
	reqs_load(&r, f.log);
	ASSERT_EQ(r.n, 4);
	/* deny hides and refuses; --no-network hides a network tool */
	ASSERT(offers(&r, 0, "mcp__app__lookup"));
	ASSERT(!offers(&r, 0, "mcp__app__order"));
	ASSERT(!offers(&r, 0, "mcp__app__fetch"));
	ASSERT_STR(result_of(&r, "c1", &is_error), "PRICE-OF-apple is 3");
	ASSERT(!is_error);
	ASSERT_CONTAINS(result_of(&r, "c2", &is_error), "not available");
	ASSERT(is_error);
	ASSERT_EQ(ap.orders, 0);
	ASSERT_STR(result_of(&r, "c6", &is_error), "PRICE-OF-pear is 3");
	reqs_free(&r);
	/* asked for c1 and c3 (flood is under the same ask); "always"
	 * covers c6 */
	ASSERT_EQ(k.asked, 2);
	ASSERT_STR(k.tools, "mcp__app__lookup mcp__app__flood ");
	fx_close(&f, "ok", 0);
	events_load(&e, f.run_dir);
	approvals_of(&e, list, sizeof(list));
	ASSERT_STR(list, "mcp__app__lookup:allow:user:asked "
	                 "mcp__app__flood:allow:user:asked "
	                 "mcp__app__lookup:allow:user ");
	events_free(&e);
	skit_policy_free(pol);
}

/* skit_agent_new() with `defs`: its status, the message in `msg`. */
static int new_with_tools(const skit_tool_def *defs, size_t n,
                          unsigned int version, char *msg, size_t cap)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	skit_model_options mo = SKIT_MODEL_OPTIONS_INIT;
	char spec[PATH_MAX + 16];
	skit_registry *reg = NULL;
	skit_model *model = NULL;
	skit_agent *agent = NULL;
	skit_error err = { 0 };
	int rc;

	ASSERT_OK(skit_registry_new(&reg, &err));
	ASSERT_OK(skit_registry_scan(reg, &err));
	fmt(spec, sizeof(spec), "replay:%s", fixture("final.jsonl"));
	mo.spec = spec;
	ASSERT_OK(skit_model_new(&model, &mo, &err));
	ao.version = version;
	ao.registry = reg;
	ao.model = model;
	ao.workdir = at(world, "work");
	ao.tools = defs;
	ao.ntools = n;
	rc = skit_agent_new(&agent, &ao, &err);
	ASSERT(rc ? !agent : agent != NULL);
	snprintf(msg, cap, "%s", rc ? err.message : "");
	skit_agent_free(agent);
	skit_model_free(model);
	skit_registry_free(reg);
	return rc;
}

static void test_agent__custom_tools_bad_defs(void)
{
	skit_tool_def d[3];
	struct app ap = { 0 };
	char msg[256];

	build_world("custom-tools-bad");
	app_defs(d, &ap);
	ASSERT_OK(new_with_tools(d, 3, SKIT_AGENT_OPTIONS_VERSION, msg,
	                         sizeof(msg)));
	/* a name that is not mcp__SERVER__TOOL */
	d[0].name = "lookup";
	ASSERT_EQ(new_with_tools(d, 1, SKIT_AGENT_OPTIONS_VERSION, msg,
	                         sizeof(msg)),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(msg, "name 'lookup' must be mcp__SERVER__TOOL");
	d[0].name = "mcp__app__a__b";
	ASSERT_EQ(new_with_tools(d, 1, SKIT_AGENT_OPTIONS_VERSION, msg,
	                         sizeof(msg)),
	          SKIT_EINVALID);
	d[0].name = "mcp__a pp__x";
	ASSERT_EQ(new_with_tools(d, 1, SKIT_AGENT_OPTIONS_VERSION, msg,
	                         sizeof(msg)),
	          SKIT_EINVALID);
	/* skit's own tools cannot be taken over */
	d[0].name = "shell";
	ASSERT_EQ(new_with_tools(d, 1, SKIT_AGENT_OPTIONS_VERSION, msg,
	                         sizeof(msg)),
	          SKIT_EINVALID);
	ASSERT_STR(msg, "tool 'shell' is one of skit's own tools; name yours "
	                "mcp__SERVER__TOOL");
	d[0].name = "use_skill";
	ASSERT_EQ(new_with_tools(d, 1, SKIT_AGENT_OPTIONS_VERSION, msg,
	                         sizeof(msg)),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(msg, "one of skit's own tools");
	/* twice the same name */
	d[0].name = "mcp__app__order";
	ASSERT_EQ(new_with_tools(d, 2, SKIT_AGENT_OPTIONS_VERSION, msg,
	                         sizeof(msg)),
	          SKIT_EINVALID);
	ASSERT_STR(msg, "tool 'mcp__app__order' is defined twice");
	d[0].name = "mcp__app__lookup";
	/* parameters: JSON, an object schema */
	d[0].parameters = "{\"type\": \"object\",";
	ASSERT_EQ(new_with_tools(d, 1, SKIT_AGENT_OPTIONS_VERSION, msg,
	                         sizeof(msg)),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(msg, "tool 'mcp__app__lookup': its parameters are not "
	                     "valid JSON");
	d[0].parameters = "{\"type\": \"array\"}";
	ASSERT_EQ(new_with_tools(d, 1, SKIT_AGENT_OPTIONS_VERSION, msg,
	                         sizeof(msg)),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(msg, "a JSON Schema of an object");
	d[0].parameters = "[1]";
	ASSERT_EQ(new_with_tools(d, 1, SKIT_AGENT_OPTIONS_VERSION, msg,
	                         sizeof(msg)),
	          SKIT_EINVALID);
	d[0].parameters = NULL; /* any object */
	ASSERT_OK(new_with_tools(d, 1, SKIT_AGENT_OPTIONS_VERSION, msg,
	                         sizeof(msg)));
	/* description, callback, risk, version */
	d[0].description = "";
	ASSERT_EQ(new_with_tools(d, 1, SKIT_AGENT_OPTIONS_VERSION, msg,
	                         sizeof(msg)),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(msg, "needs a description");
	d[0].description = "ok";
	d[0].call = NULL;
	ASSERT_EQ(new_with_tools(d, 1, SKIT_AGENT_OPTIONS_VERSION, msg,
	                         sizeof(msg)),
	          SKIT_EINVALID);
	ASSERT_STR(msg, "tool 'mcp__app__lookup' has no callback");
	d[0].call = app_lookup;
	d[0].risk = (skit_risk)7;
	ASSERT_EQ(new_with_tools(d, 1, SKIT_AGENT_OPTIONS_VERSION, msg,
	                         sizeof(msg)),
	          SKIT_EINVALID);
	d[0].risk = SKIT_RISK_READ;
	d[0].version = 9;
	ASSERT_EQ(new_with_tools(d, 1, SKIT_AGENT_OPTIONS_VERSION, msg,
	                         sizeof(msg)),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(msg, "unknown skit_tool_def version 9");
	/* version 1 options have no tools: the members are not read */
	ASSERT_OK(new_with_tools(d, 1, 1, msg, sizeof(msg)));
	ASSERT_EQ(new_with_tools(d, 1, 99, msg, sizeof(msg)), SKIT_EUSAGE);
	ASSERT_CONTAINS(msg, "unknown options version 99");
	ASSERT_EQ(new_with_tools(NULL, 2, SKIT_AGENT_OPTIONS_VERSION, msg,
	                         sizeof(msg)),
	          SKIT_EUSAGE);
}

/* ---- dynamic context -------------------------------------------------- */

static const char dyn_body[] =
        "# dyn\n"
        "Branch: !`echo DYN-OUT-$1`\n"
        "Inline !`printf 'A%sB' 1` here.\n"
        "```sh\n"
        "!`echo FENCED-NOT-RUN`\n"
        "```\n"
        "~~~~\n"
        "!`echo TILDE-NOT-RUN`\n"
        "~~~\n"
        "still fenced !`echo SHORT-CLOSE-NOT-RUN`\n"
        "~~~~\n"
        "Dir: !`printf '%s' \"${SKILL_DIR}\" | tail -c 12`\n"
        "Fail: !`exit 3`\n"
        "Word!`echo IN-WORD-NOT-RUN` and `!`not a command`.\n";

/* A world with the skill "dyn" whose body holds commands. */
static void dyn_world(const char *name)
{
	char proj[PATH_MAX];

	build_world(name);
	fmt(proj, sizeof(proj), "%s/project", world);
	mkskill(proj, "dyn", NULL, "Dynamic context.", dyn_body);
}

static void test_agent__dynamic_context(void)
{
	struct fx f;
	struct reqs r;
	struct events e;
	skit_error err = { 0 };
	const char *t;
	json_t *ev;
	size_t i;

	dyn_world("dyn-on");
	fx_open(&f, "final.jsonl", NULL);
	if (skit_agent_send(f.agent, "/dyn x1", NULL, &err))
		HARNESS_FAIL("send: %s", err.message);
	reqs_load(&r, f.log);
	ASSERT_EQ(r.n, 1);
	t = msg_text(&r, 0, 0);
	/* outside fences: the output in the command's place */
	ASSERT_CONTAINS(t, "Branch: DYN-OUT-x1\n");
	ASSERT_CONTAINS(t, "Inline A1B here.\n");
	ASSERT_CONTAINS(t, "Dir: /project/dyn\n");
	/* inside ``` and ~~~ fences (closed only by as long a fence):
	 * untouched */
	ASSERT_CONTAINS(t, "```sh\n!`echo FENCED-NOT-RUN`\n```\n");
	ASSERT_CONTAINS(t, "!`echo TILDE-NOT-RUN`\n");
	ASSERT_CONTAINS(t, "still fenced !`echo SHORT-CLOSE-NOT-RUN`\n");
	/* a failing command: a note */
	ASSERT_CONTAINS(t, "Fail: [!`exit 3` failed: exit code: 3]\n");
	/* inside a word or a code span: text */
	ASSERT_CONTAINS(t, "Word!`echo IN-WORD-NOT-RUN` and `!`not a "
	                   "command`.");
	ASSERT(!strstr(t, "DYN-OUT-$1"));
	reqs_free(&r);
	fx_close(&f, "ok", 0);
	/* The trail: each command a shell call attributed to the skill. */
	events_load(&e, f.run_dir);
	ev = event(&e, "tool_call", 0);
	ASSERT(ev);
	ASSERT_STR(str_of(ev, "name"), "shell");
	ASSERT_STR(str_of(ev, "skill"), "dyn");
	ASSERT_STR(str_of(ev, "origin"), "dynamic_context");
	ASSERT_CONTAINS(str_of(ev, "arguments"), "echo DYN-OUT-x1");
	ev = event(&e, "shell_run", 0);
	ASSERT(ev);
	ASSERT_STR(str_of(ev, "command"), "echo DYN-OUT-x1");
	ev = event(&e, "approval", 0);
	ASSERT(ev);
	ASSERT_STR(str_of(ev, "tool"), "shell");
	ASSERT_STR(str_of(ev, "decision"), "allow");
	ev = event(&e, "tool_result", 0);
	ASSERT(ev);
	ASSERT_STR(str_of(ev, "skill"), "dyn");
	ASSERT(json_is_true(json_object_get(ev, "ok")));
	/* four commands ran: the fenced ones never reached the gate */
	ASSERT(event(&e, "shell_run", 3));
	ASSERT(!event(&e, "shell_run", 4));
	for (i = 0; (ev = event(&e, "shell_run", i)); i++)
		ASSERT(!strstr(str_of(ev, "command"), "NOT-RUN"));
	ev = event(&e, "tool_result", 3);
	ASSERT(!json_is_true(json_object_get(ev, "ok")));
	events_free(&e);
}

struct dyn_asker {
	unsigned int asked;
	char skill[64];
};

static skit_approve_answer dyn_ask(const skit_approval *req, void *payload)
{
	struct dyn_asker *k = payload;

	k->asked++;
	ASSERT_STR(req->tool, "shell");
	snprintf(k->skill, sizeof(k->skill), "%s", req->skill ? req->skill : "");
	return SKIT_APPROVE_NO;
}

static void test_agent__dynamic_context_refused(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	struct dyn_asker k = { 0 };
	skit_policy *pol;
	struct fx f;
	struct reqs r;
	struct events e;
	skit_error err = { 0 };
	char list[1024];
	const char *t;

	/* No one to approve and no allow: refused like any shell call. */
	dyn_world("dyn-refused");
	ASSERT_OK(skit_policy_new(&pol, &err));
	ao.policy = pol;
	fx_open(&f, "final.jsonl", &ao);
	if (skit_agent_send(f.agent, "/dyn x1", NULL, &err))
		HARNESS_FAIL("send: %s", err.message);
	reqs_load(&r, f.log);
	t = msg_text(&r, 0, 0);
	ASSERT_CONTAINS(t, "Branch: [!`echo DYN-OUT-x1` not run: ");
	ASSERT_CONTAINS(t, "not available now");
	ASSERT(!strstr(t, "Branch: DYN-OUT-x1"));
	reqs_free(&r);
	fx_close(&f, "ok", 0);
	events_load(&e, f.run_dir);
	ASSERT(!event(&e, "shell_run", 0));
	ASSERT_STR(str_of(event(&e, "tool_call", 0), "skill"), "dyn");
	events_free(&e);

	/* Someone is asked: the prompt names the skill; "no" is a note. */
	dyn_world("dyn-asked");
	ao.hooks.on_approve = dyn_ask;
	ao.hooks.payload = &k;
	fx_open(&f, "final.jsonl", &ao);
	if (skit_agent_send(f.agent, "/dyn x1", NULL, &err))
		HARNESS_FAIL("send: %s", err.message);
	ASSERT_EQ(k.asked, 4);
	ASSERT_STR(k.skill, "dyn");
	reqs_load(&r, f.log);
	t = msg_text(&r, 0, 0);
	ASSERT_CONTAINS(t, "Branch: [!`echo DYN-OUT-x1` not run: the user "
	                   "declined this call");
	reqs_free(&r);
	fx_close(&f, "ok", 0);
	events_load(&e, f.run_dir);
	approvals_of(&e, list, sizeof(list));
	ASSERT_STR(list, "shell:deny:user:asked shell:deny:user:asked "
	                 "shell:deny:user:asked shell:deny:user:asked ");
	ASSERT(!event(&e, "shell_run", 0));
	events_free(&e);
	skit_policy_free(pol);
}

static void test_agent__dynamic_context_off(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	struct fx f;
	struct reqs r;
	struct events e;
	skit_error err = { 0 };
	const char *t;

	ASSERT(ao.dynamic_context); /* on by default */
	dyn_world("dyn-off");
	ao.dynamic_context = false;
	fx_open(&f, "final.jsonl", &ao);
	if (skit_agent_send(f.agent, "/dyn x1", NULL, &err))
		HARNESS_FAIL("send: %s", err.message);
	reqs_load(&r, f.log);
	t = msg_text(&r, 0, 0);
	/* as written, with the arguments substituted */
	ASSERT_CONTAINS(t, "Branch: !`echo DYN-OUT-x1`\n");
	ASSERT_CONTAINS(t, "Fail: !`exit 3`\n");
	reqs_free(&r);
	fx_close(&f, "ok", 0);
	events_load(&e, f.run_dir);
	ASSERT(!event(&e, "shell_run", 0));
	ASSERT(!event(&e, "tool_call", 0));
	events_free(&e);
}

static void test_agent__dynamic_context_config(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	skit_error err = { 0 };
	char path[PATH_MAX];

	build_world("dyn-config");
	fmt(path, sizeof(path), "%s/config.json", world);
	put(path, "{\"dynamic_context\": false, \"network\": true}", 0644);
	ASSERT_OK(skit_agent_options_load_config(&ao, path, true, &err));
	ASSERT(!ao.dynamic_context);
	/* a project's file may turn it off, never on */
	put(path, "{\"dynamic_context\": true}", 0644);
	ASSERT_OK(skit_agent_options_load_config(&ao, path, false, &err));
	ASSERT(!ao.dynamic_context);
	ASSERT_OK(skit_agent_options_load_config(&ao, path, true, &err));
	ASSERT(ao.dynamic_context);
	put(path, "{\"dynamic_context\": false}", 0644);
	ASSERT_OK(skit_agent_options_load_config(&ao, path, false, &err));
	ASSERT(!ao.dynamic_context);
	/* absent: untouched */
	put(path, "{\"permissions\": {}}", 0644);
	ASSERT_OK(skit_agent_options_load_config(&ao, path, true, &err));
	ASSERT(!ao.dynamic_context);
	put(path, "{\"dynamic_context\": \"no\"}", 0644);
	ASSERT_EQ(skit_agent_options_load_config(&ao, path, true, &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "dynamic_context: expected true or false");
	/* tool_search: from any file, one of three words */
	put(path, "{\"tool_search\": \"never\"}", 0644);
	ASSERT_OK(skit_agent_options_load_config(&ao, path, false, &err));
	ASSERT_EQ(ao.tool_search, SKIT_TOOL_SEARCH_NEVER);
	put(path, "{\"tool_search\": \"always\"}", 0644);
	ASSERT_OK(skit_agent_options_load_config(&ao, path, true, &err));
	ASSERT_EQ(ao.tool_search, SKIT_TOOL_SEARCH_ALWAYS);
	put(path, "{\"tool_search\": true}", 0644);
	ASSERT_EQ(skit_agent_options_load_config(&ao, path, true, &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "tool_search: expected \"auto\", "
	                             "\"always\" or \"never\"");
	ASSERT_EQ(ao.tool_search, SKIT_TOOL_SEARCH_ALWAYS);
	fmt(path, sizeof(path), "%s/none.json", world);
	ASSERT_EQ(skit_agent_options_load_config(&ao, path, true, &err),
	          SKIT_ENOTFOUND);
}

TEST_MAIN(
	TEST(test_agent__disclosure)
	TEST(test_agent__audit_events)
	TEST(test_agent__activate_user_arguments)
	TEST(test_agent__activate_user_appends_arguments)
	TEST(test_agent__activate_mention)
	TEST(test_agent__activate_unknown)
	TEST(test_agent__activate_lenient_names)
	TEST(test_agent__max_skills_per_turn)
	TEST(test_agent__max_skills_per_turn_option)
	TEST(test_agent__precedence_and_source)
	TEST(test_agent__disable_model_invocation)
	TEST(test_agent__not_user_invocable)
	TEST(test_agent__read_resource)
	TEST(test_agent__run_script)
	TEST(test_agent__relative_root)
	TEST(test_agent__script_budget)
	TEST(test_agent__max_turns)
	TEST(test_agent__max_tool_calls)
	TEST(test_agent__max_tokens)
	TEST(test_agent__cassette_exhausted)
	TEST(test_agent__plan)
	TEST(test_agent__json_actions)
	TEST(test_agent__odd_calls)
	TEST(test_agent__canceled)
	TEST(test_agent__bad_options)
	TEST(test_agent__model_missing_cassette)
	TEST(test_agent__approvals_without_terminal)
	TEST(test_agent__approvals_asked)
	TEST(test_agent__file_tools)
	TEST(test_agent__no_file_tools)
	TEST(test_agent__edit_tools)
	TEST(test_agent__edit_gate)
	TEST(test_agent__glob_tool)
	TEST(test_agent__sandbox_layer_missing)
	TEST(test_agent__custom_tools)
	TEST(test_agent__tool_search)
	TEST(test_agent__custom_tools_policy)
	TEST(test_agent__custom_tools_bad_defs)
	TEST(test_agent__dynamic_context)
	TEST(test_agent__dynamic_context_refused)
	TEST(test_agent__dynamic_context_off)
	TEST(test_agent__dynamic_context_config))
/* clang-format on */
