/* SPDX-License-Identifier: MIT */
/*
 * tools.c - the tools the model may call: their schemas and handlers.
 *
 * use_skill (level 2), read_skill_resource (level 3: one file of an
 * active skill, opened so that it cannot leave the skill folder),
 * search_skills, update_plan, and run_skill_script (a script of an active
 * skill, run with a timeout, a cleared environment and capped output).
 * Errors the model can act on come back to it as error results; only
 * budgets, cancellation and out-of-memory end the task.
 *
 * Permission policy and the OS sandbox layers are not here.
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

#include "lib/agent_int.h"
#include "lib/audit_int.h"
#include "lib/error.h"
#include "lib/mcp_client_int.h"
#include "lib/sandbox_int.h"
#include "lib/tools_int.h"
#include "lib/trust_int.h"
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

static const skit_tool_schema tool_read_file = {
	"read_file",
	"Read a file of the project, by lines. Paths are relative to the "
	"project folder.",
	"{\"type\":\"object\",\"properties\":{"
	"\"path\":{\"type\":\"string\"},"
	"\"offset\":{\"type\":\"integer\",\"minimum\":1},"
	"\"limit\":{\"type\":\"integer\",\"minimum\":1}},"
	"\"required\":[\"path\"],\"additionalProperties\":false}"
};

static const skit_tool_schema tool_list_dir = {
	"list_dir",
	"List a folder of the project (default: the project folder).",
	"{\"type\":\"object\",\"properties\":{"
	"\"path\":{\"type\":\"string\"}},"
	"\"additionalProperties\":false}"
};

static const skit_tool_schema tool_grep = {
	"grep",
	"Search the project's text files for lines matching a POSIX "
	"extended regular expression; hidden folders are skipped.",
	"{\"type\":\"object\",\"properties\":{"
	"\"pattern\":{\"type\":\"string\"},"
	"\"path\":{\"type\":\"string\",\"description\":\"file or "
	"folder; default: the project\"},"
	"\"glob\":{\"type\":\"string\",\"description\":\"only files "
	"whose name matches, e.g. *.c\"},"
	"\"ignore_case\":{\"type\":\"boolean\"}},"
	"\"required\":[\"pattern\"],\"additionalProperties\":false}"
};

static const skit_tool_schema tool_write_file = {
	"write_file",
	"Create or replace a file of the project with the given content "
	"(written atomically). Needs the user's approval.",
	"{\"type\":\"object\",\"properties\":{"
	"\"path\":{\"type\":\"string\"},"
	"\"content\":{\"type\":\"string\"}},"
	"\"required\":[\"path\",\"content\"],"
	"\"additionalProperties\":false}"
};

static const skit_tool_schema tool_shell = {
	"shell",
	"Run a command line with /bin/sh in a sandbox, in the project "
	"folder (or cwd, a folder inside it); it may write the project as "
	"the sandbox mode allows; $HOME and $TMPDIR are a private "
	"temporary folder; the network is off unless allowed. Needs the "
	"user's approval.",
	"{\"type\":\"object\",\"properties\":{"
	"\"command\":{\"type\":\"string\"},"
	"\"cwd\":{\"type\":\"string\",\"description\":\"a folder "
	"of the project, relative to it; default: the project\"}},"
	"\"required\":[\"command\"],\"additionalProperties\":false}"
};
/* clang-format on */

/* The gated tools, in the order they are offered. */
static const skit_tool_schema *const gated[] = {
	&tool_run_script, &tool_read_file,  &tool_list_dir,
	&tool_grep,       &tool_write_file, &tool_shell,
};

/* Whether gated tool `name` is offered now (file tools need the option). */
static bool offered(struct skit_agent *a, const char *name)
{
	if (!a->file_tools && strcmp(name, tool_run_script.name))
		return false;
	return skit_policy_offers(a->policy, skit__agent_policy_view(a),
	                          a->nactive, name,
	                          a->hooks.on_approve != NULL);
}

size_t skit__tools_schemas(struct skit_agent *a, skit_tool_schema *out,
                           size_t max)
{
	size_t n = 0;

	assert(max >= SKIT__TOOLS_MAX);
	(void)max;
	out[n++] = tool_use_skill;
	out[n++] = tool_read_resource;
	if (a->search_tool || a->stats.index_omitted)
		out[n++] = tool_search;
	out[n++] = tool_plan;
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(gated); i++)
		if (offered(a, gated[i]->name))
			out[n++] = *gated[i];
	n += skit__mcp_schemas(a, out + n, SKIT__TOOLS_MAX - n);
	return n;
}

const skit_tool_schema *skit__tool_schema(const char *name)
{
	static const skit_tool_schema *const all[] = {
		&tool_use_skill, &tool_read_resource, &tool_search,
		&tool_plan,      &tool_run_script,
	};

	for (size_t i = 0; i < SKIT_ARRAY_SIZE(all); i++)
		if (!strcmp(all[i]->name, name))
			return all[i];
	return NULL;
}

/* ---- helpers ---------------------------------------------------------- */

int skit__tool_error(struct skitx_buf *out, bool *is_error, const char *fmt,
                     ...)
{
	va_list ap;
	int rc;

	skitx_buf_clear(out);
	*is_error = true;
	va_start(ap, fmt);
	rc = skitx_buf_vprintf(out, fmt, ap);
	va_end(ap);
	return rc ? SKIT_ENOMEM : 0;
}

const char *skit__str_arg(json_t *args, const char *key)
{
	json_t *v = json_object_get(args, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/*
 * Text for the model: invalid UTF-8 and control characters (but tab and
 * newline; CR before LF is dropped) become U+FFFD, so escape sequences
 * and mojibake from a file or a script never pass through.
 */
int skit__put_clean(struct skitx_buf *out, const char *s, size_t len)
{
	static const char repl[] = "\xEF\xBF\xBD";
	size_t i = 0, run = 0, n;
	int32_t cp;
	int rc = 0;

	while (i < len) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7F) {
			i++;
			continue;
		}
		if (i > run)
			rc |= skitx_buf_add(out, s + run, i - run);
		n = skitx_utf8_decode(s + i, len - i, &cp);
		if (c == '\n' || c == '\t')
			rc |= skitx_buf_putc(out, (char)c);
		else if (c == '\r' && i + 1 < len && s[i + 1] == '\n')
			;
		else if (cp == 0xFFFD || skitx_utf8_is_hidden(cp))
			/* controls, bidi, zero-width and TAG characters: a
			 * visible mark, so the model sees that something
			 * was there but not what it would hide */
			rc |= skitx_buf_add(out, repl, 3);
		else
			rc |= skitx_buf_add(out, s + i, n);
		i += n;
		run = i;
	}
	if (i > run)
		rc |= skitx_buf_add(out, s + run, i - run);
	return rc ? SKIT_ENOMEM : 0;
}

/* A relative path that stays inside its folder, judged lexically. */
const char *skit__check_rel_path(const char *p)
{
	const char *c = p;

	if (!*p)
		return "empty path";
	if (strlen(p) > PATH_MAX_LEN)
		return "path too long";
	if (*p == '/')
		return "absolute paths are refused";
	while (*c) {
		size_t n = strcspn(c, "/");

		if (n == 2 && c[0] == '.' && c[1] == '.')
			return "'..' is refused";
		c += n;
		while (*c == '/')
			c++;
	}
	return NULL;
}

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
static struct agent_skill *need_active(struct skit_agent *a, json_t *args,
                                       struct skitx_buf *out, bool *is_error,
                                       int *rc)
{
	const char *name = skit__str_arg(args, "skill");
	struct agent_skill *s;

	*rc = 0;
	if (!name) {
		*rc = skit__tool_error(out, is_error, "missing \"skill\"");
		return NULL;
	}
	s = skit__agent_find_active(a, name);
	if (!s) {
		*rc = skit_registry_find(a->reg, name, NULL)
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

static int do_use_skill(struct skit_agent *a, json_t *args,
                        struct skitx_buf *out, bool *is_error, skit_error *err)
{
	const char *name = skit__str_arg(args, "name");
	skit_error e = { 0 };
	int rc;

	if (!name)
		return skit__tool_error(out, is_error, "missing \"name\"");
	rc = skit__agent_activate(a, name, skit__str_arg(args, "source"),
	                          skit__str_arg(args, "arguments"),
	                          TRIGGER_MODEL, out, &e);
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

int skit__tool_read(struct skit_agent *a, int dirfd, const char *path,
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
		               first, limit, a->resource_cap, &last, &total,
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

static int do_read_resource(struct skit_agent *a, json_t *args,
                            struct skitx_buf *out, bool *is_error,
                            skit_error *err)
{
	const char *path = skit__str_arg(args, "path"), *why;
	struct skit__read_info ri;
	struct agent_skill *s;
	int rc;

	s = need_active(a, args, out, is_error, &rc);
	if (!s)
		return rc;
	if (!path)
		return skit__tool_error(out, is_error, "missing \"path\"");
	why = skit__check_rel_path(path);
	if (why)
		return skit__tool_error(out, is_error, "%.200s: %s", path, why);
	rc = skit__tool_read(a, s->dirfd, path, args, out, is_error, &ri, err);
	if (rc || !ri.read)
		return rc;
	skit__agent_audit(
	        a, "resource_read",
	        json_pack("{s:s, s:s, s:I, s:I, s:b, s:I, s:b}", "skill",
	                  s->name, "path", path, "offset", (json_int_t)ri.first,
	                  "bytes", (json_int_t)skitx_buf_len(out), "truncated",
	                  ri.truncated, "file_bytes", (json_int_t)ri.file_bytes,
	                  "hardlinked", ri.hardlinked));
	skit__agent_trace(a, SKIT_TRACE_TOOL, "read %s/%s (%zu bytes%s)",
	                  s->name, path, skitx_buf_len(out),
	                  ri.truncated ? ", truncated" : "");
	return 0;
}

static int do_search(struct skit_agent *a, json_t *args, struct skitx_buf *out,
                     bool *is_error, skit_error *err)
{
	const char *q = skit__str_arg(args, "query");
	skit_search_hit hits[SEARCH_HITS * 2];
	size_t n = 0, shown = 0;
	skit_error e = { 0 };
	int rc;

	if (!q || !*q)
		return skit__tool_error(out, is_error, "missing \"query\"");
	rc = skit_registry_search(a->reg, q, 0, hits, SKIT_ARRAY_SIZE(hits), &n,
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
	skit__agent_trace(a, SKIT_TRACE_TOOL,
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

static void plan_free(struct agent_step *steps, size_t n)
{
	for (size_t i = 0; i < n; i++)
		skitx_free(steps[i].text);
	skitx_free(steps);
}

static int do_plan(struct skit_agent *a, json_t *args, struct skitx_buf *out,
                   bool *is_error, skit_error *err)
{
	static const char *const names[] = { "pending", "in_progress",
		                             "completed" };
	json_t *steps = json_object_get(args, "steps"), *st, *ev, *list;
	struct agent_step *plan;
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
	plan_free(a->plan, a->nplan);
	a->plan = plan;
	a->nplan = n;
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
	skit__agent_audit(a, "plan_updated", ev);
	for (i = 0; i < n; i++)
		if (plan[i].status == SKIT_STEP_IN_PROGRESS)
			break;
	skit__agent_trace(a, SKIT_TRACE_PLAN, "plan: %zu step(s)%s%.80s", n,
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
static char **script_env(struct skit_agent *a, const char *skill_dir)
{
	const char *fixed[] = { "PATH=/usr/local/bin:/usr/bin:/bin",
		                "LANG=C.UTF-8", "TERM=dumb" };
	const char *names[] = { "HOME", "TMPDIR", "PROJECT_DIR", "SKILL_DIR" };
	const char *values[] = { a->workdir, a->workdir, a->project_dir,
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

static void strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		skitx_free(v[i]);
	skitx_free(v);
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
static char *call_cwd(struct skit_agent *a, json_t *args, struct skitx_buf *out,
                      bool *is_error, int *rc)
{
	json_t *v = json_object_get(args, "cwd");
	const char *rel, *why;
	int pfd, fd;
	char *dir;

	*rc = 0;
	if (!v || (json_is_string(v) && (!strcmp(json_string_value(v), ".") ||
	                                 !*json_string_value(v)))) {
		dir = skitx_strdup(a->project_dir);
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
	pfd = open(a->project_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
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
	dir = skitx_path_join(a->project_dir, rel);
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
static int confine(struct skit_agent *a, struct skit__run_opts *ro,
                   const char *const *readable, const char *skill,
                   const char *cwd)
{
	static const char *const none[] = { NULL };
	uint64_t left = a->task_disk_cap > a->task_disk_used
	                        ? a->task_disk_cap - a->task_disk_used
	                        : 0;

	memset(ro, 0, sizeof(*ro));
	if (a->sandbox_mode == SKIT_SANDBOX_WORKSPACE_WRITE) {
		a->writable[0] = a->project_dir;
		a->writable[1] = a->workdir;
	} else {
		a->writable[0] = a->workdir;
		a->writable[1] = NULL;
	}
	a->writable[2] = NULL;
	ro->cwd = cwd;
	ro->timeout_ms = a->script_timeout_ms;
	ro->output_cap = a->script_output_cap;
	ro->cancel = a->cancel;
	ro->confine = true;
	ro->read_paths = readable ? readable : none;
	ro->write_paths = a->writable;
	ro->protect_paths = (const char *const *)a->protect;
	ro->fs_full = a->sandbox_mode == SKIT_SANDBOX_FULL_ACCESS;
	ro->disk_cap = a->disk_cap < left ? a->disk_cap : left;
	ro->allow_network = skit_policy_network(
	        a->policy, skit__agent_policy_view(a), a->nactive, skill);
	/* Else HTTP(S) to the WebFetch domains, through the sandbox's
	 * proxy; freed by the caller after the run (web_domains_done). */
	if (!ro->allow_network) {
		char **d = NULL;

		if (!skit_policy_web_domains(&d, a->policy,
		                             skit__agent_policy_view(a),
		                             a->nactive, skill, NULL))
			ro->web_domains = (const char *const *)d;
	}
	return left ? 0 : SKIT_ELIMIT;
}

static void web_domains_done(struct skit__run_opts *ro)
{
	skit_policy_web_domains_free((char **)ro->web_domains);
	ro->web_domains = NULL;
}

/* The network a program run for `skill` (NULL: a shell call) will have,
 * in one line for the approval prompt. 0 or SKIT_ENOMEM. */
static int network_line(struct skit_agent *a, const char *skill,
                        struct skitx_buf *b)
{
	const skit_active_skill *view = skit__agent_policy_view(a);
	char **d = NULL;
	int rc = 0;

	if (skit_policy_network(a->policy, view, a->nactive, skill))
		return skitx_buf_puts(b, "on: the whole network (--network)");
	if (skit_policy_web_domains(&d, a->policy, view, a->nactive, skill,
	                            NULL))
		return SKIT_ENOMEM;
	if (!d)
		return skitx_buf_puts(b, "off");
	rc |= skitx_buf_puts(b, "HTTP and HTTPS to ");
	for (size_t i = 0, n = 0; d[i]; i++) {
		if (d[i][0] == '!')
			continue;
		rc |= skitx_buf_printf(b, "%s%s", n++ ? ", " : "",
		                       strcmp(d[i], "*") ? d[i] : "any host");
	}
	rc |= skitx_buf_puts(b, " only, through skit's proxy");
	skit_policy_web_domains_free(d);
	return rc ? SKIT_ENOMEM : 0;
}

/* Say once per layer, in one line and in the trail, what the sandbox
 * could not apply on this system. */
static void sandbox_warn(struct skit_agent *a,
                         const struct skit__run_result *res)
{
	unsigned int fresh = res->missing & ~a->sandbox_warned;
	struct skitx_buf b;
	json_t *names;

	if (!fresh)
		return;
	a->sandbox_warned |= fresh;
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
	skit__agent_trace(a, SKIT_TRACE_NOTE,
	                  "warning: sandbox layers unavailable here: %s "
	                  "(see skit doctor)",
	                  skitx_buf_cstr(&b));
	skit__agent_audit(a, "sandbox_warning",
	                  json_pack("{s:o?}", "missing", names));
	skitx_buf_release(&b);
}

/* The disk cap of one run as the user set it (for messages). */
static uint64_t ro_cap(const struct skit_agent *a)
{
	return a->disk_cap < a->task_disk_cap ? a->disk_cap : a->task_disk_cap;
}

/* Refuse a run once the task's disk cap is used up. */
static int disk_spent(struct skit_agent *a, struct skitx_buf *out,
                      bool *is_error)
{
	return skit__tool_error(out, is_error,
	                        "refused: this task's programs already added "
	                        "%llu MiB to the disk, its cap",
	                        (unsigned long long)(a->task_disk_cap >> 20));
}

/* Count one program run against the task's budget: 0 or SKIT_ELIMIT. */
static int charge_run(struct skit_agent *a, skit_error *err)
{
	if (a->task_scripts >= a->max_script_runs)
		return skit__error_set(err, SKIT_ELIMIT, 0,
		                       "script-run budget exhausted (%u runs); "
		                       "raise it with --max-script-runs",
		                       a->max_script_runs);
	a->task_scripts++;
	a->stats.script_runs++;
	return 0;
}

/* The result of a program run, as the model sees it; and the hashes of
 * what it printed, for the trail. 0 or SKIT_ENOMEM. */
static int put_run_result(struct skit_agent *a,
                          const struct skit__run_result *res,
                          struct skitx_buf *out, bool *is_error,
                          char outsum[65], char errsum[65])
{
	int rc = 0;

	sandbox_warn(a, res);
	skit__sha256_hex(skitx_buf_cstr(&res->out), skitx_buf_len(&res->out),
	                 outsum);
	skit__sha256_hex(skitx_buf_cstr(&res->err), skitx_buf_len(&res->err),
	                 errsum);
	skitx_buf_clear(out);
	*is_error = res->exit_code != 0;
	a->task_disk_used += res->disk_added;
	if (res->disk_capped) {
		*is_error = true;
		rc |= skitx_buf_printf(out,
		                       "stopped: the program added more than "
		                       "%llu MiB to the disk (the disk cap; "
		                       "sandbox.disk_cap in the user config "
		                       "raises it)\n",
		                       (unsigned long long)(ro_cap(a) >> 20));
	} else if (res->timed_out)
		rc |= skitx_buf_printf(out,
		                       "timed out after %ld ms; the program "
		                       "was stopped\n",
		                       a->script_timeout_ms);
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

static int do_run_script(struct skit_agent *a, json_t *args,
                         struct skitx_buf *out, bool *is_error, skit_error *err)
{
	const char *path = skit__str_arg(args, "path"), *why, *dir;
	json_t *jargs = json_object_get(args, "args"), *v, *ev;
	struct skit__run_opts ro;
	struct skit__run_result res;
	struct agent_skill *s;
	char outsum[65], errsum[65], *full = NULL, **argv = NULL, **env = NULL;
	char *cwd;
	const char *readable[3] = { NULL, NULL, NULL };
	struct stat st;
	size_t i, nargs;
	int fd, rc;

	s = need_active(a, args, out, is_error, &rc);
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
	cwd = call_cwd(a, args, out, is_error, &rc);
	if (!cwd)
		return rc == SKIT_ENOMEM ? skit__error_oom(err) : rc;
	rc = charge_run(a, err);
	if (rc) {
		skitx_free(cwd);
		return rc;
	}
	dir = skit_skill_dir(s->skill);
	full = skitx_malloc(strlen(dir) + strlen(path) + 2);
	argv = skitx_calloc(nargs + 2, sizeof(*argv));
	env = script_env(a, dir);
	if (!full || !argv || !env) {
		skitx_free(full);
		skitx_free(argv);
		strv_free(env);
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
	readable[1] = a->project_dir;
	if (confine(a, &ro, readable, s->name, cwd)) {
		web_domains_done(&ro);
		skitx_free(full);
		skitx_free(argv);
		strv_free(env);
		skitx_free(cwd);
		return disk_spent(a, out, is_error);
	}
	ro.path = full;
	ro.argv = argv;
	ro.envp = env;
	skit__agent_trace(a, SKIT_TRACE_TOOL, "run %s/%s%s", s->name, path,
	                  nargs ? " ..." : "");
	rc = skit__run(&res, &ro, err);
	web_domains_done(&ro);
	skitx_free(argv);
	strv_free(env);
	skitx_free(cwd);
	if (rc) {
		skitx_free(full);
		skit__run_result_release(&res);
		if (rc == SKIT_ENOMEM)
			return rc;
		return skit__tool_error(out, is_error, "%.200s: %s", path,
		                        err ? err->message : "cannot run");
	}
	skitx_free(full);
	rc = put_run_result(a, &res, out, is_error, outsum, errsum);
	ev = json_pack(
	        "{s:s, s:s, s:o?, s:i, s:i, s:b, s:I, s:s, s:s, s:I, "
	        "s:I, s:b, s:b, s:s, s:I, s:b}",
	        "skill", s->name, "path", path, "args",
	        jargs ? json_incref(jargs) : json_array(), "exit_code",
	        res.exit_code, "signal", res.signal, "timed_out", res.timed_out,
	        "duration_ms", (json_int_t)res.duration_ms, "stdout_sha256",
	        outsum, "stderr_sha256", errsum, "stdout_bytes",
	        (json_int_t)res.out_total, "stderr_bytes",
	        (json_int_t)res.err_total, "truncated",
	        res.out_total > skitx_buf_len(&res.out) ||
	                res.err_total > skitx_buf_len(&res.err),
	        "network", ro.allow_network, "sandbox",
	        skit_sandbox_mode_name(a->sandbox_mode), "disk_added",
	        (json_int_t)res.disk_added, "disk_capped", res.disk_capped);
	skit__agent_audit(a, "script_run", ev);
	skit__agent_trace(
	        a, SKIT_TRACE_TOOL, "%s/%s: %s %d (%ld ms)", s->name, path,
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

static int do_shell(struct skit_agent *a, json_t *args, struct skitx_buf *out,
                    bool *is_error, skit_error *err)
{
	const char *cmd = skit__str_arg(args, "command");
	const char *readable[2] = { a->project_dir, NULL };
	char *argv[4] = { "/bin/sh", "-c", NULL, NULL };
	char outsum[65], errsum[65], **env, *cwd;
	struct skit__run_opts ro;
	struct skit__run_result res;
	int rc;

	if (!cmd || !*cmd || strlen(cmd) > SHELL_MAX ||
	    strlen(cmd) != json_string_length(json_object_get(args, "command")))
		return skit__tool_error(out, is_error,
		                        "\"command\" must be a command line "
		                        "of 1 to %u bytes without NUL",
		                        SHELL_MAX);
	cwd = call_cwd(a, args, out, is_error, &rc);
	if (!cwd)
		return rc == SKIT_ENOMEM ? skit__error_oom(err) : rc;
	rc = charge_run(a, err);
	env = rc ? NULL : script_env(a, NULL);
	if (!env) {
		skitx_free(cwd);
		return rc ? rc : skit__error_oom(err);
	}
	argv[2] = (char *)cmd;
	if (confine(a, &ro, readable, NULL, cwd)) {
		web_domains_done(&ro);
		strv_free(env);
		skitx_free(cwd);
		return disk_spent(a, out, is_error);
	}
	ro.path = argv[0];
	ro.argv = argv;
	ro.envp = env;
	skit__agent_trace(a, SKIT_TRACE_TOOL, "shell: %.120s", cmd);
	rc = skit__run(&res, &ro, err);
	web_domains_done(&ro);
	strv_free(env);
	skitx_free(cwd);
	if (rc) {
		skit__run_result_release(&res);
		if (rc == SKIT_ENOMEM)
			return rc;
		return skit__tool_error(out, is_error, "cannot run: %s",
		                        err ? err->message : "error");
	}
	rc = put_run_result(a, &res, out, is_error, outsum, errsum);
	skit__agent_audit(
	        a, "shell_run",
	        json_pack("{s:s, s:i, s:i, s:b, s:I, s:s, s:s, s:I, s:I, "
	                  "s:b, s:s, s:I, s:b}",
	                  "command", cmd, "exit_code", res.exit_code, "signal",
	                  res.signal, "timed_out", res.timed_out, "duration_ms",
	                  (json_int_t)res.duration_ms, "stdout_sha256", outsum,
	                  "stderr_sha256", errsum, "stdout_bytes",
	                  (json_int_t)res.out_total, "stderr_bytes",
	                  (json_int_t)res.err_total, "network",
	                  ro.allow_network, "sandbox",
	                  skit_sandbox_mode_name(a->sandbox_mode), "disk_added",
	                  (json_int_t)res.disk_added, "disk_capped",
	                  res.disk_capped));
	skit__agent_trace(a, SKIT_TRACE_TOOL, "shell: %s %d (%ld ms)",
	                  res.signal ? "signal" : "exit",
	                  res.signal ? res.signal : res.exit_code,
	                  res.duration_ms);
	rc = rc ? skit__error_oom(err) : 0;
	if (!rc && res.canceled)
		rc = skit__error_set(err, SKIT_ECANCELED, 0, "canceled");
	skit__run_result_release(&res);
	return rc;
}

/* ---- the permission gate ---------------------------------------------- */

/* What the policy matches a call on: its command line, script or path. */
static int call_target(const char *name, json_t *args, struct skitx_buf *t)
{
	json_t *v;
	size_t i;
	int rc = 0;

	if (!strcmp(name, "shell"))
		return skitx_buf_puts(t,
		                      skit__str_arg(args, "command")
		                              ? skit__str_arg(args, "command")
		                              : "");
	if (!strcmp(name, "run_skill_script")) {
		const char *path = skit__str_arg(args, "path");

		rc |= skitx_buf_puts(t, path ? path : "");
		json_array_foreach(json_object_get(args, "args"), i, v)
		{
			if (json_is_string(v))
				rc |= skitx_buf_printf(t, " %s",
				                       json_string_value(v));
		}
		return rc;
	}
	v = json_object_get(args, "path");
	if (json_is_string(v))
		return skitx_buf_puts(t, json_string_value(v));
	return skitx_buf_puts(
	        t, strcmp(name, "list_dir") && strcmp(name, "grep") ? "" : ".");
}

/* The part of a call an "always" answer covers: the program of a command
 * line, the script, the path. */
static int memo_key(char *buf, size_t cap, const char *tool, const char *target)
{
	size_t n;

	if (strcmp(tool, "shell")) {
		n = strcspn(target, " ");
		if (!strcmp(tool, "run_skill_script") && n < cap) {
			memcpy(buf, target, n);
			buf[n] = '\0';
			return 0;
		}
		return snprintf(buf, cap, "%s", target) < (int)cap ? 0 : -1;
	}
	target += strspn(target, " \t");
	n = strcspn(target, " \t;&|()`$<>\n\r");
	if (!n || n >= cap || target[n + strcspn(target + n, ";&|()`$<>\n\r")])
		return -1; /* compound lines are asked about each time */
	if (!skit_policy_simple_command(target))
		return -1; /* and so are options that run other code */
	memcpy(buf, target, n);
	buf[n] = '\0';
	return 0;
}

static bool memo_find(struct skit_agent *a, const char *tool, const char *skill,
                      const char *key)
{
	for (size_t i = 0; i < a->nmemos; i++)
		if (!strcmp(a->memos[i].tool, tool) &&
		    !strcmp(a->memos[i].skill, skill ? skill : "") &&
		    !strcmp(a->memos[i].key, key))
			return true;
	return false;
}

static int memo_add(struct skit_agent *a, const char *tool, const char *skill,
                    const char *key)
{
	struct agent_memo *grown, *m;

	grown = skitx_realloc(a->memos, (a->nmemos + 1) * sizeof(*grown));
	if (!grown)
		return SKIT_ENOMEM;
	a->memos = grown;
	m = &a->memos[a->nmemos];
	m->tool = skitx_strdup(tool);
	m->skill = skitx_strdup(skill ? skill : "");
	m->key = skitx_strdup(key);
	if (!m->tool || !m->skill || !m->key) {
		skitx_free(m->tool);
		skitx_free(m->skill);
		skitx_free(m->key);
		return SKIT_ENOMEM;
	}
	a->nmemos++;
	return 0;
}

/*
 * The skill folder and digest set a saved "always" of a script of
 * `skill` is bound to; false when approvals are not saved or the skill
 * cannot be hashed (then "always" lasts the session).
 */
static bool saved_binding(struct skit_agent *a, const char *tool,
                          const char *skill, const char **dir, char digest[65])
{
	struct agent_skill *as;

	if (!a->saved_approvals || !skill || strcmp(tool, "run_skill_script"))
		return false;
	as = skit__agent_find_active(a, skill);
	if (!as || !skit_skill_dir(as->skill))
		return false;
	*dir = skit_skill_dir(as->skill);
	return skit__skill_digest_set(*dir, digest, NULL) == 0;
}

static void audit_approval(struct skit_agent *a, const char *tool,
                           const char *skill, json_t *args, const char *target,
                           const skit_decision *d, bool allowed, const char *by,
                           bool asked)
{
	static const char *const risks[] = { "read", "execute", "write",
		                             "network" };
	char *json = json_dumps(args, JSON_COMPACT | JSON_SORT_KEYS);

	skit__agent_audit(
	        a, "approval",
	        json_pack("{s:s, s:s?, s:s, s:s, s:s, s:s, s:s, s:s, s:b}",
	                  "tool", tool, "skill", skill, "arguments",
	                  json ? json : "", "target", target, "decision",
	                  allowed ? "allow" : "deny", "by", by, "risk",
	                  risks[d->risk], "reason", d->reason, "asked", asked));
	free(json);
}

/*
 * Decide a gated call: *go is set when it may run. A refusal becomes
 * the error result the model sees. Returns 0 or SKIT_ENOMEM.
 */
static int gate(struct skit_agent *a, const char *name, int mcp_ro,
                json_t *args, struct skitx_buf *out, bool *is_error, bool *go,
                skit_error *err)
{
	const skit_active_skill *view = skit__agent_policy_view(a);
	const char *skill = NULL, *by;
	char key[SKIT__TOOL_PATH_MAX + 1], always[SKIT__TOOL_PATH_MAX + 64];
	char flag[SKIT__TOOL_PATH_MAX + 64], *json = NULL, digest[65];
	const char *skill_dir = NULL;
	skit_approve_answer ans = SKIT_APPROVE_NO_ASK;
	skit_tool_request req;
	skit_approval ap;
	skit_decision d;
	struct skitx_buf t, net;
	bool has_key, bound = false;
	int rc;

	*go = false;
	skitx_buf_init(&net, 0);
	if (!strcmp(name, "run_skill_script"))
		skill = skit__str_arg(args, "skill");
	skitx_buf_init(&t, 0);
	if (call_target(name, args, &t)) {
		skitx_buf_release(&t);
		return skit__error_oom(err);
	}
	req.tool = name;
	req.target = skitx_buf_cstr(&t);
	req.skill = skill;
	if (mcp_ro >= 0)
		rc = skit_policy_check_mcp(a->policy, view, a->nactive, name,
		                           mcp_ro, &d, NULL);
	else
		rc = skit_policy_check(a->policy, view, a->nactive, &req, &d,
		                       NULL);
	if (rc) {
		rc = skit__tool_error(out, is_error, "unknown tool '%.64s'",
		                      name);
		goto done;
	}
	if (d.verdict != SKIT_POLICY_ASK) {
		*go = d.verdict == SKIT_POLICY_ALLOW;
		audit_approval(a, name, skill, args, req.target, &d, *go,
		               d.by_flag ? "flag" : "policy", false);
		if (!*go) {
			skit__agent_trace(a, SKIT_TRACE_TOOL, "%s refused: %s",
			                  name, d.reason);
			rc = skit__tool_error(out, is_error, "denied: %s",
			                      d.reason);
		}
		goto done;
	}
	has_key = !memo_key(key, sizeof(key), name, req.target);
	if (has_key && memo_find(a, name, skill, key)) {
		*go = true;
		audit_approval(a, name, skill, args, req.target, &d, true,
		               "user", false);
		goto done;
	}
	/* an "always" of an earlier run, for the skill's files as they are */
	bound = has_key && saved_binding(a, name, skill, &skill_dir, digest);
	if (bound && skit__approval_saved(skill_dir, key, digest)) {
		*go = true;
		skit__agent_trace(
		        a, SKIT_TRACE_TOOL,
		        "%s: approved earlier (saved, skill unchanged)", key);
		audit_approval(a, name, skill, args, req.target, &d, true,
		               "saved", false);
		goto done;
	}
	if (skit_policy_approving_flag(flag, sizeof(flag), a->policy, view,
	                               a->nactive, &req))
		flag[0] = '\0';
	if (!has_key)
		always[0] = '\0';
	else if (!strcmp(name, "shell"))
		snprintf(always, sizeof(always),
		         "shell commands starting with '%s'", key);
	else if (!strcmp(name, "run_skill_script"))
		snprintf(always, sizeof(always), "runs of %s's %s%s",
		         skill ? skill : "?", key,
		         bound ? ", saved until the skill changes" : "");
	else if (mcp_ro >= 0)
		snprintf(always, sizeof(always), "calls of %s", name);
	else
		snprintf(always, sizeof(always), "%s on %s", name, key);
	json = json_dumps(args, JSON_COMPACT | JSON_SORT_KEYS);
	ap.tool = name;
	ap.skill = skill;
	ap.arguments = json ? json : "{}";
	ap.target = req.target;
	ap.reason = d.reason;
	ap.risk = d.risk;
	ap.always = always;
	ap.approving_flag = flag;
	ap.network = NULL;
	if (!strcmp(name, "shell") || !strcmp(name, "run_skill_script")) {
		if (network_line(a, skill, &net)) {
			rc = skit__error_oom(err);
			goto done;
		}
		ap.network = skitx_buf_cstr(&net);
	}
	if (a->hooks.on_approve)
		ans = a->hooks.on_approve(&ap, a->hooks.payload);
	if (ans == SKIT_APPROVE_NO_ASK && a->hooks.on_refused)
		a->hooks.on_refused(&ap, a->hooks.payload);
	*go = ans == SKIT_APPROVE_YES || ans == SKIT_APPROVE_ALWAYS;
	by = ans == SKIT_APPROVE_NO_ASK ? "no-tty" : "user";
	audit_approval(a, name, skill, args, req.target, &d, *go, by,
	               ans != SKIT_APPROVE_NO_ASK);
	if (ans == SKIT_APPROVE_ALWAYS && has_key &&
	    memo_add(a, name, skill, key)) {
		rc = skit__error_oom(err);
		goto done;
	}
	if (ans == SKIT_APPROVE_ALWAYS && bound) {
		skit_error serr = { 0 };

		/* not saved: the session's "always" still holds */
		if (skit__approval_save(skill, skill_dir, key, digest, &serr) <
		    0)
			skit__agent_trace(a, SKIT_TRACE_NOTE,
			                  "approval not saved: %s",
			                  serr.message);
	}
	if (*go)
		goto done;
	skit__agent_trace(a, SKIT_TRACE_TOOL, "%s refused: %s", name,
	                  ans == SKIT_APPROVE_NO_ASK ? "no one to approve it"
	                                             : "declined by the user");
	if (ans != SKIT_APPROVE_NO_ASK)
		rc = skit__tool_error(out, is_error,
		                      "the user declined this call; do not "
		                      "retry it, ask the user or take another "
		                      "way");
	else if (flag[0])
		rc = skit__tool_error(out, is_error,
		                      "denied: this call needs the user's "
		                      "approval (%s) and there is no one to "
		                      "ask; the user can allow it by running "
		                      "again with %s",
		                      d.reason, flag);
	else
		rc = skit__tool_error(
		        out, is_error,
		        "denied: this call needs the user's "
		        "approval (%s) and there is no one to ask",
		        d.reason);
done:
	free(json);
	skitx_buf_release(&t);
	skitx_buf_release(&net);
	return rc;
}

int skit__tools_call(struct skit_agent *a, const char *name, json_t *args,
                     struct skitx_buf *out, bool *is_error, skit_error *err)
{
	static const struct {
		const char *name;
		int (*run)(struct skit_agent *, json_t *, struct skitx_buf *,
		           bool *, skit_error *);
	} gated_run[] = {
		{ "run_skill_script", do_run_script },
		{ "read_file", skit__tool_read_file },
		{ "list_dir", skit__tool_list_dir },
		{ "grep", skit__tool_grep },
		{ "write_file", skit__tool_write_file },
		{ "shell", do_shell },
	};
	bool go = false, mcp_ro = false;
	int rc;

	*is_error = false;
	skitx_buf_clear(out);
	if (!json_is_object(args))
		return skit__tool_error(out, is_error,
		                        "the arguments must be a JSON object");
	if (!strcmp(name, "use_skill"))
		return do_use_skill(a, args, out, is_error, err);
	if (!strcmp(name, "read_skill_resource"))
		return do_read_resource(a, args, out, is_error, err);
	if (!strcmp(name, "search_skills"))
		return do_search(a, args, out, is_error, err);
	if (!strcmp(name, "update_plan"))
		return do_plan(a, args, out, is_error, err);
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(gated_run); i++) {
		if (strcmp(name, gated_run[i].name))
			continue;
		if (!offered(a, name))
			return skit__tool_error(
			        out, is_error,
			        "tool '%s' is not available now%s", name,
			        strcmp(name, "run_skill_script")
			                ? ""
			                : ": call use_skill first");
		rc = gate(a, name, -1, args, out, is_error, &go, err);
		if (rc || !go)
			return rc;
		return gated_run[i].run(a, args, out, is_error, err);
	}
	if (skit__mcp_known(a->mcp, name, &mcp_ro)) {
		if (!skit_policy_offers_mcp(
		            a->policy, skit__agent_policy_view(a), a->nactive,
		            name, mcp_ro, a->hooks.on_approve != NULL))
			return skit__tool_error(
			        out, is_error, "tool '%s' is not available now",
			        name);
		rc = gate(a, name, mcp_ro, args, out, is_error, &go, err);
		if (rc || !go)
			return rc;
		return skit__mcp_call(a, name, args, out, is_error, err);
	}
	return skit__tool_error(out, is_error, "unknown tool '%.64s'", name);
}
