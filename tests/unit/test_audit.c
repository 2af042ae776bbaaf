/* SPDX-License-Identifier: MIT */
/*
 * test_audit.c - the run folder: events.jsonl lines and run.json, seq and
 * timestamps, redaction of secrets (checked on the raw bytes), one line
 * per event whatever the text, the line cap, reading runs back (order,
 * "incomplete" and "running", find by name / id / prefix / "last"), torn
 * lines, a writer killed with SIGKILL, and out-of-memory at every
 * allocation.
 */
#include "common.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "harness.h"
#include "skit/audit.h"
#include "lib/agent/audit_int.h"
#include "util/buf.h"
#include "util/fs.h"

static char base[PATH_MAX / 2];

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
			snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
			rm_rf(sub);
		}
		closedir(d);
	}
	rmdir(path);
}

/* A fresh, empty folder SKIT_TEST_DIR/<name>; its path in `base`. */
static const char *fresh(const char *name)
{
	const char *top = getenv("SKIT_TEST_DIR");

	snprintf(base, sizeof(base), "%s/%s",
	         top ? top : "/tmp/skit-test-audit", name);
	rm_rf(base);
	ASSERT_OK(skitx_fs_mkdir_p(base, 0755));
	return base;
}

/* "dir/rel" in a rotating static buffer. */
static const char *at(const char *dir, const char *rel)
{
	static char bufs[8][PATH_MAX];
	static int next;
	char *b = bufs[next++ % 8], tmp[PATH_MAX];
	size_t dl = strlen(dir), rl = strlen(rel);

	if (dl + rl + 2 > PATH_MAX)
		HARNESS_FAIL("path too long: %s", rel);
	memcpy(tmp, dir, dl);
	tmp[dl] = '/';
	memcpy(tmp + dl + 1, rel, rl + 1);
	memcpy(b, tmp, dl + rl + 2);
	return b;
}

/* The whole file (malloc'd, NUL-terminated; embedded NULs fail). */
static char *slurp(const char *path)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	char *s;

	ASSERT_OK(skitx_fs_read_file(path, &b, 256 * 1024 * 1024));
	ASSERT_EQ(strlen(b.ptr), b.len);
	s = strdup(b.ptr);
	skitx_buf_release(&b);
	ASSERT(s);
	return s;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ASSERT(f);
	fputs(text, f);
	ASSERT_OK(fclose(f));
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Every line of `text` parsed; returns the number of lines. */
static size_t parse_lines(const char *text, json_t **out, size_t max)
{
	const char *p = text, *nl;
	size_t n = 0;

	while ((nl = strchr(p, '\n'))) {
		json_error_t je;
		json_t *v = json_loadb(p, (size_t)(nl - p), 0, &je);

		if (!v)
			HARNESS_FAIL("line %zu does not parse: %s", n + 1,
			             je.text);
		ASSERT(json_is_object(v));
		ASSERT(n < max);
		out[n++] = v;
		p = nl + 1;
	}
	ASSERT_EQ(*p, '\0');
	return n;
}

static bool ts_ok(const char *ts)
{
	const char *shape = "dddd-dd-ddTdd:dd:dd.dddZ";

	if (!ts || strlen(ts) != strlen(shape))
		return false;
	for (size_t i = 0; shape[i]; i++)
		if (shape[i] == 'd' ? !(ts[i] >= '0' && ts[i] <= '9')
		                    : ts[i] != shape[i])
			return false;
	return true;
}

static bool name_ok(const char *id)
{
	const char *shape = "ddddddddTddddddZ-xxxxxxxx";

	if (!id || strlen(id) != strlen(shape))
		return false;
	for (size_t i = 0; shape[i]; i++) {
		char c = id[i];

		if (shape[i] == 'd'   ? !(c >= '0' && c <= '9')
		    : shape[i] == 'x' ? !((c >= '0' && c <= '9') ||
		                          (c >= 'a' && c <= 'f'))
		                      : c != shape[i])
			return false;
	}
	return true;
}

static void test_audit__round_trip(void)
{
	const char *runs = at(fresh("round_trip"), "runs");
	skit_audit *a = NULL;
	json_t *lines[8], *run;
	char *text, dir[PATH_MAX];
	struct stat st;
	size_t n;

	ASSERT_OK(skit_audit_open(&a, runs, NULL));
	ASSERT(name_ok(skit_audit_id(a)));
	ASSERT_STR(skit_audit_dir(a), at(runs, skit_audit_id(a)));
	snprintf(dir, sizeof(dir), "%s", skit_audit_dir(a));
	ASSERT_OK(stat(dir, &st));
	ASSERT_EQ(st.st_mode & 0777, 0700);
	ASSERT_OK(stat(at(dir, "events.jsonl"), &st));
	ASSERT_EQ(st.st_mode & 0777, 0600);

	ASSERT_OK(skit_audit_event(a, "run_start",
	                           "{\"task\":\"do it\",\"model\":\"replay:x\","
	                           "\"skills_indexed\":3}",
	                           NULL));
	ASSERT_OK(skit_audit_event(a, "plan_updated", NULL, NULL));
	/* the internal form steals the reference; seq/ts/type are ours */
	ASSERT_OK(skit__audit_emit(a, "tool_call",
	                           json_pack("{s:i,s:s,s:s,s:i}", "turn", 1,
	                                     "name", "use_skill", "type",
	                                     "forged", "seq", 99),
	                           NULL));
	ASSERT_OK(skit_audit_close(
	        a,
	        "{\"status\":\"ok\",\"task\":\"do it\",\"turns\":2,"
	        "\"tool_calls\":1,\"usage\":{\"input_tokens\":10,"
	        "\"output_tokens\":5},\"id\":\"forged\"}",
	        NULL));

	text = slurp(at(dir, "events.jsonl"));
	n = parse_lines(text, lines, 8);
	free(text);
	ASSERT_EQ(n, 3);
	for (size_t i = 0; i < n; i++) {
		const char *key;
		json_t *v;
		int k = 0;

		ASSERT_EQ(json_integer_value(json_object_get(lines[i], "seq")),
		          (long long)i + 1);
		ASSERT(ts_ok(
		        json_string_value(json_object_get(lines[i], "ts"))));
		/* seq, ts, type come first */
		json_object_foreach(lines[i], key, v)
		{
			if (k < 3)
				ASSERT_STR(key, k == 0   ? "seq"
				                : k == 1 ? "ts"
				                         : "type");
			k++;
		}
	}
	ASSERT_STR(json_string_value(json_object_get(lines[0], "type")),
	           "run_start");
	ASSERT_STR(json_string_value(json_object_get(lines[0], "task")),
	           "do it");
	ASSERT_EQ(
	        json_integer_value(json_object_get(lines[0], "skills_indexed")),
	        3);
	ASSERT_EQ(json_object_size(lines[1]), 3);
	ASSERT_STR(json_string_value(json_object_get(lines[2], "type")),
	           "tool_call");
	ASSERT_STR(json_string_value(json_object_get(lines[2], "name")),
	           "use_skill");
	for (size_t i = 0; i < n; i++)
		json_decref(lines[i]);

	ASSERT_OK(stat(at(dir, "run.json"), &st));
	ASSERT_EQ(st.st_mode & 0777, 0600);
	run = json_load_file(at(dir, "run.json"), 0, NULL);
	ASSERT(json_is_object(run));
	ASSERT(name_ok(json_string_value(json_object_get(run, "id"))));
	ASSERT_STR(json_string_value(json_object_get(run, "dir")), dir);
	ASSERT(ts_ok(json_string_value(json_object_get(run, "started"))));
	ASSERT(ts_ok(json_string_value(json_object_get(run, "ended"))));
	ASSERT_EQ(json_integer_value(json_object_get(run, "events")), 3);
	ASSERT_STR(json_string_value(json_object_get(run, "status")), "ok");
	json_decref(run);
}

static void test_audit__bad_input(void)
{
	const char *runs = at(fresh("bad_input"), "runs");
	skit_error err = { 0 };
	skit_audit *a = NULL;
	char dir[PATH_MAX];
	char *text;

	ASSERT_OK(skit_audit_open(&a, runs, NULL));
	snprintf(dir, sizeof(dir), "%s", skit_audit_dir(a));
	ASSERT_EQ(skit_audit_event(a, "", NULL, &err), SKIT_EINVALID);
	ASSERT_EQ(skit_audit_event(a, "Bad Type", NULL, &err), SKIT_EINVALID);
	ASSERT_EQ(skit_audit_event(a, "x", "[1,2]", &err), SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "JSON object");
	ASSERT_EQ(skit_audit_event(a, "x", "{nope", &err), SKIT_EINVALID);
	ASSERT_EQ(skit__audit_emit(a, "x", json_integer(3), &err),
	          SKIT_EINVALID);
	ASSERT_OK(skit_audit_event(a, "ok", "{}", NULL));
	/* a bad summary still ends the run */
	ASSERT_EQ(skit_audit_close(a, "[]", &err), SKIT_EINVALID);
	text = slurp(at(dir, "events.jsonl"));
	ASSERT_EQ(count_lines(text), 1);
	ASSERT_CONTAINS(text, "\"type\":\"ok\"");
	free(text);
	ASSERT(skitx_fs_exists(at(dir, "run.json")));
	skit_audit_free(NULL);

	/* a runs folder that cannot be created */
	write_file(at(base, "file"), "x");
	ASSERT_EQ(skit_audit_open(&a, at(base, "file/runs"), &err), SKIT_EIO);
	ASSERT(!a);
}

static void test_audit__redaction(void)
{
	const char *runs = at(fresh("redaction"), "runs");
	const char *secret = "sk-test-Zq81xLmN0pQr";
	skit_audit *a = NULL;
	char dir[PATH_MAX], fields[1024];
	char *text;
	json_t *lines[4];

	ASSERT_OK(skit_audit_open(&a, runs, NULL));
	snprintf(dir, sizeof(dir), "%s", skit_audit_dir(a));
	ASSERT_OK(skit_audit_redact(a, secret, NULL));
	ASSERT_OK(skit_audit_redact(a, secret, NULL));  /* twice: once */
	ASSERT_OK(skit_audit_redact(a, "short", NULL)); /* ignored */
	ASSERT_OK(skit_audit_redact(a, "9876543210123", NULL));
	snprintf(fields, sizeof(fields),
	         "{\"header\":\"Authorization: Bearer %s\",\"nested\":[{\"k\":"
	         "\"%s%s\"}],\"%s\":1,\"n\":9876543210123,\"word\":\"short\"}",
	         secret, secret, secret, secret);
	ASSERT_OK(skit_audit_event(a, "model_request", fields, NULL));
	ASSERT_OK(skit__audit_emit(
	        a, "error", json_pack("{s:s}", "message", secret), NULL));
	snprintf(fields, sizeof(fields),
	         "{\"status\":\"error\",\"error\":\"401 for key %s\"}", secret);
	ASSERT_OK(skit_audit_close(a, fields, NULL));

	text = slurp(at(dir, "events.jsonl"));
	ASSERT(!strstr(text, secret));
	ASSERT(!strstr(text, "Zq81xLmN0pQr"));
	ASSERT(!strstr(text, "9876543210123"));
	ASSERT_CONTAINS(text, "Bearer [REDACTED]");
	ASSERT_CONTAINS(text, "[REDACTED][REDACTED]");
	ASSERT_CONTAINS(text, "\"[REDACTED]\":1");
	ASSERT_CONTAINS(text, "\"n\":\"[REDACTED]\"");
	ASSERT_CONTAINS(text, "\"word\":\"short\"");
	ASSERT_EQ(parse_lines(text, lines, 4), 2);
	json_decref(lines[0]);
	json_decref(lines[1]);
	free(text);
	text = slurp(at(dir, "run.json"));
	ASSERT(!strstr(text, secret));
	ASSERT_CONTAINS(text, "401 for key [REDACTED]");
	free(text);
}

static void test_audit__one_line_per_event(void)
{
	const char *runs = at(fresh("one_line"), "runs");
	const char *nasty = "a\nb\r\nc \"q\" \\ \xC3\xA9 \xE6\x97\xA5 "
	                    "\xE2\x80\xA8 \x1B[31m \xC2\x9B \t end";
	skit_audit *a = NULL;
	char dir[PATH_MAX];
	json_t *lines[2];
	char *text;

	ASSERT_OK(skit_audit_open(&a, runs, NULL));
	snprintf(dir, sizeof(dir), "%s", skit_audit_dir(a));
	ASSERT_OK(skit__audit_emit(a, "tool_result",
	                           json_pack("{s:s}", "text", nasty), NULL));
	skit_audit_free(a);
	text = slurp(at(dir, "events.jsonl"));
	ASSERT_EQ(count_lines(text), 1);
	/* ENSURE_ASCII: printable ASCII only, so no terminal control */
	for (const char *p = text; *p; p++)
		ASSERT((*p >= 0x20 && *p < 0x7f) || *p == '\n');
	ASSERT_EQ(parse_lines(text, lines, 2), 1);
	ASSERT_STR(json_string_value(json_object_get(lines[0], "text")), nasty);
	json_decref(lines[0]);
	free(text);
}

static void test_audit__line_cap(void)
{
	const char *runs = at(fresh("line_cap"), "runs");
	size_t big = 2 * 1024 * 1024;
	char *s = malloc(big + 1), *text, dir[PATH_MAX];
	skit_audit *a = NULL;
	json_t *lines[2];
	const char *v;

	ASSERT(s);
	memset(s, 'x', big);
	s[big] = '\0';
	ASSERT_OK(skit_audit_open(&a, runs, NULL));
	snprintf(dir, sizeof(dir), "%s", skit_audit_dir(a));
	ASSERT_OK(skit__audit_emit(
	        a, "tool_call",
	        json_pack("{s:s,s:s}", "name", "write_file", "content", s),
	        NULL));
	free(s);
	ASSERT_OK(skit_audit_close(a, NULL, NULL));
	text = slurp(at(dir, "events.jsonl"));
	ASSERT(strlen(text) <= 1024 * 1024 + 1);
	ASSERT_EQ(parse_lines(text, lines, 2), 1);
	ASSERT(json_is_true(json_object_get(lines[0], "cut")));
	ASSERT_STR(json_string_value(json_object_get(lines[0], "name")),
	           "write_file");
	v = json_string_value(json_object_get(lines[0], "content"));
	ASSERT(v && strlen(v) < 5000);
	ASSERT_CONTAINS(v, "[cut ");
	json_decref(lines[0]);
	free(text);
}

static void test_audit__two_opens_differ(void)
{
	const char *runs = at(fresh("two_opens"), "runs");
	skit_audit *a[8];
	skit_run_info *list = NULL;
	size_t n = 0;

	for (int i = 0; i < 8; i++)
		ASSERT_OK(skit_audit_open(&a[i], runs, NULL));
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < i; j++)
			ASSERT(strcmp(skit_audit_id(a[i]),
			              skit_audit_id(a[j])));
	/* open writers read back as "running" */
	ASSERT_OK(skit_runs_list(&list, &n, runs, NULL));
	ASSERT_EQ(n, 8);
	for (size_t i = 0; i < n; i++)
		ASSERT_STR(list[i].status, "running");
	skit_runs_free(list, n);
	for (int i = 0; i < 8; i++)
		skit_audit_free(a[i]);
	ASSERT_OK(skit_runs_list(&list, &n, runs, NULL));
	ASSERT_EQ(n, 8);
	for (size_t i = 0; i < n; i++) {
		ASSERT_STR(list[i].status, "incomplete");
		ASSERT(!list[i].ended);
		if (i)
			ASSERT(strcmp(list[i - 1].id, list[i].id) > 0);
	}
	skit_runs_free(list, n);
}

#define RUN_A "20250101T100000Z-aaaaaaaa"
#define RUN_B "20250102T100000Z-bbbbbbbb"
#define RUN_C "20250102T110000Z-cccccccc"

/* Three runs by hand (A complete, B incomplete and torn, C complete). */
static const char *fixture(const char *name)
{
	static char runs[PATH_MAX];
	const char *r = at(fresh(name), "runs");

	memcpy(runs, r, strlen(r) + 1);

	ASSERT_OK(skitx_fs_mkdir_p(at(runs, RUN_A), 0700));
	ASSERT_OK(skitx_fs_mkdir_p(at(runs, RUN_B), 0700));
	ASSERT_OK(skitx_fs_mkdir_p(at(runs, RUN_C), 0700));
	write_file(
	        at(runs, RUN_A "/events.jsonl"),
	        "{\"seq\":1,\"ts\":\"2025-01-01T10:00:00.001Z\",\"type\":"
	        "\"run_start\",\"task\":\"first\",\"model\":\"replay:a\"}\n");
	write_file(at(runs, RUN_A "/run.json"),
	           "{\"id\":\"" RUN_A "\",\"started\":\"2025-01-01T10:00:00."
	           "000Z\",\"ended\":\"2025-01-01T10:00:09.000Z\",\"events\":"
	           "1,\"task\":\"first\",\"model\":\"replay:a\",\"status\":"
	           "\"ok\",\"turns\":4,\"tool_calls\":6,\"usage\":{"
	           "\"input_tokens\":1000,\"output_tokens\":200}}\n");
	write_file(
	        at(runs, RUN_B "/events.jsonl"),
	        "{\"seq\":1,\"ts\":\"2025-01-02T10:00:00.500Z\",\"type\":"
	        "\"run_start\",\"task\":\"second\",\"model\":\"openai:m\"}\n"
	        "{\"seq\":2,\"ts\":\"2025-01-02T10:00:01.000Z\",\"type\":"
	        "\"model_response\",\"turn\":1,\"usage\":{\"input_tokens\":50,"
	        "\"output_tokens\":7}}\n"
	        "{\"seq\":3,\"ts\":\"2025-01-02T10:00:01.100Z\",\"type\":"
	        "\"tool_call\",\"name\":\"use_skill\"}\n"
	        "{\"seq\":4,\"ts\":\"2025-01-02T10:00:02.000Z\",\"type\":"
	        "\"model_response\",\"turn\":2,\"usage\":{\"input_tokens\":60,"
	        "\"output_tokens\":8}}\n"
	        "{\"seq\":5,\"ts\":\"2025-01-02T10:00:02.1");
	write_file(at(runs, RUN_C "/events.jsonl"), "");
	write_file(at(runs, RUN_C "/run.json"),
	           "{\"status\":\"error\",\"task\":\"third\"}");
	/* not run folders */
	ASSERT_OK(skitx_fs_mkdir_p(at(runs, "notes"), 0700));
	ASSERT_OK(
	        skitx_fs_mkdir_p(at(runs, "20250103T100000Z-ABCDEF01"), 0700));
	write_file(at(runs, "20250104T100000Z-dddddddd"), "a file");
	ASSERT_OK(symlink(RUN_A, at(runs, "20250105T100000Z-eeeeeeee")));
	return runs;
}

static void test_audit__runs_list(void)
{
	const char *runs = fixture("runs_list");
	skit_run_info *list = NULL;
	size_t n = 0;

	ASSERT_OK(skit_runs_list(&list, &n, runs, NULL));
	ASSERT_EQ(n, 3);
	ASSERT_STR(list[0].id, RUN_C);
	ASSERT_STR(list[1].id, RUN_B);
	ASSERT_STR(list[2].id, RUN_A);

	ASSERT_STR(list[2].status, "ok");
	ASSERT_STR(list[2].dir, at(runs, RUN_A));
	ASSERT_STR(list[2].task, "first");
	ASSERT_STR(list[2].model, "replay:a");
	ASSERT_STR(list[2].started, "2025-01-01T10:00:00.000Z");
	ASSERT_STR(list[2].ended, "2025-01-01T10:00:09.000Z");
	ASSERT_EQ(list[2].turns, 4);
	ASSERT_EQ(list[2].tool_calls, 6);
	ASSERT_EQ(list[2].input_tokens, 1000);
	ASSERT_EQ(list[2].output_tokens, 200);
	ASSERT_EQ(list[2].events, 1);

	/* no run.json: from the events, torn line left out */
	ASSERT_STR(list[1].status, "incomplete");
	ASSERT(!list[1].ended);
	ASSERT_STR(list[1].task, "second");
	ASSERT_STR(list[1].model, "openai:m");
	ASSERT_STR(list[1].started, "2025-01-02T10:00:00.500Z");
	ASSERT_EQ(list[1].events, 4);
	ASSERT_EQ(list[1].turns, 2);
	ASSERT_EQ(list[1].tool_calls, 1);
	ASSERT_EQ(list[1].input_tokens, 110);
	ASSERT_EQ(list[1].output_tokens, 15);

	/* a sparse run.json: the folder name gives the start */
	ASSERT_STR(list[0].status, "error");
	ASSERT_STR(list[0].task, "third");
	ASSERT(!list[0].model);
	ASSERT_STR(list[0].started, "2025-01-02T11:00:00Z");
	skit_runs_free(list, n);

	/* an unreadable run.json is "invalid" */
	write_file(at(runs, RUN_C "/run.json"), "{not json");
	ASSERT_OK(skit_runs_list(&list, &n, runs, NULL));
	ASSERT_STR(list[0].status, "invalid");
	skit_runs_free(list, n);

	/* a missing folder holds no runs */
	ASSERT_OK(skit_runs_list(&list, &n, at(runs, "missing"), NULL));
	ASSERT_EQ(n, 0);
	ASSERT(!list);
	skit_runs_free(NULL, 0);
}

static void test_audit__run_find(void)
{
	const char *runs = fixture("run_find");
	skit_error err = { 0 };
	skit_run_info *r = NULL;

	ASSERT_OK(skit_run_find(&r, runs, RUN_B, NULL));
	ASSERT_STR(r->id, RUN_B);
	ASSERT_STR(r->status, "incomplete");
	skit_runs_free(r, 1);
	ASSERT_OK(skit_run_find(&r, runs, "aaaaaaaa", NULL));
	ASSERT_STR(r->id, RUN_A);
	skit_runs_free(r, 1);
	ASSERT_OK(skit_run_find(&r, runs, "20250101", NULL));
	ASSERT_STR(r->id, RUN_A);
	skit_runs_free(r, 1);
	ASSERT_OK(skit_run_find(&r, runs, "20250102T11", NULL));
	ASSERT_STR(r->id, RUN_C);
	skit_runs_free(r, 1);
	ASSERT_OK(skit_run_find(&r, runs, "last", NULL));
	ASSERT_STR(r->id, RUN_C);
	skit_runs_free(r, 1);

	ASSERT_EQ(skit_run_find(&r, runs, "20250102", &err), SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "ambiguous");
	ASSERT(!r);
	ASSERT_EQ(skit_run_find(&r, runs, "zzz", &err), SKIT_ENOTFOUND);
	ASSERT_EQ(skit_run_find(&r, runs, "", &err), SKIT_ENOTFOUND);
	ASSERT_EQ(skit_run_find(&r, runs, "ffffffff", &err), SKIT_ENOTFOUND);
	ASSERT_EQ(skit_run_find(&r, runs, "../" RUN_A, &err), SKIT_ENOTFOUND);
	ASSERT_EQ(skit_run_find(&r, runs, "notes", &err), SKIT_ENOTFOUND);
	ASSERT_EQ(skit_run_find(&r, at(runs, "none"), "last", &err),
	          SKIT_ENOTFOUND);
}

struct collect {
	size_t n;
	long long last_seq;
	int stop_at;
};

static int collect_cb(const char *json, size_t len, void *payload)
{
	struct collect *c = payload;
	json_t *v = json_loadb(json, len, 0, NULL);

	if (!v || strlen(json) != len)
		return -99;
	c->last_seq = json_integer_value(json_object_get(v, "seq"));
	json_decref(v);
	c->n++;
	return c->stop_at && (int)c->n == c->stop_at ? 42 : 0;
}

static void test_audit__foreach_torn(void)
{
	const char *runs = fixture("foreach");
	struct collect c = { 0, 0, 0 };
	skit_error err = { 0 };
	size_t torn = 99;

	ASSERT_OK(skit_run_foreach_event(at(runs, RUN_B), collect_cb, &c, &torn,
	                                 NULL));
	ASSERT_EQ(c.n, 4);
	ASSERT_EQ(c.last_seq, 4);
	ASSERT_EQ(torn, 1);

	c.n = 0;
	c.stop_at = 2;
	ASSERT_EQ(skit_run_foreach_event(at(runs, RUN_B), collect_cb, &c, NULL,
	                                 NULL),
	          42);
	ASSERT_EQ(c.n, 2);

	/* a bad line in the middle is skipped and counted; so is a non-object
	 */
	write_file(at(runs, RUN_A "/events.jsonl"),
	           "{\"seq\":1}\n{\"seq\":2,\"ty\n[1]\n\n{\"seq\":3}\n");
	memset(&c, 0, sizeof(c));
	ASSERT_OK(skit_run_foreach_event(at(runs, RUN_A), collect_cb, &c, &torn,
	                                 NULL));
	ASSERT_EQ(c.n, 2);
	ASSERT_EQ(c.last_seq, 3);
	ASSERT_EQ(torn, 2);

	ASSERT_OK(skit_run_foreach_event(at(runs, RUN_C), collect_cb, &c, &torn,
	                                 NULL));
	ASSERT_EQ(torn, 0);
	ASSERT_EQ(skit_run_foreach_event(at(runs, "notes"), collect_cb, &c,
	                                 &torn, &err),
	          SKIT_ENOTFOUND);
	ASSERT_CONTAINS(err.message, "events.jsonl");
}

/* A writer killed with SIGKILL mid-run leaves a readable events.jsonl. */
static void test_audit__sigkill(void)
{
	const char *r = at(fresh("sigkill"), "runs");
	char runs[PATH_MAX];
	char dir[PATH_MAX] = "", *text, *p;
	struct collect c = { 0, 0, 0 };
	skit_run_info *list = NULL;
	struct stat st;
	size_t torn = 0, n = 0, len = 0;
	int fds[2], status;
	pid_t pid;

	memcpy(runs, r, strlen(r) + 1); /* at() reuses its buffers */
	ASSERT_OK(pipe(fds));
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		skit_audit *a = NULL;
		char fields[256];

		close(fds[0]);
		if (skit_audit_open(&a, runs, NULL) < 0)
			_exit(1);
		if (write(fds[1], skit_audit_dir(a),
		          strlen(skit_audit_dir(a)) + 1) < 0)
			_exit(1);
		close(fds[1]);
		for (unsigned long i = 0;; i++) {
			snprintf(fields, sizeof(fields),
			         "{\"i\":%lu,\"pad\":\"%0200lu\"}", i, i);
			skit_audit_event(a, "tick", fields, NULL);
		}
	}
	close(fds[1]);
	while (len < sizeof(dir) - 1) {
		ssize_t got = read(fds[0], dir + len, sizeof(dir) - 1 - len);

		if (got <= 0)
			break;
		len += (size_t)got;
	}
	close(fds[0]);
	/* let it write a few hundred events, then kill it mid-stream */
	for (int i = 0; len && i < 2000; i++) {
		if (stat(at(dir, "events.jsonl"), &st) == 0 &&
		    st.st_size > 200 * 230)
			break;
		usleep(1000);
	}
	/* kill before any ASSERT, so a failure cannot leave it running */
	kill(pid, SIGKILL);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT(len > 0 && dir[len - 1] == '\0');
	ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

	ASSERT_OK(skit_run_foreach_event(dir, collect_cb, &c, &torn, NULL));
	ASSERT(c.n >= 100);
	ASSERT(torn <= 1);
	ASSERT_EQ(c.last_seq, (long long)c.n);
	/* every complete line parses */
	text = slurp(at(dir, "events.jsonl"));
	p = strrchr(text, '\n');
	ASSERT(p);
	p[1] = '\0';
	{
		const char *q = text, *nl;

		while ((nl = strchr(q, '\n'))) {
			json_t *v = json_loadb(q, (size_t)(nl - q), 0, NULL);

			ASSERT(json_is_object(v));
			json_decref(v);
			q = nl + 1;
		}
	}
	free(text);
	ASSERT(!skitx_fs_exists(at(dir, "run.json")));
	ASSERT_OK(skit_runs_list(&list, &n, runs, NULL));
	ASSERT_EQ(n, 1);
	ASSERT_STR(list[0].status, "incomplete");
	ASSERT_EQ(list[0].events, c.n);
	skit_runs_free(list, n);
}

/*
 * Links in the trail's path (issue 28): a cloned repository's
 * `.agents/runs -> /elsewhere` or `.agents -> /elsewhere` is refused, not
 * followed; a link planted where the run folder was (a script that moved
 * it) does not redirect run.json, which goes to the folder opened at the
 * start.
 */
static void test_audit__no_links(void)
{
	const char *dir = fresh("links");
	char proj[PATH_MAX], runs[PATH_MAX], elsewhere[PATH_MAX];
	char moved[PATH_MAX], planted[PATH_MAX];
	skit_error err = { 0 };
	skit_audit *a = NULL;
	struct stat st;

	snprintf(proj, sizeof(proj), "%s/proj", dir);
	snprintf(elsewhere, sizeof(elsewhere), "%s/elsewhere", dir);
	ASSERT_OK(mkdir(proj, 0755));
	ASSERT_OK(mkdir(elsewhere, 0755));
	snprintf(runs, sizeof(runs), "%s/proj/.agents", dir);
	ASSERT_OK(mkdir(runs, 0755));

	/* .agents/runs -> elsewhere */
	snprintf(runs, sizeof(runs), "%s/proj/.agents/runs", dir);
	ASSERT_OK(symlink(elsewhere, runs));
	ASSERT_EQ(skit_audit_open(&a, runs, &err), SKIT_EIO);
	ASSERT(a == NULL);
	ASSERT_CONTAINS(err.message, "symbolic link");
	ASSERT(access(at(elsewhere, ".gitignore"), F_OK) < 0);
	memset(&err, 0, sizeof(err));
	ASSERT_OK(unlink(runs));

	/* .agents -> elsewhere */
	ASSERT_OK(rmdir(at(proj, ".agents")));
	ASSERT_OK(symlink(elsewhere, at(proj, ".agents")));
	ASSERT_EQ(skit_audit_open(&a, runs, &err), SKIT_EIO);
	ASSERT(access(at(elsewhere, "runs"), F_OK) < 0);
	memset(&err, 0, sizeof(err));
	ASSERT_OK(unlink(at(proj, ".agents")));

	/* Both made when missing; a run folder swapped for a link. */
	ASSERT_OK(skit_audit_open(&a, runs, &err));
	ASSERT_OK(lstat(at(proj, ".agents/runs"), &st));
	ASSERT(S_ISDIR(st.st_mode));
	snprintf(planted, sizeof(planted), "%s", skit_audit_dir(a));
	snprintf(moved, sizeof(moved), "%s/moved", dir);
	ASSERT_OK(rename(planted, moved));
	ASSERT_OK(symlink(elsewhere, planted));
	ASSERT_OK(skit_audit_event(a, "note", "{\"text\":\"x\"}", &err));
	ASSERT_OK(skit_audit_close(a, "{}", &err));
	ASSERT(access(at(elsewhere, "run.json"), F_OK) < 0);
	ASSERT_OK(access(at(moved, "run.json"), F_OK));
	ASSERT_OK(access(at(moved, "events.jsonl"), F_OK));
}

/* Every allocation failure is SKIT_ENOMEM, never a crash or a leak. */
static void test_audit__out_of_memory(void)
{
	const char *runs = fixture("oom");
	bool wrote = false, listed = false;

	for (long n = 1; n < 400 && !wrote; n++) {
		skit_audit *a = NULL;
		int rc;

		skitx_alloc_fail_at(n);
		rc = skit_audit_open(&a, at(base, "w"), NULL);
		if (!rc)
			rc = skit_audit_redact(a, "secret-secret", NULL);
		if (!rc)
			rc = skit_audit_event(
			        a, "x", "{\"k\":\"secret-secret\",\"a\":[1]}",
			        NULL);
		if (a)
			rc = rc ? (skit_audit_free(a), rc)
			        : skit_audit_close(a, "{\"status\":\"ok\"}",
			                           NULL);
		skitx_alloc_fail_at(0);
		ASSERT(rc == 0 || rc == SKIT_ENOMEM);
		wrote = rc == 0;
	}
	ASSERT(wrote);
	for (long n = 1; n < 400 && !listed; n++) {
		skit_run_info *list = NULL, *r = NULL;
		size_t count = 0;
		int rc;

		skitx_alloc_fail_at(n);
		rc = skit_runs_list(&list, &count, runs, NULL);
		if (!rc)
			rc = skit_run_find(&r, runs, "bbbbbbbb", NULL);
		skitx_alloc_fail_at(0);
		ASSERT(rc == 0 || rc == SKIT_ENOMEM);
		listed = rc == 0;
		if (rc == 0) {
			ASSERT_EQ(count, 3);
			ASSERT_STR(r->task, "second");
		}
		skit_runs_free(list, count);
		skit_runs_free(r, r ? 1 : 0);
	}
	ASSERT(listed);
}

/* clang-format off */
TEST_MAIN(
	TEST(test_audit__round_trip)
	TEST(test_audit__bad_input)
	TEST(test_audit__redaction)
	TEST(test_audit__one_line_per_event)
	TEST(test_audit__line_cap)
	TEST(test_audit__two_opens_differ)
	TEST(test_audit__runs_list)
	TEST(test_audit__run_find)
	TEST(test_audit__foreach_torn)
	TEST(test_audit__sigkill)
	TEST(test_audit__no_links)
	TEST(test_audit__out_of_memory))
/* clang-format on */
