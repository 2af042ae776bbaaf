/* SPDX-License-Identifier: MIT */
/*
 * tools_fs.c - the project tools, one provider of tool_provider.h: the
 * file tools read_file, list_dir, grep, glob (read-only), write_file,
 * edit_file and multi_edit (all three atomic: a temporary file in the
 * same folder, fsync, then rename), and shell (run by tools.c, with the
 * skill scripts' sandbox). They are offered only when the run asks for
 * them (skit_agent_options.file_tools).
 *
 * They work inside the project folder only. Every path is opened beneath
 * the project's descriptor without following symbolic links
 * (skit__open_beneath), so neither `..`, an absolute path nor a link
 * planted in the tree can lead out of it, and there is no window between
 * a check and the use. The permission gate (agent_tools.c) has decided
 * that the call may run; this file only does it, with caps on what it
 * reads, walks and writes.
 */
#define _GNU_SOURCE /* memmem: before any header */
#include "common.h"

#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "skit/policy.h"

#include "lib/core/error.h"
#include "lib/tools/tool_provider.h"
#include "lib/tools/tools_int.h"
#include "lib/core/rx.h"
#include "util/fs.h"
#include "util/path.h"

#define LIST_MAX        500                /* entries shown by list_dir */
#define GREP_PATTERN    1024               /* bytes of a grep pattern */
#define GREP_HITS       200                /* matching lines reported */
#define GREP_FILES      20000              /* files looked at */
#define GREP_FILE_MAX   (4u * 1024 * 1024) /* larger files are skipped */
#define GREP_DEPTH      32
#define GREP_LINE_SHOWN 300 /* bytes of a matching line shown */
#define WRITE_MAX       (4u * 1024 * 1024)
#define GLOB_PATTERN    1024    /* bytes of a glob pattern */
#define GLOB_PARTS      64      /* its components, at most (one fewer) */
#define GLOB_SHOWN      200     /* paths listed */
#define GLOB_WALK       2000000 /* entries looked at */
#define GLOB_DEPTH      64
#define EDITS_MAX       100 /* edits of one multi_edit call */
#define HINT_LINES      3   /* closest lines shown for a miss */
#define HINT_SHOWN      200 /* bytes of such a line shown */
#define AMBIG_SHOWN     10  /* line numbers of an ambiguous match */

/* The project folder, opened once. -1 with an error result on failure. */
static int project_fd(struct skit__tool_ctx *c, struct skitx_buf *out,
                      bool *is_error, int *rc)
{
	*rc = 0;
	if (c->projfd < 0)
		c->projfd = open(c->project_dir,
		                 O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->projfd < 0)
		*rc = skit__tool_error(out, is_error,
		                       "the project folder %.200s cannot be "
		                       "opened: %s",
		                       c->project_dir, strerror(errno));
	return c->projfd;
}

/*
 * Whether the policy keeps `tool` away from `rel`, a path the tool walks
 * into on its own (a file grep searches, an entry list_dir shows). The
 * gate approved the call for the folder it named; a deny pattern on the
 * files of a subfolder must still hold for them, and so must a config
 * `ask`, since no one is asked about each file of a walk.
 */
static bool walk_refused(struct skit__tool_ctx *c, const char *tool,
                         const char *rel)
{
	skit_tool_request req;
	skit_decision d;

	req.tool = tool;
	req.target = rel;
	req.skill = NULL;
	if (skit_policy_check(c->policy, c->view, c->nactive, &req, &d, NULL))
		return true;
	return d.verdict != SKIT_POLICY_ALLOW;
}

/* `rel`/`name`, or `name` when `rel` is "." (NULL on out-of-memory). */
static char *child_path(const char *rel, const char *name)
{
	return strcmp(rel, ".") ? skitx_path_join(rel, name)
	                        : skitx_strdup(name);
}

/* The path argument `key`, checked; NULL with an error result. */
static const char *path_arg(json_t *args, const char *key, const char *dflt,
                            struct skitx_buf *out, bool *is_error, int *rc)
{
	const char *path = skit__str_arg(args, key), *why;

	*rc = 0;
	if (!path && json_object_get(args, key))
		*rc = skit__tool_error(out, is_error, "\"%s\" must be a string",
		                       key);
	else if (!path && !dflt)
		*rc = skit__tool_error(out, is_error, "missing \"%s\"", key);
	if (*rc || (!path && !dflt))
		return NULL;
	if (!path)
		return dflt;
	why = strcmp(path, ".") ? skit__check_rel_path(path) : NULL;
	if (why) {
		*rc = skit__tool_error(out, is_error, "%.200s: %s", path, why);
		return NULL;
	}
	return path;
}

/* ---- read_file -------------------------------------------------------- */

static int tool_read_file(struct skit__tool_ctx *c, json_t *args,
                          struct skitx_buf *out, bool *is_error,
                          skit_error *err)
{
	struct skit__read_info ri;
	const char *path;
	int fd, rc;

	path = path_arg(args, "path", NULL, out, is_error, &rc);
	if (!path)
		return rc;
	fd = project_fd(c, out, is_error, &rc);
	if (fd < 0)
		return rc;
	rc = skit__tool_read(c, fd, path, args, out, is_error, &ri, err);
	if (rc || !ri.read)
		return rc;
	skit__tool_audit(c, "file_read",
	                 json_pack("{s:s, s:I, s:I, s:b, s:I}", "path", path,
	                           "offset", (json_int_t)ri.first, "bytes",
	                           (json_int_t)skitx_buf_len(out), "truncated",
	                           ri.truncated, "file_bytes",
	                           (json_int_t)ri.file_bytes));
	skit__tool_trace(c, SKIT_TRACE_TOOL, "read_file %s (%zu bytes%s)", path,
	                 skitx_buf_len(out), ri.truncated ? ", truncated" : "");
	return 0;
}

/* ---- list_dir --------------------------------------------------------- */

struct entry {
	char *name;
	char kind; /* '/' folder, '@' link, ' ' file, '?' other */
	long long size;
};

static int entry_cmp(const void *x, const void *y)
{
	return strcmp(((const struct entry *)x)->name,
	              ((const struct entry *)y)->name);
}

static int tool_list_dir(struct skit__tool_ctx *c, json_t *args,
                         struct skitx_buf *out, bool *is_error, skit_error *err)
{
	struct entry *v = NULL;
	size_t n = 0, alloc = 0, more = 0, hidden = 0;
	struct dirent *de;
	char *child;
	bool refused;
	const char *path;
	DIR *d;
	int fd, dfd, rc;

	path = path_arg(args, "path", ".", out, is_error, &rc);
	if (!path)
		return rc;
	fd = project_fd(c, out, is_error, &rc);
	if (fd < 0)
		return rc;
	dfd = skit__open_beneath(fd, path, O_RDONLY | O_DIRECTORY);
	if (dfd < 0)
		return skit__tool_error(out, is_error, "%.200s: %s", path,
		                        errno == ENOTDIR
		                                ? "not a folder"
		                                : skit__open_failure(errno));
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return skit__tool_error(out, is_error, "%.200s: %s", path,
		                        strerror(errno));
	}
	rc = 0;
	while (!rc && (de = readdir(d))) {
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		child = child_path(path, de->d_name);
		if (!child) {
			rc = SKIT_ENOMEM;
			break;
		}
		refused = walk_refused(c, "list_dir", child);
		skitx_free(child);
		if (refused) {
			hidden++;
			continue;
		}
		if (n == LIST_MAX) {
			more++;
			continue;
		}
		if (n == alloc) {
			struct entry *g;

			alloc = alloc ? alloc * 2 : 64;
			g = skitx_realloc(v, alloc * sizeof(*v));
			if (!g) {
				rc = SKIT_ENOMEM;
				break;
			}
			v = g;
		}
		v[n].name = skitx_strdup(de->d_name);
		if (!v[n].name) {
			rc = SKIT_ENOMEM;
			break;
		}
		v[n].size = -1;
		v[n].kind = '?';
		if (!fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
			v[n].kind = S_ISDIR(st.st_mode)   ? '/'
			            : S_ISLNK(st.st_mode) ? '@'
			            : S_ISREG(st.st_mode) ? ' '
			                                  : '?';
			if (S_ISREG(st.st_mode))
				v[n].size = (long long)st.st_size;
		}
		n++;
	}
	closedir(d);
	if (!rc) {
		qsort(v, n, sizeof(*v), entry_cmp);
		skitx_buf_clear(out);
		rc |= skitx_buf_printf(out, "%s (%zu entr%s):\n", path,
		                       n + more, n + more == 1 ? "y" : "ies");
		for (size_t i = 0; i < n; i++) {
			rc |= skit__put_clean(out, v[i].name,
			                      strlen(v[i].name));
			if (v[i].kind == '/')
				rc |= skitx_buf_puts(out, "/\n");
			else if (v[i].kind == '@')
				rc |= skitx_buf_puts(out, " (symbolic link)\n");
			else if (v[i].size >= 0)
				rc |= skitx_buf_printf(out, "  %lld bytes\n",
				                       v[i].size);
			else
				rc |= skitx_buf_puts(out, " (special)\n");
		}
		if (more)
			rc |= skitx_buf_printf(
			        out, "[%zu more entries not shown]\n", more);
		if (hidden)
			rc |= skitx_buf_printf(out,
			                       "[%zu entr%s hidden by the "
			                       "permission rules]\n",
			                       hidden,
			                       hidden == 1 ? "y" : "ies");
	}
	for (size_t i = 0; i < n; i++)
		skitx_free(v[i].name);
	skitx_free(v);
	if (rc)
		return skit__error_oom(err);
	skit__tool_trace(c, SKIT_TRACE_TOOL, "list_dir %s (%zu entries)", path,
	                 n + more);
	return 0;
}

/* ---- grep ------------------------------------------------------------- */

struct grep {
	struct skit__tool_ctx *c;
	struct skit__rx *re;
	skit_error rx_err; /* why a match was stopped (a cost limit) */
	char *stopped_at;  /* "file:line" of that match, or NULL */
	const char *glob;  /* on the base name; NULL: every file */
	struct skitx_buf *out;
	size_t cap; /* bytes of `out` */
	size_t hits, files, skipped;
	size_t refused; /* files and folders the permission rules keep out */
	bool full;      /* a cap was reached */
	char line[GREP_LINE_SHOWN + 1];
};

/*
 * Does line `lineno` of `rel` match? A match stopped by a cost limit ends
 * the search (g->full) and is reported by name: 0 then, as for no match.
 */
static int grep_match(struct grep *g, const char *line, size_t len,
                      const char *rel, size_t lineno)
{
	struct skitx_buf where = SKITX_BUF_INIT;
	int m = skit__rx_match(g->re, line, len, NULL, &g->rx_err);

	if (m >= 0)
		return m;
	g->full = true;
	if (m == SKIT_ENOMEM || skit__put_clean(&where, rel, strlen(rel)) ||
	    skitx_buf_printf(&where, ":%zu", lineno)) {
		skitx_buf_release(&where);
		return SKIT_ENOMEM;
	}
	g->stopped_at = skitx_buf_detach(&where, NULL);
	return g->stopped_at ? 0 : SKIT_ENOMEM;
}

/* Search one file (open at `fd`, taken) shown as `rel`. */
static int grep_file(struct grep *g, int fd, const char *rel)
{
	struct skitx_buf data;
	const char *p, *e, *nl;
	size_t lineno = 0;
	char *copy = NULL;
	size_t copy_cap = 0;
	int rc;

	skitx_buf_init(&data, 0);
	rc = skitx_fs_read_fd(fd, &data, GREP_FILE_MAX);
	close(fd);
	if (rc == SKIT_ENOMEM)
		return rc;
	if (rc < 0 ||
	    memchr(skitx_buf_cstr(&data), '\0',
	           skitx_buf_len(&data) < 8192 ? skitx_buf_len(&data) : 8192)) {
		g->skipped++;
		skitx_buf_release(&data);
		return 0;
	}
	p = skitx_buf_cstr(&data);
	e = p + skitx_buf_len(&data);
	rc = 0;
	for (; !rc && p < e && !g->full; p = nl ? nl + 1 : e) {
		size_t len;

		nl = memchr(p, '\n', (size_t)(e - p));
		len = (size_t)((nl ? nl : e) - p);
		lineno++;
		if (len + 1 > copy_cap) {
			char *c = skitx_realloc(copy, len + 1);

			if (!c) {
				rc = SKIT_ENOMEM;
				break;
			}
			copy = c;
			copy_cap = len + 1;
		}
		memcpy(copy, p, len);
		copy[len] = '\0';
		rc = grep_match(g, copy, len, rel, lineno);
		if (rc <= 0)
			continue;
		rc = 0;
		if (g->hits == GREP_HITS || skitx_buf_len(g->out) > g->cap) {
			g->full = true;
			break;
		}
		g->hits++;
		rc |= skit__put_clean(g->out, rel, strlen(rel));
		rc |= skitx_buf_printf(g->out, ":%zu: ", lineno);
		rc |= skit__put_clean(g->out, copy,
		                      len > GREP_LINE_SHOWN ? GREP_LINE_SHOWN
		                                            : len);
		rc |= skitx_buf_puts(g->out,
		                     len > GREP_LINE_SHOWN ? " [...]\n" : "\n");
	}
	skitx_free(copy);
	skitx_buf_release(&data);
	return rc ? SKIT_ENOMEM : 0;
}

/* Walk the folder open at `fd` (taken), shown as `rel`. Hidden entries
 * (.git and the like) and symbolic links are not followed. */
static int grep_dir(struct grep *g, int fd, const char *rel, int depth)
{
	struct dirent *de;
	DIR *d = fdopendir(fd);
	int rc = 0;

	if (!d) {
		close(fd);
		g->skipped++;
		return 0;
	}
	while (!rc && !g->full && (de = readdir(d))) {
		struct stat st;
		char *child;
		int cfd;

		if (de->d_name[0] == '.')
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
			continue;
		if (S_ISREG(st.st_mode) &&
		    ((g->glob && fnmatch(g->glob, de->d_name, 0)) ||
		     st.st_size > GREP_FILE_MAX)) {
			g->skipped += st.st_size > GREP_FILE_MAX;
			continue;
		}
		if (S_ISDIR(st.st_mode) && depth >= GREP_DEPTH)
			continue;
		if (S_ISREG(st.st_mode) && ++g->files > GREP_FILES) {
			g->full = true;
			break;
		}
		child = child_path(rel, de->d_name);
		if (!child) {
			rc = SKIT_ENOMEM;
			break;
		}
		if (walk_refused(g->c, "grep", child)) {
			g->refused++;
			skitx_free(child);
			continue;
		}
		cfd = openat(dirfd(d), de->d_name,
		             (S_ISDIR(st.st_mode) ? O_DIRECTORY : O_NONBLOCK) |
		                     O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (cfd < 0)
			g->skipped++;
		else if (S_ISDIR(st.st_mode))
			rc = grep_dir(g, cfd, child, depth + 1);
		else
			rc = grep_file(g, cfd, child);
		skitx_free(child);
	}
	closedir(d);
	return rc;
}

static int tool_grep(struct skit__tool_ctx *c, json_t *args,
                     struct skitx_buf *out, bool *is_error, skit_error *err)
{
	const char *pattern = skit__str_arg(args, "pattern"), *path;
	json_t *icase = json_object_get(args, "ignore_case");
	struct grep *g;
	struct stat st;
	skit_error rx_err = { 0 };
	int fd, start, rc;

	if (!pattern || !*pattern || strlen(pattern) > GREP_PATTERN)
		return skit__tool_error(out, is_error,
		                        "\"pattern\" must be a regular "
		                        "expression of 1 to %d bytes",
		                        GREP_PATTERN);
	if (icase && !json_is_boolean(icase))
		return skit__tool_error(out, is_error,
		                        "\"ignore_case\" must be a boolean");
	path = path_arg(args, "path", ".", out, is_error, &rc);
	if (!path)
		return rc;
	fd = project_fd(c, out, is_error, &rc);
	if (fd < 0)
		return rc;
	g = skitx_calloc(1, sizeof(*g));
	if (!g)
		return skit__error_oom(err);
	rc = skit__rx_new(&g->re, pattern,
	                  json_is_true(icase) ? SKIT__RX_ICASE : 0, &rx_err);
	if (rc) {
		skitx_free(g);
		if (rc == SKIT_ENOMEM)
			return skit__error_oom(err);
		return skit__tool_error(
		        out, is_error, "%s regular expression: %s",
		        rc == SKIT_ETOOBIG ? "refused" : "bad", rx_err.message);
	}
	g->c = c;
	g->glob = skit__str_arg(args, "glob");
	g->out = out;
	g->cap = c->resource_cap;
	skitx_buf_clear(out);
	start = skit__open_beneath(fd, path, O_RDONLY | O_NONBLOCK);
	if (start < 0 || fstat(start, &st) < 0 ||
	    (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))) {
		rc = skit__tool_error(out, is_error, "%.200s: %s", path,
		                      start < 0 ? skit__open_failure(errno)
		                                : "not a file or a folder");
		if (start >= 0)
			close(start);
		skit__rx_free(g->re);
		skitx_free(g);
		return rc;
	}
	rc = S_ISDIR(st.st_mode) ? grep_dir(g, start, path, 0)
	                         : grep_file(g, start, path);
	if (!rc && g->stopped_at)
		rc = skit__tool_error(out, is_error, "grep stopped at %s: %s",
		                      g->stopped_at, g->rx_err.message);
	else if (!rc && !g->hits)
		rc = skitx_buf_puts(out, "No line matches.");
	else if (!rc && g->full)
		rc = skitx_buf_printf(out, "[stopped: more matches not shown; "
		                           "narrow the pattern or the path]");
	if (!rc && g->refused)
		rc = skitx_buf_printf(out,
		                      "%s[%zu file(s) or folder(s) not "
		                      "searched: the permission rules keep "
		                      "them out]",
		                      skitx_buf_len(out) ? "\n" : "",
		                      g->refused);
	skit__tool_trace(c, SKIT_TRACE_TOOL, "grep \"%.60s\" in %s: %zu hit(s)",
	                 pattern, path, g->hits);
	skit__rx_free(g->re);
	skitx_free(g->stopped_at);
	skitx_free(g);
	return rc ? skit__error_oom(err) : 0;
}

/* ---- glob ------------------------------------------------------------- */

/* A file that matched, kept while it is among the newest GLOB_SHOWN. */
struct glob_hit {
	char *path;
	struct timespec mtime;
};

/*
 * The walk. The pattern is split into components; a set of positions in
 * it (bit i: component i is next to match; bit n: the whole pattern
 * matched) is carried down the folders, so each entry costs one
 * fnmatch(3) per live position and a folder no position can enter is
 * not opened. The newest GLOB_SHOWN matches are kept in a heap whose top
 * is the oldest of them.
 */
struct globw {
	struct skit__tool_ctx *c;
	char *parts[GLOB_PARTS];
	size_t nparts;
	uint64_t star2; /* bit i: component i is "**" */
	struct glob_hit heap[GLOB_SHOWN];
	size_t nheap;
	size_t matched, hidden, walked;
	bool full, deep;
	char path[SKIT__TOOL_PATH_MAX + 2];
	size_t plen;
};

/* Whether `a` is listed before `b`: newer, or as new and first by name. */
static bool hit_before(const struct timespec *ta, const char *pa,
                       const struct timespec *tb, const char *pb)
{
	if (ta->tv_sec != tb->tv_sec)
		return ta->tv_sec > tb->tv_sec;
	if (ta->tv_nsec != tb->tv_nsec)
		return ta->tv_nsec > tb->tv_nsec;
	return strcmp(pa, pb) < 0;
}

static bool heap_less(const struct glob_hit *h, size_t i, size_t j)
{
	/* the top is the hit listed last */
	return hit_before(&h[j].mtime, h[j].path, &h[i].mtime, h[i].path);
}

static void heap_down(struct glob_hit *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		struct glob_hit t;

		if (l < n && heap_less(h, l, m))
			m = l;
		if (r < n && heap_less(h, r, m))
			m = r;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static void heap_up(struct glob_hit *h, size_t i)
{
	while (i && heap_less(h, i, (i - 1) / 2)) {
		struct glob_hit t = h[i];

		h[i] = h[(i - 1) / 2];
		h[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

/* Keep the file at g->path (modified at `t`) if it is among the newest. */
static int glob_keep(struct globw *g, const struct timespec *t)
{
	char *copy;

	g->matched++;
	if (g->nheap == GLOB_SHOWN &&
	    !hit_before(t, g->path, &g->heap[0].mtime, g->heap[0].path))
		return 0;
	copy = skitx_strdup(g->path);
	if (!copy)
		return SKIT_ENOMEM;
	if (g->nheap < GLOB_SHOWN) {
		g->heap[g->nheap].path = copy;
		g->heap[g->nheap].mtime = *t;
		heap_up(g->heap, g->nheap++);
		return 0;
	}
	skitx_free(g->heap[0].path);
	g->heap[0].path = copy;
	g->heap[0].mtime = *t;
	heap_down(g->heap, g->nheap, 0);
	return 0;
}

/* The positions `s` can be at once each "**" has matched no folder. */
static uint64_t glob_eps(const struct globw *g, uint64_t s)
{
	for (size_t i = 0; i < g->nparts; i++)
		if ((s >> i & 1) && (g->star2 >> i & 1))
			s |= (uint64_t)1 << (i + 1);
	return s;
}

/*
 * The positions after matching `name` from `s`. "**" and "*" do not match
 * a name starting with a dot, as in the shell (FNM_PERIOD): a component
 * that starts with a dot names such entries.
 */
static uint64_t glob_step(const struct globw *g, uint64_t s, const char *name)
{
	uint64_t t = 0;

	s = glob_eps(g, s);
	for (size_t i = 0; i < g->nparts; i++) {
		if (!(s >> i & 1))
			continue;
		if (g->star2 >> i & 1) {
			if (name[0] != '.')
				t |= (uint64_t)1 << i;
		} else if (!fnmatch(g->parts[i], name, FNM_PERIOD)) {
			t |= (uint64_t)1 << (i + 1);
		}
	}
	return t;
}

/* Walk the folder open at `fd` (taken), at positions `s`. g->path is its
 * path from the project, ending in "/" (or empty for the project). */
static int glob_dir(struct globw *g, int fd, uint64_t s, int depth)
{
	uint64_t done = (uint64_t)1 << g->nparts;
	struct dirent *de;
	DIR *d = fdopendir(fd);
	size_t plen = g->plen;
	int rc = 0;

	if (!d) {
		close(fd);
		return 0;
	}
	while (!rc && !g->full && (de = readdir(d))) {
		const char *name = de->d_name;
		size_t nl = strlen(name);
		unsigned char type = de->d_type;
		uint64_t t, te;
		struct stat st;
		int cfd;

		if (!strcmp(name, ".") || !strcmp(name, "..") ||
		    !strcmp(name, ".git"))
			continue;
		if (++g->walked > GLOB_WALK) {
			g->full = true;
			break;
		}
		t = glob_step(g, s, name);
		if (!t)
			continue;
		te = glob_eps(g, t);
		if (type == DT_UNKNOWN) {
			if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW))
				continue;
			type = S_ISDIR(st.st_mode)   ? DT_DIR
			       : S_ISREG(st.st_mode) ? DT_REG
			                             : DT_UNKNOWN;
		}
		/* Links are neither followed nor listed: no file tool opens
		 * a path through one. */
		if (type != DT_DIR && type != DT_REG)
			continue;
		if (type == DT_REG && !(te & done))
			continue;
		if (type == DT_DIR && !(te & (done - 1)))
			continue;
		if (plen + nl + 1 >= sizeof(g->path))
			continue;
		memcpy(g->path + plen, name, nl + 1);
		if (walk_refused(g->c, "glob", g->path)) {
			g->hidden++;
			continue;
		}
		if (type == DT_REG) {
			if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) ||
			    !S_ISREG(st.st_mode))
				continue;
			rc = glob_keep(g, &st.st_mtim);
			continue;
		}
		if (depth >= GLOB_DEPTH) {
			g->deep = true;
			continue;
		}
		cfd = openat(dirfd(d), name,
		             O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (cfd < 0)
			continue;
		g->path[plen + nl] = '/';
		g->path[plen + nl + 1] = '\0';
		g->plen = plen + nl + 1;
		rc = glob_dir(g, cfd, t, depth + 1);
		g->plen = plen;
	}
	g->path[plen] = '\0';
	closedir(d);
	return rc;
}

/* Split `pattern` into g->parts (in `copy`, taken by the caller):
 * "." and empty components go; "/" in front and ".." are refused.
 * NULL, or why not. */
static const char *glob_split(struct globw *g, char *copy)
{
	char *c = copy;

	if (*c == '/')
		return "an absolute pattern is refused (patterns are "
		       "relative to \"path\")";
	while (*c) {
		size_t n = strcspn(c, "/");
		bool end = !c[n];

		c[n] = '\0';
		if (!strcmp(c, ".."))
			return "'..' is refused";
		if (n && strcmp(c, ".")) {
			if (g->nparts == GLOB_PARTS - 1)
				return "too many components";
			if (!strcmp(c, "**")) {
				/* "**" twice in a row is "**" once */
				if (g->nparts &&
				    g->star2 >> (g->nparts - 1) & 1)
					goto next;
				g->star2 |= (uint64_t)1 << g->nparts;
			}
			g->parts[g->nparts++] = c;
		}
	next:
		c += n + !end;
	}
	return g->nparts ? NULL : "empty pattern";
}

static int hit_cmp(const void *x, const void *y)
{
	const struct glob_hit *a = x, *b = y;

	return hit_before(&a->mtime, a->path, &b->mtime, b->path) ? -1 : 1;
}

static int tool_glob(struct skit__tool_ctx *c, json_t *args,
                     struct skitx_buf *out, bool *is_error, skit_error *err)
{
	const char *pattern = skit__str_arg(args, "pattern"), *path, *why;
	struct globw *g;
	char *copy;
	int fd, start, rc;

	if (!pattern || !*pattern || strlen(pattern) > GLOB_PATTERN)
		return skit__tool_error(out, is_error,
		                        "\"pattern\" must be a glob of 1 to %d "
		                        "bytes",
		                        GLOB_PATTERN);
	path = path_arg(args, "path", ".", out, is_error, &rc);
	if (!path)
		return rc;
	fd = project_fd(c, out, is_error, &rc);
	if (fd < 0)
		return rc;
	g = skitx_calloc(1, sizeof(*g));
	copy = skitx_strdup(pattern);
	if (!g || !copy) {
		skitx_free(g);
		skitx_free(copy);
		return skit__error_oom(err);
	}
	g->c = c;
	why = glob_split(g, copy);
	if (why) {
		rc = skit__tool_error(out, is_error, "pattern %.200s: %s",
		                      pattern, why);
		goto done;
	}
	start = skit__open_beneath(fd, path, O_RDONLY | O_DIRECTORY);
	if (start < 0) {
		rc = skit__tool_error(out, is_error, "%.200s: %s", path,
		                      errno == ENOTDIR
		                              ? "not a folder"
		                              : skit__open_failure(errno));
		goto done;
	}
	if (strlen(path) + 2 >= sizeof(g->path)) {
		close(start);
		rc = skit__tool_error(out, is_error, "path too long");
		goto done;
	}
	if (strcmp(path, ".")) {
		/* the paths shown start from the project: read_file takes
		 * them as they are */
		g->plen =
		        (size_t)snprintf(g->path, sizeof(g->path), "%s", path);
		while (g->plen > 1 && g->path[g->plen - 1] == '/')
			g->plen--;
		g->path[g->plen++] = '/';
		g->path[g->plen] = '\0';
	}
	rc = glob_dir(g, start, 1, 0);
	if (rc)
		goto done;
	qsort(g->heap, g->nheap, sizeof(g->heap[0]), hit_cmp);
	skitx_buf_clear(out);
	if (!g->matched)
		rc |= skitx_buf_puts(out, "No file matches.\n");
	else
		rc |= skitx_buf_printf(out,
		                       "%zu file%s match%s, newest first:\n",
		                       g->matched, g->matched == 1 ? "" : "s",
		                       g->matched == 1 ? "es" : "");
	for (size_t i = 0; i < g->nheap; i++) {
		rc |= skit__put_clean(out, g->heap[i].path,
		                      strlen(g->heap[i].path));
		rc |= skitx_buf_putc(out, '\n');
	}
	if (g->matched > g->nheap)
		rc |= skitx_buf_printf(
		        out,
		        "[%zu more not shown; narrow the pattern "
		        "or the path]\n",
		        g->matched - g->nheap);
	if (g->full)
		rc |= skitx_buf_printf(out,
		                       "[stopped after %d entries; narrow the "
		                       "pattern or the path]\n",
		                       GLOB_WALK);
	if (g->deep)
		rc |= skitx_buf_printf(out,
		                       "[folders deeper than %d levels not "
		                       "searched]\n",
		                       GLOB_DEPTH);
	if (g->hidden)
		rc |= skitx_buf_printf(out,
		                       "[%zu entr%s hidden by the permission "
		                       "rules]\n",
		                       g->hidden, g->hidden == 1 ? "y" : "ies");
	rc = rc ? skit__error_oom(err) : 0;
	skit__tool_trace(c, SKIT_TRACE_TOOL,
	                 "glob \"%.60s\" in %s: %zu file(s)", pattern, path,
	                 g->matched);
done:
	if (rc == SKIT_ENOMEM)
		rc = skit__error_oom(err);
	for (size_t i = 0; i < g->nheap; i++)
		skitx_free(g->heap[i].path);
	skitx_free(g);
	skitx_free(copy);
	return rc;
}

/* ---- writing: what write_file, edit_file and multi_edit share --------- */

/*
 * Open the folders of `path` but its last component beneath `root`,
 * creating them when `create` (write_file) and never otherwise (an edit
 * needs the file to be there). Returns a folder descriptor and points
 * *base at the last component, or -1 with errno set.
 */
static int open_parent(int root, char *path, const char **base, bool create)
{
	char *slash = strrchr(path, '/'), *c = path;
	int fd, next;

	*base = slash ? slash + 1 : path;
	fd = dup(root);
	if (!slash || fd < 0)
		return fd;
	*slash = '\0';
	while (*c && fd >= 0) {
		size_t n = strcspn(c, "/");
		char save = c[n];

		c[n] = '\0';
		if (n && strcmp(c, ".")) {
			if (create && mkdirat(fd, c, 0755) < 0 &&
			    errno != EEXIST) {
				close(fd);
				return -1;
			}
			next = openat(fd, c,
			              O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			                      O_CLOEXEC);
			close(fd);
			fd = next;
		}
		c[n] = save;
		c += n;
		while (*c == '/')
			c++;
	}
	*slash = '/';
	return fd;
}

/*
 * The refusal of a write to a protected path: an error the model sees,
 * an audit event and a trace line. Not a question for the user: no
 * --allow pattern opens these paths (only the full-access mode does).
 */
static int protected_error(struct skit__tool_ctx *c, const char *tool,
                           const char *path, const char *why,
                           struct skitx_buf *out, bool *is_error)
{
	skit__tool_audit(c, "file_write_refused",
	                 json_pack("{s:s, s:s, s:s}", "path", path, "protected",
	                           why, "tool", tool));
	skit__tool_trace(c, SKIT_TRACE_TOOL,
	                 "%s %.200s refused: protected (%s)", tool, path, why);
	return skit__tool_error(out, is_error,
	                        "%.200s: protected path (%.200s); %s never "
	                        "writes it",
	                        path, why, tool);
}

/* A file a tool is about to replace: its folder, open beneath the
 * project, and its last component there. */
struct wtarget {
	int dfd;          /* -1 when refused */
	const char *base; /* into `copy` */
	char *copy;       /* the path, split in place by open_parent() */
	bool existed;
	struct stat st; /* when it existed (not following a link) */
};

static void target_close(struct wtarget *w)
{
	if (w->dfd >= 0)
		close(w->dfd);
	skitx_free(w->copy);
	w->dfd = -1;
	w->copy = NULL;
}

/*
 * Every check a writing tool makes before it touches the tree: the
 * sandbox mode (read-only writes nothing; only full-access, the user's
 * own choice, may write the protected paths), the protected paths by name
 * and, once the folder is open, by identity, and that the target is not a
 * link or anything but a regular file. 0 with w->dfd open when the write
 * may go on; 0 with an error result and w->dfd -1 when refused;
 * SKIT_ENOMEM.
 */
static int target_open(struct skit__tool_ctx *c, const char *tool,
                       const char *path, bool create, struct wtarget *w,
                       struct skitx_buf *out, bool *is_error, skit_error *err)
{
	char why[256];
	bool full;
	int root, rc;

	memset(w, 0, sizeof(*w));
	w->dfd = -1;
	if (c->sandbox_mode == SKIT_SANDBOX_READ_ONLY)
		return skit__tool_error(out, is_error,
		                        "%.200s: the sandbox is read-only "
		                        "(--sandbox read-only); nothing is "
		                        "written",
		                        path);
	full = c->sandbox_mode == SKIT_SANDBOX_FULL_ACCESS;
	if (!full &&
	    c->host->protected_rel(c->host_self, path, why, sizeof(why)))
		return protected_error(c, tool, path, why, out, is_error);
	root = project_fd(c, out, is_error, &rc);
	if (root < 0)
		return rc;
	w->copy = skitx_strdup(path);
	if (!w->copy)
		return skit__error_oom(err);
	w->dfd = open_parent(root, w->copy, &w->base, create);
	if (w->dfd < 0) {
		rc = skit__tool_error(out, is_error, "%.200s: %s", path,
		                      skit__open_failure(errno));
		target_close(w);
		return rc;
	}
	if (!full && c->host->protected_at(c->host_self, w->dfd, w->base, why,
	                                   sizeof(why))) {
		rc = protected_error(c, tool, path, why, out, is_error);
		goto refused;
	}
	w->existed = !fstatat(w->dfd, w->base, &w->st, AT_SYMLINK_NOFOLLOW);
	if (w->existed && !S_ISREG(w->st.st_mode)) {
		rc = skit__tool_error(out, is_error,
		                      "%.200s exists and is not a regular "
		                      "file; refused",
		                      path);
		goto refused;
	}
	return 0;
refused:
	target_close(w);
	return rc;
}

/* Whether the file at the target is still the one `st` describes. */
static bool target_same(const struct wtarget *w, const struct stat *st)
{
	struct stat now;

	return !fstatat(w->dfd, w->base, &now, AT_SYMLINK_NOFOLLOW) &&
	       now.st_dev == st->st_dev && now.st_ino == st->st_ino &&
	       now.st_size == st->st_size &&
	       now.st_mtim.tv_sec == st->st_mtim.tv_sec &&
	       now.st_mtim.tv_nsec == st->st_mtim.tv_nsec;
}

/*
 * Replace the target with `len` bytes at `content`, atomically: a
 * temporary file beside it (never through a link), fsync, rename over
 * it, then fsync the folder. The mode of a file that existed is kept.
 * When `expect` is not NULL the file must still be the one it describes
 * just before the rename (an edit read it; a change since would be
 * lost). 0; an errno value; or -1 when the file changed.
 */
static int target_replace(struct wtarget *w, const char *content, size_t len,
                          const struct stat *expect)
{
	mode_t mode = w->existed ? w->st.st_mode & 0777 : 0644;
	char tmp[300];
	int fd = -1, e = 0;

	for (unsigned int i = 0; fd < 0 && i < 16; i++) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		snprintf(tmp, sizeof(tmp), ".%.200s.skit-%ld-%lx", w->base,
		         (long)getpid(), (unsigned long)ts.tv_nsec ^ i);
		fd = openat(w->dfd, tmp,
		            O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		                    O_CLOEXEC,
		            mode);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0)
		return errno ? errno : EEXIST;
	for (size_t at = 0; !e && at < len;) {
		ssize_t n = write(fd, content + at, len - at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			e = n < 0 ? errno : EIO;
		else
			at += (size_t)n;
	}
	if (!e && (fchmod(fd, mode) < 0 || fsync(fd) < 0))
		e = errno;
	if (close(fd) < 0 && !e)
		e = errno;
	if (!e && expect && !target_same(w, expect))
		e = -1;
	if (!e && renameat(w->dfd, tmp, w->dfd, w->base) < 0)
		e = errno;
	if (e) {
		unlinkat(w->dfd, tmp, 0);
		return e;
	}
	fsync(w->dfd);
	return 0;
}

/* The path argument of a writing tool: a file, not the project. */
static const char *file_path_arg(json_t *args, struct skitx_buf *out,
                                 bool *is_error, int *rc)
{
	const char *path = path_arg(args, "path", NULL, out, is_error, rc);

	if (path && (!strcmp(path, ".") || path[strlen(path) - 1] == '/')) {
		*rc = skit__tool_error(out, is_error, "%.200s: not a file path",
		                       path);
		return NULL;
	}
	return path;
}

/* ---- write_file ------------------------------------------------------- */

static int tool_write_file(struct skit__tool_ctx *c, json_t *args,
                           struct skitx_buf *out, bool *is_error,
                           skit_error *err)
{
	json_t *jcontent = json_object_get(args, "content");
	const char *path, *content;
	char hex[65];
	struct wtarget w;
	size_t len;
	int rc, e;

	path = file_path_arg(args, out, is_error, &rc);
	if (!path)
		return rc;
	if (!json_is_string(jcontent))
		return skit__tool_error(out, is_error,
		                        "\"content\" must be a string");
	content = json_string_value(jcontent);
	len = json_string_length(jcontent);
	if (len > WRITE_MAX)
		return skit__tool_error(out, is_error,
		                        "content is %zu bytes; at most %u can "
		                        "be written at once",
		                        len, WRITE_MAX);
	rc = target_open(c, "write_file", path, true, &w, out, is_error, err);
	if (rc || w.dfd < 0)
		return rc;
	e = target_replace(&w, content, len, NULL);
	if (e) {
		rc = skit__tool_error(out, is_error, "%.200s: %s", path,
		                      strerror(e));
		goto done;
	}
	skit__sha256_hex(content, len, hex);
	skit__tool_audit(c, "file_written",
	                 json_pack("{s:s, s:I, s:s, s:b}", "path", path,
	                           "bytes", (json_int_t)len, "sha256", hex,
	                           "created", !w.existed));
	skit__tool_trace(c, SKIT_TRACE_TOOL, "write_file %s (%zu bytes)", path,
	                 len);
	skitx_buf_clear(out);
	rc = skitx_buf_printf(out, "%s %.200s (%zu bytes).",
	                      w.existed ? "Replaced" : "Created", path, len)
	             ? skit__error_oom(err)
	             : 0;
done:
	target_close(&w);
	return rc;
}

/* ---- edit_file and multi_edit ----------------------------------------- */

/* The 1-based line of byte `off` of `text`, counting on from `line` at
 * byte `from` (callers move forward, so the count stays linear). */
static size_t line_at(const char *text, size_t from, size_t off, size_t line)
{
	const char *p = text + from, *e = text + off, *nl;

	while (p < e && (nl = memchr(p, '\n', (size_t)(e - p)))) {
		line++;
		p = nl + 1;
	}
	return line;
}

/* `s` (`*n` bytes) without leading blanks nor trailing blanks and CR. */
static const char *trim_blanks(const char *s, size_t *n)
{
	while (*n && (*s == ' ' || *s == '\t')) {
		s++;
		(*n)--;
	}
	while (*n &&
	       (s[*n - 1] == ' ' || s[*n - 1] == '\t' || s[*n - 1] == '\r'))
		(*n)--;
	return s;
}

/* The line at `p` (up to `e`): its length, and *next after it. */
static size_t line_span(const char *p, const char *e, const char **next)
{
	const char *nl = memchr(p, '\n', (size_t)(e - p));

	*next = nl ? nl + 1 : e;
	return (size_t)((nl ? nl : e) - p);
}

/* A line of the file that comes close to old_string's first line. */
struct near {
	size_t line, score;
	const char *text;
	size_t len;
};

/* Keep `cand` among the best HINT_LINES of `v` (highest score first;
 * the earlier line wins a tie). */
static void near_keep(struct near *v, const struct near *cand)
{
	size_t i = HINT_LINES;

	if (!cand->score || cand->score <= v[HINT_LINES - 1].score)
		return;
	while (i > 0 && v[i - 1].score < cand->score) {
		if (i < HINT_LINES)
			v[i] = v[i - 1];
		i--;
	}
	v[i] = *cand;
}

/* Append line `n` of the file for the model: "  line N: TEXT". */
static int put_line(struct skitx_buf *m, const struct near *n)
{
	int rc = skitx_buf_printf(m, "\n  line %zu: ", n->line);

	rc |= skit__put_clean(m, n->text,
	                      n->len > HINT_SHOWN ? HINT_SHOWN : n->len);
	if (n->len > HINT_SHOWN)
		rc |= skitx_buf_puts(m, " [...]");
	return rc ? SKIT_ENOMEM : 0;
}

/*
 * How many lines of `old` from its line `first` (at `o`) match the file's
 * lines from `p` on, blanks at either end aside.
 */
static size_t lines_alike(const char *o, const char *oe, const char *p,
                          const char *e)
{
	size_t k = 0;

	while (o < oe && p < e) {
		const char *on, *pn, *a, *b;
		size_t al = line_span(o, oe, &on), bl = line_span(p, e, &pn);

		a = trim_blanks(o, &al);
		b = trim_blanks(p, &bl);
		if (al != bl || memcmp(a, b, al))
			break;
		k++;
		o = on;
		p = pn;
	}
	return k;
}

/*
 * Explain a miss: where old_string's first non-blank line comes closest
 * in `text`. Lines are ranked by the bytes they share at the start with
 * that line, blanks at either end aside (so a difference of indentation
 * or of a word shows at once); when no line starts alike, by the bytes
 * they share at all (counted per byte value). A line that matches in
 * full leads to the question of how far the following lines match too.
 */
static int miss_hint(struct skitx_buf *m, const char *text, size_t len,
                     const char *old_s, size_t old_len)
{
	struct near pre[HINT_LINES] = { { 0 } }, bag[HINT_LINES] = { { 0 } };
	const char *o = old_s, *oe = old_s + old_len, *f = NULL, *p, *e, *next,
	           *fstart = NULL;
	size_t fl = 0, line = 0, best_run = 0, best_at = 0, olines = 0;
	unsigned int want[256] = { 0 }, have[256];
	int rc = 0;

	for (; o < oe && !f; o = next) {
		size_t n = line_span(o, oe, &next);
		const char *t = trim_blanks(o, &n);

		if (n) {
			f = t;
			fl = n;
			fstart = o;
		}
	}
	if (!f)
		return 0;
	for (o = fstart; o < oe; line_span(o, oe, &o))
		olines++;
	for (size_t i = 0; i < fl; i++)
		want[(unsigned char)f[i]]++;
	memset(have, 0, sizeof(have));
	e = text + len;
	for (p = text; p < e; p = next) {
		size_t raw = line_span(p, e, &next), n = raw, k = 0, common = 0;
		const char *t = trim_blanks(p, &n);
		struct near cand;

		line++;
		while (k < n && k < fl && t[k] == f[k])
			k++;
		/* shown as it is, to be copied */
		cand.line = line;
		cand.text = p;
		cand.len = raw && p[raw - 1] == '\r' ? raw - 1 : raw;
		cand.score = k;
		if (k == fl && n == fl) {
			size_t run = lines_alike(fstart, oe, p, e);

			if (run > best_run) {
				best_run = run;
				best_at = line;
			}
		}
		near_keep(pre, &cand);
		if (pre[0].score)
			continue; /* the prefix ranking decides */
		for (size_t i = 0; i < n; i++)
			have[(unsigned char)t[i]]++;
		for (size_t i = 0; i < n; i++) {
			unsigned char b = (unsigned char)t[i];

			if (have[b]) {
				common += have[b] < want[b] ? have[b] : want[b];
				have[b] = 0;
			}
		}
		cand.score = common;
		near_keep(bag, &cand);
	}
	if (best_run == olines)
		return skitx_buf_printf(
		               m,
		               "\nold_string matches lines %zu-%zu only "
		               "when blanks at the ends of lines are "
		               "ignored: the indentation or the line "
		               "ends differ. Copy the text exactly as "
		               "read_file shows it.",
		               best_at, best_at + olines - 1)
		               ? SKIT_ENOMEM
		               : 0;
	if (best_run) {
		struct near diff = { 0 };

		p = text;
		for (size_t l = 1; l < best_at + best_run && p < e; l++)
			line_span(p, e, &p);
		diff.line = best_at + best_run;
		diff.text = p;
		diff.len = p < e ? line_span(p, e, &next) : 0;
		rc = skitx_buf_printf(m,
		                      "\nThe first %zu line(s) of old_string "
		                      "match from line %zu (blanks aside), but "
		                      "its next line differs from the file's:",
		                      best_run, best_at);
		return rc || put_line(m, &diff) ? SKIT_ENOMEM : 0;
	}
	if (!pre[0].score && !bag[0].score)
		return 0;
	rc = skitx_buf_puts(m, "\nThe closest line(s) to its first line:");
	for (size_t i = 0; !rc && i < HINT_LINES; i++) {
		const struct near *n = pre[0].score ? &pre[i] : &bag[i];

		if (n->score)
			rc = put_line(m, n);
	}
	return rc ? SKIT_ENOMEM : 0;
}

/* Declared in tools_int.h; the edit harness (fuzz/fuzz_edit.c) calls it
 * alone. */
int skit__edit_apply(const struct skit__edit *ed, const char *text, size_t len,
                     size_t cap, struct skitx_buf *res, struct skitx_buf *msg,
                     size_t *count, size_t *first_line)
{
	const char *p, *e = text + len, *hit;
	size_t n = 0, shown = 0, line = 1, from = 0, total;
	int rc = 0;

	*count = 0;
	skitx_buf_clear(res);
	/* edit_parse() refuses it first, with more words; without this an
	 * empty needle matches everywhere and the loops below never end. */
	if (!ed->old_len)
		return skitx_buf_puts(msg, "old_string is empty.") ? SKIT_ENOMEM
		                                                   : 1;
	hit = memmem(text, len, ed->old_s, ed->old_len);
	if (!hit) {
		rc = skitx_buf_puts(msg, "old_string was not found in the "
		                         "file.");
		if (!rc)
			rc = miss_hint(msg, text, len, ed->old_s, ed->old_len);
		return rc ? SKIT_ENOMEM : 1;
	}
	*first_line = line_at(text, 0, (size_t)(hit - text), 1);
	if (!ed->all) {
		/* Counted overlapping too: in "aaa", "aa" has no one place. */
		for (p = hit; p; n++)
			p = memmem(p + 1, (size_t)(e - p - 1), ed->old_s,
			           ed->old_len);
		if (n > 1) {
			rc = skitx_buf_printf(msg,
			                      "old_string occurs %zu times (at "
			                      "lines",
			                      n);
			for (p = hit; !rc && p && shown < AMBIG_SHOWN;
			     shown++) {
				line = line_at(text, from, (size_t)(p - text),
				               line);
				from = (size_t)(p - text);
				rc = skitx_buf_printf(msg, "%s %zu",
				                      shown ? "," : "", line);
				p = memmem(p + 1, (size_t)(e - p - 1),
				           ed->old_s, ed->old_len);
			}
			if (!rc)
				rc = skitx_buf_printf(
				        msg,
				        "%s); add the lines around the one "
				        "to change to make it unique, or set "
				        "replace_all to change every one.",
				        n > shown ? ", ..." : "");
			return rc ? SKIT_ENOMEM : 1;
		}
	}
	p = text;
	while (hit) {
		if (skitx_buf_add(res, p, (size_t)(hit - p)) ||
		    skitx_buf_add(res, ed->new_s, ed->new_len))
			return SKIT_ENOMEM;
		(*count)++;
		p = hit + ed->old_len;
		if (skitx_buf_len(res) > cap)
			break;
		hit = ed->all ? memmem(p, (size_t)(e - p), ed->old_s,
		                       ed->old_len)
		              : NULL;
	}
	total = skitx_buf_len(res) + (size_t)(e - p);
	if (total > cap || total < skitx_buf_len(res)) {
		skitx_buf_clear(res);
		return skitx_buf_printf(msg,
		                        "the result would be over %zu bytes, "
		                        "the most a file tool writes",
		                        cap)
		               ? SKIT_ENOMEM
		               : 1;
	}
	return skitx_buf_add(res, p, (size_t)(e - p)) ? SKIT_ENOMEM : 0;
}

/* The edits of the call: edit_file's arguments, or multi_edit's "edits"
 * array. Error results for the model on a bad shape. */
static int edit_parse(json_t *o, struct skit__edit *ed, const char *where,
                      struct skitx_buf *out, bool *is_error)
{
	json_t *jo = json_object_get(o, "old_string"),
	       *jn = json_object_get(o, "new_string"),
	       *ja = json_object_get(o, "replace_all");

	if (!json_is_string(jo) || !json_is_string(jn))
		return skit__tool_error(out, is_error,
		                        "%s\"old_string\" and \"new_string\" "
		                        "must be strings",
		                        where);
	if (ja && !json_is_boolean(ja))
		return skit__tool_error(out, is_error,
		                        "%s\"replace_all\" must be a boolean",
		                        where);
	ed->old_s = json_string_value(jo);
	ed->old_len = json_string_length(jo);
	ed->new_s = json_string_value(jn);
	ed->new_len = json_string_length(jn);
	ed->all = json_is_true(ja);
	if (!ed->old_len)
		return skit__tool_error(out, is_error,
		                        "%s\"old_string\" is empty; edits "
		                        "replace text that is there (to create "
		                        "a file, use write_file)",
		                        where);
	if (ed->old_len > WRITE_MAX || ed->new_len > WRITE_MAX)
		return skit__tool_error(out, is_error,
		                        "%s\"old_string\" and \"new_string\" "
		                        "hold at most %u bytes",
		                        where, WRITE_MAX);
	if (ed->old_len == ed->new_len &&
	    !memcmp(ed->old_s, ed->new_s, ed->old_len))
		return skit__tool_error(out, is_error,
		                        "%s\"old_string\" and \"new_string\" "
		                        "are the same; nothing would change",
		                        where);
	return 0;
}

/* Read the target (open at w) into `data`, at most `cap` bytes; its
 * stat into `st`. 0, or an error result; SKIT_ENOMEM. */
static int edit_read(struct wtarget *w, const char *path, size_t cap,
                     struct skitx_buf *data, struct stat *st,
                     struct skitx_buf *out, bool *is_error)
{
	int fd, rc;

	if (!w->existed)
		return skit__tool_error(out, is_error,
		                        "%.200s: no such file (to create one, "
		                        "use write_file)",
		                        path);
	fd = openat(w->dfd, w->base,
	            O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return skit__tool_error(out, is_error, "%.200s: %s", path,
		                        skit__open_failure(errno));
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		close(fd);
		return skit__tool_error(out, is_error,
		                        "%.200s: not a regular file; refused",
		                        path);
	}
	if ((uint64_t)st->st_size > cap) {
		close(fd);
		return skit__tool_error(out, is_error,
		                        "%.200s is %lld bytes; the file tools "
		                        "edit files of at most %zu",
		                        path, (long long)st->st_size, cap);
	}
	rc = skitx_fs_read_fd(fd, data, cap);
	close(fd);
	if (rc == SKIT_ENOMEM)
		return rc;
	if (rc < 0)
		return skit__tool_error(
		        out, is_error, "%.200s: cannot be read (%s)", path,
		        rc == SKIT_ETOOBIG ? "it grew too big" : "read error");
	if (memchr(skitx_buf_cstr(data), '\0',
	           skitx_buf_len(data) < 8192 ? skitx_buf_len(data) : 8192))
		return skit__tool_error(out, is_error,
		                        "%.200s: a binary file; the edit tools "
		                        "change text",
		                        path);
	return 0;
}

int skit__tool_edit(struct skit__tool_ctx *c, const char *tool, json_t *args,
                    size_t cap, struct skitx_buf *out, bool *is_error,
                    skit_error *err)
{
	bool multi = !strcmp(tool, "multi_edit");
	struct skit__edit one, *ed = &one;
	struct skitx_buf data, a, b, msg, lines;
	struct skitx_buf *cur = &data, *next = &a;
	size_t n = 1, total = 0;
	char before[65], after[65], where[48] = "";
	const char *path;
	struct wtarget w;
	struct stat st;
	json_t *list = NULL;
	int rc, e;

	path = file_path_arg(args, out, is_error, &rc);
	if (!path)
		return rc;
	if (multi) {
		list = json_object_get(args, "edits");
		n = json_is_array(list) ? json_array_size(list) : 0;
		if (!n || n > EDITS_MAX)
			return skit__tool_error(
			        out, is_error,
			        "\"edits\" must be an array of 1 "
			        "to %d edits",
			        EDITS_MAX);
		ed = skitx_calloc(n, sizeof(*ed));
		if (!ed)
			return skit__error_oom(err);
	}
	for (size_t i = 0; i < n; i++) {
		json_t *o = multi ? json_array_get(list, i) : args;

		if (multi)
			snprintf(where, sizeof(where),
			         "edit %zu of %zu: ", i + 1, n);
		rc = json_is_object(o)
		             ? edit_parse(o, &ed[i], where, out, is_error)
		             : skit__tool_error(out, is_error,
		                                "%san edit must be "
		                                "an object",
		                                where);
		if (rc || *is_error) {
			if (ed != &one)
				skitx_free(ed);
			return rc;
		}
	}
	skitx_buf_init(&data, 0);
	skitx_buf_init(&a, 0);
	skitx_buf_init(&b, 0);
	skitx_buf_init(&msg, 0);
	skitx_buf_init(&lines, 0);
	rc = target_open(c, tool, path, false, &w, out, is_error, err);
	if (rc || w.dfd < 0)
		goto out;
	rc = edit_read(&w, path, cap, &data, &st, out, is_error);
	if (rc || *is_error)
		goto out;
	skit__sha256_hex(skitx_buf_cstr(&data), skitx_buf_len(&data), before);
	/* Each edit reads the result of the one before and writes the other
	 * buffer; nothing reaches the file until every one applied. */
	for (size_t i = 0; i < n; i++) {
		size_t count, first;

		rc = skit__edit_apply(&ed[i], skitx_buf_cstr(cur),
		                      skitx_buf_len(cur), cap, next, &msg,
		                      &count, &first);
		if (rc == 1) {
			rc = 0;
			if (multi && i == 1)
				rc = skitx_buf_puts(&msg, "\n(Line numbers are "
				                          "those of the text "
				                          "after edit 1.)");
			else if (multi && i)
				rc = skitx_buf_printf(
				        &msg,
				        "\n(Line numbers are those "
				        "of the text after edits "
				        "1-%zu.)",
				        i);
			if (!rc && multi)
				rc = skitx_buf_puts(&msg, "\nNo edit was made: "
				                          "the file is "
				                          "unchanged.");
			if (!rc)
				rc = skit__tool_error(
				        out, is_error, "%.200s: %s%s", path,
				        where, skitx_buf_cstr(&msg));
			goto out;
		}
		if (rc)
			goto out;
		total += count;
		rc = skitx_buf_printf(&lines, "%sline %zu", i ? "; " : "",
		                      first);
		if (!rc && count > 1)
			rc = skitx_buf_printf(&lines, " and %zu more",
			                      count - 1);
		if (rc)
			goto out;
		cur = next;
		next = cur == &a ? &b : &a;
	}
	e = target_replace(&w, skitx_buf_cstr(cur), skitx_buf_len(cur), &st);
	if (e) {
		rc = skit__tool_error(out, is_error, "%.200s: %s", path,
		                      e < 0 ? "the file changed while it was "
		                              "edited; read it again"
		                            : strerror(e));
		goto out;
	}
	skit__sha256_hex(skitx_buf_cstr(cur), skitx_buf_len(cur), after);
	skit__tool_audit(
	        c, "file_edited",
	        json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:s, s:s}", "path",
	                  path, "tool", tool, "edits", (json_int_t)n,
	                  "replacements", (json_int_t)total, "bytes_before",
	                  (json_int_t)skitx_buf_len(&data), "bytes_after",
	                  (json_int_t)skitx_buf_len(cur), "sha256_before",
	                  before, "sha256_after", after));
	skit__tool_trace(c, SKIT_TRACE_TOOL, "%s %s (%zu replacement%s)", tool,
	                 path, total, total == 1 ? "" : "s");
	skitx_buf_clear(out);
	rc = skitx_buf_printf(out, "Edited %.200s: %zu replacement%s (%s); ",
	                      path, total, total == 1 ? "" : "s",
	                      skitx_buf_cstr(&lines));
	if (!rc)
		rc = skitx_buf_printf(out, "%zu bytes now.",
		                      skitx_buf_len(cur));
	if (rc)
		rc = skit__error_oom(err);
out:
	if (rc == SKIT_ENOMEM)
		rc = skit__error_oom(err);
	if (w.dfd >= 0 || w.copy)
		target_close(&w);
	skitx_buf_release(&data);
	skitx_buf_release(&a);
	skitx_buf_release(&b);
	skitx_buf_release(&msg);
	skitx_buf_release(&lines);
	if (ed != &one)
		skitx_free(ed);
	return rc;
}

/* ---- the provider of the project tools -------------------------------- */

/* clang-format off */
static const skit_tool_schema tool_read_file_schema = {
	"read_file",
	"Read a file of the project, by lines. Paths are relative to the "
	"project folder.",
	"{\"type\":\"object\",\"properties\":{"
	"\"path\":{\"type\":\"string\"},"
	"\"offset\":{\"type\":\"integer\",\"minimum\":1},"
	"\"limit\":{\"type\":\"integer\",\"minimum\":1}},"
	"\"required\":[\"path\"],\"additionalProperties\":false}"
};

static const skit_tool_schema tool_list_dir_schema = {
	"list_dir",
	"List a folder of the project (default: the project folder).",
	"{\"type\":\"object\",\"properties\":{"
	"\"path\":{\"type\":\"string\"}},"
	"\"additionalProperties\":false}"
};

static const skit_tool_schema tool_grep_schema = {
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

static const skit_tool_schema tool_write_file_schema = {
	"write_file",
	"Create or replace a file of the project with the given content "
	"(written atomically). Needs the user's approval.",
	"{\"type\":\"object\",\"properties\":{"
	"\"path\":{\"type\":\"string\"},"
	"\"content\":{\"type\":\"string\"}},"
	"\"required\":[\"path\",\"content\"],"
	"\"additionalProperties\":false}"
};

static const skit_tool_schema tool_edit_file_schema = {
	"edit_file",
	"Replace text in a file of the project: old_string must occur "
	"exactly once (give enough lines around it to make it unique) "
	"unless replace_all is true, and is replaced by new_string; copy "
	"old_string exactly as read_file shows the file. Written "
	"atomically. Needs the user's approval.",
	"{\"type\":\"object\",\"properties\":{"
	"\"path\":{\"type\":\"string\"},"
	"\"old_string\":{\"type\":\"string\"},"
	"\"new_string\":{\"type\":\"string\"},"
	"\"replace_all\":{\"type\":\"boolean\",\"description\":"
	"\"replace every occurrence; default false\"}},"
	"\"required\":[\"path\",\"old_string\",\"new_string\"],"
	"\"additionalProperties\":false}"
};

static const skit_tool_schema tool_multi_edit_schema = {
	"multi_edit",
	"Make several edits to one file of the project, in order, each on "
	"the result of the one before; all or nothing: if one edit fails, "
	"the file is left untouched. Each edit is as edit_file's. Needs "
	"the user's approval.",
	"{\"type\":\"object\",\"properties\":{"
	"\"path\":{\"type\":\"string\"},"
	"\"edits\":{\"type\":\"array\",\"minItems\":1,\"items\":{"
	"\"type\":\"object\",\"properties\":{"
	"\"old_string\":{\"type\":\"string\"},"
	"\"new_string\":{\"type\":\"string\"},"
	"\"replace_all\":{\"type\":\"boolean\"}},"
	"\"required\":[\"old_string\",\"new_string\"],"
	"\"additionalProperties\":false}}},"
	"\"required\":[\"path\",\"edits\"],\"additionalProperties\":false}"
};

static const skit_tool_schema tool_glob_schema = {
	"glob",
	"Find the project's files whose path matches a glob: ** any number "
	"of folders, *, ? and [...] within a name (e.g. src/**/*.c); newest "
	"first. Names starting with a dot match only a pattern component "
	"starting with one; .git and symbolic links are skipped.",
	"{\"type\":\"object\",\"properties\":{"
	"\"pattern\":{\"type\":\"string\"},"
	"\"path\":{\"type\":\"string\",\"description\":\"the folder "
	"to search; default: the project\"}},"
	"\"required\":[\"pattern\"],\"additionalProperties\":false}"
};

static const skit_tool_schema tool_shell_schema = {
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

/* In the order the model sees them; all gated by the policy. */
static size_t project_list(void *self, const struct skit__tool_ctx *c,
                           struct skit__tool_def *out, size_t max)
{
	static const struct {
		const skit_tool_schema *schema;
		skit_risk risk;
	} tools[] = {
		{ &tool_read_file_schema, SKIT_RISK_READ },
		{ &tool_list_dir_schema, SKIT_RISK_READ },
		{ &tool_grep_schema, SKIT_RISK_READ },
		{ &tool_glob_schema, SKIT_RISK_READ },
		{ &tool_write_file_schema, SKIT_RISK_WRITE },
		{ &tool_edit_file_schema, SKIT_RISK_WRITE },
		{ &tool_multi_edit_schema, SKIT_RISK_WRITE },
		{ &tool_shell_schema, SKIT_RISK_EXECUTE },
	};
	size_t n = 0;

	(void)self;
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(tools) && n < max; i++) {
		out[n].schema = *tools[i].schema;
		out[n].risk = tools[i].risk;
		out[n].gate = SKIT__GATE_BUILTIN;
		out[n].offered = c->file_tools;
		out[n].hint = "";
		n++;
	}
	return n;
}

/* What the policy matches: the command line of shell, else the path (the
 * project itself, ".", for a walk without one). */
static int project_target(void *self, const char *tool, json_t *args,
                          struct skitx_buf *t, const char **skill)
{
	const char *v;

	(void)self;
	*skill = NULL;
	if (!strcmp(tool, "shell")) {
		v = skit__str_arg(args, "command");
		return skitx_buf_puts(t, v ? v : "") ? SKIT_ENOMEM : 0;
	}
	v = skit__str_arg(args, "path");
	if (!v)
		v = strcmp(tool, "list_dir") && strcmp(tool, "grep") &&
		                    strcmp(tool, "glob")
		            ? ""
		            : ".";
	return skitx_buf_puts(t, v) ? SKIT_ENOMEM : 0;
}

static int project_call(void *self, struct skit__tool_ctx *c, const char *tool,
                        json_t *args, struct skitx_buf *out, bool *is_error,
                        skit_error *err)
{
	(void)self;
	if (!strcmp(tool, "read_file"))
		return tool_read_file(c, args, out, is_error, err);
	if (!strcmp(tool, "list_dir"))
		return tool_list_dir(c, args, out, is_error, err);
	if (!strcmp(tool, "grep"))
		return tool_grep(c, args, out, is_error, err);
	if (!strcmp(tool, "glob"))
		return tool_glob(c, args, out, is_error, err);
	if (!strcmp(tool, "write_file"))
		return tool_write_file(c, args, out, is_error, err);
	if (!strcmp(tool, "edit_file") || !strcmp(tool, "multi_edit"))
		return skit__tool_edit(c, tool, args, WRITE_MAX, out, is_error,
		                       err);
	if (!strcmp(tool, "shell"))
		return skit__tool_shell(c, args, out, is_error, err);
	return skit__tool_error(out, is_error, "unknown tool '%.64s'", tool);
}

const struct skit__tool_provider_ops skit__project_tools = {
	"project", project_list, project_target, project_call, NULL,
};
