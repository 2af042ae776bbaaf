/* SPDX-License-Identifier: MIT */
/*
 * tools.c - the skill tools, one provider of tool_provider.h: use_skill
 * (level 2), read_skill_resource (level 3: one file of an active skill,
 * opened so that it cannot leave the skill folder), search_skills,
 * update_plan, and run_skill_script (a script of an active skill, run
 * with a timeout, a cleared environment and capped output). Also what
 * every tool shares (tools_int.h): argument and path checks, contained
 * opens, clean text for the model, and the sandboxed runs that shell
 * (a project tool, tools_fs.c) uses too.
 *
 * Errors the model can act on come back to it as error results; only
 * budgets, cancellation and out-of-memory end the task. The permission
 * gate is the agent's (agent_tools.c): a call reaches a handler here
 * only once it was allowed. The OS sandbox layers are in sandbox.c.
 */
#include "common.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__linux__)
# include <linux/openat2.h>
#endif

#include <openssl/evp.h>

#include "skit/sandbox.h"

#include "lib/core/error.h"
#include "lib/sandbox/sandbox_int.h"
#include "lib/tools/tool_provider.h"
#include "lib/tools/ask.h"
#include "lib/tools/tools_int.h"
#include "lib/tools/tools_web.h"
#include "util/path.h"
#include "util/utf8.h"

#define PATH_MAX_LEN    4096
#define RESOURCE_SCAN   (8u * 1024 * 1024) /* bytes read to find lines */
#define BINARY_PROBE    8192
#define DIR_LIST_MAX    200
#define PLAN_MAX_STEPS  50
#define PLAN_STEP_MAX   500
#define SCRIPT_ARGS_MAX 64
#define SEARCH_HITS     10

/* ---- schemas ---------------------------------------------------------- */

/* clang-format off */
static const skit_tool_schema tool_use_skill = {
	"use_skill",
	"Activate a skill from the index: returns its instructions and the "
	"list of its files. Call it before doing work the skill covers.",
	"{\"type\":\"object\",\"properties\":{"
	"\"name\":{\"type\":\"string\",\"description\":\"the skill's name, "
	"as in the index\"},"
	"\"arguments\":{\"type\":\"string\",\"description\":\"optional "
	"arguments for the skill\"},"
	"\"source\":{\"type\":\"string\",\"description\":\"optional: the "
	"root to take it from (project, user, builtin)\"}},"
	"\"required\":[\"name\"],\"additionalProperties\":false}"
};

static const skit_tool_schema tool_read_resource = {
	"read_skill_resource",
	"Read a file of an active skill (e.g. references/guide.md), by "
	"lines. Paths are relative to the skill folder.",
	"{\"type\":\"object\",\"properties\":{"
	"\"skill\":{\"type\":\"string\"},"
	"\"path\":{\"type\":\"string\",\"description\":\"relative to the "
	"skill folder\"},"
	"\"offset\":{\"type\":\"integer\",\"minimum\":1,\"description\":"
	"\"first line (1-based)\"},"
	"\"limit\":{\"type\":\"integer\",\"minimum\":1,\"description\":"
	"\"number of lines\"}},"
	"\"required\":[\"skill\",\"path\"],\"additionalProperties\":false}"
};

static const skit_tool_schema tool_search = {
	"search_skills",
	"Search all installed skills by name and description, including "
	"those left out of the index.",
	"{\"type\":\"object\",\"properties\":{"
	"\"query\":{\"type\":\"string\"}},"
	"\"required\":[\"query\"],\"additionalProperties\":false}"
};

static const skit_tool_schema tool_plan = {
	"update_plan",
	"Record the plan for a multi-step task: the whole list of steps, "
	"each pending, in_progress (at most one) or completed.",
	"{\"type\":\"object\",\"properties\":{"
	"\"steps\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
	"\"properties\":{\"step\":{\"type\":\"string\"},"
	"\"status\":{\"type\":\"string\",\"enum\":[\"pending\","
	"\"in_progress\",\"completed\"]}},"
	"\"required\":[\"step\",\"status\"]}}},"
	"\"required\":[\"steps\"],\"additionalProperties\":false}"
};

static const skit_tool_schema tool_run_script = {
	"run_skill_script",
	"Run a script from an active skill's scripts/ folder with arguments "
	"(no shell), in a sandbox: it runs in the project folder (or cwd, "
	"a folder inside it) and may write the project as the sandbox mode "
	"allows; $SKILL_DIR is its skill's folder, $HOME and $TMPDIR a "
	"private temporary folder; the network is off unless the user "
	"allowed it. Returns the exit code, stdout and stderr.",
	"{\"type\":\"object\",\"properties\":{"
	"\"skill\":{\"type\":\"string\"},"
	"\"path\":{\"type\":\"string\",\"description\":\"e.g. "
	"scripts/report.py\"},"
	"\"args\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
	"\"cwd\":{\"type\":\"string\",\"description\":\"a folder "
	"of the project, relative to it; default: the project\"}},"
	"\"required\":[\"skill\",\"path\"],\"additionalProperties\":false}"
};

/* clang-format on */

const skit_tool_schema *skit__tool_schema(const char *name)
{
	static const skit_tool_schema *const all[] = {
		&tool_use_skill, &tool_read_resource, &tool_search,
		&tool_plan,      &tool_run_script,    &skit__tool_ask_schema,
	};

	for (size_t i = 0; i < SKIT_ARRAY_SIZE(all); i++)
		if (!strcmp(all[i]->name, name))
			return all[i];
	return NULL;
}

/* ---- helpers ---------------------------------------------------------- */

/*
 * Open `rel` under `dirfd` so that no step leaves the folder or follows a
 * symbolic link: openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) where the
 * kernel has it, else one O_NOFOLLOW step per component. Containment is
 * enforced by the open itself, so there is no check-then-use window.
 */
int skit__open_beneath(int dirfd, const char *rel, int flags)
{
	char part[PATH_MAX_LEN + 1];
	const char *c = rel;
	int fd, next;

#if defined(__linux__) && defined(SYS_openat2)
	{
		struct open_how how;

		memset(&how, 0, sizeof(how));
		how.flags = (uint64_t)(flags | O_CLOEXEC | O_NOFOLLOW);
		how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
		              RESOLVE_NO_MAGICLINKS;
		fd = (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
		if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
			return fd;
	}
#endif
	fd = dup(dirfd);
	while (fd >= 0 && *c) {
		size_t n = strcspn(c, "/");
		bool last;

		memcpy(part, c, n);
		part[n] = '\0';
		c += n;
		while (*c == '/')
			c++;
		last = !*c;
		if (n == 0 || (n == 1 && part[0] == '.')) {
			if (!last)
				continue;
			next = openat(fd, ".", flags | O_CLOEXEC);
		} else {
			next = openat(fd, part,
			              (last ? flags : O_RDONLY | O_DIRECTORY) |
			                      O_NOFOLLOW | O_CLOEXEC);
		}
		close(fd);
		fd = next;
	}
	return fd;
}

const char *skit__open_failure(int e)
{
	switch (e) {
	case ENOENT:
		return "no such file";
	case ELOOP:
	case EXDEV:
		return "refused: the path leaves the skill folder or goes "
		       "through a symbolic link";
	case ENOTDIR:
		return "a component of the path is not a folder";
	case EACCES:
		return "permission denied";
	default:
		return strerror(e);
	}
}

int skit__list_folder(int fd, struct skitx_buf *out, const char *rel)
{
	struct dirent *de;
	size_t n = 0;
	DIR *d;
	int rc = 0;

	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return skitx_buf_printf(out, "%s: cannot list: %s", rel,
		                        strerror(errno))
		               ? SKIT_ENOMEM
		               : 0;
	}
	rc |= skitx_buf_printf(out, "%s is a folder; its entries:\n", rel);
	while ((de = readdir(d)) && n < DIR_LIST_MAX) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		rc |= skit__put_clean(out, de->d_name, strlen(de->d_name));
		rc |= skitx_buf_puts(out, de->d_type == DT_DIR ? "/\n" : "\n");
		n++;
	}
	if (de)
		rc |= skitx_buf_puts(out, "[more entries not shown]\n");
	closedir(d);
	return rc ? SKIT_ENOMEM : 0;
}

/* The active skill for a tool call, or an error result. */
static const struct skit__active_skill *need_active(struct skit__tool_ctx *c,
                                                    json_t *args,
                                                    struct skitx_buf *out,
                                                    bool *is_error, int *rc)
{
	const char *name = skit__str_arg(args, "skill");
	const struct skit__active_skill *s;

	*rc = 0;
	if (!name) {
		*rc = skit__tool_error(out, is_error, "missing \"skill\"");
		return NULL;
	}
	s = skit__tool_find_active(c, name);
	if (!s) {
		*rc = skit_registry_find(c->reg, name, NULL)
		              ? skit__tool_error(
		                        out, is_error,
		                        "skill '%.64s' is not active: call "
		                        "use_skill first",
		                        name)
		              : skit__tool_error(out, is_error,
		                                 "no skill named '%.64s'",
		                                 name);
	}
	return s;
}

/* ---- the tools -------------------------------------------------------- */

static int do_use_skill(struct skit__tool_ctx *c, json_t *args,
                        struct skitx_buf *out, bool *is_error, skit_error *err)
{
	const char *name = skit__str_arg(args, "name");
	skit_error e = { 0 };
	int rc;

	if (!name)
		return skit__tool_error(out, is_error, "missing \"name\"");
	rc = c->host->activate(c->host_self, name,
	                       skit__str_arg(args, "source"),
	                       skit__str_arg(args, "arguments"), out, &e);
	if (rc == SKIT_ENOMEM)
		return skit__error_oom(err);
	if (rc)
		return skit__tool_error(out, is_error, "%s", e.message);
	return 0;
}

/* Lines [first, first + limit) of `data`; sets the range actually shown. */
static int put_lines(struct skitx_buf *out, const char *data, size_t len,
                     size_t first, size_t limit, size_t cap, size_t *last,
                     size_t *total, bool *cut)
{
	size_t line = 1, at = 0, start, end;

	*cut = false;
	*total = 0;
	for (const char *p = data, *e = data + len; p < e; p++) {
		p = memchr(p, '\n', (size_t)(e - p));
		if (!p)
			break;
		(*total)++;
	}
	if (len && data[len - 1] != '\n')
		(*total)++;
	*last = first - 1;
	if (first > *total)
		return 0;
	while (at < len && line < first) {
		const char *nl = memchr(data + at, '\n', len - at);

		at = nl ? (size_t)(nl - data) + 1 : len;
		line++;
	}
	start = at;
	while (at < len && *last - first + 1 < limit) {
		const char *nl = memchr(data + at, '\n', len - at);
		size_t next = nl ? (size_t)(nl - data) + 1 : len;

		if (next - start > cap)
			break;
		at = next;
		(*last)++;
	}
	end = at;
	if (at < len)
		*cut = true;
	if (end == start && start < len && cap) {
		/* One line longer than the cap: show its head. */
		end = start + cap;
		while (end > start && ((unsigned char)data[end] & 0xC0) == 0x80)
			end--;
		*last = first;
		*cut = true;
	}
	return skit__put_clean(out, data + start, end - start);
}

int skit__tool_read(struct skit__tool_ctx *c, int dirfd, const char *path,
                    json_t *args, struct skitx_buf *out, bool *is_error,
                    struct skit__read_info *ri, skit_error *err)
{
	json_t *joff = json_object_get(args, "offset");
	json_t *jlim = json_object_get(args, "limit");
	struct skitx_buf data;
	size_t first = 1, limit = SIZE_MAX, last = 0, total = 0;
	struct stat st;
	bool cut = false, scan_cut;
	ssize_t n;
	int fd, rc;

	memset(ri, 0, sizeof(*ri));
	if (joff && (!json_is_integer(joff) || json_integer_value(joff) < 1))
		return skit__tool_error(out, is_error,
		                        "\"offset\" must be an integer >= 1");
	if (jlim && (!json_is_integer(jlim) || json_integer_value(jlim) < 1))
		return skit__tool_error(out, is_error,
		                        "\"limit\" must be an integer >= 1");
	if (joff)
		first = (size_t)json_integer_value(joff);
	if (jlim)
		limit = (size_t)json_integer_value(jlim);
	fd = skit__open_beneath(dirfd, path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return skit__tool_error(out, is_error, "%.200s: %s", path,
		                        skit__open_failure(errno));
	if (fstat(fd, &st) < 0) {
		close(fd);
		return skit__tool_error(out, is_error, "%.200s: %s", path,
		                        strerror(errno));
	}
	if (S_ISDIR(st.st_mode)) {
		skitx_buf_clear(out);
		return skit__list_folder(fd, out, path);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return skit__tool_error(out, is_error,
		                        "%.200s: not a regular file; refused",
		                        path);
	}
	skitx_buf_init(&data, 0);
	rc = skitx_buf_grow(&data, st.st_size < (off_t)RESOURCE_SCAN
	                                   ? (size_t)st.st_size
	                                   : RESOURCE_SCAN);
	while (!rc && skitx_buf_len(&data) < RESOURCE_SCAN) {
		char chunk[65536];
		size_t want = RESOURCE_SCAN - skitx_buf_len(&data);

		n = read(fd, chunk,
		         want < sizeof(chunk) ? want : sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		rc = skitx_buf_add(&data, chunk, (size_t)n);
	}
	scan_cut = (off_t)skitx_buf_len(&data) < st.st_size;
	close(fd);
	if (rc) {
		skitx_buf_release(&data);
		return skit__error_oom(err);
	}
	skitx_buf_clear(out);
	if (memchr(skitx_buf_cstr(&data), '\0',
	           skitx_buf_len(&data) < BINARY_PROBE ? skitx_buf_len(&data)
	                                               : BINARY_PROBE)) {
		rc = skitx_buf_printf(out,
		                      "%.200s is a binary file (%lld bytes); "
		                      "its content is not shown",
		                      path, (long long)st.st_size);
	} else {
		rc = put_lines(out, skitx_buf_cstr(&data), skitx_buf_len(&data),
		               first, limit, c->resource_cap, &last, &total,
		               &cut);
		if (!rc && skitx_buf_len(&data) == 0)
			rc = skitx_buf_puts(out, "(empty file)");
		else if (!rc && last < first)
			rc = skitx_buf_printf(out,
			                      "(no line %zu: the file has %zu "
			                      "lines)",
			                      first, total);
		else if (!rc && (cut || scan_cut))
			rc = skitx_buf_printf(
			        out,
			        "\n[truncated: lines %zu-%zu of %s%zu shown; "
			        "continue with offset=%zu]",
			        first, last, scan_cut ? "more than " : "",
			        total, last + 1);
	}
	skitx_buf_release(&data);
	ri->read = true;
	ri->first = first;
	ri->truncated = cut || scan_cut;
	ri->file_bytes = (long long)st.st_size;
	ri->hardlinked = st.st_nlink > 1;
	return rc ? skit__error_oom(err) : 0;
}

static int do_read_resource(struct skit__tool_ctx *c, json_t *args,
                            struct skitx_buf *out, bool *is_error,
                            skit_error *err)
{
	const char *path = skit__str_arg(args, "path"), *why;
	struct skit__read_info ri;
	const struct skit__active_skill *s;
	int rc;

	s = need_active(c, args, out, is_error, &rc);
	if (!s)
		return rc;
	if (!path)
		return skit__tool_error(out, is_error, "missing \"path\"");
	why = skit__check_rel_path(path);
	if (why)
		return skit__tool_error(out, is_error, "%.200s: %s", path, why);
	rc = skit__tool_read(c, s->dirfd, path, args, out, is_error, &ri, err);
	if (rc || !ri.read)
		return rc;
	skit__tool_audit(
	        c, "resource_read",
	        json_pack("{s:s, s:s, s:I, s:I, s:b, s:I, s:b}", "skill",
	                  s->name, "path", path, "offset", (json_int_t)ri.first,
	                  "bytes", (json_int_t)skitx_buf_len(out), "truncated",
	                  ri.truncated, "file_bytes", (json_int_t)ri.file_bytes,
	                  "hardlinked", ri.hardlinked));
	skit__tool_trace(c, SKIT_TRACE_TOOL, "read %s/%s (%zu bytes%s)",
	                 s->name, path, skitx_buf_len(out),
	                 ri.truncated ? ", truncated" : "");
	return 0;
}

static int do_search(struct skit__tool_ctx *c, json_t *args,
                     struct skitx_buf *out, bool *is_error, skit_error *err)
{
	const char *q = skit__str_arg(args, "query");
	skit_search_hit hits[SEARCH_HITS * 2];
	size_t n = 0, shown = 0;
	skit_error e = { 0 };
	int rc;

	if (!q || !*q)
		return skit__tool_error(out, is_error, "missing \"query\"");
	rc = skit_registry_search(c->reg, q, 0, hits, SKIT_ARRAY_SIZE(hits), &n,
	                          &e);
	if (rc == SKIT_ENOMEM)
		return skit__error_oom(err);
	if (rc)
		return skit__tool_error(out, is_error, "search failed: %s",
		                        e.message);
	skitx_buf_clear(out);
	for (size_t i = 0; i < n && shown < SEARCH_HITS; i++) {
		const skit_entry *en = hits[i].entry;

		if (en->flags & SKIT_SKILL_DISABLE_MODEL_INVOCATION)
			continue;
		rc |= skitx_buf_printf(out, "- %s (%s): ", en->name,
		                       en->source);
		rc |= skit__put_clean(out, en->description,
		                      strlen(en->description));
		rc |= skitx_buf_putc(out, '\n');
		shown++;
	}
	if (!shown)
		rc |= skitx_buf_puts(out, "No skill matches that query.");
	skit__tool_trace(c, SKIT_TRACE_TOOL,
	                 "search_skills \"%.60s\": %zu hit(s)", q, shown);
	return rc ? skit__error_oom(err) : 0;
}

static int parse_status(const char *s, skit_step_status *st)
{
	if (!s)
		return -1;
	if (!strcmp(s, "pending"))
		*st = SKIT_STEP_PENDING;
	else if (!strcmp(s, "in_progress"))
		*st = SKIT_STEP_IN_PROGRESS;
	else if (!strcmp(s, "completed"))
		*st = SKIT_STEP_COMPLETED;
	else
		return -1;
	return 0;
}

static void plan_free(struct skit__plan_step *steps, size_t n)
{
	for (size_t i = 0; i < n; i++)
		skitx_free(steps[i].text);
	skitx_free(steps);
}

static int do_plan(struct skit__tool_ctx *c, json_t *args,
                   struct skitx_buf *out, bool *is_error, skit_error *err)
{
	static const char *const names[] = { "pending", "in_progress",
		                             "completed" };
	json_t *steps = json_object_get(args, "steps"), *st, *ev, *list;
	struct skit__plan_step *plan;
	size_t i, n, running = 0;

	if (!json_is_array(steps))
		return skit__tool_error(
		        out, is_error,
		        "\"steps\" must be an array of {step, status}");
	n = json_array_size(steps);
	if (n > PLAN_MAX_STEPS)
		return skit__tool_error(out, is_error, "at most %d steps",
		                        PLAN_MAX_STEPS);
	json_array_foreach(steps, i, st)
	{
		const char *text = skit__str_arg(st, "step");
		skit_step_status s;

		if (!text || !*text || strlen(text) > PLAN_STEP_MAX)
			return skit__tool_error(
			        out, is_error,
			        "step %zu: \"step\" must be a "
			        "non-empty string of at most %d bytes",
			        i + 1, PLAN_STEP_MAX);
		if (parse_status(skit__str_arg(st, "status"), &s))
			return skit__tool_error(
			        out, is_error,
			        "step %zu: \"status\" must be pending, "
			        "in_progress or completed",
			        i + 1);
		running += s == SKIT_STEP_IN_PROGRESS;
	}
	if (running > 1)
		return skit__tool_error(out, is_error,
		                        "at most one step may be in_progress");
	plan = skitx_calloc(n ? n : 1, sizeof(*plan));
	if (!plan)
		return skit__error_oom(err);
	json_array_foreach(steps, i, st)
	{
		parse_status(skit__str_arg(st, "status"), &plan[i].status);
		plan[i].text = skitx_strdup(skit__str_arg(st, "step"));
		if (!plan[i].text) {
			plan_free(plan, i);
			return skit__error_oom(err);
		}
	}
	plan_free(c->plan, c->nplan);
	c->plan = plan;
	c->nplan = n;
	list = json_array();
	for (i = 0; list && i < n; i++)
		json_array_append_new(list, json_pack("{s:s, s:s}", "step",
		                                      plan[i].text, "status",
		                                      names[plan[i].status]));
	ev = json_object();
	if (ev && list)
		json_object_set_new(ev, "steps", list);
	else
		json_decref(list);
	skit__tool_audit(c, "plan_updated", ev);
	for (i = 0; i < n; i++)
		if (plan[i].status == SKIT_STEP_IN_PROGRESS)
			break;
	skit__tool_trace(c, SKIT_TRACE_PLAN, "plan: %zu step(s)%s%.80s", n,
	                 i < n ? ", now: " : "", i < n ? plan[i].text : "");
	skitx_buf_clear(out);
	return skitx_buf_printf(out, "Plan updated (%zu steps).", n)
	               ? skit__error_oom(err)
	               : 0;
}

/*
 * The environment a program gets: an allow-list, nothing inherited. HOME
 * and TMPDIR are the run's private folder; PROJECT_DIR the project (the
 * working folder); SKILL_DIR its skill's folder.
 */
static char **script_env(struct skit__tool_ctx *c, const char *skill_dir)
{
	const char *fixed[] = { "PATH=/usr/local/bin:/usr/bin:/bin",
		                "LANG=C.UTF-8", "TERM=dumb" };
	const char *names[] = { "HOME", "TMPDIR", "PROJECT_DIR", "SKILL_DIR" };
	const char *values[] = { c->workdir, c->workdir, c->project_dir,
		                 skill_dir };
	size_t n = SKIT_ARRAY_SIZE(fixed), i, k;
	char **env = skitx_calloc(n + SKIT_ARRAY_SIZE(names) + 1, sizeof(*env));
	struct skitx_buf b;
	bool ok = env != NULL;

	for (i = 0; ok && i < n; i++) {
		env[i] = skitx_strdup(fixed[i]);
		ok = env[i] != NULL;
	}
	for (k = 0; ok && k < SKIT_ARRAY_SIZE(names) && values[k]; k++) {
		skitx_buf_init(&b, 0);
		ok = !skitx_buf_printf(&b, "%s=%s", names[k], values[k]);
		env[n + k] = ok ? skitx_buf_detach(&b, NULL) : NULL;
		skitx_buf_release(&b);
		ok = ok && env[n + k];
	}
	if (ok)
		return env;
	for (i = 0; env && env[i]; i++)
		skitx_free(env[i]);
	skitx_free(env);
	return NULL;
}

static int put_stream(struct skitx_buf *out, const char *label,
                      const struct skitx_buf *b, size_t total)
{
	int rc = 0;

	rc |= skitx_buf_printf(out, "--- %s ---\n", label);
	rc |= skit__put_clean(out, skitx_buf_cstr(b), skitx_buf_len(b));
	if (total > skitx_buf_len(b))
		rc |= skitx_buf_printf(out, "\n[truncated: %zu more bytes]",
		                       total - skitx_buf_len(b));
	if (skitx_buf_len(b) && skitx_buf_cstr(b)[skitx_buf_len(b) - 1] != '\n')
		rc |= skitx_buf_putc(out, '\n');
	return rc;
}

/*
 * The working folder of a call: the project, or its `cwd` argument, a
 * folder inside the project (relative, no `..`, no link leading out).
 * Returns a new string, or NULL with an error result in `out` (*rc 0) or
 * *rc set (SKIT_ENOMEM).
 */
static char *call_cwd(struct skit__tool_ctx *c, json_t *args,
                      struct skitx_buf *out, bool *is_error, int *rc)
{
	json_t *v = json_object_get(args, "cwd");
	const char *rel, *why;
	int pfd, fd;
	char *dir;

	*rc = 0;
	if (!v || (json_is_string(v) && (!strcmp(json_string_value(v), ".") ||
	                                 !*json_string_value(v)))) {
		dir = skitx_strdup(c->project_dir);
		if (!dir)
			*rc = SKIT_ENOMEM;
		return dir;
	}
	rel = json_string_value(v);
	if (!rel || json_string_length(v) > PATH_MAX_LEN ||
	    strlen(rel) != json_string_length(v)) {
		*rc = skit__tool_error(out, is_error,
		                       "\"cwd\" must be a folder of the "
		                       "project, relative to it");
		return NULL;
	}
	why = skit__check_rel_path(rel);
	if (why) {
		*rc = skit__tool_error(out, is_error, "cwd %.200s: %s", rel,
		                       why);
		return NULL;
	}
	pfd = open(c->project_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fd = pfd < 0 ? -1
	             : skit__open_beneath(pfd, rel, O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		*rc = skit__tool_error(out, is_error, "cwd %.200s: %s", rel,
		                       skit__open_failure(errno));
		if (pfd >= 0)
			close(pfd);
		return NULL;
	}
	close(fd);
	close(pfd);
	dir = skitx_path_join(c->project_dir, rel);
	if (!dir)
		*rc = SKIT_ENOMEM;
	return dir;
}

/*
 * The sandbox settings every program gets (docs/sandbox.md): `cwd` as
 * its folder; as the mode says, the project and the private folder
 * writable except the protected paths (workspace-write), only the private
 * folder (read-only) or everything (full-access); `readable` (NULL-ended)
 * besides the system folders; the network as the policy says for `skill`
 * (NULL for a shell call); limits from the agent. 0, or SKIT_ELIMIT with
 * a message for the model when the task's disk cap is used up.
 */
static int confine(struct skit__tool_ctx *c, struct skit__run_opts *ro,
                   const char *const *readable, const char *skill,
                   const char *cwd)
{
	static const char *const none[] = { NULL };
	uint64_t left = c->task_disk_cap > c->task_disk_used
	                        ? c->task_disk_cap - c->task_disk_used
	                        : 0;

	memset(ro, 0, sizeof(*ro));
	if (c->sandbox_mode == SKIT_SANDBOX_WORKSPACE_WRITE) {
		c->writable[0] = c->project_dir;
		c->writable[1] = c->workdir;
	} else {
		c->writable[0] = c->workdir;
		c->writable[1] = NULL;
	}
	c->writable[2] = NULL;
	ro->cwd = cwd;
	ro->timeout_ms = c->script_timeout_ms;
	ro->output_cap = c->script_output_cap;
	ro->cancel = c->cancel;
	ro->confine = true;
	ro->read_paths = readable ? readable : none;
	ro->write_paths = c->writable;
	ro->protect_paths = (const char *const *)c->protect;
	ro->fs_full = c->sandbox_mode == SKIT_SANDBOX_FULL_ACCESS;
	ro->disk_cap = c->disk_cap < left ? c->disk_cap : left;
	ro->allow_network =
	        skit_policy_network(c->policy, c->view, c->nactive, skill);
	/* Else HTTP(S) to the WebFetch domains, through the sandbox's
	 * proxy; freed by the caller after the run (web_domains_done). */
	if (!ro->allow_network) {
		char **d = NULL;

		if (!skit_policy_web_domains(&d, c->policy, c->view, c->nactive,
		                             skill, NULL))
			ro->web_domains = (const char *const *)d;
	}
	return left ? 0 : SKIT_ELIMIT;
}

/*
 * The network a run had, for the trail: "network" is whether it had any
 * (the whole network, or the web proxy); `*web` (NULL without the proxy)
 * what the proxy was granted and what it did ({"domains": [...],
 * "forwarded": N, "refused": N}).
 */
static bool net_record(const struct skit__run_opts *ro,
                       const struct skit__run_result *res, json_t **web)
{
	json_t *d;

	*web = NULL;
	if (ro->allow_network)
		return true;
	if (!ro->web_domains || !ro->web_domains[0])
		return false;
	d = json_array();
	for (size_t i = 0; d && ro->web_domains[i]; i++)
		json_array_append_new(d, json_string(ro->web_domains[i]));
	*web = json_pack("{s:o?, s:I, s:I}", "domains", d, "forwarded",
	                 (json_int_t)res->web_forwarded, "refused",
	                 (json_int_t)res->web_refused);
	return true;
}

static void web_domains_done(struct skit__run_opts *ro)
{
	skit_policy_web_domains_free((char **)ro->web_domains);
	ro->web_domains = NULL;
}

/* Say once per layer, in one line and in the trail, what the sandbox
 * could not apply on this system. */
static void sandbox_warn(struct skit__tool_ctx *c,
                         const struct skit__run_result *res)
{
	unsigned int fresh = res->missing & ~c->sandbox_warned;
	struct skitx_buf b;
	json_t *names;

	if (!fresh)
		return;
	c->sandbox_warned |= fresh;
	names = json_array();
	skitx_buf_init(&b, 0);
	for (unsigned int bit = 1; bit && bit <= SKIT_SANDBOX_ALL; bit <<= 1) {
		if (!(fresh & bit))
			continue;
		skitx_buf_printf(&b, "%s%s", skitx_buf_len(&b) ? ", " : "",
		                 skit_sandbox_layer_name(bit));
		json_array_append_new(
		        names, json_string(skit_sandbox_layer_name(bit)));
	}
	skit__tool_trace(c, SKIT_TRACE_NOTE,
	                 "warning: sandbox layers unavailable here: %s "
	                 "(see skit doctor)",
	                 skitx_buf_cstr(&b));
	skit__tool_audit(c, "sandbox_warning",
	                 json_pack("{s:o?}", "missing", names));
	skitx_buf_release(&b);
}

/* The disk cap of one run as the user set it (for messages). */
static uint64_t ro_cap(const struct skit__tool_ctx *c)
{
	return c->disk_cap < c->task_disk_cap ? c->disk_cap : c->task_disk_cap;
}

/* Refuse a run once the task's disk cap is used up. */
static int disk_spent(struct skit__tool_ctx *c, struct skitx_buf *out,
                      bool *is_error)
{
	return skit__tool_error(out, is_error,
	                        "refused: this task's programs already added "
	                        "%llu MiB to the disk, its cap",
	                        (unsigned long long)(c->task_disk_cap >> 20));
}

/* Count one program run against the task's budget: 0 or SKIT_ELIMIT. */
static int charge_run(struct skit__tool_ctx *c, skit_error *err)
{
	if (c->task_scripts >= c->max_script_runs)
		return skit__error_set(err, SKIT_ELIMIT, 0,
		                       "script-run budget exhausted (%u runs); "
		                       "raise it with --max-script-runs",
		                       c->max_script_runs);
	c->task_scripts++;
	c->script_runs++;
	return 0;
}

/* The result of a program run, as the model sees it; and the hashes of
 * what it printed, for the trail. 0 or SKIT_ENOMEM. */
static int put_run_result(struct skit__tool_ctx *c,
                          const struct skit__run_result *res,
                          struct skitx_buf *out, bool *is_error,
                          char outsum[65], char errsum[65])
{
	int rc = 0;

	sandbox_warn(c, res);
	skit__sha256_hex(skitx_buf_cstr(&res->out), skitx_buf_len(&res->out),
	                 outsum);
	skit__sha256_hex(skitx_buf_cstr(&res->err), skitx_buf_len(&res->err),
	                 errsum);
	skitx_buf_clear(out);
	*is_error = res->exit_code != 0;
	c->task_disk_used += res->disk_added;
	if (res->disk_capped) {
		*is_error = true;
		rc |= skitx_buf_printf(out,
		                       "stopped: the program added more than "
		                       "%llu MiB to the disk (the disk cap; "
		                       "sandbox.disk_cap in the user config "
		                       "raises it)\n",
		                       (unsigned long long)(ro_cap(c) >> 20));
	} else if (res->timed_out)
		rc |= skitx_buf_printf(out,
		                       "timed out after %ld ms; the program "
		                       "was stopped\n",
		                       c->script_timeout_ms);
	else if (res->signal)
		rc |= skitx_buf_printf(out, "killed by signal %d\n",
		                       res->signal);
	else
		rc |= skitx_buf_printf(out, "exit code: %d\n", res->exit_code);
	rc |= put_stream(out, "stdout", &res->out, res->out_total);
	if (res->err_total)
		rc |= put_stream(out, "stderr", &res->err, res->err_total);
	return rc ? SKIT_ENOMEM : 0;
}

static int do_run_script(struct skit__tool_ctx *c, json_t *args,
                         struct skitx_buf *out, bool *is_error, skit_error *err)
{
	const char *path = skit__str_arg(args, "path"), *why, *dir;
	json_t *jargs = json_object_get(args, "args"), *v, *ev;
	struct skit__run_opts ro;
	struct skit__run_result res;
	const struct skit__active_skill *s;
	char outsum[65], errsum[65], *full = NULL, **argv = NULL, **env = NULL;
	char *cwd;
	const char *readable[3] = { NULL, NULL, NULL };
	struct stat st;
	size_t i, nargs;
	json_t *web = NULL;
	bool net;
	int fd, rc;

	s = need_active(c, args, out, is_error, &rc);
	if (!s)
		return rc;
	if (!path)
		return skit__tool_error(out, is_error, "missing \"path\"");
	why = skit__check_rel_path(path);
	if (why)
		return skit__tool_error(out, is_error, "%.200s: %s", path, why);
	if (strncmp(path, "scripts/", 8) || !path[8])
		return skit__tool_error(
		        out, is_error,
		        "%.200s: only files under scripts/ can be run", path);
	if (jargs && !json_is_array(jargs))
		return skit__tool_error(out, is_error,
		                        "\"args\" must be an array of strings");
	nargs = json_array_size(jargs);
	if (nargs > SCRIPT_ARGS_MAX)
		return skit__tool_error(out, is_error, "at most %d arguments",
		                        SCRIPT_ARGS_MAX);
	json_array_foreach(jargs, i, v)
	{
		if (!json_is_string(v) || json_string_length(v) > PATH_MAX_LEN)
			return skit__tool_error(
			        out, is_error,
			        "argument %zu must be a string of at "
			        "most %d bytes",
			        i + 1, PATH_MAX_LEN);
	}
	fd = skit__open_beneath(s->dirfd, path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return skit__tool_error(out, is_error, "%.200s: %s", path,
		                        skit__open_failure(errno));
	rc = fstat(fd, &st);
	close(fd);
	if (rc < 0 || !S_ISREG(st.st_mode))
		return skit__tool_error(out, is_error,
		                        "%.200s: not a regular file; refused",
		                        path);
	if (!(st.st_mode & S_IXUSR))
		return skit__tool_error(
		        out, is_error,
		        "%.200s is not executable (its author should "
		        "chmod +x it)",
		        path);
	cwd = call_cwd(c, args, out, is_error, &rc);
	if (!cwd)
		return rc == SKIT_ENOMEM ? skit__error_oom(err) : rc;
	rc = charge_run(c, err);
	if (rc) {
		skitx_free(cwd);
		return rc;
	}
	dir = skit_skill_dir(s->skill);
	full = skitx_malloc(strlen(dir) + strlen(path) + 2);
	argv = skitx_calloc(nargs + 2, sizeof(*argv));
	env = script_env(c, dir);
	if (!full || !argv || !env) {
		skitx_free(full);
		skitx_free(argv);
		skitx_strv_free(env);
		skitx_free(cwd);
		return skit__error_oom(err);
	}
	snprintf(full, strlen(dir) + strlen(path) + 2, "%s/%s", dir, path);
	argv[0] = full;
	json_array_foreach(jargs, i, v)
	{
		argv[i + 1] = (char *)json_string_value(v);
	}
	readable[0] = dir;
	readable[1] = c->project_dir;
	if (confine(c, &ro, readable, s->name, cwd)) {
		web_domains_done(&ro);
		skitx_free(full);
		skitx_free(argv);
		skitx_strv_free(env);
		skitx_free(cwd);
		return disk_spent(c, out, is_error);
	}
	ro.path = full;
	ro.argv = argv;
	ro.envp = env;
	skit__tool_trace(c, SKIT_TRACE_TOOL, "run %s/%s%s", s->name, path,
	                 nargs ? " ..." : "");
	rc = skit__run(&res, &ro, err);
	net = net_record(&ro, &res, &web);
	web_domains_done(&ro);
	skitx_free(argv);
	skitx_strv_free(env);
	skitx_free(cwd);
	if (rc) {
		json_decref(web);
		skitx_free(full);
		skit__run_result_release(&res);
		if (rc == SKIT_ENOMEM)
			return rc;
		return skit__tool_error(out, is_error, "%.200s: %s", path,
		                        err ? err->message : "cannot run");
	}
	skitx_free(full);
	rc = put_run_result(c, &res, out, is_error, outsum, errsum);
	ev = json_pack(
	        "{s:s, s:s, s:o?, s:i, s:i, s:b, s:I, s:s, s:s, s:I, "
	        "s:I, s:b, s:b, s:o?, s:s, s:I, s:b}",
	        "skill", s->name, "path", path, "args",
	        jargs ? json_incref(jargs) : json_array(), "exit_code",
	        res.exit_code, "signal", res.signal, "timed_out", res.timed_out,
	        "duration_ms", (json_int_t)res.duration_ms, "stdout_sha256",
	        outsum, "stderr_sha256", errsum, "stdout_bytes",
	        (json_int_t)res.out_total, "stderr_bytes",
	        (json_int_t)res.err_total, "truncated",
	        res.out_total > skitx_buf_len(&res.out) ||
	                res.err_total > skitx_buf_len(&res.err),
	        "network", net, "web", web, "sandbox",
	        skit_sandbox_mode_name(c->sandbox_mode), "disk_added",
	        (json_int_t)res.disk_added, "disk_capped", res.disk_capped);
	skit__tool_audit(c, "script_run", ev);
	skit__tool_trace(
	        c, SKIT_TRACE_TOOL, "%s/%s: %s %d (%ld ms)", s->name, path,
	        res.timed_out ? "timed out, signal"
	        : res.signal  ? "signal"
	                      : "exit",
	        res.signal ? res.signal : res.exit_code, res.duration_ms);
	rc = rc ? skit__error_oom(err) : 0;
	if (!rc && res.canceled)
		rc = skit__error_set(err, SKIT_ECANCELED, 0, "canceled");
	skit__run_result_release(&res);
	return rc;
}

#define SHELL_MAX (64u * 1024) /* bytes of a shell command line */

int skit__tool_shell(struct skit__tool_ctx *c, json_t *args,
                     struct skitx_buf *out, bool *is_error, skit_error *err)
{
	const char *cmd = skit__str_arg(args, "command");
	const char *readable[2] = { c->project_dir, NULL };
	char *argv[4] = { "/bin/sh", "-c", NULL, NULL };
	char outsum[65], errsum[65], **env, *cwd;
	struct skit__run_opts ro;
	struct skit__run_result res;
	json_t *web = NULL;
	bool net;
	int rc;

	if (!cmd || !*cmd || strlen(cmd) > SHELL_MAX ||
	    strlen(cmd) != json_string_length(json_object_get(args, "command")))
		return skit__tool_error(out, is_error,
		                        "\"command\" must be a command line "
		                        "of 1 to %u bytes without NUL",
		                        SHELL_MAX);
	cwd = call_cwd(c, args, out, is_error, &rc);
	if (!cwd)
		return rc == SKIT_ENOMEM ? skit__error_oom(err) : rc;
	rc = charge_run(c, err);
	env = rc ? NULL : script_env(c, NULL);
	if (!env) {
		skitx_free(cwd);
		return rc ? rc : skit__error_oom(err);
	}
	argv[2] = (char *)cmd;
	if (confine(c, &ro, readable, NULL, cwd)) {
		web_domains_done(&ro);
		skitx_strv_free(env);
		skitx_free(cwd);
		return disk_spent(c, out, is_error);
	}
	ro.path = argv[0];
	ro.argv = argv;
	ro.envp = env;
	skit__tool_trace(c, SKIT_TRACE_TOOL, "shell: %.120s", cmd);
	rc = skit__run(&res, &ro, err);
	net = net_record(&ro, &res, &web);
	web_domains_done(&ro);
	skitx_strv_free(env);
	skitx_free(cwd);
	if (rc) {
		json_decref(web);
		skit__run_result_release(&res);
		if (rc == SKIT_ENOMEM)
			return rc;
		return skit__tool_error(out, is_error, "cannot run: %s",
		                        err ? err->message : "error");
	}
	rc = put_run_result(c, &res, out, is_error, outsum, errsum);
	skit__tool_audit(
	        c, "shell_run",
	        json_pack("{s:s, s:i, s:i, s:b, s:I, s:s, s:s, s:I, s:I, "
	                  "s:b, s:o?, s:s, s:I, s:b}",
	                  "command", cmd, "exit_code", res.exit_code, "signal",
	                  res.signal, "timed_out", res.timed_out, "duration_ms",
	                  (json_int_t)res.duration_ms, "stdout_sha256", outsum,
	                  "stderr_sha256", errsum, "stdout_bytes",
	                  (json_int_t)res.out_total, "stderr_bytes",
	                  (json_int_t)res.err_total, "network", net, "web", web,
	                  "sandbox", skit_sandbox_mode_name(c->sandbox_mode),
	                  "disk_added", (json_int_t)res.disk_added,
	                  "disk_capped", res.disk_capped));
	skit__tool_trace(c, SKIT_TRACE_TOOL, "shell: %s %d (%ld ms)",
	                 res.signal ? "signal" : "exit",
	                 res.signal ? res.signal : res.exit_code,
	                 res.duration_ms);
	rc = rc ? skit__error_oom(err) : 0;
	if (!rc && res.canceled)
		rc = skit__error_set(err, SKIT_ECANCELED, 0, "canceled");
	skit__run_result_release(&res);
	return rc;
}

/* ---- the provider of the skill tools ---------------------------------- */

/* In the order the model sees them; the skill tools are open (a read of
 * what the index and activation disclose), run_skill_script is gated. */
static size_t skill_list(void *self, const struct skit__tool_ctx *c,
                         struct skit__tool_def *out, size_t max)
{
	static const struct {
		const skit_tool_schema *schema;
		skit_risk risk;
		enum skit__tool_gate gate;
		const char *hint;
	} tools[] = {
		{ &tool_use_skill, SKIT_RISK_READ, SKIT__GATE_OPEN, "" },
		{ &tool_read_resource, SKIT_RISK_READ, SKIT__GATE_OPEN, "" },
		{ &tool_search, SKIT_RISK_READ, SKIT__GATE_OPEN, "" },
		{ &tool_plan, SKIT_RISK_READ, SKIT__GATE_OPEN, "" },
		{ &skit__tool_ask_schema, SKIT_RISK_READ, SKIT__GATE_OPEN, "" },
		{ &tool_run_script, SKIT_RISK_EXECUTE, SKIT__GATE_BUILTIN,
		  ": call use_skill first" },
		/* not a file tool: the policy offers it (WebFetch rules,
		 * --no-network) whether the file tools are on or not */
		{ &skit__tool_web_fetch_schema, SKIT_RISK_NETWORK,
		  SKIT__GATE_BUILTIN, "" },
	};
	size_t n = 0;

	(void)self;
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(tools) && n < max; i++) {
		out[n].schema = *tools[i].schema;
		out[n].risk = tools[i].risk;
		out[n].gate = tools[i].gate;
		out[n].hint = tools[i].hint;
		/* search_skills when asked for, or when the index left
		 * skills out */
		out[n].offered = tools[i].schema != &tool_search ||
		                 c->search_tool || c->index_cut;
		n++;
	}
	return n;
}

/* run_skill_script is matched on "<path> <args...>" of its skill. */
static int skill_target(void *self, const char *tool, json_t *args,
                        struct skitx_buf *t, const char **skill)
{
	const char *path = skit__str_arg(args, "path");
	json_t *v;
	size_t i;
	int rc = 0;

	(void)self;
	*skill = NULL;
	if (!strcmp(tool, "web_fetch"))
		return skit__web_fetch_target(args, t);
	if (strcmp(tool, "run_skill_script"))
		return 0;
	*skill = skit__str_arg(args, "skill");
	rc |= skitx_buf_puts(t, path ? path : "");
	json_array_foreach(json_object_get(args, "args"), i, v)
	{
		if (json_is_string(v))
			rc |= skitx_buf_printf(t, " %s", json_string_value(v));
	}
	return rc ? SKIT_ENOMEM : 0;
}

static int skill_call(void *self, struct skit__tool_ctx *c, const char *tool,
                      json_t *args, struct skitx_buf *out, bool *is_error,
                      skit_error *err)
{
	(void)self;
	if (!strcmp(tool, "use_skill"))
		return do_use_skill(c, args, out, is_error, err);
	if (!strcmp(tool, "read_skill_resource"))
		return do_read_resource(c, args, out, is_error, err);
	if (!strcmp(tool, "search_skills"))
		return do_search(c, args, out, is_error, err);
	if (!strcmp(tool, "update_plan"))
		return do_plan(c, args, out, is_error, err);
	if (!strcmp(tool, "ask_user"))
		return skit__tool_ask(c, args, out, is_error, err);
	if (!strcmp(tool, "run_skill_script"))
		return do_run_script(c, args, out, is_error, err);
	if (!strcmp(tool, "web_fetch"))
		return skit__tool_web_fetch(c, args, out, is_error, err);
	return skit__tool_error(out, is_error, "unknown tool '%.64s'", tool);
}

const struct skit__tool_provider_ops skit__skill_tools = {
	"skill", skill_list, skill_target, skill_call, NULL,
};
